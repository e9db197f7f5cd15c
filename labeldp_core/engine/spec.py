"""What every experiment shares: its config, its result, a mechanism's spec and its settings.

A run is a frozen :class:`RunConfig` in (with its settings' types, from
:mod:`labeldp_core.engine.config`, re-exported here) and a JSON-serialisable
:class:`RunResult` out. Each
mechanism describes itself with a :class:`MechanismSpec`: its id, privacy unit, settings with
defaults and ranges, and the runner that turns a config into an :class:`Outcome`.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from labeldp_core.engine.config import (
    COMMON_SETTINGS,
    PrivacyUnit,
    RunConfig,
    Scalar,
    Setting,
    Task,
)
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.result_schema import check_result_dict
from labeldp_core.engine.tuning import Tuning, dataset_tuning, tuning_statement

__all__ = [
    "COMMON_SETTINGS",
    "MechanismSpec",
    "Outcome",
    "PrivacyUnit",
    "Registered",
    "RunConfig",
    "RunResult",
    "Scalar",
    "Setting",
    "Task",
]


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
    runner: Callable[[RunConfig, RunContext], Outcome]
    trains_model: bool = True
    #: Checks settings against each other and epsilon when the config is made (before any
    #: training); raises InvalidInputError. Its return value is ignored.
    check: Callable[[RunConfig], object] | None = None
    #: Per-dataset defaults of the mechanism's own recipe (settings, and ``epochs``), by name.
    recipe: Callable[[str], Mapping[str, Scalar]] | None = None
    #: The recipe's values that were picked by comparing runs on a dataset's private labels;
    #: a run using one says so (:func:`labeldp_core.engine.tuning.tuning_statement`).
    tuned: tuple[Tuning, ...] = ()

    def all_settings(self) -> dict[str, Setting]:
        """Common training settings (if it trains a model) followed by its own."""
        common = dict(COMMON_SETTINGS) if self.trains_model else {}
        return common | dict(self.settings)

    def recipe_sets_epochs(self, dataset: str) -> bool:
        """Whether its own recipe sets its epochs on ``dataset`` (the dataset's do not apply)."""
        return self.recipe is not None and "epochs" in self.recipe(dataset)


@dataclass(frozen=True)
class RunResult:
    """The JSON result of one run, keys as in docs/interfaces.md (``None`` fields are omitted)."""

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
    #: What the epsilon protects, as the mechanism's family declares it (see
    #: :class:`labeldp_core.families.threat.ThreatModel`).
    threat_model: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict; optional figures that do not apply are left out."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["settings"] = dict(self.settings)
        data["details"] = dict(self.details)
        if self.diagnostics is not None:
            data["diagnostics"] = dict(self.diagnostics)
        if self.threat_model is not None:
            data["threat_model"] = dict(self.threat_model)
        return {key: value for key, value in data.items() if value is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], **overrides: Any) -> "RunResult":
        """Rebuild a result from :meth:`to_dict` output (unknown keys are ignored).

        Raises:
            ResultSchemaError: if a field is missing or has the wrong type or range (see
                :func:`~labeldp_core.engine.result_schema.check_result_dict`).
        """
        names = {f.name for f in fields(cls)}
        known = {k: v for k, v in data.items() if k in names} | overrides
        check_result_dict(known)
        return cls(**known)

    def is_result_of(self, config: RunConfig) -> bool:
        """Whether this is ``config``'s result: its mechanism, dataset, seed, ε, epochs, settings.

        A cache file from elsewhere may hold anything under any key.
        """
        return _names(self) == _names(config)

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


#: A mechanism's threat-model card for a run's noise mode (None: its only one) and δ.
CardOf = Callable[[str | None, float], dict[str, object]]


@dataclass(frozen=True)
class Registered:
    """What the registry says of one mechanism, found in one look-up.

    Asked once per point (:func:`~labeldp_core.registry.registration`: by the app's road for a
    point's look and its computation, by the runner for a run), and read for the spec it runs,
    the code unit its results' keys name and what a result's ε covers, instead of asking the
    registry again for each.

    Attributes:
        spec: the mechanism's spec.
        unit: the code unit that the cache keys of its run results name.
        card: its threat-model card for a noise mode and δ.
    """

    spec: MechanismSpec
    unit: str
    card: CardOf

    def tuning_of(self, config: RunConfig) -> dict[str, object] | None:
        """Which of ``config``'s settings and epochs were picked on private labels.

        Its family's choices, and its dataset's tuned training defaults.
        """
        held = dict(config.settings) | {"epochs": config.epochs}
        own_epochs = self.spec.recipe_sets_epochs(config.dataset)
        tunings = (*self.spec.tuned, *dataset_tuning(config.dataset, held, own_epochs))
        return tuning_statement(tunings, config.dataset, held)

    def disclosure(
        self, config: RunConfig, delta: float
    ) -> tuple[dict[str, object], dict[str, object] | None]:
        """The threat card of ``config``'s run with ``delta``, and its tuning (or None).

        The card says what the tuning leaves uncovered, in its ``tuning`` entry.
        """
        noise = dict(config.settings).get("noise")
        card = self.card(noise if isinstance(noise, str) else None, delta)
        tuning = self.tuning_of(config)
        return (card, None) if tuning is None else (card | {"tuning": tuning["note"]}, tuning)

    def disclosed(self, result: RunResult, config: RunConfig) -> RunResult:
        """``result`` of ``config`` with what its ε covers, as the family says it today.

        Its threat card and, if a setting was picked on private labels, its tuning statement in
        its details: a result stored before a card changed is shown with today's.
        """
        card, tuning = self.disclosure(config, result.delta)
        details = {key: value for key, value in result.details.items() if key != "tuning"}
        if tuning is not None:
            details["tuning"] = tuning
        return replace(result, details=details, threat_model=card)


def _names(run: RunConfig | RunResult) -> tuple:
    """What names a point: mechanism, dataset, seed, epsilon, epochs and settings."""
    epochs = int(run.epochs or 0)
    return (run.mechanism, run.dataset, run.seed, run.epsilon, epochs, dict(run.settings))
