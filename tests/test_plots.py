import numpy as np
import pytest

from labeldp_core import plots
from labeldp_core.experiments.spec import RunResult
from labeldp_core.mechanisms import keep_probability


def _result(epsilon: float, seed: int, accuracy: float) -> RunResult:
    return RunResult(
        mechanism="rr", dataset="digits", seed=seed, epsilon=epsilon, epsilon_spent=epsilon,
        delta=0.0, privacy_unit="label", n_train=10, n_test=5, num_classes=10, elapsed_s=0.0,
        cached=True, epochs=1, settings={}, details={}, test_accuracy=accuracy,
        baseline_test_accuracy=0.9,
    )  # fmt: skip


def test_keep_flip_curve_is_the_closed_form_with_the_measured_point():
    figure = plots.keep_flip_curve(10, 1.0, measured_flip_rate=0.77)
    keep, flip, measured = figure.data
    x = np.asarray(keep.x)
    np.testing.assert_allclose(keep.y, [keep_probability(e, 10) for e in x])
    np.testing.assert_allclose(np.asarray(keep.y) + np.asarray(flip.y), 1.0)
    assert measured.x == (1.0,) and measured.y == (0.77,)
    assert figure.layout.xaxis.type == "log"


def test_label_heatmap_shows_row_shares_and_counts():
    figure = plots.label_heatmap([[3, 1], [0, 4]], ["a", "b"])
    (heatmap,) = figure.data
    np.testing.assert_allclose(heatmap.z, [[0.75, 0.25], [0.0, 1.0]])
    np.testing.assert_allclose(heatmap.customdata, [[3, 1], [0, 4]])


def test_score_vs_epsilon_averages_seeds_and_draws_a_band():
    results = [_result(1.0, 0, 0.5), _result(1.0, 1, 0.7), _result(2.0, 0, 0.8)]
    figure = plots.score_vs_epsilon({"rr": results}, baseline=0.9, chance=0.1)
    band, line = figure.data
    assert list(line.x) == [1.0, 2.0]
    assert list(line.y) == pytest.approx([0.6, 0.8])
    assert list(band.y) == pytest.approx([0.7, 0.8, 0.8, 0.5])
    assert [shape.y0 for shape in figure.layout.shapes] == [0.9, 0.1]


def test_score_vs_epsilon_with_no_points_is_an_empty_chart():
    assert plots.score_vs_epsilon({"rr": []}).data == ()


def test_figure_table_lists_every_drawn_point():
    results = [_result(1.0, 0, 0.5), _result(2.0, 0, 0.8)]
    figure = plots.score_vs_epsilon({"rr": results}, baseline=0.9)
    rows = plots.figure_table(figure)
    assert rows == [{"series": "rr", "x": 1.0, "y": 0.5}, {"series": "rr", "x": 2.0, "y": 0.8}]
    heat = plots.figure_table(plots.label_heatmap([[3, 1], [0, 4]], ["a", "b"]))
    assert {"series": "trace 1", "x": "b", "y": "a", "value": 0.25} in [
        r | {"series": "trace 1"} for r in heat
    ]
    assert len(heat) == 4
