"""The bad-input matrix's vocabulary: a row per public function, families of bad values.

Every public function gets a :class:`Row`: keyword arguments with which it succeeds, and next to
them the bad values it must refuse, each with a fragment of the expected message. The tables are
one per layer: ``test_mechanism_inputs.py``, ``test_accounting_inputs.py``,
``test_engine_inputs.py`` (experiments, data, audit) and ``test_cli_inputs.py`` (the command line);
``test_input_matrix.py`` checks that every public function has a row.

Python entry points must raise :class:`InvalidInputError` (a ``LabelDPError`` and a ``ValueError``)
with a one-line message that names the problem. The families below (``epsilons``, ``labels``,
``priors``, ...) keep the kinds of bad input the same everywhere: epsilon <= 0, NaN, inf, absurdly
large; labels out of range; K = 1; empty data; mismatched shapes; unknown names; priors that do not
sum to one; wrong dtypes; counts <= 0.
"""

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pytest

from labeldp_core.errors import InvalidInputError

NAN, INF = math.nan, math.inf
RNG = np.random.default_rng(0)


@dataclass(frozen=True)
class Bad:
    """One bad argument: its name, its value, a fragment the message must contain, an id."""

    arg: str
    value: object
    match: str
    label: str


@dataclass(frozen=True)
class Row:
    """A public function, keyword arguments with which it succeeds, and the bad values it refuses.

    ``try_valid`` is False where the valid call trains a model (too slow here; ``lookup`` checks
    the same config).
    """

    function: Callable[..., object]
    valid: Mapping[str, object]
    bad: list[Bad] = field(default_factory=list)
    try_valid: bool = True

    @property
    def name(self) -> str:
        return self.function.__name__


# --- families of bad values ----------------------------------------------------------------------


def epsilons(arg: str = "epsilon") -> list[Bad]:
    """Bad privacy budgets, as :func:`labeldp_core.base.validation.check_epsilon` refuses them."""
    return [
        Bad(arg, 0.0, "greater than 0", "zero"),
        Bad(arg, -1.0, "greater than 0", "negative"),
        Bad(arg, NAN, "finite", "nan"),
        Bad(arg, INF, "finite", "inf"),
        Bad(arg, -INF, "finite", "-inf"),
        Bad(arg, 1e9, "too large", "huge"),
        Bad(arg, "1", "must be a number", "str"),
        Bad(arg, None, "must be a number", "none"),
        Bad(arg, True, "must be a number", "bool"),
    ]


def positives(arg: str, name: str | None = None) -> list[Bad]:
    """Bad scales, sensitivities and other finite numbers that must be above 0."""
    name = name or arg
    return [
        Bad(arg, 0.0, f"{name} must be a finite number greater than 0", "zero"),
        Bad(arg, -1.0, f"{name} must be a finite number greater than 0", "negative"),
        Bad(arg, NAN, f"{name} must be a finite number greater than 0", "nan"),
        Bad(arg, INF, f"{name} must be a finite number greater than 0", "inf"),
        Bad(arg, "1", f"{name} must be a number", "str"),
        Bad(arg, None, f"{name} must be a number", "none"),
    ]


def counts(arg: str, name: str | None = None) -> list[Bad]:
    """Bad counts of things (queries, steps, trials, k): whole numbers above 0."""
    name = name or arg
    return [
        Bad(arg, 0, f"{name} must be a finite number greater than 0", "zero"),
        Bad(arg, -3, f"{name} must be a finite number greater than 0", "negative"),
        Bad(arg, 2.5, f"{name} must be a whole number", "fraction"),
        Bad(arg, "3", f"{name} must be a number", "str"),
    ]


def probabilities(arg: str, name: str | None = None) -> list[Bad]:
    """Bad probabilities in (0, 1): delta, beta, shares."""
    name = name or arg
    return [
        Bad(arg, 0.0, f"{name} must lie in (0, 1)", "zero"),
        Bad(arg, 1.0, f"{name} must lie in (0, 1)", "one"),
        Bad(arg, 1.5, f"{name} must lie in (0, 1)", "above-one"),
        Bad(arg, -0.1, f"{name} must lie in (0, 1)", "negative"),
        Bad(arg, NAN, f"{name} must be a finite number", "nan"),
        Bad(arg, "0.5", f"{name} must be a finite number", "str"),
    ]


def num_classes(arg: str = "num_classes") -> list[Bad]:
    """Bad numbers of classes: K = 1 hides nothing; K must be a whole number."""
    return [
        Bad(arg, 1, "must be at least 2", "K=1"),
        Bad(arg, 0, "must be at least 2", "K=0"),
        Bad(arg, 2.5, "num_classes must be a whole number", "fraction"),
        Bad(arg, "3", "num_classes must be a whole number", "str"),
    ]


def labels(arg: str = "labels", size: int = 4) -> list[Bad]:
    """Bad class labels for K = 3, ``size`` of them where the length matters."""
    return [
        Bad(arg, [0, 1, 3, 1][:size] + [1] * (size - 4), "must lie in 0..2", "out-of-range"),
        Bad(arg, [-1, 1, 2, 1][:size] + [1] * (size - 4), "must lie in 0..2", "negative"),
        Bad(arg, np.array([], dtype=np.int64), "empty", "empty"),
        Bad(arg, [[0, 1], [1, 2]], "1-D", "2-D"),
        Bad(arg, [0.5, 1.0, 2.0, 1.0][:size], "whole numbers", "fractions"),
        Bad(arg, ["a", "b", "c", "d"][:size], "must be integers", "strings"),
        Bad(arg, [NAN, 1.0, 2.0, 1.0][:size], "must be integers", "nan"),
        Bad(arg, [True, False, True, False][:size], "must be integers", "bools"),
    ]


def vectors(arg: str, name: str = "noisy vectors") -> list[Bad]:
    """Bad (n, K) float arrays: wrong shape, K = 1, empty, non-finite, not numbers."""
    return [
        Bad(arg, [0.1, 0.9], "shape (n, K >= 2)", "1-D"),
        Bad(arg, np.zeros((0, 3)), "shape (n, K >= 2)", "empty"),
        Bad(arg, [[1.0], [0.0]], "shape (n, K >= 2)", "K=1"),
        Bad(arg, [[NAN, 0.5, 0.5]], f"{name} must be finite", "nan"),
        Bad(arg, [[INF, 0.5, 0.5]], f"{name} must be finite", "inf"),
        Bad(arg, [["a", "b", "c"]], "must hold real numbers", "strings"),
    ]


def priors(arg: str = "priors", rows: int = 4) -> list[Bad]:
    """Bad (n, K) prior rows for ``rows`` examples and K = 3."""
    uniform = np.full((rows, 3), 1 / 3)
    short = uniform.copy()
    short[0] = [0.5, 0.2, 0.1]
    negative = uniform.copy()
    negative[0] = [1.2, -0.1, -0.1]
    nan = uniform.copy()
    nan[0, 0] = NAN
    return [
        Bad(arg, short, "must sum to 1", "sum-below-one"),
        Bad(arg, uniform * 2, "must sum to 1", "sum-above-one"),
        Bad(arg, negative, "non-negative", "negative"),
        Bad(arg, nan, "finite", "nan"),
        Bad(arg, uniform[0], "2-D array", "1-D"),
        Bad(arg, np.zeros((0, 3)), "empty", "empty"),
        Bad(arg, np.ones((rows, 1)), "at least 2 columns", "K=1"),
        Bad(arg, np.full((rows, 3), "x"), "real numbers", "strings"),
        Bad(arg, uniform[:-1], "one row per example", "rows-mismatch"),
    ]


def vote_table(arg: str = "vote_counts") -> list[Bad]:
    """Bad (queries, K) vote counts."""
    return [
        Bad(arg, [3, 2, 1], "(queries, K)", "1-D"),
        Bad(arg, np.zeros((0, 3)), "(queries, K)", "empty"),
        Bad(arg, [[5], [5]], "(queries, K)", "K=1"),
        Bad(arg, [[5, -1, 2]], "non-negative", "negative"),
        Bad(arg, [[5, NAN, 2]], "finite numbers", "nan"),
        Bad(arg, [["5", "1", "2"]], "finite numbers", "strings"),
    ]


def value_ranges() -> list[Bad]:
    """Bad value ranges [low, high] for regression labels."""
    return [
        Bad("low", 2.0, "finite low < high", "low-above-high"),
        Bad("low", NAN, "finite low < high", "nan-low"),
        Bad("high", INF, "finite low < high", "inf-high"),
        Bad("low", "0", "low and high must be numbers", "str-low"),
        Bad("high", None, "low and high must be numbers", "none-high"),
    ]


def rngs() -> list[Bad]:
    """Something other than a numpy Generator where the documented entry points take ``rng``."""
    return [
        Bad("rng", 0, "numpy.random.Generator", "seed"),
        Bad("rng", None, "numpy.random.Generator", "none"),
    ]


# --- valid arguments ------------------------------------------------------------------------------

LABELS = np.array([0, 1, 2, 1])
PRIORS = np.full((4, 3), 1 / 3)
NOISY = np.array([[0.9, 0.1, -0.2], [0.1, 1.2, 0.3]])
VOTES = np.array([[5, 3, 2], [1, 8, 1]])
PROBS = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
POINTS = np.array([[0.1, 0.2], [0.3, -0.1], [0.0, 0.5], [0.2, 0.2]])
SUPPORT = np.array([0.0, 1.0, 2.0])
PRIOR3 = np.array([0.2, 0.3, 0.5])


# --- the checks every table runs ------------------------------------------------------------------


def valid_calls(rows: list[Row]) -> list:
    """One parameter per row whose valid call is quick enough to make."""
    return [pytest.param(row, id=row.name) for row in rows if row.try_valid]


def bad_calls(rows: list[Row]) -> list:
    """One parameter per (row, bad value)."""
    return [
        pytest.param(row, bad, id=f"{row.name}-{bad.arg}-{bad.label}")
        for row in rows
        for bad in row.bad
    ]


def check_valid_call(row: Row) -> None:
    """The valid call succeeds and gives finite numbers: the bad values next to it are refused
    for themselves, not because the rest of the call was wrong."""
    assert _finite(row.function(**row.valid)), row.name


def check_bad_call(row: Row, bad: Bad) -> None:
    """The call with one bad value raises InvalidInputError with a clear one-line message."""
    arguments = dict(row.valid) | {bad.arg: bad.value}
    with pytest.raises(InvalidInputError) as raised:
        row.function(**arguments)
    message = str(raised.value)
    assert message.strip(), "empty message"
    assert "\n" not in message, f"message spans several lines: {message!r}"
    assert "Traceback" not in message
    assert bad.match in message, message


def _finite(value: object) -> bool:
    """Whether every number in ``value`` (arrays, containers, dataclasses) is finite."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return all(_finite(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.number):
        return bool(np.all(np.isfinite(value)))
    if isinstance(value, float | np.floating):
        return bool(np.isfinite(value))
    return True
