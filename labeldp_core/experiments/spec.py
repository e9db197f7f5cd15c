"""What every experiment shares: its config, its result, a mechanism's spec and its settings.

A run is a frozen :class:`RunConfig` in and a JSON-serialisable :class:`RunResult` out. Each
mechanism describes itself with a :class:`MechanismSpec`: its id, privacy unit, settings with
defaults and ranges, and the runner that turns a config into an :class:`Outcome`.
"""

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments.result_schema import check_result_dict

if TYPE_CHECKING:
    from labeldp_core.experiments.context import RunContext

__all__ = [
    "COMMON_SETTINGS",
    "MechanismSpec",
    "Outcome",
    "PrivacyUnit",
    "RunConfig",
    "RunResult",
    "Scalar",
    "Setting",
    "Task",
]

Scalar = int | float | str | bool
#: "output" is one released output vector (local DP on inference outputs).
PrivacyUnit = Literal["label", "example", "output"]
Task = Literal["classification", "regression"]


@dataclass(frozen=True)
class Setting:
    """One ``--set KEY=VALUE`` knob: its default (which fixes its type), range or choices, help."""

    default: Scalar
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None

    def parse(self, name: str, value: object) -> Scalar:
        """Convert ``value`` (a string from the command line, or a Python value) and check it."""
        kind = type(self.default)
        try:
            if kind is bool:
                parsed: Scalar = _parse_bool(value)
            elif kind is int and not isinstance(value, bool):
                parsed = int(value) if isinstance(value, int) else int(str(value), 10)
            elif kind is float and not isinstance(value, bool):
                parsed = float(value)  # type: ignore[arg-type]
            elif kind is str:
                parsed = str(value)
            else:
                raise ValueError
        except ValueError:
            raise InvalidInputError(
                f"setting {name} must be {_KIND_NAMES[kind]}, got {value!r}"
            ) from None
        if self.choices and parsed not in self.choices:
            raise InvalidInputError(
                f"setting {name}={parsed} is not allowed; choose one of: {', '.join(self.choices)}"
            )
        if isinstance(parsed, float) and not math.isfinite(parsed):
            raise InvalidInputError(f"setting {name} must be a finite number, got {parsed}")
        if self.minimum is not None and parsed < self.minimum:  # type: ignore[operator]
            raise InvalidInputError(f"setting {name} must be at least {self.minimum}, got {parsed}")
        if self.maximum is not None and parsed > self.maximum:  # type: ignore[operator]
            raise InvalidInputError(f"setting {name} must be at most {self.maximum}, got {parsed}")
        return parsed


_KIND_NAMES = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}


def _parse_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


#: Settings every mechanism that trains a model accepts.
COMMON_SETTINGS: Mapping[str, Setting] = MappingProxyType(
    {
        "model": Setting("cnn", "model trained on the released labels", ("cnn", "mlp", "logistic")),
        "batch_size": Setting(
            128,
            "training batch size (a dataset may default to its own: `list --json` shows it)",
            minimum=1,
            maximum=65536,
        ),
        "learning_rate": Setting(
            2e-3,
            "Adam learning rate (a dataset may default to its own, with its batch size)",
            minimum=1e-6,
            maximum=1.0,
        ),
    }
)


@dataclass(frozen=True)
class RunConfig:
    """One point to compute: mechanism, dataset, budget, seed, epochs and settings.

    Build it with :func:`labeldp_core.experiments.make_config`, which fills every default, so
    two configs that mean the same run are equal and share one cache entry.
    """

    mechanism: str
    dataset: str
    epsilon: float
    seed: int = 0
    epochs: int | None = None
    settings: tuple[tuple[str, Scalar], ...] = ()

    def setting(self, name: str) -> Any:
        """The value of setting ``name``."""
        return dict(self.settings)[name]

    def to_dict(self) -> dict[str, Any]:
        """Canonical JSON form (the cache key is derived from it)."""
        data = asdict(self)
        data["settings"] = dict(self.settings)
        return data


@dataclass(frozen=True)
class Outcome:
    """What a mechanism's runner reports; the engine adds identity, sizes, timing, cache flag.

    ``test_score`` is test accuracy for classification and test MSE for regression, and
    ``baseline_score`` the same for the model trained on clean labels; left as None, the engine
    fills in the run's model trained on all clean training labels.
    """

    epsilon_spent: float
    test_score: float
    n_train: int
    baseline_score: float | None = None
    delta: float = 0.0
    flip_rate: float | None = None
    label_accuracy: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    #: Paths in the result (``"details.confusion"``, ``"test_accuracy"``) of figures computed
    #: from the private data without privacy, for teaching; the engine adds the common ones.
    diagnostics: tuple[str, ...] = ()


@dataclass(frozen=True)
class MechanismSpec:
    """A mechanism as the engine, the command line and the app see it."""

    id: str
    title: str
    summary: str
    privacy_unit: PrivacyUnit
    task: Task
    settings: Mapping[str, Setting]
    runner: Callable[[RunConfig, "RunContext"], Outcome]
    trains_model: bool = True
    #: Checks settings against each other and epsilon when the config is made (before any
    #: training); raises InvalidInputError. Its return value is ignored.
    check: Callable[[RunConfig], object] | None = None
    #: Why ``noise=secure`` is refused, for a mechanism without a ``noise`` setting.
    no_secure_noise: str = ""
    #: Per-dataset defaults of the mechanism's own recipe (settings, and ``epochs``), by name.
    recipe: Callable[[str], Mapping[str, Scalar]] | None = None

    def all_settings(self) -> dict[str, Setting]:
        """Common training settings (if it trains a model) followed by its own."""
        common = dict(COMMON_SETTINGS) if self.trains_model else {}
        return common | dict(self.settings)


@dataclass(frozen=True)
class RunResult:
    """The JSON result of one run, with the keys of DESIGN.md (``None`` fields are omitted)."""

    mechanism: str
    dataset: str
    seed: int
    epsilon: float
    epsilon_spent: float
    delta: float
    privacy_unit: str
    n_train: int
    n_test: int
    num_classes: int
    elapsed_s: float
    cached: bool
    epochs: int
    settings: Mapping[str, Scalar]
    details: Mapping[str, Any]
    flip_rate: float | None = None
    label_accuracy: float | None = None
    test_accuracy: float | None = None
    test_mse: float | None = None
    baseline_test_accuracy: float | None = None
    baseline_test_mse: float | None = None
    #: Which figures are non-private diagnostics: ``{"private": False, "keys": [...], "note"}``.
    diagnostics: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict; optional figures that do not apply are left out."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["settings"] = dict(self.settings)
        data["details"] = dict(self.details)
        if self.diagnostics is not None:
            data["diagnostics"] = dict(self.diagnostics)
        return {key: value for key, value in data.items() if value is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], **overrides: Any) -> "RunResult":
        """Rebuild a result from :meth:`to_dict` output (unknown keys are ignored).

        Raises:
            ResultSchemaError: if a field is missing or has the wrong type or range (see
                :func:`~labeldp_core.experiments.result_schema.check_result_dict`).
        """
        names = {f.name for f in fields(cls)}
        known = {k: v for k, v in data.items() if k in names} | overrides
        check_result_dict(known)
        return cls(**known)

    @property
    def score(self) -> float:
        """Test accuracy, or test MSE for regression mechanisms."""
        return self.test_accuracy if self.test_accuracy is not None else self.test_mse  # type: ignore[return-value]

    @property
    def baseline_score(self) -> float:
        """The clean-label baseline of :attr:`score`."""
        if self.baseline_test_accuracy is not None:
            return self.baseline_test_accuracy
        return self.baseline_test_mse  # type: ignore[return-value]
