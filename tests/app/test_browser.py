"""A real browser on the real server: Debian's Chromium driven by Playwright for Python.

The test installs Chromium with apt-get if it is missing (never `playwright install`), starts
`streamlit run app.py` on a free loopback port, opens every page listed in the navigation, moves the
epsilon control and checks that the chart followed. Screenshots go to `screenshots/` (git-ignored).
"""

import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from app_sessions import served_app, streamlit_server
from debian_chromium import CHROMIUM, ensure_chromium
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from labeldp_core.data.tables import add_table, example_table

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
VIEWPORT = {"viewport": {"width": 1400, "height": 2400}}
#: The app's own navigation links in the sidebar (Streamlit's is off, see .streamlit/config.toml).
NAV_LINKS = "[data-testid='stSidebar'] [data-testid='stPageLink-NavLink']"
#: Records, from the first paint on, every entry any sidebar navigation ever shows.
RECORD_NAV = """
window.__navSeen = new Set();
new MutationObserver(() => {
  for (const a of document.querySelectorAll("[data-testid='stSidebar'] a")) {
    window.__navSeen.add(a.innerText.trim());
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""
STARTUP_WAIT_S = 120
#: "idle" once the script has run, "not found" while Streamlit's "Page not found" is shown.
IDLE_OR_NOT_FOUND = """idle => document.querySelector(idle) ? "idle"
  : /page\\s+not\\s+found/i.test(document.body ? document.body.textContent : "") ? "not found"
  : false"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    ensure_chromium()
    with streamlit_server(tmp_path_factory.mktemp("cache")) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def tabs(browser) -> Iterator:
    """The module's browser context at 1400x2400, where its tests open their pages and leave them.

    A page opened beside another open page of the same server runs in that page's renderer
    process (``--process-per-site``, ``tests/debian_chromium.py``), where the app's scripts are
    already compiled: about 3 s of Chromium's CPU a page instead of about 5.5 s in a context of
    its own. The pages stay open, idle, until the module's last test (none of them polls but
    Home's warm panel, whose pages are closed).
    """
    context = browser.new_context(**VIEWPORT)
    yield context
    context.close()


@contextmanager
def warmed_app(factory: pytest.TempPathFactory, warm: Callable[[Path], None]) -> Iterator[str]:
    """The app served on a cache that ``warm`` filled first (computing in the page's thread)."""
    ensure_chromium()
    directory = factory.mktemp("cache")
    warm(directory)
    with served_app(directory, LABELDP_WORKERS="0") as app:
        yield f"http://127.0.0.1:{app.port}"


def _stand_in_dp(x_train, y_train, x_test, y_test, num_classes, settings, *args, **kwargs):
    """DP-SGD's outcome without its steps: initial weights, the schedule the run asked for."""
    from labeldp_core.accounting.dpsgd import sampling_schedule
    from labeldp_core.training.dpsgd import DPSGDOutcome
    from tests.conftest import _untrained

    q, steps = sampling_schedule(len(x_train), settings.batch_size, settings.epochs)
    model = _untrained(settings.model, x_train, num_classes).model
    return DPSGDOutcome(model, (0.5,) * settings.epochs, q, steps, q * len(x_train), 0)


def _stand_in_pro(data, num_classes, settings, pro, *args, **kwargs):
    from tests.families.labeldp_pro.release_contract import as_pro_outcome

    return as_pro_outcome(_stand_in_dp(*data, num_classes, settings), pro, settings)


@contextmanager
def _stand_in_training() -> Iterator[None]:
    """No model trains: runs split, release, account and report as ``fast_runs``'s do.

    For the browser tests of where a page draws its controls and charts, and of which points
    it finds cached, not of what the models learnt; demo mode's points (the default model,
    40 epochs) would otherwise train for minutes.
    """
    from labeldp_core.families.labeldp_pro import trainer as pro_trainer
    from labeldp_core.training import dpsgd as dpsgd_trainer
    from tests.conftest import untrained_models

    with pytest.MonkeyPatch.context() as patch:
        untrained_models(patch)
        patch.setattr(dpsgd_trainer, "train_dpsgd_classifier", _stand_in_dp)
        patch.setattr(pro_trainer, "train_labeldp_pro", _stand_in_pro)
        yield


def _open(browser, url: str, viewport: dict[str, int] | None = None, init_script: str = ""):
    """Open ``url`` in a new page of ``browser`` (or of a browser context) and wait for idle.

    ``viewport`` sizes that page's window (window and screen, as a context's ``viewport`` does);
    ``init_script`` runs in the page before any of its own scripts, on every document it loads.
    """
    page = browser.new_page(**({} if hasattr(browser, "browser") else VIEWPORT))
    if viewport is not None:
        page.set_viewport_size(viewport)
    if init_script:
        page.add_init_script(init_script)
    page.set_default_timeout(STARTUP_WAIT_S * 1000)
    page.goto(url)
    # Watch for Streamlit's "Page not found" dialog while the page loads, not only at the end:
    # every 50 ms, in the page (two of Playwright's counts from here took about 5 ms of
    # Chromium's CPU each, 0.2 of a core for as long as a page loads).
    state = page.wait_for_function(IDLE_OR_NOT_FOUND, arg=IDLE, polling=50).json_value()
    assert state == "idle", (state, url)
    assert page.get_by_text("Page not found").count() == 0, url
    return page


def _screenshot(page, name: str) -> None:
    # Plotly charts draw after the script has finished (their bundle loads lazily behind a
    # skeleton); wait until no skeleton is left and every chart has its SVG.
    page.wait_for_function(
        "() => !document.querySelector(\"[data-testid='stSkeleton']\") && "
        "[...document.querySelectorAll(\"[data-testid='stPlotlyChart']\")]"
        ".every(chart => chart.querySelector('.main-svg'))"
    )
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _epsilon_shown(page) -> tuple[str, str, str]:
    """What the epsilon slider's thumb, the exact box and the address bar say."""
    from playwright.sync_api import expect

    slider = page.locator("[data-testid='stSlider']", has_text="ε (log scale)")
    thumb = slider.locator("[data-testid='stSliderThumbValue']").inner_text()
    exact = page.get_by_label("ε, exact").first
    # On a fresh server's first run the box is drawn before its value (the clean-clone run at
    # 3c0746a read '' once under load): wait for a value, then read it.
    expect(exact).not_to_have_value("", timeout=30_000)
    return thumb, exact.input_value(), parse_qs(urlparse(page.url).query).get("epsilon", [""])[0]


def _go(page, title: str) -> None:
    page.locator(NAV_LINKS, has_text=title).first.click()
    page.get_by_role("heading", name=title, level=1).wait_for()
    page.wait_for_selector(IDLE)


def test_a_first_link_shows_the_apps_navigation_and_epsilon_follows_across_pages(server, tabs):
    # Runs first in this module: the server is fresh, and this link is its first visitor.
    page = _open(tabs, f"{server}/randomized_response?epsilon=4&epochs=1", init_script=RECORD_NAV)
    # Streamlit first runs the page file alone (app.py has not run yet); the page restarts the
    # run through app.py at once, which draws the app's navigation. Streamlit's own, which
    # would show raw file names on that first run, never appears: not even for a frame.
    page.locator(NAV_LINKS, has_text="Home").wait_for()
    seen = page.evaluate("Array.from(window.__navSeen)")
    raw_names = {"app", "rr prior", "audit", "randomized response", "epsilon meaning"}
    assert not raw_names & set(seen), seen  # file names, lower case: the app's say "RR with prior"
    page.wait_for_selector(IDLE)
    nav = page.locator(NAV_LINKS).all_inner_texts()
    assert any("Home" in item for item in nav), nav
    assert any("Randomized response" in item for item in nav), nav
    assert not any(item.strip() in ("app", "rr prior", "audit") for item in nav), nav
    assert _epsilon_shown(page) == ("4", "4", "4")
    for title in ("RR with prior", "PATE", "Randomized response"):
        _go(page, title)
        assert _epsilon_shown(page) == ("4", "4", "4"), title
    box = page.get_by_label("ε, exact").first
    box.fill("1.37")
    box.press("Enter")
    page.locator("[data-testid='stSliderThumbValue']", has_text="1.37").first.wait_for()
    page.wait_for_selector(IDLE)
    for title in ("Randomized response", "RR with prior", "Compare mechanisms"):
        if title != "Randomized response":
            _go(page, title)
        assert _epsilon_shown(page) == ("1.37", "1.37", "1.37"), title


def test_the_demo_tour_walks_its_pages_with_next_and_back(layout_server, browser):
    # On the layout tests' server, whose cache holds demo mode's first views (stand-in results):
    # on this module's empty cache the server first trained demo mode's points, which the tour
    # does not check (15 s of the tour at load 5, 133 s at load 12). Pages computing on an empty
    # cache are the tour of every page's and the uploaded table's.
    page = _open(browser, f"{layout_server}/randomized_response?demo=1&epochs=1")
    for button, title in (
        ("Next →", "What ε means"),
        ("Next →", "RR with prior"),
        ("← Back", "What ε means"),
    ):
        page.get_by_role("button", name=button).click()
        page.get_by_role("heading", name=title, level=1).wait_for()
        page.wait_for_selector(IDLE)
        assert "demo=1" in page.url
    page.close()


def test_moving_epsilon_updates_the_chart_and_the_link(server, tabs):
    # The first visit to a fresh server is a direct link to a page: Streamlit then runs the page
    # file without app.py, and the page must still draw the shared sidebar.
    page = _open(tabs, f"{server}/randomized_response?epochs=1")
    assert page.get_by_text("Data and model").count() == 1
    chart = page.locator("[data-testid='stPlotlyChart']").first
    chart.locator("text=ε = 1").first.wait_for()
    field = page.get_by_label("Privacy budget ε, exact")
    field.fill("4")
    field.press("Enter")
    chart.locator("text=ε = 4").first.wait_for()
    page.wait_for_selector(IDLE)
    assert "epsilon=4" in page.url
    assert page.locator("[data-testid='stException']").count() == 0
    _screenshot(page, "randomized-response-epsilon-4")


def test_every_page_renders_without_an_exception(server, tabs):
    # One tab follows the app's own navigation to every page, as a visitor would, and each page's
    # address must be its link's (a first deep link is the first test's); the charts must draw.
    # (Opening every page in a tab of its own took twice as long: 54 s against 24 s.)
    page = _open(tabs, f"{server}/?epochs=1")
    links = page.locator(NAV_LINKS)
    links.first.wait_for()  # a first visit may go idle once before app.py draws the navigation
    page.wait_for_selector(IDLE)
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert len(hrefs) >= 2, hrefs
    for index, href in enumerate(hrefs):
        path = urlparse(href).path.strip("/")
        before = page.locator("h1").first.inner_text()
        links.nth(index).click()
        if index:  # the first link is the page already shown
            page.wait_for_function(
                "before => document.querySelector('h1') && "
                "document.querySelector('h1').innerText !== before",
                arg=before,
            )
        page.wait_for_selector(IDLE)
        assert urlparse(page.url).path.strip("/") == path, (href, page.url)
        assert page.locator("[data-testid='stException']").count() == 0, href
        # The links keep the link's settings. The page writes its widgets' query string after
        # it draws, so wait for it (read at once, it was missing once in four runs at load 6);
        # a page that dropped the settings times out here.
        try:
            page.wait_for_function("() => location.search.includes('epochs=1')")
        except PlaywrightTimeoutError:
            pytest.fail(f"{href} never wrote epochs=1 into its address: {page.url}")
        assert "epochs=1" in page.url, page.url
        _screenshot(page, path or "home")


def test_the_app_asks_nothing_of_the_internet(server, tabs):
    # Every request a page makes goes to the server itself, and the tab's icon is served by it
    # (a Material icon as page_icon made the favicon a link to a font service). Every request
    # of the context is heard, the module's other open pages' too.
    hosts: set[str] = set()

    def heard(request) -> None:
        hosts.add(urlparse(request.url).netloc)

    tabs.on("request", heard)
    page = _open(tabs, f"{server}/compare?epochs=1")
    _go(page, "RR with prior")
    icons = page.locator("link[rel~='icon']")
    icons.first.wait_for(state="attached")
    hrefs = [icons.nth(i).get_attribute("href") for i in range(icons.count())]
    assert all(urlparse(href).netloc in ("", urlparse(server).netloc) for href in hrefs), hrefs
    tabs.remove_listener("request", heard)
    assert hosts <= {urlparse(server).netloc, ""}, hosts


def test_a_table_uploaded_in_the_browser_is_trained_on_by_a_mechanism_page(server, tabs, tmp_path):
    path = tmp_path / "wine.csv"
    path.write_bytes(example_table("wine"))
    page = _open(tabs, f"{server}/your_data?epochs=1")
    page.locator("input[type='file']").set_input_files(str(path))
    page.get_by_text("178 rows, 14 columns").wait_for()
    page.wait_for_selector(IDLE)
    page.get_by_role("button", name="Use this table").click()
    page.get_by_text("is in the sidebar's dataset list").wait_for()
    # The same bytes and options name the same dataset wherever they are stored.
    table = add_table(path.read_bytes(), "class", "wine", root=tmp_path / "elsewhere").id
    shown = _open(tabs, f"{server}/randomized_response?epochs=1&dataset=wine+·+{table}")
    # Off the demo grid and never timed here: the page asks before training (its table's name).
    shown.get_by_role("button", name="Compute ε = 1 on wine").click()
    metric = shown.locator("[data-testid='stMetric']", has_text="ε spent")
    metric.first.wait_for()
    shown.wait_for_selector(IDLE)
    assert shown.locator("[data-testid='stException']").count() == 0
    assert (
        shown.locator("[data-testid='stMetric']", has_text="Training labels")
        .inner_text()
        .endswith("142")
    )
    _screenshot(shown, "your-table-randomized-response")


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="needs Debian's apt-get")
def test_chromium_comes_from_debian_not_a_download():
    ensure_chromium()
    owner = subprocess.run(["dpkg", "-S", CHROMIUM], capture_output=True, text=True, check=False)
    assert owner.returncode == 0 and owner.stdout.startswith("chromium"), owner.stdout


#: Link values that Markdown (with GitHub's autolinks) would turn into a link, an image or HTML.
ACTIVE_LINK_VALUES = [
    "http://evil.example/x",
    "https://evil.example",
    "www.evil.example",
    "mailto:someone@evil.example",
    "someone@evil.example",
    "[click](http://evil.example)",
    "![pic](http://evil.example/p.png)",
    "<a href='http://evil.example'>x</a>",
    "<img src='http://evil.example/p.png'>",
]


#: The values in two kinds, a test each: what autolinks catch, and Markdown or HTML markup.
LINK_VALUE_KINDS = {"autolinks": ACTIVE_LINK_VALUES[:5], "markup": ACTIVE_LINK_VALUES[5:]}


@pytest.mark.parametrize("kind", LINK_VALUE_KINDS)
def test_a_link_value_never_becomes_a_link_or_an_image_in_an_error_box(server, tabs, kind):
    # Each value is refused by its control and quoted back in a red box; in the browser no box
    # may hold an anchor or an image (GitHub's autolinks ignore Markdown escapes). One link sets
    # it as the dataset and as ε, each refused in a box of its own (ui/links.py writes one a
    # value): nine page loads where a link a key took eighteen.
    page = tabs.new_page()
    page.set_default_timeout(STARTUP_WAIT_S * 1000)  # a first visit computes the page's point
    for value in LINK_VALUE_KINDS[kind]:
        link = {"dataset": value, "epsilon": value, "epochs": "1"}
        page.goto(f"{server}/laplace_noise?{urlencode(link)}")
        page.wait_for_selector(IDLE)
        boxes = page.locator("[data-testid='stAlertContentError']")
        boxes.first.wait_for()
        said = boxes.all_inner_texts()
        for key in ("dataset", "epsilon"):
            assert any(f"The link sets {key}=" in text for text in said), (value, key, said)
        found = page.locator("[data-testid='stAlertContentError'] :is(a, img)")
        shown = [boxes.nth(i).inner_html() for i in range(boxes.count())]
        assert found.count() == 0, (value, shown)


def test_an_unknown_page_address_says_so_instead_of_opening_home_without_a_word(server, tabs):
    # Streamlit opens Home with its address rewritten to "/" and a dialog that names nothing;
    # once closed, nothing said which address was wrong. A hostile address stays plain text.
    for asked, said in (
        ("no-such-page?epsilon=2", "/no-such-page"),
        ("[x](https:%2F%2Fexample.com)", "/[x](https://example.com)"),
    ):
        page = tabs.new_page()
        page.goto(f"{server}/{asked}")
        page.wait_for_selector(IDLE, timeout=STARTUP_WAIT_S * 1000)
        page.get_by_role("heading", name="labeldp explorer", level=1).wait_for()
        note = page.locator("[data-testid='stMain'] [data-testid='stAlert']", has_text=said)
        note.wait_for(timeout=10_000)
        assert f"There is no page at {said}: this is Home" in note.inner_text()
        assert note.locator("a").count() == 0
        page.close()  # Home's warm panel reads the cache again every 5 s
