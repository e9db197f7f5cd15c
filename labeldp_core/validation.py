"""Checks shared by every public entry point, raising :class:`InvalidInputError` with the fix."""

import math
from numbers import Integral, Real

import numpy as np

from labeldp_core.errors import InvalidInputError

__all__ = [
    "MAX_EPSILON",
    "check_epsilon",
    "check_labels",
    "check_num_classes",
    "check_positive",
    "check_probability",
]

#: Beyond this an epsilon promises nothing a reader could use (e^100 is about 10^43).
MAX_EPSILON = 100.0


def check_epsilon(epsilon: object, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float after checking it is a finite number in (0, MAX_EPSILON]."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise InvalidInputError(f"{name} must be a number, got {epsilon!r}")
    value = float(epsilon)
    if math.isnan(value) or math.isinf(value):
        raise InvalidInputError(f"{name} must be a finite number, got {value}; use e.g. {name}=1")
    if value <= 0:
        raise InvalidInputError(
            f"{name} must be greater than 0, got {value}; smaller values mean more privacy, "
            f"so try {name}=0.1 for strong privacy or {name}=1 as a start"
        )
    if value > MAX_EPSILON:
        raise InvalidInputError(
            f"{name}={value} is too large to mean anything (the bound e^{name} overflows any "
            f"useful reading); use a value in (0, {MAX_EPSILON:g}]"
        )
    return value


def check_positive(value: object, name: str, *, integer: bool = False) -> float:
    """Return ``value`` after checking that it is a finite number (an integer if asked) above 0."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise InvalidInputError(f"{name} must be a number, got {value!r}")
    if integer and not isinstance(value, Integral):
        raise InvalidInputError(f"{name} must be a whole number, got {value!r}")
    if not math.isfinite(float(value)) or value <= 0:
        raise InvalidInputError(f"{name} must be a finite number greater than 0, got {value}")
    return value


def check_probability(value: object, name: str, *, open_right: bool = True) -> float:
    """Return ``value`` after checking it lies in (0, 1), or in (0, 1] if not ``open_right``."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise InvalidInputError(f"{name} must be a finite number, got {value!r}")
    upper_ok = value < 1 if open_right else value <= 1
    if not (value > 0 and upper_ok):
        bracket = ")" if open_right else "]"
        raise InvalidInputError(f"{name} must lie in (0, 1{bracket}, got {value}")
    return float(value)


def check_num_classes(num_classes: object) -> int:
    """Return the number of classes K after checking that it is an integer of at least 2."""
    if isinstance(num_classes, bool) or not isinstance(num_classes, Integral):
        raise InvalidInputError(f"num_classes must be a whole number, got {num_classes!r}")
    if num_classes < 2:
        raise InvalidInputError(
            f"num_classes must be at least 2 (with one class there is nothing to hide), "
            f"got {num_classes}"
        )
    return int(num_classes)


def check_labels(labels: object, num_classes: int) -> np.ndarray:
    """Return ``labels`` as a 1-D int64 array after checking it is non-empty and in [0, K)."""
    array = np.asarray(labels)
    if array.ndim != 1:
        raise InvalidInputError(f"labels must be a 1-D array, got shape {array.shape}")
    if array.size == 0:
        raise InvalidInputError("labels is empty; pass at least one label")
    if not np.issubdtype(array.dtype, np.integer):
        if not np.issubdtype(array.dtype, np.floating) or not np.all(np.isfinite(array)):
            raise InvalidInputError(f"labels must be integers, got dtype {array.dtype}")
        if not np.all(array == np.round(array)):
            raise InvalidInputError("labels must be whole numbers (class indices 0..K-1)")
    low, high = array.min(), array.max()
    if low < 0 or high >= num_classes:
        raise InvalidInputError(
            f"labels must lie in 0..{num_classes - 1} for num_classes={num_classes}, "
            f"found values from {low:g} to {high:g}; map them to class indices first"
        )
    return array.astype(np.int64, copy=False)
