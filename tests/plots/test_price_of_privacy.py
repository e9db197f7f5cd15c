"""The price-of-privacy screen: frames at the cached ε only, values the closed forms or cached.

The bounds are checked against e^ε/(e^ε + K − 1) and (K − 1)/(e^ε + K − 1) written out here,
not against the functions the figure calls.
"""

import html
import math

import pytest
from fake_results import fake_result
from written import block_lines

from labeldp_core import plots
from labeldp_core.plots.audit_names import narrow_chars
from labeldp_core.plots.price_of_privacy import (
    EMPTY_NOTE,
    PLAY_SECONDS,
    frame_epsilons,
    price_of_privacy_figure,
)
from labeldp_core.plots_base.readable import SIZES, projector_ready
from labeldp_core.services.price_of_privacy import MODEL, RELEASE, AuditedBound

K = 10
#: RR at five ε with three seeds each; Laplace at two of them with one seed, and off the axis.
RR_EPSILONS = (0.1, 0.5, 1.0, 4.0, 8.0)


def _runs(mechanism: str, epsilons, seeds, unit: str = "label") -> list:
    return [
        fake_result(
            mechanism=mechanism,
            epsilon=e,
            epsilon_spent=e,
            seed=s,
            privacy_unit=unit,
            test_accuracy=round(0.2 + 0.05 * math.log(e * 100) + 0.01 * s, 6),
        )
        for e in epsilons
        for s in seeds
    ]


@pytest.fixture(scope="module")
def cached():
    return {
        "rr": _runs("rr", RR_EPSILONS, (0, 1, 2)),
        "laplace": _runs("laplace", (0.01, 1.0, 2.0, 50.0), (0,)),
    }


@pytest.fixture(scope="module")
def audits():
    return (
        AuditedBound("rr", 1.0, 0.93, 1.0, 0.0, RELEASE, "rr"),
        AuditedBound("rr", 4.0, 1.7, 4.0, 0.0, MODEL, "287 canaries"),
    )


@pytest.fixture(scope="module")
def figure(cached, audits):
    return price_of_privacy_figure(cached, K, audits)


def _moving(figure, frame) -> dict:
    """The frame's moving traces by role: three cursors, the bounds, accuracies, audits."""
    names = (
        "cursor1",
        "cursor2",
        "cursor3",
        "bounds",
        "bound_texts",
        "accuracy",
        "accuracy_texts",
        "audits",
        "audit_texts",
    )
    return dict(zip(names, frame.data, strict=True))


def _lines(trace) -> list[str]:
    """The lines of the one block of text a panel writes at the cursor, as they read."""
    return block_lines(trace.text)


def test_the_frames_are_the_cached_epsilons_in_range_and_nothing_else(figure):
    expected = sorted({*RR_EPSILONS, 1.0, 2.0})  # Laplace's 0.01 and 50 are off the axis
    assert [float(f.name) for f in figure.frames] == expected
    slider = figure.layout.sliders[0]
    assert [s.args[0][0] for s in slider.steps] == [f.name for f in figure.frames]
    for frame in figure.frames:
        cursor = _moving(figure, frame)["cursor1"]
        assert set(cursor.x) == {float(frame.name)}


def test_an_audit_alone_at_an_epsilon_makes_a_frame(cached):
    only = AuditedBound("rr", 3.0, 2.0, 3.0, 0.0, RELEASE, "rr")
    assert 3.0 in frame_epsilons(cached, [only])
    assert 3.0 not in frame_epsilons(cached)


def test_the_bounds_at_each_frame_are_the_closed_forms(figure):
    for frame in figure.frames:
        e = float(frame.name)
        guess, flips = _moving(figure, frame)["bounds"].y
        assert guess == pytest.approx(math.exp(e) / (math.exp(e) + K - 1), abs=1e-12)
        assert flips == pytest.approx((K - 1) / (math.exp(e) + K - 1), abs=1e-12)
        texts = _lines(_moving(figure, frame)["bound_texts"])
        digits = 0 if 0.01 <= guess <= 0.99 else 1
        assert f"guess ≤ {100 * guess:.{digits}f}% from prior 1/10" in texts


def test_the_accuracies_at_a_frame_are_the_cached_means_with_the_seeds_band(figure, cached):
    for frame in figure.frames:
        e = float(frame.name)
        markers = _moving(figure, frame)["accuracy"]
        expected = {
            m: [r.test_accuracy for r in rows if r.epsilon == e] for m, rows in cached.items()
        }
        expected = {m: scores for m, scores in expected.items() if scores}
        assert len(markers.y) == len(expected)
        names = [row[0] for row in markers.customdata]
        for name, y, up, down, (_, seeds, low, high) in zip(
            names,
            markers.y,
            markers.error_y.array,
            markers.error_y.arrayminus,
            markers.customdata,
            strict=True,
        ):
            mechanism = "rr" if name == "Randomized response" else "laplace"
            scores = expected[mechanism]
            assert y == pytest.approx(sum(scores) / len(scores), abs=1e-12)
            assert (low, high, seeds) == (min(scores), max(scores), len(scores))
            assert y + up == pytest.approx(max(scores)) and y - down == pytest.approx(min(scores))
            assert (up > 0) == (len(set(scores)) > 1)  # one seed: no band
        written = _lines(_moving(figure, frame)["accuracy_texts"])
        shown = sorted(zip(markers.y, names, strict=True), reverse=True)  # as the lines lie
        assert written[: len(names)] == [f"{n} {y:.2f}" for y, n in shown]
        missing = [
            n for n in ("Randomized response", "Laplace on one-hot labels") if n not in names
        ]
        said = " ".join(written[len(names) :])  # wrapped to a phone's width
        assert said == (f"not computed at ε {e:g}: {', '.join(missing)}" if missing else "")
        assert all(len(line) <= narrow_chars(SIZES.note) for line in written[len(names) :])


def test_nothing_is_drawn_where_nothing_is_cached(figure, cached):
    at_half = next(f for f in figure.frames if float(f.name) == 0.5)
    assert len(_moving(figure, at_half)["accuracy"].y) == 1  # RR only: Laplace has no 0.5
    assert len(_moving(figure, at_half)["audits"].y) == 0
    drawn = {
        x
        for trace in figure.data
        if trace.xaxis == "x2" and trace.mode == "lines+markers"
        for x in trace.x
    }
    assert drawn == {r.epsilon_spent for rows in cached.values() for r in rows} - {0.01, 50.0}


def test_the_audits_are_drawn_at_their_epsilon(figure, audits):
    for frame in figure.frames:
        here = [a for a in audits if a.epsilon == float(frame.name)]
        markers = _moving(figure, frame)["audits"]
        assert list(markers.y) == [a.lower_bound for a in here]
        symbols = ["square" if a.source == MODEL else "diamond" for a in here]
        assert list(markers.marker.symbol or []) == symbols
        assert _lines(_moving(figure, frame)["audit_texts"]) == []  # each ε's name says it


def test_the_cursor_writes_the_audits_of_an_epsilon_whose_name_found_no_room(cached):
    crowded = [AuditedBound("rr", e, 0.5, e, 0.0, RELEASE, "rr") for e in (0.9, 1, 1.1, 1.2, 1.3)]
    figure = price_of_privacy_figure(cached, K, crowded, demo_text=True)
    names = next(t for t in figure.data if t.mode == "text" and t.xaxis == "x3")
    written = {}
    for frame in figure.frames:
        if float(frame.name) in {a.epsilon for a in crowded}:
            written[float(frame.name)] = _lines(_moving(figure, frame)["audit_texts"])
    named = set(names.x)
    assert named and named < set(written)  # some names found room, not all five
    for epsilon, lines in written.items():
        assert lines == ([] if epsilon in named else ["Randomized response ≥ 0.5"]), epsilon


def test_play_takes_a_minute_through_every_frame_and_pause_stops(figure):
    play, pause = figure.layout.updatemenus[0].buttons
    each = play.args[1]["frame"]["duration"]
    assert abs(each * len(figure.frames) - 1000 * PLAY_SECONDS) <= len(figure.frames)
    assert play.args[0] is None and play.args[1]["fromcurrent"]
    assert list(pause.args[0]) == [None] and pause.args[1]["mode"] == "immediate"


def test_the_first_frame_is_the_one_drawn(figure):
    first = figure.frames[0]
    moving = figure.data[-len(first.data) :]
    assert list(first.traces) == list(range(len(figure.data) - len(first.data), len(figure.data)))
    for drawn, framed in zip(moving, first.data, strict=True):
        assert list(drawn.y) == list(framed.y)


def test_an_empty_cache_gives_a_figure_that_says_what_to_do():
    figure = price_of_privacy_figure({"rr": []}, K)
    assert not figure.frames and not figure.layout.sliders
    assert any(a.text == EMPTY_NOTE for a in figure.layout.annotations)
    assert "warm" in EMPTY_NOTE


def test_it_survives_the_projector_styling_and_is_served_by_name(cached, audits):
    figure = projector_ready(plots.price_of_privacy_figure(cached, K, audits))
    assert len(figure.frames) == len(frame_epsilons(cached, audits))
    assert figure.layout.xaxis3.ticktext[figure.layout.xaxis3.tickvals.index(1.0)] == "1"


def test_each_panel_writes_its_values_in_one_block(figure):
    # The values were written one text each, spread 0.15 of the panel apart: 7 accuracies of
    # 18 px text on a 150 px panel covered each other, and lay across the lines.
    for frame in figure.frames:
        for role in ("bound_texts", "accuracy_texts", "audit_texts"):
            assert len(_moving(figure, frame)[role].text or ()) <= 1


def test_every_audit_is_named_beside_its_diamond_and_the_claim_is_the_curve_y_equals_epsilon(
    figure, audits, cached
):
    names = next(t for t in figure.data if t.mode == "text" and t.xaxis == "x3")
    assert dict(zip(names.x, map(html.unescape, names.text), strict=True)) == {
        1.0: "Randomized response ≥ 0.93",
        4.0: "≥ 1.7",  # "Randomized response (model) ≥ 1.7" is wider than a phone's plot
    }
    assert names.textfont.size == SIZES.note  # the chart's note size, 20 px in demo mode
    crowded = [AuditedBound(m, 1.0, b, 1.0, 0.0, RELEASE, m) for m, b in (("rr", 0.9), ("pate", 1))]
    named = price_of_privacy_figure(cached, K, crowded)
    (text,) = next(t for t in named.data if t.mode == "text" and t.xaxis == "x3").text
    assert text == "≥ 0.9–1"  # the cursor's block names each
    claim = next(t for t in figure.data if t.name == "ε claimed")
    assert len(claim.x) > 2 and list(claim.x) == list(claim.y)  # a straight line on log x


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
def test_the_values_at_the_cursor_are_written_under_their_panels_in_the_modes_note_size(
    cached, audits, demo
):
    # They were written beside the cursor, inside the panels, in 12 px in every mode: the
    # accuracies' block crossed the curves at small ε (where they all start low).
    from labeldp_core.plots_base.readable import DEMO_SIZES

    size = (DEMO_SIZES if demo else SIZES).note
    figure = price_of_privacy_figure(cached, K, audits, demo_text=demo)
    for frame in figure.frames:
        moving = _moving(figure, frame)
        for role in ("bound_texts", "accuracy_texts"):
            text = moving[role]
            assert (list(text.x), list(text.y)) == ([0.05], [0])  # the panel's bottom left
            assert text.textposition == "bottom right" and text.textfont.size == size
            assert text.marker.opacity == 0
        assert moving["audit_texts"].textfont.size in (None, size)  # None: no audit here
    tops = [figure.layout[f"yaxis{n}"].domain for n in ("", "2", "3")]
    assert tops[0][0] > tops[1][1] > tops[1][0] > tops[2][1]  # top to bottom, apart


def test_demo_mode_makes_the_figure_taller_for_its_larger_values(cached, audits):
    default, demo = (price_of_privacy_figure(cached, K, audits, demo_text=d) for d in (False, True))
    assert demo.layout.height > default.layout.height
