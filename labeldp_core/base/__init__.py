"""The floor every layer stands on: modules that import nothing of the package but its errors.

A page, the command line, the choice of ε, the cache and the services all read from here, so a
module placed here never imports upward. :mod:`~labeldp_core.base.numbers` gives numbers as a
reader sees them, :mod:`~labeldp_core.base.validation` the checks of every public entry point, and
:mod:`~labeldp_core.base.threads` the torch threads of every training (a cache key holds them).
"""
