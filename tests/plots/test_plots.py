import numpy as np
import pytest
from fake_results import fake_result

from labeldp_core import plots
from labeldp_core.engine.spec import RunResult
from labeldp_core.mechanisms import keep_probability


def _result(epsilon: float, seed: int, accuracy: float) -> RunResult:
    return fake_result(
        seed=seed,
        epsilon=epsilon,
        epsilon_spent=epsilon,
        test_accuracy=accuracy,
        baseline_test_accuracy=0.9,
    )


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


def _run(
    mechanism,
    epsilon,
    spent,
    seed,
    score,
    *,
    unit="example",
    delta=0.0,
    details=None,
    regression=False,
    baseline=0.9,
):
    scores = (
        {"test_mse": score, "baseline_test_mse": baseline}
        if regression
        else {"test_accuracy": score, "baseline_test_accuracy": baseline}
    )
    return fake_result(
        mechanism=mechanism,
        seed=seed,
        epsilon=epsilon,
        epsilon_spent=spent,
        delta=delta,
        privacy_unit=unit,
        details=details or {},
        **scores,
    )


def test_comparison_puts_every_point_at_the_epsilon_spent_and_names_the_guarantee():
    # DPPL-Mean at eps 1 runs at rho = 0.5 zCDP, which is (5.3, 1e-5)-DP: drawn at 5.3, not at 1.
    mean = [
        _run("dppl-mean", 1.0, 5.3, s, 0.6 + s / 10, delta=1e-5, details={"rho": 0.5})
        for s in range(3)
    ]
    dpsgd = [_run("dpsgd", 1.0, 0.99, 0, 0.5, delta=1e-5)]
    rr = [_run("rr", 1.0, 1.0, 0, 0.7, unit="label"), _run("rr", 2.0, 2.0, 0, 0.8, unit="label")]
    units = {"DPPL-Mean": "example", "DP-SGD": "example", "RR": "label"}
    figure = plots.comparison_figure(
        {"DPPL-Mean": mean, "DP-SGD": dpsgd, "RR": rr}, units, 0.9, "test accuracy"
    )
    lines = {t.name: t for t in figure.data if t.mode == "lines+markers"}
    assert set(lines) == {
        "DPPL-Mean [example; ρ-zCDP as (ε, δ=1e-05)]",
        "DP-SGD [example; (ε, δ=1e-05)]",
        "RR [label; pure ε]",
    }
    dppl = lines["DPPL-Mean [example; ρ-zCDP as (ε, δ=1e-05)]"]
    assert list(dppl.x) == [5.3] and list(dppl.y) == pytest.approx([0.7])
    assert [list(c) for c in dppl.customdata] == [[3, 1.0]]  # 3 seeds, epsilon asked 1
    assert "asked" in dppl.hovertemplate and dppl.line.dash == "dash"
    assert list(lines["DP-SGD [example; (ε, δ=1e-05)]"].x) == [0.99]
    assert list(lines["RR [label; pure ε]"].x) == [1.0, 2.0]
    assert lines["RR [label; pure ε]"].line.dash == "solid"
    assert figure.layout.xaxis.title.text == "epsilon spent (log scale)"
    rows = {(r["mechanism"], r["epsilon asked"]): r for r in plots.summary_rows(mean + dpsgd + rr)}
    assert rows[("dppl-mean", 1.0)]["guarantee"] == (
        "ρ = 0.5 zCDP, so (5.3, 1e-05)-DP, add/remove one example"
    )
    assert rows[("dpsgd", 1.0)]["guarantee"] == "(0.99, 1e-05)-DP, add/remove one example"
    assert rows[("rr", 2.0)]["guarantee"] == "2-DP, replace-one label"


def test_comparison_names_each_line_at_its_end_in_its_colour_not_in_a_legend():
    rr = [_run("rr", e, e, 0, 0.5 + e / 20, unit="label") for e in (1.0, 8.0)]
    lp = [_run("lp-2st", e, e, 0, 0.4 + e / 20, unit="label") for e in (0.5, 4.0)]
    units = {"Randomized response": "label", "LP-2ST (two-stage RR with prior)": "label"}
    figure = plots.comparison_figure(
        {"Randomized response": rr, "LP-2ST (two-stage RR with prior)": lp},
        units,
        0.95,
        "test accuracy",
    )
    assert figure.layout.showlegend is False
    lines = {t.name.split(" [")[0]: t for t in figure.data if t.mode == "lines+markers"}
    labels = {a.text: a for a in figure.layout.annotations if a.name == "end label"}
    assert set(labels) == {"Randomized response", "LP-2ST", "clean labels: 0.95"}
    for text, name, end in (
        ("Randomized response", "Randomized response", (8.0, 0.9)),
        ("LP-2ST", "LP-2ST (two-stage RR with prior)", (4.0, 0.6)),
    ):
        label = labels[text]
        assert (10**label.x, label.y) == pytest.approx(end)
        assert label.font.color == label.arrowcolor == lines[name].line.color
    assert labels["clean labels: 0.95"].font.color == "green"
    low, high = figure.layout.yaxis.range
    assert low < 0.4 + 0.5 / 20 and high > 0.95  # every value drawn, the labels placed on it


def test_clean_baseline_comes_from_any_run_and_counts_each_seed_once():
    runs = [
        _run("laplace", e, e, s, 0.5, unit="label", baseline=0.8 + s / 100)
        for e in (1.0, 2.0, 4.0)
        for s in (0, 1)
    ]
    assert plots.clean_baseline(runs, "test accuracy") == pytest.approx(0.805)
    regression = [
        _run("rr-bins", 1.0, 1.0, s, 3.0, unit="label", regression=True, baseline=b)
        for s, b in ((0, 1.0), (1, 2.0))
    ]
    assert plots.clean_baseline(regression, "test MSE") == pytest.approx(1.5)
    assert plots.clean_baseline(regression, "test accuracy") is None
    assert plots.clean_baseline([], "test MSE") is None
    figure = plots.comparison_figure({"RR-bins": regression}, {"RR-bins": "label"}, 1.5, "test MSE")
    assert [shape.y0 for shape in figure.layout.shapes] == [1.5]


def test_budget_chart_draws_a_prv_run_on_its_own_accountant():
    rdp = {1.0: [0.8, 1.2], 2.0: [0.3, 0.5]}
    figure = plots.epsilon_vs_epochs(
        [1, 2],
        rdp,
        target_epsilon=1.0,
        chosen=1.0,
        delta=1e-5,
        accountant="prv",
        run_epsilons=([1, 2], [0.7, 1.0]),
    )
    names = [t.name for t in figure.data]
    assert names == [
        "σ = 1 (implied by ε under PRV): RDP bound",
        "σ = 2",
        "σ = 1: this run, PRV (its accountant)",
    ]
    own = figure.data[-1]
    assert list(own.y) == [0.7, 1.0] and own.line.width == 4  # lands on the target
    assert figure.data[0].line.width == 2  # the RDP bound of the same sigma ends above it
    assert "RDP upper bounds; this run by PRV" in figure.layout.title.text
    rdp_only = plots.epsilon_vs_epochs([1, 2], rdp, chosen=1.0, delta=1e-5)
    assert len(rdp_only.data) == 2 and rdp_only.data[0].line.width == 4


@pytest.mark.parametrize("target", [0.5, 1.0, 8.0])
def test_the_target_label_sits_on_its_line_on_the_log_axis(target):
    figure = plots.epsilon_vs_epochs([1, 2], {1.0: [0.3, 9.0]}, target_epsilon=target, delta=1e-5)
    (line,) = figure.layout.shapes
    (label,) = [a for a in figure.layout.annotations if a.text == f"target ε = {target:g}"]
    assert line.y0 == target
    # Plotly reads an annotation's y on a log axis as log10: y = target would put it at 10^target.
    assert label.yref == "y" and label.y == pytest.approx(np.log10(target))


def _at(mechanism: str, unit: str, epsilon: float, accuracy: float, seed: int = 0) -> RunResult:
    from dataclasses import replace

    return replace(_result(epsilon, seed, accuracy), mechanism=mechanism, privacy_unit=unit)


def test_the_summary_at_an_epsilon_groups_by_unit_best_first():
    results = [
        _at("rr", "label", 1.0, 0.6),
        _at("rr", "label", 2.0, 0.8),
        _at("laplace", "label", 1.0, 0.7),
        _at("dpsgd", "example", 1.0, 0.65),
        _at("softmax-laplace", "output", 1.0, 0.9),
    ]
    rows = plots.summary_at(results, 1.2)  # the nearest grid epsilon is 1 (log scale)
    assert [(r["privacy unit"], r["mechanism"]) for r in rows] == [
        ("label", "laplace"),
        ("label", "rr"),
        ("example", "dpsgd"),
        ("output", "softmax-laplace"),
    ]
    assert rows[1]["test accuracy"] == "0.600" and rows[1]["ε spent"] == 1.0
    assert plots.summary_at([], 1.0) == []


def test_summary_rows_follow_the_legends_order():
    results = [
        _at("rr", "label", 1.0, 0.6),
        _at("laplace", "label", 1.0, 0.7),
        _at("alibi", "label", 2.0, 0.7),
        _at("alibi", "label", 1.0, 0.7),
    ]
    rows = plots.summary_rows(results, ["rr", "alibi"])
    assert [(r["mechanism"], r["epsilon asked"]) for r in rows] == [
        ("rr", 1.0),
        ("alibi", 1.0),
        ("alibi", 2.0),
        ("laplace", 1.0),
    ]


def test_an_empty_chart_spans_the_epsilon_grid_not_six_decades():
    figure = plots.score_vs_epsilon({"rr": []}, baseline=None)
    assert list(figure.layout.xaxis.range) == pytest.approx([np.log10(0.05), np.log10(20)])
    assert list(figure.layout.yaxis.range) == [0, 1]
    filled = plots.score_vs_epsilon({"rr": [_result(1.0, 0, 0.5)]})
    assert filled.layout.xaxis.range is None  # data: Plotly fits the range to it


def test_compare_spans_the_label_dp_grid_and_marks_far_points_at_the_edge():
    far = [_result(0.01, 0, 0.3), _result(1.0, 0, 0.6), _result(50.0, 0, 0.85)]
    near = [_result(0.5, 0, 0.5), _result(8.0, 0, 0.9)]
    figure = plots.comparison_figure(
        {"DPPL-Mean": far, "RR": near},
        {"DPPL-Mean": "example", "RR": "label"},
        0.9,
        "test accuracy",
    )
    assert tuple(figure.layout.xaxis.range) == pytest.approx((np.log10(0.05), np.log10(20)))
    edges = [t for t in figure.data if t.name and t.name.endswith("(off the axis)")]
    line = next(t for t in figure.data if t.mode == "lines+markers" and "DPPL" in t.name)
    assert sorted((t.x[0], t.y[0], t.marker.symbol, t.customdata[0]) for t in edges) == [
        (0.05, 0.3, "triangle-left-open", 0.01),
        (20.0, 0.85, "triangle-right-open", 50.0),
    ]
    assert {t.marker.color for t in edges} == {line.line.color}


def test_the_lessons_figure_names_each_bar_group_by_its_lesson_and_what_is_released():
    rows = [
        {
            "lesson": "a",
            "released": "the noisy labels",
            "claimed_epsilon": 1.0,
            "true_epsilon": 2.05,
            "audited_lower_bound": 1.9,
        },
        {
            "lesson": "b",
            "released": "the noisy vote counts",
            "claimed_epsilon": 1.0,
            "true_epsilon": 2.39,
            "audited_lower_bound": 2.3,
        },
        {
            "lesson": "b",
            "released": "only the argmax",
            "claimed_epsilon": 1.0,
            "true_epsilon": 1.0,
            "audited_lower_bound": None,
        },
    ]
    claimed, true, audited = plots.lesson_figure(rows).data
    assert list(claimed.y) == [1.0, 1.0, 1.0]
    assert list(true.x) == [
        "lesson 1: the noisy labels",
        "lesson 2: the noisy vote counts",
        "lesson 2: only the argmax",
    ]
    assert list(true.y) == [2.05, 2.39, 1.0]
    assert list(audited.y) == [1.9, 2.3, None]  # no audit bar where the claim holds
