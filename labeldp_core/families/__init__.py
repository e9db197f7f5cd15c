"""Mechanism families, one folder each; :mod:`labeldp_core.registry` registers them.

Each folder holds a family's release, experiment runner(s), plots and audit cases, and declares
itself with a :class:`~labeldp_core.families.family.Family` in its ``__init__.py``. The shared
base (noise plans and samplers, accounting, data, training, the engine's config and result) is
below the families; the registry and what composes all families are above them.
"""
