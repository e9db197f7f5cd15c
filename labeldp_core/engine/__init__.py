"""The experiment engine's base: a run's config, context, spec and result, and the noise hand-off.

Below every mechanism family: each family's runner takes a
:class:`~labeldp_core.engine.spec.RunConfig` and returns an
:class:`~labeldp_core.engine.spec.Outcome`. The registry and the runner that compose the families
sit above, in :mod:`labeldp_core.experiments`.
"""
