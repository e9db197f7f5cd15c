"""Settings picked by comparing runs on private labels, and the sentence every such run carries.

A recipe value chosen because it won a comparison of runs on one dataset's training labels spent
privacy that no accountant records: the ε of a run covers that run, not the search that chose its
settings (Papernot and Steinke, "Hyperparameter Tuning with Renyi Differential Privacy", ICLR
2022, make the cost precise). A family declares each such choice as a :class:`Tuning` beside its
recipe; :func:`tuning_statement` says, for a run's settings, which choices it uses and whether
they were made on its own dataset's labels (the search spent privacy of these very labels) or on
another dataset's (a proxy: none of this run's labels were read to choose them).
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from labeldp_core.data.registry import DATASETS
from labeldp_core.engine.config import Scalar

__all__ = ["Tuning", "dataset_tuning", "tuning_statement"]


@dataclass(frozen=True)
class Tuning:
    """Setting values a family picked by comparing runs on one dataset's training labels.

    Attributes:
        dataset: the dataset whose training labels the compared runs read.
        values: the values picked, by setting name; a run uses this choice when its settings
            hold every one of them.
        how: what was compared, in a phrase ("test accuracy of seeds 0-2 at ε 0.5 to 2").
    """

    dataset: str
    values: Mapping[str, Scalar]
    how: str

    def used_by(self, settings: Mapping[str, Scalar]) -> bool:
        """Whether a run with ``settings`` holds every value of this choice."""
        return all(settings.get(name) == value for name, value in self.values.items())

    def sentence(self, dataset: str) -> str:
        """What a run on ``dataset`` that uses this choice must say about it."""
        chosen = ", ".join(f"{name}={value}" for name, value in sorted(self.values.items()))
        if dataset == self.dataset:
            return (
                f"Tuned on these labels: {chosen} was picked by comparing runs on {dataset}'s "
                f"training labels ({self.how}); the ε covers one run, not the search."
            )
        return (
            f"Tuned on another dataset's labels: {chosen} was picked by comparing runs on "
            f"{self.dataset}'s training labels ({self.how}), not on {dataset}'s, so the search "
            "read none of this run's labels."
        )


def dataset_tuning(
    dataset: str, held: Mapping[str, Scalar], own_epochs: bool
) -> tuple[Tuning, ...]:
    """The tuned training defaults of ``dataset`` that a run holding ``held`` uses, as a Tuning.

    ``held`` is the run's settings with its ``epochs``. A mechanism whose own recipe sets its
    epochs (``own_epochs``: DP-SGD, LabelDP-Pro) trains its released model by that recipe, not
    by the dataset's defaults, so none of them is its choice.

    >>> dataset_tuning("digits", {"epochs": 25, "learning_rate": 2e-3}, False)[0].values
    {'epochs': 25}
    >>> dataset_tuning("digits", {"epochs": 25}, True), dataset_tuning("mnist-5k", {}, False)
    ((), ())
    """
    info = DATASETS.get(dataset)
    if info is None or own_epochs:
        return ()
    used = {name: value for name, value in info.tuned if held.get(name) == value}
    return (Tuning(dataset, used, info.tuned_how),) if used else ()


def tuning_statement(
    tunings: Iterable[Tuning], dataset: str, settings: Mapping[str, Scalar]
) -> dict[str, object] | None:
    """The tuning a run on ``dataset`` with ``settings`` uses, JSON-ready; None if it uses none.

    ``on_these_labels`` is true when a choice was made on the run's own dataset: then its ε
    does not cover how its settings were found.

    >>> tune = Tuning("fashion-mnist", {"cap": 0.1}, "seeds 0-2 at ε 1")
    >>> tuning_statement([tune], "fashion-mnist", {"cap": 0.1})["on_these_labels"]
    True
    >>> tuning_statement([tune], "digits", {"cap": 0.2}) is None
    True
    """
    used = [tuning for tuning in tunings if tuning.used_by(settings)]
    if not used:
        return None
    return {
        "on_these_labels": any(tuning.dataset == dataset for tuning in used),
        "tuned_on": sorted({tuning.dataset for tuning in used}),
        "settings": sorted({name for tuning in used for name in tuning.values}),
        "note": " ".join(tuning.sentence(dataset) for tuning in used),
    }
