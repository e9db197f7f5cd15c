"""The floor every layer stands on: modules that import nothing else of the package.

A page, the command line, the choice of ε and the services all read from here, so a module placed
here never imports upward. :mod:`~labeldp_core.base.numbers` gives numbers as a reader sees them.
"""
