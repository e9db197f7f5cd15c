"""Figures of the three Laplace pages: they draw the closed forms and the data they are given."""

import numpy as np
import pytest
from fake_results import fake_result

from labeldp_core import plots
from labeldp_core.engine.spec import RunResult
from labeldp_core.mechanisms import RRBins, laplace_density, tail_probability


def _mse_result(mechanism: str, epsilon: float, mse: float) -> RunResult:
    return fake_result(
        mechanism=mechanism,
        epsilon=epsilon,
        epsilon_spent=epsilon,
        test_mse=mse,
        baseline_test_mse=1.0,
    )


def test_power_law_slope_recovers_an_exact_power_law():
    epsilons = [0.5, 1.0, 2.0, 4.0]
    slope, factor = plots.power_law_slope(epsilons, [3.0 * e**-1.7 for e in epsilons])
    assert slope == pytest.approx(-1.7) and factor == pytest.approx(3.0)


def test_mse_vs_epsilon_is_log_log_with_the_slope_in_the_legend():
    results = [_mse_result("laplace-regression", e, 10 * e**-2) for e in (0.5, 1, 2, 4)]
    figure = plots.mse_vs_epsilon({"Laplace": results}, {"clean": 1.0})
    fit, points, clean = figure.data
    assert points.name == "Laplace (slope -2.00)"
    np.testing.assert_allclose(fit.y, points.y)
    assert figure.layout.xaxis.type == "log" and figure.layout.yaxis.type == "log"
    assert clean.y == (1.0, 1.0) and clean.x == (0.5, 4.0)


def test_density_figure_draws_the_closed_form_over_the_draws():
    draws = np.random.default_rng(0).laplace(0, 2.0, 1000)
    figure = plots.laplace_density_figure(2.0, 1.0, [0.5], draws)
    histogram, other, chosen = figure.data
    assert histogram.type == "histogram" and len(histogram.x) == 1000
    np.testing.assert_allclose(chosen.y, laplace_density(np.asarray(chosen.x), 2.0))
    np.testing.assert_allclose(other.y, laplace_density(np.asarray(other.x), 4.0))


def test_tail_figure_marks_the_chosen_threshold():
    figure = plots.tail_probability_figure(2.0, 1.0, 3.0)
    curve, marker = figure.data
    np.testing.assert_allclose(curve.y, tail_probability(np.asarray(curve.x), 2.0))
    assert marker.x == (3.0,) and marker.y[0] == pytest.approx(np.exp(-1.5))


def test_noisy_vectors_figure_has_one_heatmap_per_panel():
    panels = {
        "noisy": np.array([[1.2, -0.3], [0.1, 0.4]]),
        "soft": np.array([[1.0, 0], [0.2, 0.8]]),
    }
    figure = plots.noisy_vectors_figure([0, 1], panels, ["a", "b"])
    assert [trace.type for trace in figure.data] == ["heatmap", "heatmap"]
    assert list(figure.data[0].y) == ["#1: true a", "#2: true b"]


def test_rr_bins_figure_draws_each_value_s_bin_output():
    bins = RRBins(np.arange(4.0), np.array([0, 0, 1, 1]), np.array([0.7, 2.3]), 1.0)
    _, steps = plots.rr_bins_figure(bins).data
    assert list(steps.y) == [0.7, 0.7, 2.3, 2.3]


def test_expected_label_mse_figure_puts_rr_bins_below_the_mean_line():
    figure = plots.expected_label_mse_figure(np.full(10, 0.1), 1.0)
    laplace, bins, mean = figure.data
    # Variance of a uniform value on 0..9: (10^2 - 1) / 12 = 8.25.
    assert mean.y == pytest.approx((8.25, 8.25))
    assert max(bins.y) <= 8.25 + 1e-9 < max(laplace.y)


def test_cluster_figures_read_the_run_details():
    details = {
        "silhouette_clean": 0.6,
        "silhouette_noisy": 0.2,
        "calinski_harabasz_clean": 900.0,
        "calinski_harabasz_noisy": 30.0,
        "argmax_agreement": 0.4,
        "projection": {
            "labels": [0, 1],
            "clean": [[0, 1], [1, 0]],
            "noisy": [[0.5, 1], [1, 2]],
            "explained_variance": [0.5, 0.3],
        },
    }
    result = RunResult.from_dict(
        _mse_result("softmax-laplace", 1.0, 0.0).to_dict() | {"details": details}
    )
    figure = plots.cluster_metrics_vs_epsilon([result], 1.0)
    assert [trace.y[0] for trace in figure.data] == [0.2, 30.0, 0.4]
    projection = plots.output_projection(details["projection"], ["a", "b"], 1.0)
    assert len(projection.data) == 4  # two classes, clean and noisy
