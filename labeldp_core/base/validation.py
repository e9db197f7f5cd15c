"""Checks shared by every public entry point, raising :class:`InvalidInputError` with the fix."""

import math
from collections.abc import Iterable
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from labeldp_core.errors import InvalidInputError

__all__ = [
    "MAX_EPSILON",
    "check_epsilon",
    "check_labels",
    "check_list",
    "check_num_classes",
    "check_output_path",
    "check_positive",
    "check_probability",
    "check_real_array",
    "check_rng",
    "check_seed",
    "check_vote_counts",
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


def check_real_array(values: object, name: str, *, finite: bool = False) -> np.ndarray:
    """Return ``values`` as float64 after checking it holds real numbers (finite ones if asked).

    Strings, booleans, complex numbers and objects are refused: NumPy would fail on them with an
    unrelated message, or silently turn booleans into 0 and 1.
    """
    array = np.asarray(values)
    if array.size and not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise InvalidInputError(f"{name} must hold real numbers, got dtype {array.dtype}")
    array = array.astype(np.float64, copy=False)
    if finite and not np.all(np.isfinite(array)):
        raise InvalidInputError(f"{name} must be finite numbers (found NaN or infinity)")
    return array


def check_list(values: object, name: str, example: str) -> list:
    """Return ``values`` (any iterable but a string) as a list after checking it is non-empty."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise InvalidInputError(f"{name} must be a list, e.g. {example}, got {values!r}")
    items = list(values)
    if not items:
        raise InvalidInputError(f"{name} must not be empty; give at least one, e.g. {example}")
    return items


def check_seed(seed: object) -> int:
    """Return ``seed`` after checking it is a whole number in 0..2^32-1 (what NumPy accepts)."""
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= seed < 2**32:
        raise InvalidInputError(f"seed must be a whole number in 0..2^32-1, got {seed!r}")
    return int(seed)


def check_rng(rng: object) -> np.random.Generator:
    """Return ``rng`` after checking it is a NumPy Generator (a seed is not one)."""
    if not isinstance(rng, np.random.Generator):
        raise InvalidInputError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}; "
            f"pass numpy.random.default_rng(seed)"
        )
    return rng


def check_output_path(path: str, option: str) -> Path:
    """Return ``path`` after checking a file can be written there (its folder exists)."""
    target = Path(path)
    if target.is_dir():
        raise InvalidInputError(f"{option} {path} is a folder; give the path of a file to write")
    if not target.parent.is_dir():
        raise InvalidInputError(
            f"{option} {path}: the folder {target.parent} does not exist; create it first "
            f"or write to an existing folder"
        )
    return target


def check_vote_counts(vote_counts: object) -> np.ndarray:
    """Return vote counts as a float (queries, K) array after checking shape, finiteness, sign."""
    counts = np.asarray(vote_counts)
    if counts.ndim != 2 or counts.shape[0] == 0 or counts.shape[1] < 2:
        raise InvalidInputError(
            f"vote_counts must be a (queries, K) array with K >= 2 and at least one query, "
            f"got shape {counts.shape}"
        )
    if not np.issubdtype(counts.dtype, np.number) or not np.all(np.isfinite(counts)):
        raise InvalidInputError("vote_counts must hold finite numbers")
    if counts.min() < 0:
        raise InvalidInputError("vote_counts must be non-negative (they count votes)")
    return counts.astype(np.float64)
