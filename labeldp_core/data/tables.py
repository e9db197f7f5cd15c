"""Your own data: a CSV or Parquet table with a label column, used like the bundled datasets.

A table becomes a dataset named ``table-<16 hex digits>``: the sha256 of the file's bytes and of
the parsing options (label column, task, classes, range, grid), never its path, so a renamed
copy finds the same results and a file with one cell changed does not. The prepared arrays and a
description live in the owner-only cache folder (``<cache>/tables/<id>/``), and every result
computed from the table in a result cache of its own beside them (see
:mod:`labeldp_core.data.table_results`, which also forgets a table and everything computed from
it by removing one folder).

What label DP protects here is one row's label: the features, which rows have a label, and the
classes or the range when given are taken as known. The label is a class (from a list known in
public, or the column's own values, with a note that which classes occur is then not protected),
or a number in a range ``low..high`` known in public (regression): a whole number ``v`` is class
``v - low``; any number, given a grid of G values, is clamped into the range and snapped to the
nearest of G evenly spaced values. The regression mechanisms then work on the values themselves
(sensitivity ``high - low``, errors in the label's own units). Without a public range the
column's minimum and maximum are used, with a note that they leak.

Preparing a table: rows without a label are dropped (refused if more than half); the rows left
are split once, at random and blind to the labels, with
:data:`~labeldp_core.data.dataset.SPLIT_SEED`; numeric columns have NaN and inf imputed with the
training split's median and are standardised with the training split's mean and deviation; text
columns with at most :data:`MAX_CATEGORIES` values are one-hot encoded, others dropped with a
note naming them; the label never appears among the features.
Each example becomes a float32 ``(1, 1, d)`` "image", so the MLP and logistic models train on it
unchanged; the CNN needs real images and is refused with the fix.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from numbers import Integral, Real
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from labeldp_core.cache import default_dir
from labeldp_core.data.dataset import SPLIT_SEED, Dataset
from labeldp_core.errors import InvalidInputError

if TYPE_CHECKING:  # pandas loads where a table is read, not with the registry
    import pandas as pd

__all__ = [
    "EXAMPLE_CLASSES",
    "MAX_CLASSES",
    "MAX_TABLE_BYTES",
    "TABLE_PREFIX",
    "TASKS",
    "TableInfo",
    "add_table",
    "example_table",
    "is_table",
    "load_table",
    "read_table",
    "stored_tables",
    "table_exists",
    "table_info",
]

TABLE_PREFIX = "table-"
#: The largest file accepted (the app's ``server.maxUploadSize`` is the same 512 MB): a million
#: rows of 50 columns fit (bench/table_speed.py).
MAX_TABLE_BYTES = 512 * 2**20
MIN_ROWS = 100
MAX_CLASSES = 100
#: Text columns with more distinct values than this are dropped, not one-hot encoded.
MAX_CATEGORIES = 50
TEST_FRACTION = 0.2
#: What a label can be: classes, or whole numbers in a range (regression).
TASKS = ("classification", "regression")
_FORMAT = 2  # the preparation's version: part of every table's identity
_EXAMPLES = {"wine": "load_wine", "breast-cancer": "load_breast_cancer"}
#: The examples' classes, known in public (scikit-learn's ``target_names``).
EXAMPLE_CLASSES = {
    "wine": ("class_0", "class_1", "class_2"),
    "breast-cancer": ("malignant", "benign"),
}
_OWN_CLASSES = (
    "the classes are the label column's own values, so which classes occur is not protected "
    "(a class that one row alone has gives its label away): give the classes known in public"
)


@dataclass(frozen=True)
class TableInfo:
    """What a stored table is: its id, the name and options given, and what preparing it did."""

    id: str
    name: str
    label: str
    task: str
    content_sha256: str
    rows: int
    n_train: int
    n_test: int
    class_names: tuple[str, ...]
    features: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())
    #: A numeric label's range (class ``k`` is the value ``low + k * value_step``); None for
    #: classes.
    low: float | None = None
    high: float | None = None
    #: How many evenly spaced values a numeric label was snapped to; None: whole numbers.
    grid: int | None = None
    #: What the epsilons on this table take as known although it comes from its labels: which
    #: classes occur, or a numeric label's range, when they were not given in public.
    unprotected: tuple[str, ...] = ()

    @property
    def value_step(self) -> float:
        """The distance between two neighbouring values of a numeric label (1 without a grid)."""
        if self.grid is None or self.low is None or self.high is None:
            return 1.0
        return (self.high - self.low) / (self.grid - 1)

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return asdict(self)


def is_table(name: object) -> bool:
    """Whether ``name`` is a table dataset's id."""
    return isinstance(name, str) and name.startswith(TABLE_PREFIX)


def _tables_dir(root: Path | None) -> Path:
    return (default_dir() if root is None else Path(root)) / "tables"


def _folder(table_id: str, root: Path | None = None) -> Path:
    if not is_table(table_id) or not table_id[len(TABLE_PREFIX) :].isalnum():
        raise InvalidInputError(f"not a table dataset id: {table_id!r}")
    return _tables_dir(root) / table_id


def read_table(data: bytes) -> pd.DataFrame:
    """Parse a CSV (UTF-8) or Parquet file's bytes, refusing what is not a usable table."""
    import pandas as pd

    if len(data) > MAX_TABLE_BYTES:
        raise InvalidInputError(
            f"the file is {len(data) / 2**20:,.0f} MB; the limit is {MAX_TABLE_BYTES // 2**20} MB: "
            "keep a sample of the rows"
        )
    if not data.strip():
        raise InvalidInputError("the file is empty: give a CSV or Parquet table with a header")
    if data[:4] == b"PAR1":
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # pyarrow raises many types for a damaged file
            reason = type(exc).__name__
            raise InvalidInputError(f"not a readable Parquet table ({reason})") from None
    else:
        frame = _read_csv(data)
    if frame.shape[0] == 0:
        raise InvalidInputError("the table has a header but no rows")
    return frame


def _read_csv(data: bytes) -> pd.DataFrame:
    import pandas as pd

    if b"\0" in data:
        raise InvalidInputError("the file is not a table (it holds binary data): give a CSV")
    try:
        header = data.split(b"\n", 1)[0].decode("utf-8-sig")
        columns = next(csv.reader([header]), [])
        repeated = sorted({name for name in columns if columns.count(name) > 1})
        if repeated:
            raise InvalidInputError(
                f"duplicate column names: {', '.join(map(repr, repeated))}; "
                "give each column its own"
            )
        return pd.read_csv(io.BytesIO(data), encoding="utf-8-sig", low_memory=False)
    except UnicodeDecodeError:
        raise InvalidInputError(
            "the file is not UTF-8 text: save the CSV as UTF-8 (or give a Parquet file)"
        ) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise InvalidInputError(_csv_problem(str(exc))) from None


#: pandas' message for a row with more fields than the header (its C parser's wording).
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _csv_problem(message: str) -> str:
    """What is wrong with a CSV that pandas refused, in the user's words where it is known.

    >>> _csv_problem("Error tokenizing data. C error: Expected 2 fields in line 3, saw 4")[:46]
    'the file is not a table: line 3 has 4 values w'
    """
    ragged = _RAGGED.search(message)
    if ragged is None:
        reason = " ".join(message.split())[:200]
        return f"the file is not a table (CSV: {reason})"
    expected, line, seen = ragged.groups()
    return (
        f"the file is not a table: line {line} has {seen} values where the header names "
        f"{expected} columns: give every row one value per column (quote a value that holds a "
        'comma, e.g. "1,5")'
    )


def _labelled(frame: pd.DataFrame, label: str) -> tuple[pd.DataFrame, list[str]]:
    """The rows that have a label (refused if more than half have none), and notes."""
    if label not in frame.columns:
        columns = ", ".join(map(str, frame.columns[:20]))
        raise InvalidInputError(f"no column named {label!r}; the columns are: {columns}")
    values = frame[label]
    missing = values.isna() | (values.astype(str).str.strip() == "")
    notes = []
    if missing.any():
        if missing.sum() * 2 > len(frame):
            raise InvalidInputError(
                f"{int(missing.sum()):,} of {len(frame):,} rows have no {label!r}: more than half; "
                "pick a label column that is filled in"
            )
        notes.append(
            f"{int(missing.sum()):,} rows without a label were dropped (which rows "
            "have a label is taken as known, like the features)"
        )
        frame = frame[~missing]
    if len(frame) < MIN_ROWS:
        raise InvalidInputError(
            f"the table has {len(frame):,} labelled rows; at least {MIN_ROWS} are needed to train "
            "and test a model"
        )
    return frame, notes


def _classes(
    values: pd.Series, label: str, classes: Sequence[str] | None
) -> tuple[np.ndarray, tuple[str, ...], list[str]]:
    """Class indices of a label read as categories, the class names, and notes.

    ``classes`` is a list known in public (checked by :func:`_options`), in its order; without
    one the column's own values are the classes, and a note says that which classes occur is
    then not protected.
    """
    import pandas as pd

    seen = values.astype(str).str.strip().to_numpy()
    if classes is None:
        names, codes = np.unique(seen, return_inverse=True)
        names, notes = tuple(map(str, names)), [_OWN_CLASSES]
    else:
        names, notes = tuple(classes), []
        codes = pd.Series(seen).map({name: k for k, name in enumerate(names)})
        unknown = codes.isna().to_numpy()
        if unknown.any():
            raise InvalidInputError(
                f"{int(unknown.sum()):,} labels are not among the classes given (e.g. "
                f"{seen[unknown][0]!r}): add them to the list, or leave it empty"
            )
        codes = codes.to_numpy()
    if len(names) < 2:
        raise InvalidInputError(
            f"the label {label!r} has one class only ({names[0]!r}): nothing "
            "to predict; pick another column"
        )
    if len(names) > MAX_CLASSES:
        raise InvalidInputError(
            f"the label {label!r} has {len(names):,} distinct values, above the {MAX_CLASSES} "
            "classes the mechanisms here handle: pick a column of categories"
        )
    return codes.astype(np.int64), names, notes


def _checked_classes(classes: object) -> tuple[str, ...]:
    """A public class list as stripped, distinct, non-empty names."""
    if not isinstance(classes, list | tuple) or not all(isinstance(c, str) for c in classes):
        raise InvalidInputError(f"classes must be a list of names, got {classes!r}")
    names = tuple(name.strip() for name in classes)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if "" in names or repeated:
        listed = f" (repeated: {', '.join(map(repr, repeated))})" if repeated else ""
        raise InvalidInputError(f"the classes given must be distinct, non-empty names{listed}")
    if not 2 <= len(names) <= MAX_CLASSES:
        raise InvalidInputError(f"give 2 to {MAX_CLASSES} classes, got {len(names)}")
    return names


def _numbers(
    values: pd.Series, label: str, low: float | None, high: float | None, grid: int | None
) -> tuple[np.ndarray, tuple[str, ...], list[str], float, float]:
    """Grid positions of a numeric label in [low, high]; the values' names, notes and the range.

    Without a grid the label must be whole numbers and ``v`` is position ``v - low``; with a
    grid of G values, each label is clamped into the range and snapped to the nearest of G evenly
    spaced values. Without a range given, the column's own minimum and maximum are used, and a
    note says that they leak: a range known in public (a rating's 1 and 5) spends nothing.
    """
    import pandas as pd

    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.isna().any():
        example = values[numbers.isna()].iloc[0]
        raise InvalidInputError(
            f"the label {label!r} holds values that are not numbers (e.g. "
            f"{example!r}): read it as a class"
        )
    numbers = numbers.to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(numbers)):
        raise InvalidInputError(f"the label {label!r} holds infinite numbers: drop those rows")
    if grid is None and not np.all(numbers == np.round(numbers)):
        raise InvalidInputError(
            f"the label {label!r} holds numbers that are not whole: give a grid (G evenly spaced "
            "values over the range, --grid G), or read it as a class"
        )
    notes = []
    if low is None and high is None:
        low, high = float(numbers.min()), float(numbers.max())
        if low == high:
            raise InvalidInputError(
                f"the label {label!r} has one value only ({low:g}): nothing "
                "to predict; pick another column"
            )
        low, high = (int(low), int(high)) if grid is None else (low, high)
        notes.append(
            f"the range {low:g}..{high:g} is the label column's own minimum and "
            "maximum, which it leaks: give a range known in public (low, high)"
        )
    low, high, step = _checked_grid(low, high, grid)
    outside = int(np.sum((numbers < low) | (numbers > high)))
    if outside:
        notes.append(f"{outside:,} labels outside {low:g}..{high:g} were clamped into it")
    clamped = np.clip(numbers, low, high)
    positions = np.rint((clamped - low) / step).astype(np.int64)
    size = round((high - low) / step) + 1
    if grid is not None:
        moved = np.abs(low + step * positions - clamped)
        notes.append(
            f"labels snapped to the nearest of {grid} values {step:.6g} apart: by "
            f"{moved.mean():.4g} on average (a mean squared {np.mean(moved**2):.4g} "
            "that every MSE here includes)"
        )
    return positions, _value_names(low, step, size), notes, low, high


def _value_names(low: float, step: float, size: int) -> tuple[str, ...]:
    """The grid's values as text, with as many digits as it takes to tell them apart."""
    for digits in range(6, 18):
        names = tuple(f"{low + step * k:.{digits}g}" for k in range(size))
        if len(set(names)) == size:
            return names
    return names


def _checked_grid(low: object, high: object, grid: object) -> tuple[float, float, float]:
    """A checked range and the step between its values: 1 without a grid (whole numbers)."""
    if low is None or high is None:
        raise InvalidInputError("give both low and high (a numeric label's public range)")
    if grid is None:
        if not all(_is_int(v) for v in (low, high)):
            raise InvalidInputError(
                f"low and high must be whole numbers, got {low!r} and "
                f"{high!r}; for other bounds give a grid too"
            )
        if not low < high or high - low + 1 > MAX_CLASSES:
            raise InvalidInputError(
                f"the range {low}..{high} must hold 2 to {MAX_CLASSES} whole values (low < "
                f"high); for a wider range give a grid of at most {MAX_CLASSES} values"
            )
        return int(low), int(high), 1
    if not _is_int(grid) or not 2 <= grid <= MAX_CLASSES:
        raise InvalidInputError(
            f"grid must be a whole number of values in 2..{MAX_CLASSES}, got {grid!r}"
        )
    numbers = all(isinstance(v, Real) and not isinstance(v, bool) for v in (low, high))
    if not numbers or not np.isfinite([low, high]).all() or not low < high:
        raise InvalidInputError(
            f"low and high must be finite numbers with low < high, got {low!r} and {high!r}"
        )
    return float(low), float(high), (float(high) - float(low)) / (int(grid) - 1)


def _is_int(value: object) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _canonical(bound: object) -> object:
    """A bound as the same number whoever typed it: 5.0 is 5 (one table id for both)."""
    if isinstance(bound, float | np.floating) and np.isfinite(bound) and float(bound).is_integer():
        return int(bound)
    return float(bound) if isinstance(bound, np.floating) else bound


def _split(rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Train and test row positions: fixed, at random, and blind to the labels.

    Not stratified: under label DP the labels are private, and a stratified split lets one label
    move other rows between train and test (and the features' training statistics with them).
    """
    from sklearn.model_selection import train_test_split

    return train_test_split(np.arange(rows), test_size=TEST_FRACTION, random_state=SPLIT_SEED)


def _numeric(column: pd.Series, train: np.ndarray) -> tuple[np.ndarray, int]:
    """A standardised column and how many cells were imputed (it has a finite training value)."""
    values = column.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
    bad = ~np.isfinite(values)
    values[bad] = np.median(values[train][~bad[train]])
    spread = float(values[train].std())
    return (values - values[train].mean()) / (spread if spread > 0 else 1.0), int(bad.sum())


def _features(frame: pd.DataFrame, train: np.ndarray) -> tuple[np.ndarray, tuple, list]:
    """The feature matrix (float32), the names of its columns, and notes on what was done.

    The columns are planned first and the matrix filled in place, so a million rows of a few
    hundred features take the float32 matrix and one column's worth of memory besides.
    """
    import pandas as pd

    plan, names, notes = [], [], []
    for column in frame.columns:
        series = frame[column]
        if pd.api.types.is_bool_dtype(series) or pd.api.types.is_numeric_dtype(series):
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            if not np.isfinite(values[train]).any():
                notes.append(f"column {column!r} has no number in the training rows: dropped")
                continue
            plan.append((column, None))
            names.append(str(column))
            continue
        levels = sorted(series.astype("string").fillna("(missing)").unique())
        if len(levels) > MAX_CATEGORIES:
            notes.append(
                f"column {column!r} has {len(levels):,} distinct values (more than "
                f"{MAX_CATEGORIES}): dropped"
            )
            continue
        plan.append((column, levels))
        names += [f"{column}={level}" for level in levels]
    if not plan:
        raise InvalidInputError(
            "no usable feature column: every column besides the label was dropped (see above) or "
            "there is none; a table needs at least one numeric or category column"
        )
    x, imputed = _filled(frame, plan, train, len(names))
    if imputed:
        notes.append(f"{imputed:,} missing or infinite numbers imputed with the training median")
    return x, tuple(names), notes


def _filled(frame: pd.DataFrame, plan: list, train: np.ndarray, width: int) -> tuple:
    """Fill the float32 matrix column by column: numbers standardised, categories one-hot."""
    import pandas as pd

    x = np.zeros((len(frame), width), dtype=np.float32)
    rows, at, imputed = np.arange(len(frame)), 0, 0
    for column, levels in plan:
        if levels is None:
            values, filled = _numeric(frame[column], train)
            x[:, at], imputed, at = values, imputed + filled, at + 1
            continue
        codes = pd.Categorical(
            frame[column].astype("string").fillna("(missing)"), categories=levels
        ).codes
        x[rows, at + codes.astype(np.int64)] = 1.0
        at += len(levels)
    return x, imputed


def _identity(data: bytes, options: dict) -> tuple[str, str]:
    content = hashlib.sha256(data).hexdigest()
    options = json.dumps(options | {"format": _FORMAT}, sort_keys=True)
    table_id = hashlib.sha256(f"{content}\n{options}".encode()).hexdigest()[:16]
    return TABLE_PREFIX + table_id, content


def add_table(
    data: bytes,
    label: str,
    name: str,
    task: str = "classification",
    low: float | None = None,
    high: float | None = None,
    grid: int | None = None,
    classes: Sequence[str] | None = None,
    root: Path | None = None,
) -> TableInfo:
    """Check, prepare and store a table; its description (the dataset id is ``info.id``).

    ``task`` is "classification" (the label's values are classes: ``classes`` lists them if they
    are known in public, else the column's own are used) or "regression": numbers in
    ``low..high``, a range known in public (without one, the column's own), whole numbers or,
    with a ``grid`` of G values, any numbers snapped to G evenly spaced values. Nothing is kept
    when a check fails. ``root`` is the cache folder (default: the cache's).
    """
    options = _options(label, task, low, high, grid, classes)
    table_id, content = _identity(data, options)
    if table_exists(table_id, root):  # the same bytes and options: prepared already
        return _renamed(table_info(table_id, root), str(name), root)
    frame, notes = _labelled(read_table(data), str(label))
    if task == "classification":
        codes, class_names, more = _classes(frame[label], str(label), options.get("classes"))
    else:
        codes, class_names, more, low, high = _numbers(
            frame[label], str(label), options["low"], options["high"], grid
        )
    train, test = _split(len(codes))
    x, features, feature_notes = _features(frame.drop(columns=[label]), train)
    x = x.reshape(len(x), 1, 1, -1)
    info = TableInfo(
        table_id,
        str(name),
        str(label),
        task,
        content,
        len(frame),
        len(train),
        len(test),
        class_names,
        features,
        (*notes, *more, *feature_notes),
        low,
        high,
        grid,
        _unprotected(options, low, high),
    )
    _store(
        info,
        {"x_train": x[train], "y_train": codes[train], "x_test": x[test], "y_test": codes[test]},
        root,
    )
    return info


def _unprotected(options: dict, low: float | None, high: float | None) -> tuple[str, ...]:
    """What came from the labels themselves because it was not given in public."""
    if options["task"] == "classification":
        return () if "classes" in options else ("which classes occur (the column's own values)",)
    if options["low"] is None:
        return (f"the range {low:g}..{high:g} (the column's own minimum and maximum)",)
    return ()


def _options(
    label: str, task: str, low: object, high: object, grid: object, classes: object
) -> dict:
    """The parsing options as they name a table: checked for what goes together, canonical."""
    if task not in TASKS:
        raise InvalidInputError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    if task == "classification" and (low, high, grid) != (None, None, None):
        raise InvalidInputError(
            "low, high and grid apply to a numeric label (task regression) only"
        )
    if task == "regression" and classes is not None:
        raise InvalidInputError("classes apply to a label read as classes, not as a number")
    options = {"label": str(label), "task": task, "low": _canonical(low), "high": _canonical(high)}
    if grid is not None:
        options["grid"] = grid
    if classes is not None:
        options["classes"] = list(_checked_classes(classes))
    return options


def _renamed(info: TableInfo, name: str, root: Path | None) -> TableInfo:
    """A stored table under the name given now (its arrays and results stay as they are)."""
    if name != info.name:
        info = replace(info, name=name)
        _describe(info, root)
    return info


def _describe(info: TableInfo, root: Path | None) -> None:
    path = _folder(info.id, root) / "table.json"
    path.write_text(json.dumps(info.to_dict(), indent=1), encoding="utf-8")


def _store(info: TableInfo, arrays: dict[str, np.ndarray], root: Path | None) -> None:
    folder = _folder(info.id, root)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder.parent, 0o700)
    partial = folder / "arrays.npz.partial"
    with partial.open("wb") as handle:
        np.savez(handle, **arrays)
    partial.replace(folder / "arrays.npz")
    _describe(info, root)  # written last: a table exists once its description does


def table_info(table_id: str, root: Path | None = None) -> TableInfo:
    """The description of a stored table; a clear error if there is none."""
    path = _folder(table_id, root) / "table.json"
    try:
        fields = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InvalidInputError(
            f"no table {table_id!r} here: add it with --dataset file:PATH --label COLUMN, or on "
            "the app's 'Your data' page"
        ) from None
    for name in ("class_names", "features", "notes", "unprotected"):
        fields[name] = tuple(fields.get(name, ()))
    return TableInfo(**fields)


def table_exists(table_id: str, root: Path | None = None) -> bool:
    """Whether a table with this id is stored."""
    try:
        return (_folder(table_id, root) / "table.json").is_file()
    except InvalidInputError:
        return False


def stored_tables(root: Path | None = None) -> list[TableInfo]:
    """Every table stored here, by name."""
    folder = _tables_dir(root)
    found = (
        [
            table_info(path.name, root)
            for path in sorted(folder.glob(TABLE_PREFIX + "*"))
            if (path / "table.json").is_file()
        ]
        if folder.is_dir()
        else []
    )
    return sorted(found, key=lambda info: (info.name, info.id))


def load_table(table_id: str, root: Path | None = None) -> Dataset:
    """The stored table as a :class:`Dataset` (read without pickle)."""
    info = table_info(table_id, root)
    with np.load(_folder(table_id, root) / "arrays.npz", allow_pickle=False) as arrays:
        return Dataset(
            table_id,
            arrays["x_train"],
            arrays["y_train"],
            arrays["x_test"],
            arrays["y_test"],
            info.class_names,
            0.0 if info.low is None else float(info.low),
            info.value_step,
        )


def example_table(name: str) -> bytes:
    """A bundled example as CSV bytes: scikit-learn's ``wine`` or ``breast-cancer`` data."""
    if name not in _EXAMPLES:
        raise InvalidInputError(f"unknown example {name!r}; choose one of: {', '.join(_EXAMPLES)}")
    from sklearn import datasets

    bunch = getattr(datasets, _EXAMPLES[name])(as_frame=True)
    frame = bunch.frame.rename(columns={"target": "class"})
    frame["class"] = [str(bunch.target_names[i]) for i in bunch.target]
    return frame.to_csv(index=False).encode()
