"""Every mechanism the engine can run, by id."""

from labeldp_core.engine.spec import MechanismSpec
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import (
    alibi,
    dppl,
    dpsgd,
    laplace,
    laplace_regression,
    lp_2st,
    pate,
    rr,
    rr_bins,
    rr_prior,
    softmax_laplace,
)

__all__ = ["MECHANISMS", "mechanism_spec"]

MECHANISMS: dict[str, MechanismSpec] = {
    spec.id: spec
    for spec in (
        rr.SPEC,
        rr_prior.SPEC,
        lp_2st.SPEC,
        laplace.SPEC,
        laplace_regression.SPEC,
        rr_bins.SPEC,
        alibi.SPEC,
        softmax_laplace.SPEC,
        pate.SPEC,
        dpsgd.SPEC,
        dppl.MEAN_SPEC,
        dppl.PUBLIC_SPEC,
        dppl.TOPK_SPEC,
    )
}


def mechanism_spec(mechanism: str) -> MechanismSpec:
    """The spec of ``mechanism`` or a clear error listing the known ids."""
    try:
        return MECHANISMS[mechanism]
    except (KeyError, TypeError):  # TypeError: not even hashable, e.g. a list
        known = ", ".join(MECHANISMS)
        raise InvalidInputError(
            f"unknown mechanism '{mechanism}'; choose one of: {known}"
        ) from None
