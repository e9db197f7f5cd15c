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
from dataclasses import dataclass, replace

import numpy as np

from labeldp_core.accounting.units import label_guarantee_of_example
from labeldp_core.base.validation import MAX_EPSILON, check_epsilon
from labeldp_core.cache import ResultCache
from labeldp_core.data import dataset_info, load_dataset, training_size
from labeldp_core.engine.progress import Progress, silent, within
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import RunConfig, make_config, mechanism_spec
from labeldp_core.experiments.demo import demo_epsilons
from labeldp_core.model_audit.canaries import (
    MIN_CANARIES,
    Canaries,
    canary_count,
    draw_canaries,
)
from labeldp_core.model_audit.ceiling import AuditedClaim, audited_claim, check_testable
from labeldp_core.model_audit.crafted import (
    DEFAULT_CANARY_KIND,
    check_canary_kind,
    crafted_inputs,
)
from labeldp_core.model_audit.estimate import accuracy_cap, score_guesses
from labeldp_core.model_audit.guesses import (
    DEFAULT_GUESS_SHARE,
    check_guess_share,
    guess,
    guess_count,
)
from labeldp_core.model_audit.protected import check_rows_kept, protected_rows, rows_digest
from labeldp_core.model_audit.recipe import audit_recipe
from labeldp_core.model_audit.result import CanaryEstimate, ModelAudit
from labeldp_core.model_audit.training_run import MECHANISM, NON_PRIVATE, canary_training

__all__ = [
    "DOUBLED",
    "TRAININGS",
    "audit_model",
    "audit_training",
    "can_audit",
    "demo_model_audits",
]

#: The planted overspend of the budget control: the mechanism runs at this many times ε.
DOUBLED = 2.0


def _check_mechanism(mechanism: str) -> str:
    """The mechanism's privacy unit; refuses those whose model the canaries cannot test.

    A classifier that trains no network (the DP prototypes) is read through the per-class scores
    its runner notes (:meth:`~labeldp_core.engine.context.RunContext.note_released_scores`).
    """
    spec = mechanism_spec(mechanism)
    if spec.task != "classification":
        raise InvalidInputError(
            "the canary audit reads a released classifier's per-class scores (a softmax, or the "
            f"DP prototypes' similarities): '{mechanism}' ({spec.task}) has none"
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


def demo_model_audits(mechanisms: Iterable[str], dataset: str) -> list[tuple[str, float]]:
    """The model audits the price-of-privacy screen reads: each mechanism's curve grid, seed 0.

    Every (mechanism, ε) of ``mechanisms``' demo grids that the audit takes with its defaults
    (the audit's recipe) and that a canary design can test (not PATE's: :mod:`.ceiling`), as
    `warm` computes them before a class; none on a dataset too small to
    hide :data:`~.canaries.MIN_CANARIES` canaries in the part of it a mechanism protects (a
    table of a few hundred rows: a quarter of the training set must hold them, as PATE's
    teachers' shards and the encoder prior's private part are smaller than the whole).
    """
    if training_size(dataset) < 4 * MIN_CANARIES:
        return []
    return [(m, e) for m in mechanisms for e in demo_epsilons(m) if _testable(m, dataset, e)]


def _testable(mechanism: str, dataset: str, epsilon: float) -> bool:
    """Whether the audit with its defaults takes this point and a canary design can test it."""
    try:
        _configs(mechanism, dataset, epsilon, {})
    except InvalidInputError:
        return False
    return True


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
    """The claim for one changed label (an example-level claim translated by group privacy).

    A changed label is one example replaced by itself with another label: a removal and an
    addition, so an (ε, δ) add/remove claim gives (2ε, (1 + e^ε)δ) for it. This holds for any
    (ε, δ)-DP claim, DP-SGD's and the DP prototypes' alike (for DPPL-Mean's zCDP the family's
    ``details["epsilon_replace_one"]``, 4ρ at the run's δ, is another valid reading).
    """
    return label_guarantee_of_example(epsilon, delta) if unit == "example" else (epsilon, delta)


#: The audit's three trainings, in order: name, budget factor and role.
TRAININGS = (
    (MECHANISM, 1.0, MECHANISM),
    (NON_PRIVATE, 1.0, NON_PRIVATE),
    (f"{DOUBLED:g}x budget", DOUBLED, MECHANISM),
)


@dataclass(frozen=True)
class _Plan:
    """What an audit trains, the canaries drawn and the share of them the attack guesses on."""

    unit: str
    configs: tuple[RunConfig, ...]
    drawn: Canaries
    draw: dict
    share: float
    claim: AuditedClaim


def _configs(
    mechanism: str, dataset: str, epsilon: float, options: Mapping[str, object]
) -> tuple[str, tuple[RunConfig, ...], AuditedClaim]:
    """The unit claimed, one config per training and the claim tested, once it can be tested.

    The canaries are counted only for a mechanism that declares a ceiling (counting them reads
    the dataset: the warm's plan asks this of every demo point).
    """
    unit = _check_mechanism(mechanism)
    epsilon = _check_budget(epsilon)
    seed = options.get("seed", 0)
    epochs, settings = audit_recipe(
        mechanism, dataset, options.get("epochs"), options.get("settings")
    )
    configs = tuple(
        make_config(mechanism, dataset, factor * epsilon, seed, epochs, settings)
        for _, factor, _ in TRAININGS
    )
    under_mechanism = {
        name: config
        for (name, _, role), config in zip(TRAININGS, configs, strict=True)
        if role == MECHANISM
    }
    claim = _label_claim(configs[0].epsilon, 0.0, unit)[0]  # its ε does not depend on δ
    n_train, classes = training_size(dataset), dataset_info(dataset).num_classes
    tested = audited_claim(under_mechanism, n_train, claim, classes)

    def guesses() -> int:
        _, count, share = _canaries(configs, dataset, options, tested)
        return guess_count(share, count)

    check_testable(under_mechanism, n_train, unit, tested.epsilon, guesses)
    return unit, configs, tested


def _canaries(
    configs: tuple[RunConfig, ...],
    dataset: str,
    options: Mapping[str, object],
    claim: AuditedClaim,
) -> tuple[np.ndarray, int, float]:
    """The rows the canaries go in, how many canaries, and the share guessed on (checked).

    The share is the one asked for, else the tested claim's (:func:`~.ceiling.audited_claim`),
    else :data:`~.guesses.DEFAULT_GUESS_SHARE`.
    """
    rows = protected_rows(configs[0], load_dataset(dataset))
    count = canary_count(len(rows), options.get("canaries"))
    share = next(
        s
        for s in (options.get("guess_share"), claim.guess_share, DEFAULT_GUESS_SHARE)
        if s is not None
    )
    return rows, count, check_guess_share(share)


def _plan(mechanism: str, dataset: str, epsilon: float, options: Mapping[str, object]) -> _Plan:
    """Check the audit asked for and draw its canaries (``options`` as :func:`audit_model`'s)."""
    unit, configs, claim = _configs(mechanism, dataset, epsilon, options)
    rows, count, share = _canaries(configs, dataset, options, claim)
    data = load_dataset(dataset)
    kind = options.get("kind")
    kind = check_canary_kind(DEFAULT_CANARY_KIND if kind is None else kind)
    seed = configs[0].seed
    drawn = draw_canaries(data.y_train, data.num_classes, count, seed, rows)
    if kind == "crafted":
        drawn = replace(drawn, inputs=crafted_inputs(data.x_train, count, seed))
    check_rows_kept(configs[0], data, drawn, rows)
    draw = {
        "dataset": dataset,
        "count": count,
        "seed": seed,
        "rows": rows_digest(rows),
        "kind": kind,
    }
    return _Plan(unit, configs, drawn, draw, share, claim)


def audit_training(
    mechanism: str,
    dataset: str,
    epsilon: float,
    index: int,
    *,
    cache: ResultCache,
    progress: Progress = silent,
    **options: object,
) -> dict:
    """One of :func:`audit_model`'s trainings (``index`` into :data:`TRAININGS`), cached.

    What a cluster's worker computes, so the three trainings of an audit run side by side;
    ``options`` are :func:`audit_model`'s (canaries, seed, epochs, settings).
    """
    return _train(_plan(mechanism, dataset, epsilon, options), index, cache, progress)


def _train(plan: _Plan, index: int, cache: ResultCache, progress: Progress) -> dict:
    """``plan``'s training ``index`` (into :data:`TRAININGS`): its stored outcome, cached."""
    role = TRAININGS[index][2]
    return canary_training(plan.configs[index], plan.drawn, role, cache, plan.draw, progress)


def audit_model(
    mechanism: str,
    dataset: str,
    epsilon: float,
    *,
    canaries: int | None = None,
    seed: int = 0,
    epochs: int | None = None,
    settings: Mapping[str, object] | None = None,
    kind: str | None = None,
    guess_share: float | None = None,
    cache: ResultCache | None = None,
    progress: Progress = silent,
) -> ModelAudit:
    """Audit ``mechanism``'s trained model at ``epsilon`` on ``dataset`` with canaries.

    Three trainings (the mechanism, without privacy, at twice ε), each cached, so a second call
    trains nothing. The canaries are drawn from the rows whose labels the mechanism protects
    (:func:`~.protected.protected_rows`: never a public part, never the test set);
    ``canaries`` defaults to :func:`~.canaries.canary_count`'s choice for that many rows, and
    ``epochs``, the model and its learning rate to the audit's recipe for ``dataset``
    (:mod:`.recipe`). ``seed`` draws the canaries and seeds the trainings.
    ``kind`` is ``flipped`` (training images, a wrong label) or ``crafted`` (noise inputs no
    training image resembles, :mod:`.crafted`; None: :data:`~.crafted.DEFAULT_CANARY_KIND`), and the
    attack guesses on the ``guess_share`` most confident canaries (:mod:`.guesses`).
    """
    options = {
        "canaries": canaries,
        "seed": seed,
        "epochs": epochs,
        "settings": settings,
        "kind": kind,
        "guess_share": guess_share,
    }
    plan = _plan(mechanism, dataset, epsilon, options)
    cache = ResultCache() if cache is None else cache
    share = 1 / len(TRAININGS)
    found = [
        _train(plan, i, cache, within(progress, i * share, (i + 1) * share))
        for i in range(len(TRAININGS))
    ]
    progress(1.0, "done")
    return _assemble(mechanism, dataset, plan, found)


def _assemble(mechanism: str, dataset: str, plan: _Plan, found: list[dict]) -> ModelAudit:
    """The audit of ``found``, the stored outcomes of ``plan``'s trainings."""
    config = plan.configs[0]
    # The ε tested was found with the plan (the run's for a label, or a tighter guarantee of the
    # model); the δ for a label needs the run's δ, which only its stored training knows.
    label_epsilon = plan.claim.epsilon
    label_delta = _label_claim(config.epsilon, found[0]["delta"], plan.unit)[1]
    estimates = [
        _estimate(name, run_config, role, stored, plan, (label_epsilon, label_delta))
        for (name, _, role), run_config, stored in zip(TRAININGS, plan.configs, found, strict=True)
    ]
    return ModelAudit(
        mechanism=mechanism,
        dataset=dataset,
        seed=config.seed,
        epochs=int(config.epochs or 0),
        model=dict(config.settings).get("model"),
        canaries=plan.draw["count"],
        canary_kind=plan.draw["kind"],
        guess_share=plan.share,
        claimed_epsilon=config.epsilon,
        privacy_unit=plan.unit,
        label_epsilon=label_epsilon,
        label_delta=label_delta,
        accuracy_cap=accuracy_cap(label_epsilon, label_delta),
        audited=estimates[0],
        controls=tuple(estimates[1:]),
        learning_rate=dict(config.settings).get("learning_rate"),
        claim_reason=plan.claim.reason,
    )


def _estimate(
    name: str, config: RunConfig, role: str, stored: dict, plan: _Plan, claim: tuple[float, float]
) -> CanaryEstimate:
    """One training's guesses on ``plan``'s canaries and their estimate against ``claim``.

    ``claim`` is the label-level (ε, δ); the guesses are made from the stored scores here, so
    they change with the attack (:mod:`.guesses`) without training again.
    """
    epsilon, delta = claim
    drawn = plan.drawn
    made = guess(np.asarray(stored["scores"]), drawn.planted, drawn.decoy, plan.share)
    score = score_guesses(made.correct, made.made, delta, canaries=made.canaries)
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
        caught=score.epsilon_lower_bound > epsilon,
    )
