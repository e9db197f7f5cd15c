"""A model-audit ceiling that is also a guarantee of the model: randomized response it trains on.

A family's :class:`~labeldp_core.families.family.AuditCeiling` bounds what any canary guess can
show (PATE's: the best test of one teacher's vote under noise). Where the model trains on exactly
K-ary randomized response at the ceiling's ε (Laplace's argmax labels), that ε is more: the
model is post-processing of ε-label-DP labels, so it *is* that private, and the canary audit
tests it against that tighter claim (:func:`labeldp_core.model_audit.ceiling.audited_claim`).

Its own module, not a field of ``AuditCeiling``: every family's cached results are keyed by the
code they import, and ``families/family.py`` is imported by all of them.
"""

from dataclasses import dataclass

from labeldp_core.families.family import AuditCeiling

__all__ = ["RandomizedResponseCeiling"]


@dataclass(frozen=True)
class RandomizedResponseCeiling(AuditCeiling):
    """A ceiling whose ``most_provable`` is the exact ε of the randomized response trained on."""
