"""One colour per mechanism on every chart, one dash per privacy unit, bands as their lines."""

from dataclasses import replace

from fake_results import fake_result

from labeldp_core import plots
from labeldp_core.cache import fingerprint
from labeldp_core.cache.module_text import read_module
from labeldp_core.engine.spec import RunResult
from labeldp_core.experiments import MECHANISMS
from labeldp_core.plots_base.colours import PALETTE, band_colour, shade
from labeldp_core.registry import MECHANISM_COLOURS

#: The figures that compose the families, above the registry.
PLOTS = "labeldp_core.plots"
_BASE = fake_result(test_accuracy=0.5, baseline_test_accuracy=0.9)


def _runs(mechanism: str, accuracy: float = 0.5) -> list[RunResult]:
    unit = MECHANISMS[mechanism].privacy_unit
    return [
        replace(
            _BASE,
            mechanism=mechanism,
            privacy_unit=unit,
            seed=seed,
            epsilon=eps,
            epsilon_spent=eps,
            test_accuracy=accuracy + 0.01 * seed,
        )
        for eps in (0.5, 1.0)
        for seed in (0, 1)
    ]


def _lines(figure) -> dict[str, object]:
    return {t.name: t for t in figure.data if t.showlegend is not False}


def test_every_mechanism_has_its_own_colour():
    assert set(MECHANISM_COLOURS) == set(MECHANISMS)
    assert len(set(MECHANISM_COLOURS.values())) == len(MECHANISMS)


def test_a_mechanism_keeps_its_colour_whatever_else_is_selected():
    alone = plots.score_vs_epsilon({"RR": _runs("rr")})
    with_others = plots.score_vs_epsilon({"PATE": _runs("pate"), "RR": _runs("rr")})
    compare = plots.comparison_figure(
        {"PATE": _runs("pate"), "DP-SGD": _runs("dpsgd"), "RR": _runs("rr")},
        {"PATE": "label", "DP-SGD": "example", "RR": "label"},
        0.9,
        "test accuracy",
    )
    by_unit = plots.accuracy_by_privacy_unit({"DP-SGD": _runs("dpsgd"), "RR": _runs("rr")})
    colours = {
        figure_name: {name.split(" [")[0]: t.line.color for name, t in _lines(f).items()}
        for figure_name, f in (
            ("alone", alone),
            ("others", with_others),
            ("compare", compare),
            ("dpsgd page", by_unit),
        )
    }
    for found in colours.values():
        for name, colour in found.items():
            mechanism = {"RR": "rr", "PATE": "pate", "DP-SGD": "dpsgd"}[name]
            assert colour == MECHANISM_COLOURS[mechanism], (name, found)
    assert colours["others"]["RR"] != colours["others"]["PATE"]


def test_example_level_dp_is_dashed_on_every_chart():
    compare = plots.comparison_figure(
        {"DP-SGD": _runs("dpsgd"), "RR": _runs("rr")},
        {"DP-SGD": "example", "RR": "label"},
        0.9,
        "test accuracy",
    )
    by_unit = plots.accuracy_by_privacy_unit({"DP-SGD": _runs("dpsgd"), "RR": _runs("rr")})
    for figure in (compare, by_unit):
        dashes = {n.split(" [")[0]: t.line.dash for n, t in _lines(figure).items()}
        assert dashes == {"DP-SGD": "dash", "RR": "solid"}


def test_each_band_takes_its_lines_colour():
    figure = plots.score_vs_epsilon({"PATE": _runs("pate"), "RR": _runs("rr")})
    bands = [t for t in figure.data if t.fill == "toself"]
    assert len(bands) == 2
    for band in bands:
        line = _lines(figure)[band.name.removesuffix(" range over seeds")]
        assert band.fillcolor == band_colour(line.line.color)


def test_variants_of_one_mechanism_take_distinct_shades_of_its_colour():
    figure = plots.score_vs_epsilon({"hard": _runs("laplace"), "soft": _runs("laplace", 0.6)})
    colours = [t.line.color for t in _lines(figure).values()]
    assert colours == [MECHANISM_COLOURS["laplace"], shade(MECHANISM_COLOURS["laplace"], -0.35)]


def test_a_series_of_no_known_mechanism_takes_the_palette():
    figure = plots.score_vs_epsilon({"mine": _runs("rr") + _runs("pate")})
    assert [t.line.color for t in _lines(figure).values()] == [PALETTE[0]]


def _styles(figure) -> dict[str, tuple[str, str]]:
    return {n.split(" [")[0]: (t.line.color, t.line.dash) for n, t in _lines(figure).items()}


def _compare(chosen: dict[str, list[RunResult]]):
    """The comparison chart as pages/compare.py builds it: series named by mechanism title."""
    series = {MECHANISMS[m].title: runs for m, runs in chosen.items()}
    units = {MECHANISMS[m].title: MECHANISMS[m].privacy_unit for m in chosen}
    return plots.comparison_figure(series, units, 0.9, "test accuracy")


def test_an_incomplete_cache_changes_no_colour_and_no_dash():
    complete = _compare({"rr": _runs("rr"), "pate": _runs("pate"), "dpsgd": _runs("dpsgd")})
    incomplete = _compare({"rr": [], "pate": _runs("pate"), "dpsgd": _runs("dpsgd")})
    expected = {
        MECHANISMS[m].title: (MECHANISM_COLOURS[m], dash)
        for m, dash in (("rr", "solid"), ("pate", "solid"), ("dpsgd", "dash"))
    }
    assert _styles(complete) == expected
    assert _styles(incomplete) == {k: v for k, v in expected.items() if k != "Randomized response"}


def test_a_series_missing_its_points_changes_no_other_series_style():
    full = plots.score_vs_epsilon({"DP-SGD": _runs("dpsgd"), "PATE": _runs("pate")})
    partial = plots.score_vs_epsilon({"DP-SGD": [], "PATE": _runs("pate")})
    assert _styles(partial)["PATE"] == _styles(full)["PATE"] == (MECHANISM_COLOURS["pate"], "solid")


def test_seed_bands_draw_no_markers_and_take_no_hover():
    figure = _compare({"rr": _runs("rr"), "pate": _runs("pate"), "dpsgd": _runs("dpsgd")})
    bands = [t for t in figure.data if t.fill == "toself"]
    assert len(bands) == 3
    for band in bands:
        assert band.mode == "lines" and band.hoverinfo == "skip" and band.showlegend is False


def test_a_named_variant_keeps_its_shade_whatever_its_place_and_the_others_points():
    laplace = MECHANISM_COLOURS["laplace"]
    named = {"argmax": "laplace/argmax", "soft": "laplace/soft", "round": "laplace/round"}
    every = plots.score_vs_epsilon(
        {"argmax": _runs("laplace"), "soft": _runs("laplace"), "round": _runs("laplace")},
        mechanisms=named,
    )
    alone = plots.score_vs_epsilon(
        {"round": _runs("laplace"), "argmax": [], "soft": []}, mechanisms=named
    )
    expected = {"argmax": laplace, "soft": shade(laplace, -0.35), "round": shade(laplace, 0.4)}
    assert {n: c for n, (c, _) in _styles(every).items()} == expected
    assert _styles(alone) == {"round": (expected["round"], "solid")}


def _reached(module: str) -> set[str]:
    """The package's modules that ``module`` imports, transitively, ``import_module`` included."""
    files, modules = (
        fingerprint._files(fingerprint.PACKAGE_DIR),
        fingerprint._modules(fingerprint.PACKAGE_DIR),
    )
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name in seen or name not in files:
            continue
        seen.add(name)
        path = files[name]
        text = read_module(name, path.name == "__init__.py", path.read_bytes(), modules)
        todo += [m for m in text.imports if m not in seen]
    return seen - {module}


def test_the_plotting_base_reaches_no_family_and_not_the_registry():
    # Below the families: a figure hands it its table of styles (an import_module that read the
    # registry was an arrow back up, hidden from a plain import graph).
    base = sorted(fingerprint.PACKAGE_DIR.joinpath("plots_base").glob("*.py"))
    assert base
    for path in base:
        module = f"labeldp_core.plots_base.{path.stem}".removesuffix(".__init__")
        above = {
            m
            for m in _reached(module)
            if m in ("labeldp_core.registry", PLOTS)
            or m.startswith(("labeldp_core.families", f"{PLOTS}."))
        }
        assert not above, (module, sorted(above))


def test_a_familys_own_figures_draw_its_mechanisms_in_their_registered_colours():
    student = plots.student_accuracy_vs_epsilon(_runs("pate"), 0.9)
    assert _styles(student)["student on noisy labels"] == (MECHANISM_COLOURS["pate"], "solid")
    regression = {"Laplace": _runs("laplace-regression"), "RR-on-bins": _runs("rr-bins")}
    mse = {
        n.split(" (")[0]: t.line.color for n, t in _lines(plots.mse_vs_epsilon(regression)).items()
    }
    assert mse == {
        name: MECHANISM_COLOURS[m]
        for name, m in (("Laplace", "laplace-regression"), ("RR-on-bins", "rr-bins"))
    }
    closed_form = [t.line.color for t in plots.expected_label_mse_figure([0.5, 0.5], 1.0).data]
    assert closed_form[:2] == [
        MECHANISM_COLOURS["laplace-regression"],
        MECHANISM_COLOURS["rr-bins"],
    ]
