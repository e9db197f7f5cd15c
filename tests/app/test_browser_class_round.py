"""A class round in real browsers: a teacher's screen and three phones, each a browser context.

Debian's Chromium through Playwright, on ``streamlit run app.py`` in classroom mode
(``LABELDP_READ_ONLY=1``). The teacher (1400x1000) opens a round of three items under *What ε
means*; each phone (390x844, touch, a context of its own: its own cookies and session) opens the
round's link, taps one big button per item, and waits; the teacher's tally follows by itself (it is
read again every 2 s); the reveal reaches the phones by itself (they ask every 3 s). A link with a
forged seat gets a seat of its own; a phone that reloads keeps its seat and its answers.
"""

import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlparse

import pytest
from app_sessions import served_app
from test_browser import IDLE, _ensure_chromium, chromium_browser

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
TEACHER = {"viewport": {"width": 1400, "height": 1000}}
ITEMS = 3
PHONES = 3
WAIT_MS = 120_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    _ensure_chromium()
    cache = tmp_path_factory.mktemp("cache")
    with served_app(cache, LABELDP_READ_ONLY="1") as app:
        yield f"http://127.0.0.1:{app.port}"


def _page(browser, options: dict, url: str):
    context = browser.new_context(**options)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    page.wait_for_selector(IDLE)
    return page


def _open_round(browser, server: str):
    teacher = _page(browser, TEACHER, f"{server}/epsilon_meaning?epochs=1&round_items={ITEMS}")
    teacher.get_by_text("Play it as a class").click()
    teacher.get_by_role("button", name=re.compile("Open a round for the class")).click()
    link = teacher.get_by_text(re.compile(r"/play\?round=")).first
    link.wait_for()
    code = re.search(r"round=([A-Z0-9]+)", link.inner_text()).group(1)
    teacher.locator("[data-testid='stImage'] img").first.wait_for()  # the QR code
    return teacher, code


def _answer_every_item(phone, first_class: int) -> None:
    for item in range(1, ITEMS + 1):
        phone.get_by_text(f"Item {item} of {ITEMS}").wait_for()
        phone.wait_for_selector(IDLE)
        assert phone.locator("[data-testid='stMetric']").count() == 1  # the released label
        button = phone.get_by_role("button", name=str((first_class + item) % 10), exact=True)
        box = button.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box  # on the screen
        assert box["height"] >= 56, box  # big enough for a thumb
        button.tap()
    phone.get_by_text("All answered").wait_for()


def test_a_class_plays_a_round_on_phones_and_the_teachers_tally_follows(server):
    with chromium_browser() as browser:
        teacher, code = _open_round(browser, server)
        phones = [_page(browser, PHONE, f"{server}/play?round={code}") for _ in range(PHONES)]
        seats = [parse_qs(urlparse(phone.url).query)["seat"][0] for phone in phones]
        assert len(set(seats)) == PHONES  # a seat each, no account
        for number, phone in enumerate(phones):
            _answer_every_item(phone, number)
        teacher.get_by_text(f"{PHONES} phones, {PHONES * ITEMS} answers").wait_for()
        for phone in phones:
            assert phone.get_by_text("You got").count() == 0
            assert phone.locator("[data-testid='stDataFrame']").count() == 0
        forged = _page(browser, PHONE, f"{server}/play?round={code}&seat=forged-seat")
        forged.get_by_text(f"Item 1 of {ITEMS}").wait_for()
        assert parse_qs(urlparse(forged.url).query)["seat"][0] not in ("forged-seat", *seats)
        phones[0].reload()
        phones[0].get_by_text("All answered").wait_for()  # the same seat, its answers kept
        teacher.get_by_role("button", name="Reveal the true labels").click()
        for phone in phones:
            phone.get_by_text(re.compile(rf"You got \d of {ITEMS} right")).wait_for()
        teacher.locator("[data-testid='stDataFrame']").first.wait_for()
        assert teacher.locator("[data-testid='stPlotlyChart']").count() >= 2  # overall, items
        for page in (teacher, *phones, forged):
            assert page.locator("[data-testid='stException']").count() == 0
