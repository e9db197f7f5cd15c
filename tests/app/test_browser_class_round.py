"""A class round in real browsers: a teacher's screen and three phones, tabs of a phone context.

Debian's Chromium through Playwright, on ``streamlit run app.py`` in classroom mode
(``LABELDP_READ_ONLY=1``). The teacher (1280x800, demo mode, a projector) opens a round of three
items at the top of the *Class round* page, whose code and link (over 40 px) and *Reveal* button
are on the first screen; each phone (390x844, touch, a tab of one phone context: a session of
its own, its seat in its link, as the app keeps no cookie) opens the round's link and taps one
big button per item, the buttons in class order, none looking preselected by the last tap and
never one of the last item beside them (counted at every change of the page); the teacher's
tally follows by itself (it is read again every 2 s). At the reveal every phone switches to its
result by itself, one that stopped mid-round too (they ask every 3 s), and a phone that comes
after the reveal is told the round is over. A link with a forged seat gets a seat of its own; a
phone that reloads keeps its seat and its answers.
"""

import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlparse

import pytest
from app_sessions import served_app
from debian_chromium import ensure_chromium
from test_browser import IDLE

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
PROJECTOR = {"width": 1280, "height": 800}
ITEMS = 3
PHONES = 3
WAIT_MS = 120_000
#: The smallest type of the round's code and link on the teacher's screen, in CSS pixels.
LARGE_PX = 40
#: Records, at every change of the page, the most answer buttons a phone has shown at once.
MOST_BUTTONS_SHOWN = """() => {
  if (window.mostAnswerButtons !== undefined) return;
  window.mostAnswerButtons = 0;
  const shown = () => [...document.querySelectorAll(".st-key-answers button")].filter(b => {
    const box = b.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(b).visibility === "visible";
  }).length;
  new MutationObserver(() => {
    window.mostAnswerButtons = Math.max(window.mostAnswerButtons, shown());
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    ensure_chromium()
    cache = tmp_path_factory.mktemp("cache")
    with served_app(cache, LABELDP_READ_ONLY="1") as app:
        yield f"http://127.0.0.1:{app.port}"


def _page(context, url: str):
    """``url`` in a new tab of ``context``, idle."""
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    page.wait_for_selector(IDLE)
    return page


def _on_first_screen(locator) -> None:
    box = locator.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PROJECTOR["height"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= PROJECTOR["width"], box


def _open_round(browser, server: str):
    """The teacher opens a round from the top of the Class round page, in demo mode."""
    projector = browser.new_context(viewport=PROJECTOR)
    teacher = _page(projector, f"{server}/play?demo=1&epochs=1&round_items={ITEMS}")
    opener = teacher.get_by_role("button", name=re.compile("Open a round for the class"))
    _on_first_screen(opener)
    opener.click()
    address = teacher.locator(".st-key-round_address p")
    address.nth(1).wait_for()
    code, link = address.nth(0).inner_text().strip(), address.nth(1).inner_text().strip()
    assert link.endswith(f"/play?round={code}"), (code, link)
    for text in (address.nth(0), address.nth(1)):
        _on_first_screen(text)
        size = float(text.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))
        assert size >= LARGE_PX, size
    teacher.locator("[data-testid='stImage'] img").first.wait_for()  # the QR code
    _on_first_screen(teacher.get_by_role("button", name="Reveal the true labels"))
    return teacher, code


def _answer_buttons(phone, item: int, classes: int = 10, attempts: int = 300) -> list:
    """Item ``item``'s answer buttons, in reading order (top to bottom, left to right).

    Each is found by its key (``answer_<item>_<label>``, ``pages/play.py``), not by counting the
    buttons shown: Streamlit keeps a button a rerun replaced in the page until the run ends (its
    "retained" elements, which the page hides, and which :data:`MOST_BUTTONS_SHOWN` counts if
    shown). A button is read again until it has a box, while a rerun redraws it (up to 30 s,
    Playwright's own default wait).
    """
    buttons = [phone.locator(f".st-key-answer_{item}_{label} button") for label in range(classes)]
    for button in buttons:
        button.wait_for(timeout=attempts * 100)
    for _ in range(attempts):
        boxes = [(button, button.bounding_box()) for button in buttons]
        if all(box is not None for _, box in boxes):
            ordered = sorted(boxes, key=lambda b: (round(b[1]["y"]), b[1]["x"]))
            return [button for button, _ in ordered]
        phone.wait_for_timeout(100)
    raise AssertionError(f"item {item}'s {classes} answer buttons never all had a box: {boxes}")


def _answer(phone, items: range, first_class: int) -> None:
    phone.evaluate(MOST_BUTTONS_SHOWN)
    for item in items:
        phone.get_by_text(f"Item {item} of {ITEMS}").wait_for()
        phone.wait_for_selector(IDLE)
        assert phone.locator("[data-testid='stMetric']").count() == 1  # the released label
        buttons = _answer_buttons(phone, item)
        assert [b.inner_text().strip() for b in buttons] == [str(k) for k in range(10)]
        colours = {b.evaluate("e => getComputedStyle(e).backgroundColor") for b in buttons}
        assert len(colours) == 1, colours  # none looks chosen (no carried-over highlight)
        button = buttons[(first_class + item) % 10]
        box = button.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box  # on the screen
        assert box["height"] >= 56, box  # big enough for a thumb
        button.tap()
        # A phone keeps hovering where it was tapped: the next item's button there must not
        # look chosen (a mouse left on the spot is how a browser test holds that hover).
        phone.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_a_class_plays_a_round_on_phones_and_the_teachers_tally_follows(server, browser):
    teacher, code = _open_round(browser, server)
    # The phones are tabs of one phone context (their seats are in their links, no cookie
    # holds one): a tab beside another of the same server shares its renderer process, where
    # the app's scripts are compiled already (tests/debian_chromium.py).
    handset = browser.new_context(**PHONE)
    phones = [_page(handset, f"{server}/play?round={code}") for _ in range(PHONES)]
    seats = [parse_qs(urlparse(phone.url).query)["seat"][0] for phone in phones]
    assert len(set(seats)) == PHONES  # a seat each, no account
    _answer(phones[0], range(1, 2), 0)  # stops after item 1
    phones[0].get_by_text(f"Item 2 of {ITEMS}").wait_for()
    for number, phone in enumerate(phones[1:], start=1):
        _answer(phone, range(1, ITEMS + 1), number)
        phone.get_by_text("All answered").wait_for()
    for phone in phones:  # never a button of the last item beside the next one's
        assert phone.evaluate("window.mostAnswerButtons") == 10
    answers = 1 + (PHONES - 1) * ITEMS
    teacher.get_by_text(f"{PHONES} phones, {answers} answers").wait_for()
    for phone in phones:
        assert phone.get_by_text("You answered").count() == 0
        assert phone.locator("[data-testid='stDataFrame']").count() == 0
    forged = _page(handset, f"{server}/play?round={code}&seat=forged-seat")
    forged.get_by_text(f"Item 1 of {ITEMS}").wait_for()
    assert parse_qs(urlparse(forged.url).query)["seat"][0] not in ("forged-seat", *seats)
    phones[1].reload()
    phones[1].get_by_text("All answered").wait_for()  # the same seat, its answers kept
    teacher.get_by_role("button", name="Reveal the true labels").click()
    phones[0].get_by_text(re.compile(rf"You answered 1 of {ITEMS} items: \d of them")).wait_for()
    for phone in phones[1:]:
        phone.get_by_text(re.compile(rf"You answered {ITEMS} of {ITEMS} items")).wait_for()
    late = _page(handset, f"{server}/play?round={code}")
    late.get_by_text("The round is over").wait_for()
    teacher.locator("[data-testid='stDataFrame']").first.wait_for()
    charts = teacher.locator("[data-testid='stPlotlyChart']")
    charts.nth(1).wait_for()  # drawn after the table: counted at once, it read 0 under load
    assert charts.count() >= 2  # overall, items
    for page in (teacher, *phones, forged, late):
        assert page.locator("[data-testid='stException']").count() == 0
    for context in (teacher.context, handset):
        context.close()  # the module's browser stays: no session left polling the server


def test_the_single_player_guess_buttons_come_in_class_order_on_a_phone(server, browser):
    from playwright.sync_api import expect

    phone = _page(browser.new_context(**PHONE), f"{server}/epsilon_meaning?epochs=1")
    buttons = phone.get_by_role("button", name=re.compile(r"^\d$"))
    expect(buttons).to_have_count(10)  # all drawn: a count read mid-render ran short once
    boxes = [buttons.nth(n).bounding_box() for n in range(10)]
    labels = [buttons.nth(n).inner_text().strip() for n in range(10)]
    ordered = [label for _, label in sorted(zip(boxes, labels, strict=True), key=_reading)]
    phone.context.close()
    assert ordered == [str(k) for k in range(10)]


def _reading(pair: tuple[dict, str]) -> tuple[int, float]:
    box = pair[0]
    return round(box["y"]), box["x"]
