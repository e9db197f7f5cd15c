"""The shape a stored run result must have before anybody reads a number from it.

A cached result is a JSON file that may come from another machine (a warmed cache handed over
for a class), so it is data, not trusted code output: every field must have its type and range,
and the privacy figures must keep the truth rule (``0 <= epsilon_spent <= epsilon``). A result
that breaks any of this is damage, refused with the first problem named.
"""

import math
from collections.abc import Callable, Mapping
from typing import Any

from labeldp_core.errors import InvalidInputError

__all__ = ["FIELD_CHECKS", "ResultSchemaError", "check_result_dict"]


class ResultSchemaError(InvalidInputError):
    """A stored result whose fields do not have the types and ranges of a run result."""


def _text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 200


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _non_negative(value: Any) -> bool:
    return _number(value) and value >= 0


def _fraction(value: Any) -> bool:
    return _number(value) and 0 <= value <= 1


def _settings(value: Any) -> bool:
    scalars = str | int | float | bool
    return isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, scalars) for k, v in value.items()
    )


def _json_object(value: Any) -> bool:
    return isinstance(value, Mapping) and all(isinstance(k, str) for k in value)


_UNITS = ("label", "example", "output")

#: Per field of :class:`~labeldp_core.engine.spec.RunResult`: whether it may be absent
#: (None), the check of its value, and the value's description for the error.
FIELD_CHECKS: dict[str, tuple[bool, Callable[[Any], bool], str]] = {
    "mechanism": (False, _text, "a mechanism id"),
    "dataset": (False, _text, "a dataset name"),
    "seed": (False, _count, "a whole number >= 0"),
    "epsilon": (False, lambda v: _number(v) and v > 0, "a finite number > 0"),
    "epsilon_spent": (False, _non_negative, "a finite number >= 0"),
    "delta": (False, lambda v: _number(v) and 0 <= v < 1, "a number in [0, 1)"),
    "privacy_unit": (False, lambda v: v in _UNITS, "label, example or output"),
    "n_train": (False, _count, "a whole number >= 0"),
    "n_test": (False, _count, "a whole number >= 0"),
    "num_classes": (False, _count, "a whole number >= 0"),
    "elapsed_s": (False, _non_negative, "a finite number >= 0"),
    "cached": (False, lambda v: isinstance(v, bool), "true or false"),
    "epochs": (False, _count, "a whole number >= 0"),
    "settings": (False, _settings, "an object of names to numbers, text or true/false"),
    "details": (False, _json_object, "an object"),
    "flip_rate": (True, _fraction, "a number in [0, 1]"),
    "label_accuracy": (True, _fraction, "a number in [0, 1]"),
    "test_accuracy": (True, _fraction, "a number in [0, 1]"),
    "test_mse": (True, _non_negative, "a finite number >= 0"),
    "baseline_test_accuracy": (True, _fraction, "a number in [0, 1]"),
    "baseline_test_mse": (True, _non_negative, "a finite number >= 0"),
    "diagnostics": (True, _json_object, "an object"),
    "threat_model": (True, _json_object, "an object"),
}


def check_result_dict(data: Mapping[str, Any]) -> None:
    """Refuse ``data`` unless every field of a run result is there with its type and range.

    Raises:
        ResultSchemaError: naming the first field that is missing or wrong, or an
            ``epsilon_spent`` above ``epsilon``.
    """
    if not isinstance(data, Mapping):
        raise ResultSchemaError(f"a stored result must be an object, got {type(data).__name__}")
    for name, (optional, valid, expected) in FIELD_CHECKS.items():
        value = data.get(name)
        if value is None and optional:
            continue
        if name not in data:
            raise ResultSchemaError(f"a stored result has no {name}")
        if not valid(value):
            shown = repr(value)[:60]
            raise ResultSchemaError(f"a stored result's {name} must be {expected}, got {shown}")
    if data["epsilon_spent"] > data["epsilon"]:
        raise ResultSchemaError(
            f"a stored result spends epsilon {data['epsilon_spent']!r}, more than the "
            f"{data['epsilon']!r} it was asked for: not a result this code writes"
        )
