"""RR with prior and LP-2ST: the histogram's and the coins' epsilons, from the plans used."""

import numpy as np
import pytest
from release_spies import K, N, after_priors, laplace_epsilon, only, rr_coins_epsilon

from labeldp_core.accounting import parallel_composition, sequential_composition
from labeldp_core.noise.label_histogram import HISTOGRAM_SENSITIVITY
from labeldp_core.noise.noise_plans import laplace_plan


def _rr_prior(calls, result) -> float:
    (call,) = only(calls, "rr_with_prior_by_plan")
    assert call.arguments["labels"].size == N
    histograms = only(calls, "noisy_label_counts_by_plan")
    settings = result.settings
    if settings["prior"] == "uniform":  # reads no label, so it costs nothing and gets nothing
        assert not histograms
    else:  # the prior's share of the budget is the one the settings ask for
        asked = settings["prior_epsilon"] or settings["prior_share"] * result.epsilon
        (histogram,) = histograms
        plan = histogram.arguments["plan"]
        expected = laplace_plan(HISTOGRAM_SENSITIVITY, asked, plan.mode)
        assert plan.scale == pytest.approx(expected.scale)
    return after_priors(calls, rr_coins_epsilon(call.arguments["plan"]))


def _lp_2st(calls, result) -> float:
    *stage1_prior, second = only(calls, "rr_with_prior_by_plan")
    histograms = only(calls, "noisy_label_counts_by_plan")
    if result.settings["stage1_prior"] == "uniform":  # stage 1 is plain RR, no histogram
        assert not histograms and not stage1_prior
        (first,) = only(calls, "randomized_response_by_plan")
        stage1 = rr_coins_epsilon(first.arguments["plan"])
    else:  # half 1: its cluster histograms, then RR-with-prior, on the same labels
        assert not only(calls, "randomized_response_by_plan")
        (histogram,), (first,) = histograms, stage1_prior
        # The histograms count half 1's labels, the ones stage 1 releases, and no others.
        np.testing.assert_array_equal(histogram.arguments["labels"], first.arguments["labels"])
        plan = histogram.arguments["plan"]
        asked = result.settings["prior_epsilon"] or result.settings["prior_share"] * result.epsilon
        assert plan.scale == pytest.approx(
            laplace_plan(HISTOGRAM_SENSITIVITY, asked, plan.mode).scale
        )
        histogram_epsilon = laplace_epsilon(plan, HISTOGRAM_SENSITIVITY)
        stage1 = sequential_composition(
            [histogram_epsilon, rr_coins_epsilon(first.arguments["plan"])]
        )
    # Parallel composition needs disjoint halves that together release every label once.
    assert first.arguments["labels"].size + second.arguments["labels"].size == N
    plans = [first.arguments["plan"], second.arguments["plan"]]
    assert all(plan.max_set_size == K for plan in plans)
    return parallel_composition([stage1, rr_coins_epsilon(second.arguments["plan"])])


def _rr_prior_targets(calls, result, trained) -> list[tuple]:
    return list(zip(trained, [np.asarray(calls[-1].returned)], strict=True))


def _lp_2st_targets(calls, result, trained) -> list[tuple]:
    first, second = (np.asarray(c.returned) for c in calls[-2:])  # after any histogram
    # Stage 2 trains on both halves: compared as a multiset.
    want = [first, np.sort(np.concatenate([first, second]))]
    return list(zip([trained[0], np.sort(trained[1])], want, strict=True))


IMPLIED = {"rr-prior": _rr_prior, "lp-2st": _lp_2st}
VARIANTS = {
    "rr-prior": [
        {},
        {"prior_epsilon": 0.3},
        {"prior": "uniform"},
        {"prior_features": "encoder", "model": "mlp"},
    ],
    "lp-2st": [
        {},
        {"stage1_prior": "clusters"},
        {"stage1_prior": "clusters", "prior_epsilon": 0.3},
        {"stage1_prior": "clusters", "prior_features": "patches"},
    ],
}
SMALL = {"rr-prior": {"clusters": 5}, "lp-2st": {"clusters": 5}}
DRAW_VARIANTS = {
    "rr-prior": [{}, {"prior": "uniform"}],
    "lp-2st": [{}, {"stage1_prior": "clusters"}],
}
TARGETS = {"rr-prior": _rr_prior_targets, "lp-2st": _lp_2st_targets}
