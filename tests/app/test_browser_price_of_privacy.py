"""The price of privacy in a real browser: Play moves the cursor in the browser, with no server.

On a server warmed with RR at the 7 grid ε (seed 0, one epoch, the MLP): the page's Play button
steps the slider through the frames without one message to the server, and the standalone HTML
report, downloaded and opened from disk with every network request refused, plays the same.
"""

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser import IDLE, STARTUP_WAIT_S, _open, warmed_app

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import run
from labeldp_core.experiments.demo import DEMO_EPSILONS, demo_configs

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

QUERY = "epochs=1&model=mlp&mechanisms=rr"
#: Play takes a minute over the 7 frames: the second one comes about 8.6 s after the click.
FRAME_S = 60 / len(DEMO_EPSILONS)


def _warm(directory: Path) -> None:
    cache = ResultCache(directory)
    for config in demo_configs("digits", ["rr"], (0,), 1, "mlp", variants=False):
        run(config, cache)
    cache.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with warmed_app(tmp_path_factory, _warm) as url:
        yield url


def _shown_epsilon(where) -> str:
    """What the slider's current value says: 'ε = 0.1'."""
    return where.locator(".slider-container text.slider-label").first.text_content()


def _plays(page, where) -> list[str]:
    """Click Play and read the slider's value until it has moved to the second frame."""
    seen = [_shown_epsilon(where)]
    where.locator(".updatemenu-container text", has_text="Play").first.click()
    deadline = time.monotonic() + 10 * FRAME_S  # a shared machine: not a speed check
    while seen[-1] == seen[0] and time.monotonic() < deadline:
        page.wait_for_timeout(200)
        seen.append(_shown_epsilon(where))
    return seen


@pytest.fixture(scope="module")
def rr_page(server: str, browser) -> Iterator[tuple[Any, Any, list[str]]]:
    """RR's page at 1280x800, opened once: (page, chart, every message it sent to the server).

    One opening renders the whole page on the server and draws it in Chromium (tens of seconds
    under load), so the three tests below share it, in this file's order: the first reads where
    Play is, the second plays (the frames run in the browser), the last downloads the report.
    The messages are counted from before the page loads, so none escapes the count.
    """
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    sent: list[str] = []

    def watch(page) -> None:
        page.on("websocket", lambda socket: socket.on("framesent", lambda m: sent.append(m)))

    context.on("page", watch)
    page = _open(context, f"{server}/price_of_privacy?{QUERY}")
    chart = page.locator("[data-testid='stPlotlyChart']").first
    chart.locator(".main-svg").first.wait_for()
    page.wait_for_selector(IDLE)
    yield page, chart, sent
    context.close()


def test_play_is_on_the_first_screen_at_1280x800(rr_page):
    # ▶ Play sat under the three panels, at y 828: below the first screen of a projector.
    _, chart, _ = rr_page
    play = chart.locator(".updatemenu-container .updatemenu-button", has_text="Play").first
    box = play.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800, box


def test_play_moves_the_cursor_in_the_browser_without_asking_the_server(rr_page):
    page, chart, sent = rr_page
    assert sent  # the page's own messages are seen
    before = len(sent)
    seen = _plays(page, chart)
    assert seen[0] == "ε = 0.1" and seen[-1] == "ε = 0.25", seen
    assert len(sent) == before  # no rerun, no message: the frames are in the browser
    assert page.locator("[data-testid='stException']").count() == 0


def test_the_downloaded_report_plays_from_disk_with_the_network_refused(rr_page, browser, tmp_path):
    from playwright.sync_api import expect

    page = rr_page[0]
    button = page.get_by_role("button", name="Download a standalone HTML report")
    expect(button).to_be_enabled(timeout=STARTUP_WAIT_S * 1000)  # not expect's 5 s: under load
    page.wait_for_selector(IDLE)  # a click during a rerun finds no report to build
    with page.expect_download() as download:
        button.click()
    report = tmp_path / "report.html"
    download.value.save_as(report)
    context = browser.new_context()
    requests: list[str] = []
    context.route("http*://**", lambda route: (requests.append(route.request.url), route.abort()))
    offline = context.new_page()
    offline.goto(report.as_uri())
    figure = offline.locator(".js-plotly-plot").first
    figure.locator(".main-svg").first.wait_for()
    seen = _plays(offline, figure)
    assert seen[0] == "ε = 0.1" and seen[-1] == "ε = 0.25", seen
    assert not requests, requests
    context.close()


#: The mechanisms whose release audits the screen's server stores.
SCREEN_AUDITED = ("rr", "laplace", "pate", "rr-prior")


@pytest.fixture(scope="module")
def screen_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Every mechanism of the screen on the demo seeds, and four mechanisms' release audits."""
    from price_screen import store_price_screen

    def warm(directory: Path) -> None:
        store_price_screen(directory, SCREEN_AUDITED)

    with warmed_app(tmp_path_factory, warm) as url:
        yield url


def _boxes(chart) -> dict[str, list[tuple[str, dict]]]:
    """The chart's written texts, titles and buttons with their boxes, by kind."""
    kinds = {
        "values": ".textpoint text",
        "titles": ".gtitle, .annotation-text",
        "buttons": ".updatemenu-button",
    }
    return {
        kind: [(loc.text_content(), loc.bounding_box()) for loc in chart.locator(sel).all()]
        for kind, sel in kinds.items()
    }


def _overlap(a: dict, b: dict) -> float:
    """The area two boxes share, in px²."""
    wide = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    tall = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(wide, 0) * max(tall, 0)


def _screen(context, server: str, width: int, height: int, demo: bool):
    """The screen opened in a new page of that size, its chart drawn: (page, chart)."""
    viewport = {"width": width, "height": height}
    page = _open(context, f"{server}/price_of_privacy" + "?demo=1" * demo, viewport)
    chart = page.locator("[data-testid='stPlotlyChart']").first
    chart.locator(".main-svg").first.wait_for()
    page.wait_for_selector(IDLE)
    return page, chart


@pytest.fixture(scope="module")
def screens(screen_server: str, browser) -> Iterator[Callable[[int, int, bool], tuple]]:
    """``screens(width, height, demo)``: that view of the screen, opened once: (page, chart).

    Each opening renders the screen on the server and draws its three panels in Chromium (tens
    of seconds under load), so the tests below share each view, in this file's order: those
    that read the first frame as it opens first (without scrolling), then the one that drags the
    slider to the last frame, then the one that clicks every frame. The views are pages of one
    context, each sized as its own window: the later ones run in the first's renderer process
    (``--process-per-site``, ``tests/debian_chromium.py``), with the app's scripts compiled.
    """
    context = browser.new_context()
    opened: dict[tuple[int, int, bool], tuple] = {}

    def screen(width: int, height: int, demo: bool) -> tuple:
        if (width, height, demo) not in opened:
            opened[width, height, demo] = _screen(context, screen_server, width, height, demo)
        return opened[width, height, demo]

    yield screen
    context.close()


def _to_last_frame(page, chart) -> None:
    """Drag the slider's grip past the end of its rail: the last frame, as a person does."""
    rail = chart.locator(".slider-rail-rect").first
    rail.scroll_into_view_if_needed()
    end, grip = rail.bounding_box(), chart.locator(".slider-grip-rect").first.bounding_box()
    page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] + 20, grip["y"] + grip["height"] / 2, steps=10)
    page.mouse.up()
    page.wait_for_timeout(500)


@pytest.mark.parametrize(
    ("width", "height", "demo"), [(1280, 800, False), (1280, 800, True), (390, 844, False)]
)
def test_play_and_pause_are_on_the_first_screen_and_the_chart_is_whole(
    screens, width, height, demo
):
    # Issue 53: ▶ Play was at y 828 at 1280x800, below the first screen, in both modes; on a
    # phone the chart was clipped and Pause covered the slider.
    page, chart = screens(width, height, demo)
    buttons = {
        t: b
        for t, b in (
            (loc.text_content(), loc.bounding_box())
            for loc in chart.locator(".updatemenu-button").all()
        )
    }
    assert set(buttons) == {"▶ Play", "❚❚ Pause"}, buttons
    for text, box in buttons.items():
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (text, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (text, box)
    svg = chart.locator(".main-svg").first.bounding_box()
    assert svg["x"] >= 0 and svg["x"] + svg["width"] <= width, svg  # the chart fits the width
    scroll = page.evaluate("() => document.documentElement.scrollWidth")
    assert scroll <= width, scroll  # and the page does not scroll sideways
    slider = chart.locator(".slider-container").first.bounding_box()
    for text, box in buttons.items():
        assert _overlap(box, slider) == 0, (text, box, slider)


#: Every plotted line's visible points (sampled every 2 px along its path, inside its panel's
#: plot area: the rest is clipped) and every visible marker of a chart, in px of the page:
#: [x, y] for a line's point, [left, top, right, bottom] for a marker. With ``skipUpright``, the
#: upright lines (the cursor, which passes every ε) are left out. Given ``near`` (boxes in px of
#: the page), a line or marker whose box meets none of them is left out unsampled: none of its
#: points could fall in one (a path's box holds its geometry). Sampling every line of the three
#: panels took 167 s over the every-frame tour's 84 frames, sampling those near the names 5.6 s
#: (both in one run at load 10, with the same crossings found in every frame).
_PLOTTED = """
(chart, [skipUpright, near]) => {
  const meets = b => !near || near.some(n =>
    b.left <= n.x + n.width && n.x <= b.right && b.top <= n.y + n.height && n.y <= b.bottom);
  const area = node => {
    const panel = node.closest('.subplot').classList[1];
    return chart.querySelector(`.draglayer .${panel} .nsewdrag`).getBoundingClientRect();
  };
  const inside = (r, x, y) =>
    r.left - 1 <= x && x <= r.right + 1 && r.top - 1 <= y && y <= r.bottom + 1;
  const found = [];
  for (const path of chart.querySelectorAll('.scatterlayer .trace path.js-line')) {
    const box = path.getBoundingClientRect();
    if ((skipUpright && box.width < 1) || !meets(box)) continue;  // the cursor, or far
    const r = area(path), matrix = path.getScreenCTM(), length = path.getTotalLength();
    for (let s = 0; s <= length; s += 2) {
      const p = path.getPointAtLength(s);
      const q = new DOMPoint(p.x, p.y).matrixTransform(matrix);
      if (inside(r, q.x, q.y)) found.push([q.x, q.y]);
    }
  }
  for (const point of chart.querySelectorAll('.scatterlayer .trace path.point')) {
    const b = point.getBoundingClientRect();
    if (!meets(b)) continue;
    const shown = inside(area(point), (b.left + b.right) / 2, (b.top + b.bottom) / 2);
    if (b.width > 0 && shown && Number(getComputedStyle(point).opacity) > 0) {
      found.push([b.left, b.top, b.right, b.bottom]);
    }
  }
  return found;
}
"""


def _crossed(box: dict, plotted: list[list[float]]) -> int:
    """How many of the plotted line points and markers fall in ``box`` (a text's box)."""
    left, top = box["x"], box["y"]
    right, bottom = left + box["width"], top + box["height"]
    return sum(
        (left < p[0] < right and top < p[1] < bottom)
        if len(p) == 2
        else (p[0] < right and left < p[2] and p[1] < bottom and top < p[3])
        for p in plotted
    )


@pytest.mark.parametrize(("width", "height", "demo"), [(390, 844, False), (1280, 800, True)])
def test_the_epsilon_axis_is_whole_to_its_last_tick_on_a_phone_and_a_projector(
    screens, width, height, demo
):
    # Issue 53: the plots ran to the chart's right edge (no margin), so the ε axis lost its last
    # tick, 20, and the curves' ends touched the edge: the chart looked clipped on a phone.
    _, chart = screens(width, height, demo)
    svg = chart.locator(".main-svg").first.bounding_box()
    ticks = [
        (loc.text_content(), loc.bounding_box())
        for loc in chart.locator(".xaxislayer-above text").all()
        if loc.is_visible()
    ]
    right = svg["x"] + svg["width"]
    assert "20" in [t for t, _ in ticks], [t for t, _ in ticks]
    assert all(box["x"] + box["width"] <= right for _, box in ticks), (ticks, right)


@pytest.mark.parametrize(
    ("width", "height", "demo"), [(1280, 800, False), (1280, 800, True), (390, 844, False)]
)
def test_the_first_frame_writes_its_values_clear_of_every_line_and_point(
    screens, width, height, demo
):
    # Issue 53: at the first ε the eight lines of accuracies crossed the curves (they all start
    # low at small ε), and the bounds' block in demo mode was as tall as its panel.
    _, chart = screens(width, height, demo)
    plotted = chart.evaluate(_PLOTTED, [False, None])
    assert len(plotted) > 100  # the curves were read
    values = [
        (loc.text_content(), loc.bounding_box()) for loc in chart.locator(".textpoint text").all()
    ]
    blocks = [(t, b) for t, b in values if "DP-SGD" in t or "guess ≤" in t]
    assert len(blocks) == 2, [t for t, _ in values]
    crossing = [(text[:40], _crossed(box, plotted)) for text, box in blocks]
    assert [c for c in crossing if c[1]] == [], crossing


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
def test_the_charts_written_values_take_the_modes_note_size(screens, demo):
    # Issue 53: the values at the cursor and the audits' names stayed 12 px in demo mode, where
    # every other chart's notes grow to DEMO_SIZES.note; then the names alone did.
    from labeldp_core.plots_base.readable import DEMO_SIZES, SIZES

    _, chart = screens(1280, 800, demo)
    sizes = chart.element_handle().evaluate(
        "c => [...c.querySelectorAll('.textpoint text')].map(t => [t.textContent, "
        "getComputedStyle(t).fontSize])"
    )
    assert any(t.startswith("≥") for t, _ in sizes), sizes  # the audits' names are read too
    assert {float(s.removesuffix("px")) for _, s in sizes} == {
        (DEMO_SIZES if demo else SIZES).note
    }, sizes


#: Every text of a chart with its box in px of the page: [kind, text, x, y, width, height]; the
#: audits' names are the texts of the audits' panel that start with "≥" (in this screen every
#: audited ε has several audits, so each name is a range).
_TEXTS = """
chart => {
  const kinds = {
    value: '.textpoint text', title: '.gtitle, .annotation-text', button: '.updatemenu-button',
    tick: '.xtick text, .ytick text', axis: '.xtitle, .ytitle', slider: '.slider-label',
  };
  const found = [];
  for (const [kind, selector] of Object.entries(kinds)) {
    for (const node of chart.querySelectorAll(selector)) {
      const b = node.getBoundingClientRect(), text = node.textContent;
      if (b.width === 0) continue;
      const name = kind === 'value' && text.startsWith('≥') && node.closest('.subplot.x3y3');
      found.push([name ? 'name' : kind, text, b.x, b.y, b.width, b.height]);
    }
  }
  return found;
}
"""


def _go_to_each_frame(page, chart) -> Iterator[str]:
    """Click the slider at each of its steps in turn, yielding the ε it then shows."""
    rail = chart.locator(".slider-rail-rect").first
    rail.scroll_into_view_if_needed()
    middle = rail.bounding_box()["y"] + rail.bounding_box()["height"] / 2
    ticks = [loc.bounding_box() for loc in chart.locator(".slider-tick-rect").all()]
    for tick in ticks:
        page.mouse.click(tick["x"] + tick["width"] / 2, middle)
        page.wait_for_timeout(150)
        yield _shown_epsilon(chart)


@pytest.mark.parametrize(
    ("width", "height", "demo"), [(1280, 800, False), (1280, 800, True), (390, 844, False)]
)
def test_every_text_on_the_screen_is_whole_and_covers_no_other_in_every_frame(
    screens, width, height, demo
):
    # Issue 53: the values at the cursor covered each other and the lines, the last frame
    # named only PATE, the audits' diamonds had no names, and on a phone the chart's titles were
    # cut and Pause covered the top panel's title.
    page, chart = screens(width, height, demo)
    for frame in ("first", "last"):
        if frame == "last":
            _to_last_frame(page, chart)
        svg = chart.locator(".main-svg").first.bounding_box()
        found = _boxes(chart)
        shown = [pair for pairs in found.values() for pair in pairs]
        for text, box in shown:  # nothing cut at the chart's edges
            left, right = box["x"], box["x"] + box["width"]
            assert svg["x"] - 2 <= left and right <= svg["x"] + svg["width"] + 2, (frame, text)
        covered = [
            (a, b, _overlap(p, q))
            for i, (a, p) in enumerate(shown)
            for b, q in shown[i + 1 :]
            if _overlap(p, q) > 2
        ]
        assert not covered, (frame, covered)
        accuracy = next(t for t, _ in found["values"] if "DP-SGD" in t)
        # The block's lines run together in its text ("Randomized" ending one, "response" the
        # next): compared without spaces. (The drag reached ε 8 of 16 before the plots kept a
        # right margin, so the last frame's wrapped list was not read until then.)
        joined = accuracy.replace(" ", "")
        for name in ("Randomized response", "RR with prior", "PATE", "DPPL-Mean", "ALIBI"):
            assert name.replace(" ", "") in joined, (frame, accuracy)  # computed, or said not
        assert any("≥" in t for t, _ in found["values"] if "DP-SGD" not in t)  # the audits


@pytest.mark.parametrize(
    ("width", "height", "demo"), [(1280, 800, False), (1280, 800, True), (390, 844, False)]
)
def test_in_every_frame_the_audits_names_cover_nothing_and_every_value_is_whole(
    screens, width, height, demo
):
    # Issue 53: the audits' names above their diamonds stayed 12 px in demo mode; at their
    # neighbouring ε (0.5 and 1) they covered each other on a phone, and the claim y = ε ran
    # through them. Every frame is looked at: the block at an audited ε too.
    page, chart = screens(width, height, demo)
    seen, faults = [], []
    for shown in _go_to_each_frame(page, chart):
        svg = chart.locator(".main-svg").first.bounding_box()
        texts = [
            (k, t, {"x": x, "y": y, "width": w, "height": h})
            for k, t, x, y, w, h in chart.evaluate(_TEXTS)
        ]
        names = [(t, box) for k, t, box in texts if k == "name"]
        faults += [(shown, "names", [t for t, _ in names])] * (len(names) != 3)  # 0.5, 1, 4
        faults += [
            (shown, text[:30], "cut")
            for kind, text, box in texts
            if kind in ("name", "value")
            and not svg["x"] - 2
            <= box["x"]
            <= box["x"] + box["width"]
            <= svg["x"] + svg["width"] + 2
        ]
        plotted = chart.evaluate(_PLOTTED, [True, [box for _, box in names]])
        for name, box in names:
            faults += [
                (shown, name, other[:30], round(_overlap(box, where)))
                for _, other, where in texts
                if other != name and _overlap(box, where) > 2
            ]
            faults += [(shown, name, "lines", _crossed(box, plotted))] * bool(
                _crossed(box, plotted)
            )
        seen.append(shown)
    assert not faults, faults
    from price_screen import screen_frame_epsilons

    frames = screen_frame_epsilons(SCREEN_AUDITED)
    assert len(seen) == len(frames) and seen[-1] == f"ε = {frames[-1]:g}", seen  # every frame
