"""Every figure a run reports about its release, recomputed from what the release returned.

The release-contract tests tie a run's epsilon to what its release received; these tie the
rest of what the pages show (flip rates, label accuracies, label MSEs, the sources of the random
draws, the prior's summary) to what the release returned, so a report computed from the wrong
array, with a flipped comparison or from a forgotten branch turns a test red. Runs use the
``fast_runs`` cache (no training): each test asks for its own seed so none reads another's run.
"""

import numpy as np
import pytest
from release_spies import (
    Call,
    family_contracts,
    merged_contracts,
    only,
    spy,
    spy_on_releases,
)

from labeldp_core.data import load_dataset
from labeldp_core.experiments import MECHANISMS, make_config, run
from labeldp_core.families.laplace_labels import experiment as laplace_experiment
from labeldp_core.families.laplace_labels import label_prior
from labeldp_core.families.noisy_outputs import experiment as softmax_experiment
from labeldp_core.families.rr_prior import lp_2st as lp_2st_experiment
from labeldp_core.families.rr_prior.experiment import PRIOR_MASS_BINS
from labeldp_core.families.rr_prior.release import output_probabilities
from labeldp_core.mechanisms import alibi_posterior, post_process
from labeldp_core.noise.label_histogram import HISTOGRAM_SENSITIVITY
from labeldp_core.noise.noise_plans import FLOAT_SOURCE, SECURE_SOURCE
from labeldp_core.registry import family_of, mechanism_entries

DIGITS = load_dataset("digits")
SOURCES = {"float": FLOAT_SOURCE, "secure": SECURE_SOURCE}


def release_steps() -> dict[str, list[tuple[str, str | None]]]:
    """Per mechanism whose draws touch the labels: its declared release calls and the step each
    call is named by in ``details["random_draws"]``."""
    return {
        mechanism.id: [(step.function, step.draws) for step in mechanism.releases]
        for mechanism in mechanism_entries()
        if any(step.draws for step in mechanism.releases)
    }


def draw_variants() -> list[tuple[str, dict]]:
    """Runs whose every setting variant reaches each release of its mechanism: one per mechanism
    of :func:`release_steps`, or one per variant its release contract names (``DRAW_VARIANTS``)."""
    variants = merged_contracts("DRAW_VARIANTS")
    return [
        (mechanism, settings)
        for mechanism in release_steps()
        for settings in variants.get(mechanism, [{}])
    ]


RELEASE_STEPS = release_steps()
VARIANTS = draw_variants()
SMALL = merged_contracts("SMALL")
EXTRA_DRAWS = {
    family: contract.EXTRA_DRAWS
    for family, contract in family_contracts().items()
    if hasattr(contract, "EXTRA_DRAWS")
}


def _run(fast_runs, monkeypatch, mechanism, settings, mode, seed):
    calls: list[Call] = []
    spy_on_releases(monkeypatch, mechanism, calls)
    settings = {"model": "logistic", "noise": mode} | SMALL.get(mechanism, {}) | settings
    config = make_config(mechanism, "digits", 1.3, seed=seed, epochs=1, settings=settings)
    result = run(config, fast_runs)
    assert calls, f"{mechanism} ran from the cache: give the test its own seed"
    return result, calls


def _expected_steps(mechanism: str, settings: dict, mode: str, calls: list[Call]) -> set[str]:
    steps = {step for name, step in RELEASE_STEPS[mechanism] if step and only(calls, name)}
    extra = EXTRA_DRAWS.get(family_of(mechanism).id)  # e.g. secure argmax ties
    return steps | (extra(mechanism, settings, mode) if extra else set())


def test_every_release_is_declared_with_what_its_draws_touch():
    # A family says, per release call, whether its draws touch the labels (and under which
    # name the run reports them); every mechanism must declare at least one release.
    assert all(mechanism.releases for mechanism in mechanism_entries())
    assert set(RELEASE_STEPS) <= set(MECHANISMS)
    assert {"rr", "rr-prior", "pate"} <= set(RELEASE_STEPS)  # label releases are listed


@pytest.mark.parametrize("mode", ["float", "secure"])
@pytest.mark.parametrize(("mechanism", "settings"), VARIANTS, ids=str)
def test_random_draws_name_each_release_and_its_source(
    fast_runs, monkeypatch, mechanism, settings, mode
):
    result, calls = _run(fast_runs, monkeypatch, mechanism, settings, mode, seed=11)
    draws = result.details["random_draws"]
    from_source = {step for step, source in draws.items() if source in SOURCES.values()}
    assert from_source == _expected_steps(mechanism, settings, mode, calls)
    assert {draws[step] for step in from_source} == {SOURCES[mode]}
    seeded = set(draws) - from_source  # the rest say why they may stay seeded
    assert seeded and all(len(draws[step]) > 20 for step in seeded)


@pytest.mark.parametrize("post", ["argmax", "soft", "round"])
def test_laplace_reports_the_targets_it_trained_on(fast_runs, monkeypatch, post):
    result, calls = _run(fast_runs, monkeypatch, "laplace", {"post": post}, "float", seed=12)
    noisy = np.asarray(calls[0].returned)
    y = DIGITS.y_train
    targets = post_process(noisy, post)
    kept = targets == y if post == "argmax" else targets[np.arange(y.size), y]
    assert result.label_accuracy == pytest.approx(np.mean(kept))
    assert result.flip_rate == pytest.approx(1 - np.mean(kept))
    assert result.details["argmax_accuracy"] == pytest.approx(np.mean(noisy.argmax(1) == y))
    uniform = 0.0 if post == "argmax" else np.mean(targets.max(1) == targets.min(1))
    assert result.details["uniform_rows"] == pytest.approx(uniform)


def test_laplace_with_secure_ties_reports_an_accuracy_between_its_tie_bounds(
    fast_runs, monkeypatch
):
    result, calls = _run(fast_runs, monkeypatch, "laplace", {}, "secure", seed=13)
    noisy = np.asarray(calls[0].returned)
    y = DIGITS.y_train
    top = noisy == noisy.max(axis=1, keepdims=True)
    true_on_top, alone = top[np.arange(y.size), y], top.sum(axis=1) == 1
    assert (~alone).any()  # integer noise: ties happen, so the bounds differ
    for figure in (result.label_accuracy, result.details["argmax_accuracy"]):
        assert np.mean(true_on_top & alone) <= figure <= np.mean(true_on_top)


def test_alibi_reports_the_posterior_mass_on_the_true_label(fast_runs, monkeypatch):
    result, calls = _run(fast_runs, monkeypatch, "alibi", {"prior": "histogram"}, "float", 14)
    (release,) = only(calls, "laplace_one_hot_by_plan")
    plan = release.arguments["plan"]
    prior = np.asarray(result.details["prior"])
    posterior = alibi_posterior(np.asarray(release.returned), plan.epsilon_spent, prior)
    y = DIGITS.y_train
    mass = posterior[np.arange(y.size), y]
    assert result.label_accuracy == pytest.approx(mass.mean())
    assert result.flip_rate == pytest.approx(1 - mass.mean())
    accuracy = np.mean(posterior.argmax(axis=1) == y)
    assert result.details["posterior_argmax_accuracy"] == pytest.approx(accuracy)


def test_lp_2st_reports_each_stage_of_what_it_released(fast_runs, monkeypatch):
    result, calls = _run(fast_runs, monkeypatch, "lp-2st", {}, "float", seed=15)
    (first, second) = calls
    details, y = result.details, DIGITS.y_train
    # Rebuild the release in training-set order from the two halves' own labels: each half
    # is the set of positions whose true labels the stage was handed.
    halves = lp_2st_experiment.split_halves(y.size, 15)
    for half, call in zip(halves, calls, strict=True):
        np.testing.assert_array_equal(call.arguments["labels"], y[half])
    released = np.empty_like(y)
    released[halves[0]], released[halves[1]] = first.returned, second.returned
    assert result.flip_rate == pytest.approx(np.mean(released != y))
    assert result.label_accuracy == pytest.approx(np.mean(released == y))
    assert details["stage1_flip_rate"] == pytest.approx(np.mean(first.returned != y[halves[0]]))
    assert details["stage2_flip_rate"] == pytest.approx(np.mean(second.returned != y[halves[1]]))
    assert (details["stage1_examples"], details["stage2_examples"]) == tuple(map(len, halves))
    weighted = (
        len(halves[0]) * details["stage1_expected_flip_rate"]
        + len(halves[1]) * details["stage2_expected_flip_rate"]
    ) / y.size
    assert details["expected_flip_rate"] == pytest.approx(weighted)
    _check_prior_summary(details, second)


@pytest.mark.parametrize("mechanism", ["rr-prior", "lp-2st"])
def test_the_prior_summary_describes_the_priors_the_release_used(fast_runs, monkeypatch, mechanism):
    result, calls = _run(fast_runs, monkeypatch, mechanism, {}, "float", seed=16)
    (release,) = only(calls, "rr_with_prior_by_plan")
    _check_prior_summary(result.details, release)


def _check_prior_summary(details: dict, release: Call) -> None:
    priors, labels = release.arguments["priors"], release.arguments["labels"]
    epsilon = release.arguments["plan"].epsilon
    mass = priors[np.arange(labels.size), labels]
    edges = np.linspace(0.0, 1.0, PRIOR_MASS_BINS + 1)
    counts = np.minimum((mass * PRIOR_MASS_BINS).astype(int), PRIOR_MASS_BINS - 1)
    assert (
        details["prior_true_mass_counts"] == np.bincount(counts, minlength=PRIOR_MASS_BINS).tolist()
    )
    np.testing.assert_allclose(details["prior_true_mass_edges"], edges)
    assert details["mean_prior_true_mass"] == pytest.approx(mass.mean())
    keep = output_probabilities(priors, labels, epsilon)[np.arange(labels.size), labels]
    assert 0 < details["true_in_set_rate"] < 1  # both kinds exist, so a wrong test shows
    assert details["true_in_set_rate"] == pytest.approx(np.mean(keep > 0))


@pytest.mark.parametrize("mechanism", ["rr-bins", "laplace-regression"])
def test_regression_runs_report_the_mse_of_what_they_released(fast_runs, monkeypatch, mechanism):
    result, calls = _run(fast_runs, monkeypatch, mechanism, {}, "float", seed=17)
    released = np.asarray(calls[-1].returned, dtype=np.float64)
    mse = np.mean((released - DIGITS.y_train) ** 2)
    assert result.details["label_mse"] == pytest.approx(mse)


def test_softmax_laplace_scores_the_noisy_and_clean_outputs_it_released(fast_runs, monkeypatch):
    calls: list[Call] = []
    spy(monkeypatch, softmax_experiment, "laplace_outputs_by_plan", calls)
    config = make_config(
        "softmax-laplace", "digits", 1.3, seed=18, epochs=1, settings={"model": "logistic"}
    )
    result = run(config, fast_runs)
    (release,) = calls
    clean, noisy = release.arguments["probabilities"], np.asarray(release.returned)
    y = DIGITS.y_test
    assert result.test_accuracy == pytest.approx(np.mean(noisy.argmax(1) == y))
    assert result.baseline_test_accuracy == pytest.approx(np.mean(clean.argmax(1) == y))
    shown = result.details["projection"]["clean"]
    assert len({tuple(point) for point in shown}) == len(shown)  # a sample without repeats
    agreement = np.mean(noisy.argmax(1) == clean.argmax(1))
    assert result.details["argmax_agreement"] == pytest.approx(agreement)
    assert result.details["mean_abs_noise"] == pytest.approx(np.mean(np.abs(noisy - clean)))


@pytest.mark.parametrize("mechanism", ["alibi", "rr-bins"])
@pytest.mark.parametrize("prior", ["uniform", "histogram"])
def test_the_prior_asked_for_is_the_prior_paid_for(fast_runs, monkeypatch, mechanism, prior):
    result, calls = _run(fast_runs, monkeypatch, mechanism, {"prior": prior}, "float", seed=19)
    histograms = only(calls, "noisy_label_counts_by_plan")
    assert len(histograms) == (prior == "histogram")
    assert result.details["prior_kind"] == prior
    steps = [row["step"] for row in result.details["budget"]]
    assert (label_prior.PRIOR_STEP in steps) == (prior == "histogram")
    release = result.details["budget"][-2]
    words = "Laplace" if mechanism == "alibi" else f"over {result.details['num_bins']} bins"
    assert release["step"] == "release" and words in release["mechanism"]


@pytest.mark.parametrize(
    ("mechanism", "settings"),
    [
        ("alibi", {"prior": "histogram"}),
        ("rr-bins", {"prior": "histogram"}),
        ("rr-prior", {}),
    ],
)
@pytest.mark.parametrize("mode", ["float", "secure"])
def test_secure_histograms_report_their_exact_scale(
    fast_runs, monkeypatch, mechanism, settings, mode
):
    result, calls = _run(fast_runs, monkeypatch, mechanism, settings, mode, seed=20)
    (histogram,) = only(calls, "noisy_label_counts_by_plan")
    plan = histogram.arguments["plan"]
    assert plan.mode == mode and plan.sensitivity == HISTOGRAM_SENSITIVITY
    exact = result.details.get("histogram_noise_scale_exact")
    assert exact == (str(plan.exact_scale) if mode == "secure" else None)


def test_secure_argmax_breaks_ties_at_random(fast_runs, monkeypatch):
    # Integer noise ties often; the training targets must then pick among the tied classes
    # at random (as random_draws says), not always the smallest index.
    targets: list[Call] = []
    spy(monkeypatch, laplace_experiment, "post_process", targets)
    _, calls = _run(fast_runs, monkeypatch, "laplace", {}, "secure", seed=21)
    noisy = np.asarray(calls[0].returned)
    top = noisy == noisy.max(axis=1, keepdims=True)
    tied = top.sum(axis=1) > 1
    assert tied.sum() > 50
    for call in targets:  # the training targets and the argmax diagnostic
        chosen = np.asarray(call.returned)[tied]
        assert top[tied][np.arange(chosen.size), chosen].all()
        lowest = top[tied].argmax(axis=1)
        assert np.mean(chosen == lowest) < 0.8  # at random: about 1/2 for two-way ties


def test_cluster_scores_of_one_cluster_are_zero_and_of_separate_clusters_high():
    same = np.tile([[0.2, 0.8]], (30, 1))
    with pytest.warns(Warning, match="distinct clusters"):  # fewer than asked
        flat = softmax_experiment.cluster_scores(same, 3, 0)
    assert (flat["silhouette"], flat["calinski_harabasz"]) == (0.0, 0.0)
    rng = np.random.default_rng(0)
    apart = np.concatenate([rng.normal(0, 0.01, (20, 2)), rng.normal(1, 0.01, (20, 2))])
    split = softmax_experiment.cluster_scores(apart, 2, 0)
    assert split["silhouette"] > 0.9 and split["calinski_harabasz"] > 1000
    assert np.unique(split["clusters"]).size == 2
