"""Label inference from the trained model (Wu et al., AISTATS 2023), read from ordinary runs.

An attacker who knows a training example's features guesses its label with the released model's
prediction. It is right on the training examples as often as the model's training accuracy
(against the true labels); from the features alone it could do about as well as a clean model
does on held-out data. The difference is the attacker's gain, which ε-label-DP caps at
``1 - e^-ε`` (Wu et al. 2023, "Does label differential privacy prevent label inference
attacks?"); an example-level claim is read for a label first. Every run that trains a model on
the whole private training set already records the accuracies
(:meth:`~labeldp_core.engine.context.RunContext.note_attack_model`), so this reads runs only.
"""

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from labeldp_core.accounting.risk import inference_gain_bound
from labeldp_core.accounting.units import label_guarantee_of_example
from labeldp_core.cache import ResultCache
from labeldp_core.engine.progress import Progress, silent
from labeldp_core.experiments import RunResult, sweep

__all__ = [
    "InferencePoint",
    "inference_curve",
    "inference_gain",
    "inference_point",
    "inference_points",
]


def inference_gain(result: RunResult) -> float | None:
    """Training accuracy of the released model minus the clean model's test accuracy, or None.

    None when the run noted no model trained on every private example, or protects something
    other than its labels or examples.
    """
    attack = result.details.get("attack")
    if (
        result.privacy_unit not in ("label", "example")
        or not attack
        or result.baseline_test_accuracy is None
    ):
        return None
    return float(attack["train_accuracy"]) - float(result.baseline_test_accuracy)


@dataclass(frozen=True)
class InferencePoint:
    """The attacker's gain at one ε over the seeds (mean, lowest, highest) beside its bound."""

    mechanism: str
    dataset: str
    epsilon: float
    label_epsilon: float
    seeds: int
    gain: float
    gain_low: float
    gain_high: float
    bound: float

    @property
    def exceeds(self) -> bool:
        """Whether the lowest seed's gain is above the bound (a violation by every seed)."""
        return self.gain_low > self.bound

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the flag."""
        return asdict(self) | {"exceeds": self.exceeds}


def inference_point(results: Sequence[RunResult]) -> InferencePoint | None:
    """The gain of one ε's runs (one per seed) beside its bound, or None if one has no gain."""
    gains = [inference_gain(result) for result in results]
    if any(gain is None for gain in gains):
        return None
    first = results[0]
    label_epsilon, delta = first.epsilon, first.delta
    if first.privacy_unit == "example":
        label_epsilon, delta = label_guarantee_of_example(first.epsilon, first.delta)
    return InferencePoint(
        mechanism=first.mechanism,
        dataset=first.dataset,
        epsilon=first.epsilon,
        label_epsilon=label_epsilon,
        seeds=len(gains),
        gain=sum(gains) / len(gains),
        gain_low=min(gains),
        gain_high=max(gains),
        bound=min(1.0, inference_gain_bound(label_epsilon) + delta),
    )


def inference_curve(
    mechanism: str,
    dataset: str,
    epsilons: Sequence[float],
    seeds: Sequence[int] = (0, 1, 2),
    *,
    epochs: int | None = None,
    settings: Mapping[str, object] | None = None,
    cache: ResultCache | None = None,
    progress: Progress = silent,
) -> list[InferencePoint]:
    """The gain against its bound at each ε (runs from the cache or computed, then cached).

    Empty when the mechanism's runs record no model trained on every private example.
    """
    results = sweep(
        mechanism,
        dataset,
        epsilons,
        seeds,
        epochs=epochs,
        settings=settings,
        cache=cache,
        progress=progress,
    )
    return inference_points(results)


def inference_points(results: Sequence[RunResult]) -> list[InferencePoint]:
    """One point per mechanism and ε asked among ``results`` (their seeds pooled), in order.

    A group whose runs record no gain is left out, so stored runs of any kind can be passed.
    """
    groups: dict[tuple[str, float], list[RunResult]] = {}
    for result in results:
        groups.setdefault((result.mechanism, result.epsilon), []).append(result)
    points = [inference_point(group) for _, group in sorted(groups.items())]
    return [point for point in points if point is not None]
