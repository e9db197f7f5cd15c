"""LP-2ST with ``stage1_prior=clusters``: half 1's histograms, the composition, the settings."""

import numpy as np
import pytest

from labeldp_core.__main__ import main
from labeldp_core.accounting import parallel_composition, sequential_composition
from labeldp_core.data import load_dataset
from labeldp_core.data.tables import example_table
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config, run
from labeldp_core.families.rr_prior import experiment as rr_prior_experiment
from labeldp_core.families.rr_prior import lp_2st
from labeldp_core.noise.noise_plans import laplace_plan, rr_plan
from tests.families.rr_prior.contexts import digits_context

CLUSTERS = {"model": "logistic", "clusters": 10, "stage1_prior": "clusters"}
Y = load_dataset("digits").y_train
FIRST, SECOND = lp_2st.split_halves(Y.size, 0)


def _histogram(monkeypatch, directory, y_train, settings=CLUSTERS) -> tuple[np.ndarray, ...]:
    """The cluster ids and labels stage 1's histogram received and the counts it returned.

    The run is seed 0 on digits with its training labels replaced by ``y_train``, in a fresh
    cache, so the histogram's noise is the same draw in every call.
    """
    calls = []
    real = rr_prior_experiment.noisy_label_counts_by_plan

    def spy(ids, labels, *args, **kwargs):
        counts = real(ids, labels, *args, **kwargs)
        calls.append((np.array(ids), np.array(labels), np.array(counts)))
        return counts

    monkeypatch.setattr(rr_prior_experiment, "noisy_label_counts_by_plan", spy)
    config = make_config("lp-2st", "digits", 1.0, epochs=1, settings=settings)
    with digits_context(config, directory, y_train) as ctx:
        lp_2st.run_lp_2st(config, ctx)
    (call,) = calls
    return call


def _changed(index: np.ndarray) -> np.ndarray:
    """The digits labels with the label at ``index`` changed (replace-one neighbours)."""
    y = Y.copy()
    y[index] = (y[index] + 1) % 10
    return y


def test_the_histograms_count_half_1s_labels_and_no_others(monkeypatch, tmp_path):
    ids, labels, counts = _histogram(monkeypatch, tmp_path / "clean", Y)
    np.testing.assert_array_equal(labels, Y[FIRST])
    assert ids.shape == FIRST.shape
    # A half-2 label changed: not one count moves (it is released once, in stage 2).
    for i, index in enumerate(SECOND[:3]):
        _, _, moved = _histogram(monkeypatch, tmp_path / f"second-{i}", _changed(index))
        np.testing.assert_array_equal(moved, counts)
    # A half-1 label changed: its cluster's counts move, so the comparison above can fail.
    _, _, moved = _histogram(monkeypatch, tmp_path / "first", _changed(FIRST[0]))
    assert np.sum(moved != counts) == 2


def test_scrambling_every_label_leaves_stage_1s_clusters_identical(monkeypatch, tmp_path):
    settings = CLUSTERS | {"prior_features": "patches"}
    ids, _, counts = _histogram(monkeypatch, tmp_path / "clean", Y, settings)
    scrambled = (Y + 1 + np.arange(Y.size) % 9) % 10  # every label changed
    ids_scrambled, _, counts_scrambled = _histogram(
        monkeypatch, tmp_path / "scrambled", scrambled, settings
    )
    np.testing.assert_array_equal(ids, ids_scrambled)
    assert np.unique(ids).size == 10  # the clusters are not trivial
    assert not np.array_equal(counts, counts_scrambled)  # the histograms do read the labels


def _recording(real, name: str, plan_at: int, calls: list):
    """``real``, recording (name, plan, number of labels) of each call."""
    labels_at = 1 if name == "noisy_label_counts_by_plan" else 0

    def spy(*args, **kwargs):
        calls.append((name, args[plan_at], len(args[labels_at])))
        return real(*args, **kwargs)

    return spy


def _spy_plans(monkeypatch, calls: list) -> None:
    """Record (function, plan, number of labels) of each of LP-2ST's releases."""
    for module, name, plan_at in (
        (rr_prior_experiment, "noisy_label_counts_by_plan", 4),
        (lp_2st, "rr_with_prior_by_plan", 2),
        (lp_2st, "randomized_response_by_plan", 1),
    ):
        monkeypatch.setattr(module, name, _recording(getattr(module, name), name, plan_at, calls))


@pytest.mark.parametrize(
    ("epsilon", "settings", "asked"),
    [(1.5, {"prior_epsilon": 0.4}, 0.4), (0.3, {"prior_share": 0.3}, 0.09), (0.1, {}, 0.05)],
)
def test_epsilon_spent_is_the_composition_of_the_plans(
    cache, monkeypatch, epsilon, settings, asked
):
    calls = []
    _spy_plans(monkeypatch, calls)
    config = make_config("lp-2st", "digits", epsilon, epochs=1, settings=CLUSTERS | settings)
    result = run(config, cache)
    names = [name for name, _, _ in calls]
    assert names == ["noisy_label_counts_by_plan", *["rr_with_prior_by_plan"] * 2]
    (_, histogram, n_hist), (_, first, n_first), (_, second, n_second) = calls
    # Half 1 pays its histograms and its coins (sequential); half 2 its coins at epsilon.
    assert n_hist == n_first == FIRST.size and n_second == SECOND.size
    assert histogram == laplace_plan(2, asked)
    assert second == rr_plan(epsilon, 10)
    assert first.epsilon <= epsilon - histogram.epsilon_spent
    stage1 = sequential_composition([histogram.epsilon_spent, first.epsilon_spent])
    assert result.epsilon_spent == parallel_composition([stage1, second.epsilon_spent])
    assert result.epsilon_spent <= epsilon
    assert stage1 <= epsilon and stage1 == pytest.approx(epsilon, rel=1e-12)
    assert result.details["budget"] == {
        "stage1_prior_epsilon": histogram.epsilon_spent,
        "stage1_rr_epsilon": first.epsilon_spent,
        "stage1_epsilon": stage1,
        "stage2_epsilon": second.epsilon_spent,
        "spent": result.epsilon_spent,
    }
    composition = result.details["composition"]
    assert all(word in composition for word in ("sequential", "parallel", "replace-one"))
    assert result.details["stage1_prior"]["clusters"] == 10
    # The stage-1 prior's mass on the true labels reads them: a diagnostic, not private.
    assert "details.stage1_mean_prior_true_mass" in result.diagnostics["keys"]
    assert 0.1 < result.details["stage1_mean_prior_true_mass"] <= 1
    assert result.privacy_unit == "label" and result.delta == 0.0


def test_the_uniform_stage_1_is_plain_rr_and_reads_no_histogram(cache, monkeypatch):
    calls = []
    _spy_plans(monkeypatch, calls)
    settings = CLUSTERS | {"stage1_prior": "uniform"}
    result = run(make_config("lp-2st", "digits", 1.0, epochs=1, settings=settings), cache)
    assert [name for name, _, _ in calls] == [
        "randomized_response_by_plan",
        "rr_with_prior_by_plan",
    ]
    assert result.details["budget"]["stage1_epsilon"] == rr_plan(1.0, 10).epsilon_spent


def test_stage_1_takes_label_free_features_only():
    # The encoder's prior reads a public part's labels: LP-2ST's guarantee covers every label.
    with pytest.raises(InvalidInputError, match=r"encoder.*pixels, patches"):
        make_config("lp-2st", "digits", 1.0, settings={"prior_features": "encoder"})
    with pytest.raises(InvalidInputError, match="leaves no budget"):
        make_config("lp-2st", "digits", 1.0, settings=CLUSTERS | {"prior_epsilon": 1.0})


def test_patches_are_refused_on_a_table(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_bytes(example_table("wine"))
    argv = ["run", "lp-2st", "--epsilon", "1", "--epochs", "1", "--json"]
    argv += ["--dataset", f"file:{path}", "--label", "class", "--set", "prior_features=patches"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "prior_features=patches cuts patches" in captured.err


def test_the_cluster_stage_1_is_the_default_only_where_it_was_measured_to_win():
    def stage1(dataset):
        config = make_config("lp-2st", dataset, 1.0)
        return config.setting("stage1_prior"), config.setting("prior_features")

    assert stage1("fashion-mnist") == ("clusters", "patches")
    assert stage1("digits")[0] == stage1("mnist-5k")[0] == "uniform"
    assert lp_2st.STAGE1_CLUSTER_DATASETS == ("fashion-mnist",)
