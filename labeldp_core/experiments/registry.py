"""Every mechanism the engine can run, by id."""

from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import dpsgd, rr
from labeldp_core.experiments.spec import MechanismSpec

__all__ = ["MECHANISMS", "mechanism_spec"]

MECHANISMS: dict[str, MechanismSpec] = {spec.id: spec for spec in (rr.SPEC, dpsgd.SPEC)}


def mechanism_spec(mechanism: str) -> MechanismSpec:
    """The spec of ``mechanism`` or a clear error listing the known ids."""
    try:
        return MECHANISMS[mechanism]
    except KeyError:
        known = ", ".join(MECHANISMS)
        raise InvalidInputError(
            f"unknown mechanism '{mechanism}'; choose one of: {known}"
        ) from None
