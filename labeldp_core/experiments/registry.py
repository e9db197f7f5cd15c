"""Every mechanism the engine can run, by id: derived from the registered families."""

from labeldp_core.engine.spec import MechanismSpec
from labeldp_core.errors import InvalidInputError
from labeldp_core.registry import MECHANISMS

__all__ = ["MECHANISMS", "mechanism_spec"]


def mechanism_spec(mechanism: str) -> MechanismSpec:
    """The spec of ``mechanism`` or a clear error listing the known ids."""
    try:
        return MECHANISMS[mechanism]
    except (KeyError, TypeError):  # TypeError: not even hashable, e.g. a list
        known = ", ".join(MECHANISMS)
        raise InvalidInputError(
            f"unknown mechanism '{mechanism}'; choose one of: {known}"
        ) from None
