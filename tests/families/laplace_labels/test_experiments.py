"""The Laplace family through the engine: JSON, epsilon spent, budget splits, learning, caching."""

import json

import numpy as np
import pytest

from labeldp_core.data import load_dataset
from labeldp_core.engine.context import RunContext
from labeldp_core.experiments import make_config, run
from labeldp_core.families.laplace_labels.label_prior import (
    budget_table,
    estimate_prior,
    split_from_table,
)

FAST = {"model": "mlp"}


def _run(mechanism, epsilon, cache, epochs=5, **settings):
    return run(make_config(mechanism, "digits", epsilon, 0, epochs, FAST | settings), cache)


@pytest.mark.parametrize("post", ["argmax", "soft", "round"])
def test_laplace_one_hot_learns_at_large_epsilon_and_spends_epsilon(cache, post):
    result = _run("laplace", 8.0, cache, post=post)
    json.dumps(result.to_dict(), allow_nan=False)
    assert result.privacy_unit == "label" and result.epsilon_spent == pytest.approx(8.0)
    assert result.test_accuracy > 0.5  # chance is 0.1
    assert result.label_accuracy + result.flip_rate == pytest.approx(1.0)
    assert result.details["post"] == post
    expected = result.details["expected_argmax_accuracy"]
    assert abs(result.details["argmax_accuracy"] - expected) < 4 * np.sqrt(
        expected * (1 - expected) / result.n_train
    )


def test_regression_mechanisms_report_mse_against_a_regression_baseline(cache):
    laplace = _run("laplace-regression", 8.0, cache)
    bins = _run("rr-bins", 8.0, cache)
    for result in (laplace, bins):
        data = result.to_dict()
        assert "test_mse" in data and "test_accuracy" not in data and "flip_rate" not in data
        assert result.baseline_test_mse < 8.25  # learning: below always predicting the mean
        assert result.epsilon_spent == pytest.approx(8.0)
    assert laplace.baseline_test_mse == bins.baseline_test_mse  # the same clean baseline
    assert bins.details["expected_label_mse"] <= bins.details["best_constant_mse"]
    assert bins.test_mse < 8.25


@pytest.mark.parametrize("mechanism", ["rr-bins", "alibi"])
def test_histogram_prior_is_paid_from_the_budget_and_the_split_adds_up(cache, mechanism):
    result = _run(mechanism, 2.0, cache, epochs=1, prior="histogram", prior_share=0.25)
    budget = result.details["budget"]
    assert budget[0]["step"] == "prior: noisy label histogram"
    assert budget[0]["epsilon"] == pytest.approx(0.5)
    assert budget[1]["epsilon"] == pytest.approx(1.5)
    assert budget[-1]["epsilon"] == pytest.approx(2.0) == result.epsilon_spent
    assert len(result.details["noisy_counts"]) == 10
    assert sum(result.details["prior"]) == pytest.approx(1.0)
    assert min(result.details["prior"]) > 0  # clipped counts plus a pseudo-count, never 0
    # The pseudo-count is the histogram's Laplace scale: L1 sensitivity 2 over the prior's 0.5.
    assert result.details["prior_pseudo_count"] == pytest.approx(2 / 0.5)


@pytest.mark.parametrize(
    ("kind", "noise"), [("histogram", "float"), ("histogram", "secure"), ("uniform", "float")]
)
@pytest.mark.parametrize("release_spent", ["all", "nothing"])
def test_the_split_read_back_from_a_budget_table_is_the_one_used(kind, noise, release_spent):
    labels = load_dataset("digits").y_train
    estimate = estimate_prior(labels, 10, 2.0, kind, 0.15, np.random.default_rng(0), noise=noise)
    # RR-on-bins with a single bin spends nothing of its release budget; the split is unchanged.
    spent = estimate.split.release_epsilon if release_spent == "all" else 0.0
    assert split_from_table(2.0, budget_table(estimate, "release", spent)) == estimate.split
    if noise == "secure":  # the rounded-up histogram scale leaves the release more than planned
        assert estimate.split.release_epsilon > 2.0 * (1 - 0.15)


def test_alibi_learns_from_soft_labels(cache):
    result = _run("alibi", 8.0, cache)
    assert result.test_accuracy > 0.5
    assert result.details["budget"][-1]["epsilon"] == result.epsilon_spent == 8.0


def test_softmax_laplace_trains_the_clean_model_once_per_setting(cache, monkeypatch):
    calls = []
    original = RunContext.train

    def counting(self, *args, **kwargs):
        calls.append(kwargs.get("message"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(RunContext, "train", counting)
    sharp = _run("softmax-laplace", 50.0, cache)
    trained = len(calls)
    blurred = _run("softmax-laplace", 0.1, cache)
    assert len(calls) == trained  # the clean outputs and the baseline come from the cache
    assert sharp.privacy_unit == "output" and "protects" in sharp.details
    assert sharp.details["argmax_agreement"] > 0.95 > 0.5 > blurred.details["argmax_agreement"]
    assert sharp.details["silhouette_noisy"] > blurred.details["silhouette_noisy"]
    assert sharp.details["under_protection"]["actual_epsilon"] == 100.0
    assert sharp.baseline_test_accuracy > 0.5
    assert len(sharp.details["projection"]["clean"]) == len(sharp.details["projection"]["labels"])
