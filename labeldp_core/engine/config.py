"""What names a point: its config, the settings a mechanism takes, and their types.

A run is a frozen :class:`RunConfig` in (mechanism, dataset, budget, seed, epochs, settings);
each :class:`Setting` says its default, range or choices. Kept apart from the results and the
mechanism spec (:mod:`labeldp_core.engine.spec`, which re-exports these names), so that the
run context can name a config without importing the spec that names the context.
"""

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from labeldp_core.errors import InvalidInputError

__all__ = ["COMMON_SETTINGS", "PrivacyUnit", "RunConfig", "Scalar", "Setting", "Task"]

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
    #: Whether :func:`~labeldp_core.experiments.make_config` returned this config (checked,
    #: every default filled): an instance's mark that ``make_config`` alone sets, as its last
    #: step. Not a field: not compared, hashed or written out. A pickled copy keeps it (a
    #: worker's copy), so the road to a stored result takes the copy unchecked; a config built
    #: by hand or by ``dataclasses.replace`` is unmarked.
    made: ClassVar[bool] = False

    def setting(self, name: str) -> Any:
        """The value of setting ``name``."""
        return dict(self.settings)[name]

    def to_dict(self) -> dict[str, Any]:
        """Canonical JSON form (the cache key is derived from it)."""
        data = asdict(self)
        data["settings"] = dict(self.settings)
        return data
