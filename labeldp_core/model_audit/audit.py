"""The canary audit of a trained model: its ε̂ beside the ε claimed, with two controls.

After Malek et al. 2021, "Antipodes of label differential privacy: PATE and ALIBI" (NeurIPS
2021). N training examples get a uniformly random wrong label ``y'`` (the canaries), the mechanism
trains at ε as a normal run does, and the attack reads the model's softmax: it guesses that
``y'`` was the training label when ``p(y'|x) > p(k|x)`` for a decoy wrong label ``k``. The
guesses' accuracy bounds the ε spent for a label from below (:mod:`.estimate`). Two controls say
whether these canaries could see an overspend at all: the same canaries trained without privacy,
and the mechanism run at twice the budget while claiming ε; a control that is not caught turns
the verdict into "no verdict".
"""

from collections.abc import Iterable, Mapping

from labeldp_core.accounting.units import label_guarantee_of_example
from labeldp_core.cache import ResultCache
from labeldp_core.data import load_dataset
from labeldp_core.demo import demo_epsilons
from labeldp_core.engine.progress import Progress, silent, within
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import RunConfig, make_config, mechanism_spec
from labeldp_core.model_audit.canaries import canary_count, draw_canaries
from labeldp_core.model_audit.estimate import accuracy_cap, score_guesses
from labeldp_core.model_audit.protected import check_rows_kept, protected_rows, rows_digest
from labeldp_core.model_audit.result import CanaryEstimate, ModelAudit
from labeldp_core.model_audit.training_run import MECHANISM, NON_PRIVATE, canary_training
from labeldp_core.validation import MAX_EPSILON, check_epsilon

__all__ = ["DOUBLED", "audit_model", "can_audit", "demo_model_audits"]

#: The planted overspend of the budget control: the mechanism runs at this many times ε.
DOUBLED = 2.0


def _check_mechanism(mechanism: str) -> str:
    """The mechanism's privacy unit; refuses those whose model the canaries cannot test."""
    spec = mechanism_spec(mechanism)
    if spec.task != "classification":
        raise InvalidInputError(
            f"the canary audit reads a trained classifier's softmax: '{mechanism}' "
            f"({spec.task}) has none"
        )
    if not spec.trains_model:
        raise InvalidInputError(
            f"the canary audit reads a trained classifier's softmax: '{mechanism}' trains no "
            f"model (it releases {spec.summary}), so there is no probability per class on the "
            "canaries to read"
        )
    if spec.privacy_unit not in ("label", "example"):
        raise InvalidInputError(
            f"'{mechanism}' protects its {spec.privacy_unit}s, not its training labels: its "
            "trained model is not what it promises to keep private"
        )
    return spec.privacy_unit


def can_audit(mechanism: str, epsilon: float) -> bool:
    """Whether :func:`audit_model` takes ``mechanism`` at ``epsilon`` (model and control)."""
    try:
        _check_mechanism(mechanism)
        _check_budget(epsilon)
    except InvalidInputError:
        return False
    return True


def demo_model_audits(mechanisms: Iterable[str]) -> list[tuple[str, float]]:
    """The model audits the price-of-privacy screen reads: each mechanism's curve grid, seed 0.

    Every (mechanism, ε) of ``mechanisms``' demo grids that :func:`can_audit`, with the default
    model and epochs, as `warm` computes them before a class.
    """
    return [(m, e) for m in mechanisms for e in demo_epsilons(m) if can_audit(m, e)]


def _check_budget(epsilon: float) -> float:
    """``epsilon``, checked, with room for the control that runs at :data:`DOUBLED` times it."""
    epsilon = check_epsilon(epsilon)
    if DOUBLED * epsilon > MAX_EPSILON:
        raise InvalidInputError(
            f"the canary audit's control runs at {DOUBLED:g}x epsilon, so epsilon must be at "
            f"most {MAX_EPSILON / DOUBLED:g}, got {epsilon:g}"
        )
    return epsilon


def _label_claim(epsilon: float, delta: float, unit: str) -> tuple[float, float]:
    """The claim for one changed label (an example-level claim translated by group privacy)."""
    return label_guarantee_of_example(epsilon, delta) if unit == "example" else (epsilon, delta)


def audit_model(
    mechanism: str,
    dataset: str,
    epsilon: float,
    *,
    canaries: int | None = None,
    seed: int = 0,
    epochs: int | None = None,
    settings: Mapping[str, object] | None = None,
    cache: ResultCache | None = None,
    progress: Progress = silent,
) -> ModelAudit:
    """Audit ``mechanism``'s trained model at ``epsilon`` on ``dataset`` with flipped canaries.

    Three trainings (the mechanism, without privacy, at twice ε), each cached, so a second call
    trains nothing. The canaries are drawn from the rows whose labels the mechanism protects
    (:func:`~.protected.protected_rows`: never a public part, never the test set);
    ``canaries`` defaults to :func:`~.canaries.canary_count`'s choice for that many rows.
    """
    unit = _check_mechanism(mechanism)
    epsilon = _check_budget(epsilon)
    config = make_config(mechanism, dataset, epsilon, seed, epochs, settings)
    doubled = make_config(mechanism, dataset, DOUBLED * epsilon, seed, epochs, settings)
    cache = ResultCache() if cache is None else cache
    data = load_dataset(dataset)
    rows = protected_rows(config, data)
    count = canary_count(len(rows), canaries)
    drawn = draw_canaries(data.y_train, data.num_classes, count, config.seed, rows)
    check_rows_kept(config, data, drawn, rows)
    draw = {"dataset": dataset, "count": count, "seed": config.seed, "rows": rows_digest(rows)}
    runs = [
        (MECHANISM, config, MECHANISM),
        (NON_PRIVATE, config, NON_PRIVATE),
        (f"{DOUBLED:g}x budget", doubled, MECHANISM),
    ]
    found = [
        canary_training(run_config, drawn, role, cache, draw, within(progress, i / 3, (i + 1) / 3))
        for i, (_, run_config, role) in enumerate(runs)
    ]
    label_epsilon, label_delta = _label_claim(config.epsilon, found[0]["delta"], unit)
    estimates = [
        _estimate(name, run_config, role, stored, label_epsilon, label_delta)
        for (name, run_config, role), stored in zip(runs, found, strict=True)
    ]
    progress(1.0, "done")
    return ModelAudit(
        mechanism=mechanism,
        dataset=dataset,
        seed=config.seed,
        epochs=int(config.epochs or 0),
        canaries=count,
        claimed_epsilon=config.epsilon,
        privacy_unit=unit,
        label_epsilon=label_epsilon,
        label_delta=label_delta,
        accuracy_cap=accuracy_cap(label_epsilon, label_delta),
        audited=estimates[0],
        controls=tuple(estimates[1:]),
    )


def _estimate(
    name: str, config: RunConfig, role: str, stored: dict, claim: float, delta: float
) -> CanaryEstimate:
    score = score_guesses(int(stored["correct"]), int(stored["trials"]), delta)
    return CanaryEstimate(
        role=name,
        run_epsilon=None if role == NON_PRIVATE else config.epsilon,
        correct=score.correct,
        trials=score.trials,
        accuracy=score.accuracy,
        accuracy_low=score.accuracy_low,
        epsilon_lower_bound=score.epsilon_lower_bound,
        confidence=score.confidence,
        test_score=float(stored["test_score"]),
        caught=score.epsilon_lower_bound > claim,
    )
