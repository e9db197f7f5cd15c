"""RR-with-prior's audit case and its controls: one label 0 vs 1 under a fixed prior.

The shared reasoning (scores, controls) is in :mod:`labeldp_core.release_audit.pairs`.
"""

import numpy as np

from labeldp_core.families.rr_prior.release import rr_with_prior
from labeldp_core.release_audit.engine import AuditCase
from labeldp_core.release_audit.pairs import AUDIT_CLASSES, labels_case, overspent

__all__ = [
    "RR_PRIOR",
    "rr_prior_case",
    "rr_prior_overspending_control",
    "rr_prior_tutorial_control",
]

#: A fixed prior over the 10 classes with labels 0 and 1 tied on top: at every epsilon the top-k*
#: set keeps both (two members beat one as soon as ε > 0), so the release of 0 or 1 is k*-ary RR
#: inside the set, the tight pair.
RR_PRIOR = np.array([0.35, 0.35, 0.1, 0.05, 0.05, 0.04, 0.03, 0.01, 0.01, 0.01])


def rr_prior_case(epsilon: float) -> AuditCase:
    """RR-with-prior with the fixed :data:`RR_PRIOR` for every copy; labels 0 vs 1.

    Both labels are the prior's most likely ones, tied, so they are in the top-k* set at every
    epsilon; there the release is k*-ary RR and the event 'released 0' has the ratio e^ε exactly.
    """

    def release(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return rr_with_prior(
            labels, np.broadcast_to(RR_PRIOR, (labels.size, AUDIT_CLASSES)), epsilon, rng
        )

    return labels_case("rr-prior", release, epsilon, "one label: 0 vs 1 (replace-one), fixed prior")


def rr_prior_overspending_control(epsilon: float) -> AuditCase:
    """RR-with-prior whose RR step runs at 2ε while reporting ε: must be flagged.

    The slip the budget split guards against: the prior took half of a 2ε budget and the RR step
    was run at the whole 2ε instead of the ε left, so the release spends twice what it reports.
    """

    def release(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        priors = np.broadcast_to(RR_PRIOR, (labels.size, AUDIT_CLASSES))
        return rr_with_prior(labels, priors, overspent(epsilon, 2), rng)

    return labels_case(
        "rr-prior (control: RR step at 2ε, reports ε)",
        release,
        epsilon,
        "one label: 0 vs 1 (replace-one), fixed prior",
        is_control=True,
    )


def rr_prior_tutorial_control(epsilon: float) -> AuditCase:
    """A seed tutorial's slip: a 0.1ε prior, then RR at 1.95ε, claiming ε (really 2.05ε).

    The prior's share is not what the audit sees (its histogram is not in the release audited
    here); the RR step alone already spends 1.95ε and must be flagged.
    """

    def release(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        priors = np.broadcast_to(RR_PRIOR, (labels.size, AUDIT_CLASSES))
        return rr_with_prior(labels, priors, overspent(epsilon, 1.95), rng)

    return labels_case(
        "rr-prior (control: RR step at 1.95ε after a 0.1ε prior, claims ε)",
        release,
        epsilon,
        "one label: 0 vs 1 (replace-one), fixed prior",
        is_control=True,
    )
