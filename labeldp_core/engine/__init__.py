"""The experiment engine's base: what describes a run, and the blocks a release is made of.

Below every mechanism family: each family's runner takes a
:class:`~labeldp_core.engine.spec.RunConfig` and returns an
:class:`~labeldp_core.engine.spec.Outcome`. Here: what describes a run and its result (config,
spec, result schema, tuning, diagnostics, progress), the context a runner works with (its
training, consensus retraining included) and what the engine caches for it (the clean baseline,
the public encoder's embeddings, each setting's timings); in :mod:`labeldp_core.engine.blocks`,
the building blocks several families' releases are made of (the noise setting and its draws, the
label release's tail, the imbalanced private set, the Poisson batch). The registry and the
runner that compose the families sit above, in :mod:`labeldp_core.experiments`.
"""
