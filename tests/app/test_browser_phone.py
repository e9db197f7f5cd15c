"""A phone in demo mode (issue 53 §4): every line on the screen is whole at 390x844.

A Streamlit server on the small warmed digits cache of ``test_browser_layout`` (each family
page's first view at ε = 1; stand-in training), driven by Playwright through Debian's chromium
as a phone: a 390x844 window whose browser says it is a phone (its User-Agent, as every phone's
browser does). Pages whose value boxes hold a sentence (What ε means, Privacy audit) are opened in
demo mode, and, with bounding boxes, no heading, value box, link or paragraph may be wider than
the room it is shown in (Streamlit cuts a value box's label and delta with "…" on one line), nor
reach past the window's right edge, and no chart's title, note above its plot, axis title or
tick label may reach past the chart; the menu, opened, cuts no title. At 1280x800 in demo mode,
the Class round's controls in their columns keep their labels whole. Figures of panels side by
side (Noisy model outputs, Laplace on labels) keep their panels' titles and axis titles inside
the chart on a phone too.
"""

from collections.abc import Callable
from typing import Any

import pytest
import test_browser_layout as layout
from test_browser import IDLE, NAV_LINKS, _open
from test_browser_layout import CHARTS_DRAWN, CUT_NAV, QUERY

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

#: The layout tests' server (its warmed cache, started once in this process: tests/app/conftest.py).
server = layout.server
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36",
}
#: The texts a reader reads on a page: headings, value boxes (each part, and what is inside
#: them), page links, paragraphs, the controls' labels.
TEXTS = (
    "[data-testid='stMain'] :is(h1, h2, h3, [data-testid='stMarkdownContainer'] p, "
    "[data-testid='stMetricLabel'], [data-testid='stMetricLabel'] *, "
    "[data-testid='stMetricValue'], [data-testid='stMetricValue'] *, "
    "[data-testid='stMetricDelta'], [data-testid='stMetricDelta'] *, "
    "[data-testid='stPageLink-NavLink'], [data-testid='stPageLink-NavLink'] *, "
    "[data-testid='stWidgetLabel'] [data-testid='stMarkdownContainer'], "
    "[data-testid='stCheckbox'] [data-testid='stMarkdownContainer'])"
)
#: Each shown text that is cut (wider than its box) or runs past the window's right edge.
CUT_TEXTS = f"""() => [...document.querySelectorAll("{TEXTS}")]
  .filter(e => e.offsetParent && e.innerText.trim())
  .filter(e => e.scrollWidth > e.clientWidth + 1
    || e.getBoundingClientRect().right > window.innerWidth + 1)
  .map(e => [e.innerText.trim().slice(0, 60), e.scrollWidth, e.clientWidth,
             Math.round(e.getBoundingClientRect().right)])"""
#: Each chart's text (its title, the notes above its plot, the axes' titles and tick labels)
#: that reaches past its chart or the window.
CUT_CHART_TEXTS = """() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
  .filter(chart => chart.querySelector('.main-svg'))
  .flatMap(chart => {
    const box = chart.querySelector('.main-svg').getBoundingClientRect();
    const right = Math.min(box.right, window.innerWidth);
    return [...chart.querySelectorAll(
        '.gtitle, .annotation-text-g, .g-xtitle, .g-ytitle, .xtick text, .ytick text')]
      .filter(t => t.textContent.trim())
      .map(t => [t.textContent.slice(0, 50), t.getBoundingClientRect()])
      .filter(([, r]) => r.width && (r.left < box.left - 1 || r.right > right + 1))
      .map(([text, r]) => [text, Math.round(r.left), Math.round(r.right), Math.round(right)]);
  })"""
SIDEBAR_OPENER = "[data-testid='stExpandSidebarButton']"


@pytest.fixture(scope="module")
def phone(browser):
    context = browser.new_context(**PHONE)
    yield context
    context.close()


@pytest.fixture(scope="module")
def opened(server: str, phone) -> Callable[[str], Any]:
    """``opened(path)``: the page at ``path`` on the phone in demo mode, its charts drawn and the
    page idle; opened once for the module's tests, which only read it (What ε means, Noisy
    model outputs and Laplace on labels are each read by two: three page loads less)."""
    pages: dict[str, Any] = {}

    def page_at(path: str):
        if path not in pages:
            pages[path] = _open(phone, f"{server}/{path}?{QUERY}&demo=1")
        page = pages[path]
        page.wait_for_function(CHARTS_DRAWN)
        page.wait_for_selector(IDLE)
        return page

    return page_at


@pytest.mark.parametrize("path", ["epsilon_meaning", "audit"])
def test_in_demo_mode_a_phone_shows_every_heading_value_box_link_and_chart_text_whole(opened, path):
    # Issue 53: at 390x844 in demo mode What ε means cut its value box "Guess of one label,
    # uniform prior (π = 1…" and its link "Play it as a class: open a round at ε = 1 on the
    # Class…"; Privacy audit cut "A release spending this much more th…" and "The audit proves
    # at least this multiple …" (value boxes' deltas, drawn on one line); the charts' titles,
    # wrapped for a page 820 px wide, ran past the phone's edge ("How sure an adversary can bec"),
    # and the audit's row "laplace (control: scale 1/ε, sensitivity 1)" was cut at its left.
    page = opened(path)
    cut = page.evaluate(CUT_TEXTS)
    chart_texts = page.evaluate(CUT_CHART_TEXTS)
    shown = (
        page.locator(TEXTS).count(),
        page.locator("[data-testid='stPlotlyChart'] .gtitle").count(),
    )
    assert shown[0] >= 10 and shown[1] >= 1, shown  # the page drew its texts and charts
    assert not cut and not chart_texts, (cut, chart_texts)


def test_in_demo_mode_a_phones_menu_cuts_no_title(server, phone):
    page = _open(phone, f"{server}/randomized_response?{QUERY}&demo=1")
    page.locator(SIDEBAR_OPENER).first.click()
    page.locator(NAV_LINKS).last.wait_for()
    page.wait_for_timeout(500)  # the menu slides in
    cut = page.evaluate(CUT_NAV)
    links = page.locator(NAV_LINKS).count()
    page.close()
    assert links >= 10, links
    assert not cut, cut


def test_in_demo_mode_the_class_rounds_controls_show_their_labels_whole(server, browser):
    # Issue 53: at 1280x800 in demo mode the Class round's third control, in a column beside
    # the round's ε and items, read "Show the image (RR wit…" (258 px of text in 217).
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = _open(context, f"{server}/play?{QUERY}&demo=1")
    page.get_by_role("button", name="Open a round").wait_for()
    checkboxes = page.locator("[data-testid='stMain'] [data-testid='stCheckbox']")
    checkboxes.first.wait_for()  # the page draws its controls one by one: slow under load
    page.wait_for_selector(IDLE)
    cut = page.evaluate(CUT_TEXTS)
    labels = checkboxes.count()
    context.close()
    assert labels >= 1, labels
    assert not cut, cut


@pytest.mark.parametrize("path", ["noisy_outputs", "laplace_labels"])
def test_in_demo_mode_a_phone_keeps_the_titles_of_panels_side_by_side_inside_their_chart(
    opened, path
):
    # Issue 53: at 390x844 in demo mode the panels' titles and axis titles of figures of two or
    # more panels ran past the chart ("Argmax agreement" to x 400, "first principal axis",
    # "noisy outputs at ε = 1 (own scale)" to 446, "ALIBI posterior" to 401, in a chart ending
    # at 374): wrapped for a whole phone's width, not for a panel's share of it.
    page = opened(path)
    chart_texts = page.evaluate(CUT_CHART_TEXTS)
    panels = page.locator("[data-testid='stPlotlyChart'] .annotation-text-g").count()
    assert panels >= 2, panels  # the page drew its figure of panels
    assert not chart_texts, chart_texts


#: Each chart's legend entries and notes above or in its plot that reach past the chart, and
#: the pairs of its panels' titles (and notes) whose boxes cover each other.
LEGEND_AND_TITLES = """() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
  .filter(chart => chart.querySelector('.main-svg'))
  .map(chart => {
    const box = chart.querySelector('.main-svg').getBoundingClientRect();
    const right = Math.min(box.right, window.innerWidth);
    const cut = [...chart.querySelectorAll('.legend .traces')]
      .map(t => [t.textContent.slice(0, 40), t.getBoundingClientRect()])
      .filter(([, r]) => r.width && r.right > right + 1)
      .map(([text, r]) => [text, Math.round(r.right), Math.round(right)]);
    const notes = [...chart.querySelectorAll('.annotation-text-g')]
      .filter(t => t.textContent.trim())
      .map(t => [t.textContent.slice(0, 30), t.getBoundingClientRect()]);
    const covered = notes.flatMap(([a, p], i) => notes.slice(i + 1)
      .filter(([, q]) => Math.min(p.right, q.right) - Math.max(p.left, q.left) > 2
        && Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 2)
      .map(([b]) => [a, b]));
    const plots = [...chart.querySelectorAll('.draglayer .nsewdrag')].map(d => {
      const r = d.getBoundingClientRect();
      return [Math.round(r.width), Math.round(r.height)];
    });
    return {cut, covered, plots};
  })"""


@pytest.mark.parametrize("path", ["dpsgd", "epsilon_meaning", "noisy_outputs", "laplace_labels"])
def test_in_demo_mode_a_phone_shows_every_legend_entry_whole_and_no_title_over_another(
    opened, path
):
    # Issue 53: at 390x844 in demo mode legend entries ran past the chart ("Vector randomized
    # response: ε per label…" to x 417 in a chart ending at 374), and the titles of panels side
    # by side covered each other ("Silhouette score" under "Calinski-Harabasz score"). The
    # series keep their names (the CSV's): an entry wraps; the panels stack on a phone.
    page = opened(path)
    charts = page.evaluate(LEGEND_AND_TITLES)
    assert charts, path
    assert not [c["cut"] for c in charts if c["cut"]], charts
    assert not [c["covered"] for c in charts if c["covered"]], charts
    assert all(w >= 200 for c in charts for w, _ in c["plots"]), charts  # no panel a strip


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
def test_on_a_phone_compare_names_its_lines_under_a_plot_as_wide_as_the_chart(
    server, phone, opened, demo
):
    # Issue 53: Compare named its lines in a right margin as wide as on a desktop, leaving the
    # plot 58 px wide on a phone; wrapped to 10 characters, the names still took half of the
    # chart's 358 px: the plot was 157 px wide in demo mode (189 px in the default type). On a
    # phone the names go in the legend under the plot, which keeps the chart's width.
    if demo:
        page = opened("compare")  # the module's demo-mode page, shared: not closed here
    else:
        page = _open(phone, f"{server}/compare?{QUERY}")
        page.wait_for_function(CHARTS_DRAWN)
        page.wait_for_selector(IDLE)
    charts = page.evaluate(LEGEND_AND_TITLES)
    names = page.locator("[data-testid='stPlotlyChart']").first.locator(".legend .traces")
    shown = [text.strip() for text in names.all_text_contents()]
    if not demo:
        page.close()
    (width, height), *_ = charts[0]["plots"]
    assert width >= 250 and height >= 300, charts[0]
    assert len(shown) >= 2 and all(shown), shown  # every line named, under the plot
    assert not charts[0]["cut"] and not charts[0]["covered"], charts[0]


#: The boxes of the group names of What ε means' measured guesses (under its bars or beside them).
GROUP_NAMES = """() => {
  const chart = [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
    .find(c => c.textContent.includes('Measured guesses'));
  return [...chart.querySelectorAll('.xtick text, .ytick text')]
    .filter(t => /[a-z]/i.test(t.textContent))
    .map(t => [t.textContent, t.getBoundingClientRect()])
    .map(([text, r]) => [text, r.left, r.top, r.right, r.bottom]);
}"""


def test_in_demo_mode_a_phone_writes_each_measured_guess_groups_name_apart(opened):
    # Issue 53: at 390x844 the seven group names under the upright bars of What ε means'
    # measured guesses ran into each other ("RR with prior" over "LP-2ST"); laid across on a
    # phone, each group's name has a row of its own.
    page = opened("epsilon_meaning")
    names = page.evaluate(GROUP_NAMES)
    assert len(names) >= 2, names
    covered = [
        (a[0], b[0])
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        if min(a[3], b[3]) - max(a[1], b[1]) > 1 and min(a[4], b[4]) - max(a[2], b[2]) > 1
    ]
    assert not covered, covered
