"""The registry of audit cases: each mechanism's release step on neighbouring inputs, and controls.

A case builder takes the claimed epsilon and returns an :class:`AuditCase`. ``CASES`` holds one
per mechanism id, ``VARIANTS`` further real cases of the same mechanism (PATE's GNMax next to
LNMax), and ``CONTROLS`` a deliberately broken version that must be flagged as violating its
claim. The cases themselves live in :mod:`label_cases` (one label or output vector changes)
and :mod:`dataset_cases` (one teacher or one example changes).
"""

from collections.abc import Callable

from labeldp_core.audit.dataset_cases import (
    gnmax_case,
    lnmax_case,
    lnmax_sensitivity_one_control,
    lnmax_truncated_noise_control,
)
from labeldp_core.audit.dppl_cases import (
    dppl_mean_case,
    dppl_mean_old_calibration_control,
    dppl_public_case,
    dppl_public_replace_one_control,
    dppl_topk_case,
    dppl_topk_order_case,
    dppl_topk_utility_order_control,
)
from labeldp_core.audit.dpsgd_case import dpsgd_case, dpsgd_clip_norm_control
from labeldp_core.audit.engine import AuditCase
from labeldp_core.audit.label_cases import (
    alibi_case,
    laplace_case,
    laplace_regression_case,
    laplace_regression_sensitivity_one_control,
    laplace_sensitivity_one_control,
    rr_bins_case,
    rr_case,
    rr_overspending_control,
    rr_prior_case,
    rr_prior_overspending_control,
    rr_prior_tutorial_control,
    softmax_laplace_case,
    softmax_sensitivity_one_control,
)
from labeldp_core.errors import InvalidInputError
from labeldp_core.validation import check_epsilon

__all__ = ["CASES", "CONTROLS", "VARIANTS", "CaseBuilder", "audit_cases"]

CaseBuilder = Callable[[float], AuditCase]

#: Audit case builders by mechanism id.
CASES: dict[str, CaseBuilder] = {
    "rr": rr_case,
    "rr-prior": rr_prior_case,
    "laplace": laplace_case,
    "laplace-regression": laplace_regression_case,
    "rr-bins": rr_bins_case,
    "alibi": alibi_case,
    "softmax-laplace": softmax_laplace_case,
    "pate": lnmax_case,
    "dppl-mean": dppl_mean_case,
    "dppl-public": dppl_public_case,
    "dppl-topk": dppl_topk_case,
    "dpsgd": dpsgd_case,
}
#: Further real cases audited with a mechanism, by mechanism id.
VARIANTS: dict[str, tuple[CaseBuilder, ...]] = {
    "pate": (gnmax_case,),
    "dppl-topk": (dppl_topk_order_case,),
}
#: Negative controls by the mechanism id they accompany.
CONTROLS: dict[str, tuple[CaseBuilder, ...]] = {
    "rr": (rr_overspending_control,),
    "rr-prior": (rr_prior_overspending_control, rr_prior_tutorial_control),
    "laplace": (laplace_sensitivity_one_control,),
    "laplace-regression": (laplace_regression_sensitivity_one_control,),
    "softmax-laplace": (softmax_sensitivity_one_control,),
    "pate": (lnmax_sensitivity_one_control, lnmax_truncated_noise_control),
    "dppl-mean": (dppl_mean_old_calibration_control,),
    "dppl-public": (dppl_public_replace_one_control,),
    "dppl-topk": (dppl_topk_utility_order_control,),
    "dpsgd": (dpsgd_clip_norm_control,),
}


def audit_cases(mechanism: str, epsilon: float) -> list[AuditCase]:
    """The cases of ``mechanism`` (its case, then any variants) followed by its controls."""
    epsilon = check_epsilon(epsilon)
    if mechanism not in CASES:
        known = ", ".join(CASES)
        raise InvalidInputError(f"no audit for mechanism '{mechanism}'; audits exist for: {known}")
    builders = [CASES[mechanism], *VARIANTS.get(mechanism, ()), *CONTROLS.get(mechanism, ())]
    return [build(epsilon) for build in builders]
