"""A class round in the app: the teacher opens it at the top of the Class round page, phones answer
on the same page from the round's link, each in a session of its own (one AppTest each), in
classroom mode (read-only).

The phones share the round through the server's one store (``st.cache_resource``); the tally the
teacher sees equals the answers they gave, a forged seat in a link is replaced by a new one, and
no phone's page shows a true label before the reveal.
"""

import sys

import pytest
from app_helpers import assert_no_errors, open_page

import ui.results
import ui.sweeps
from labeldp_core.classroom import Item, RoundConfig
from labeldp_core.errors import InvalidInputError
from ui.class_round import round_link, round_store

PHONES = 3


@pytest.fixture(autouse=True)
def classroom_mode(monkeypatch):
    monkeypatch.setenv("LABELDP_READ_ONLY", "1")

    def refuse(*_args, **_kwargs):
        raise AssertionError("a read-only server computed something")

    # ui.sweeps holds its own name for it (imported here first, so the real one is kept after)
    for module in (ui.results, ui.sweeps):
        monkeypatch.setattr(module, "run_with_progress", refuse)


def _teacher(items: int, image: bool = False):
    query = {"epsilon": "1.0", "epochs": "1", "round_items": str(items)}
    app = open_page("pages/play.py", **query, **({"round_image": "true"} if image else {}))
    assert_no_errors(app)
    app.button(key="round_open").click().run()
    assert_no_errors(app)
    return app, app.session_state["_class_round_code"]


def _texts(app) -> list[str]:
    """Every text a phone's page shows, but its buttons (one per class, whatever the truth)."""
    kinds = ("markdown", "caption", "info", "warning", "subheader", "title")
    found = [element.value for kind in kinds for element in getattr(app, kind)]
    return found + [f"{m.label} {m.value}" for m in app.metric]


def _question(app) -> int:
    """The item number the phone shows ('Item 3 of 4 · ...')."""
    (caption,) = [c.value for c in app.caption if c.value.startswith("Item ")]
    return int(caption.split()[1])


def test_phones_answer_the_tally_is_theirs_and_the_truth_waits_for_the_reveal():
    teacher, code = _teacher(items=4)
    store = round_store()
    config = store.config(code)
    assert config.epsilon == 1.0 and config.items == 4 and config.mechanism == "rr"
    assert any(f"/play?round={code}" in m.value for m in teacher.markdown)
    assert teacher.get("imgs") or teacher.get("image")  # the QR code
    phones = [open_page("pages/play.py", round=code) for _ in range(PHONES)]
    seats = {phone.session_state["_class_round_seats"][code] for phone in phones}
    assert len(seats) == PHONES and all(store.has_seat(code, seat) for seat in seats)
    given = [[0] * 10 for _ in range(4)]
    for number in range(1, 5):
        for phone_number, phone in enumerate(phones):
            assert_no_errors(phone)
            assert _question(phone) == number
            view = store.seat_view(code, phone.session_state["_class_round_seats"][code])
            released = config.class_names[view.questions[number - 1].released_label]
            assert [m.value for m in phone.metric] == [released]
            guess = (number + phone_number) % 10
            phone.button(key=f"answer_{number}_{guess}").click().run()
            given[number - 1][guess] += 1
    truth = [item.true_label for item in store._rounds[code].items]  # server side only
    for phone in phones:
        assert any("All answered" in box.value for box in phone.info)
        assert not phone.dataframe
    tally = store.tally(code)
    assert [item.answers for item in tally.items] == [PHONES] * 4
    assert [list(item.votes) for item in tally.items] == given
    teacher.run()
    assert any(f"{PHONES} phones, {4 * PHONES} answers" in c.value for c in teacher.caption)
    teacher.button(key="round_reveal").click().run()
    assert_no_errors(teacher)
    tally = store.tally(code)
    assert [item.hits for item in tally.items] == [given[n][truth[n]] for n in range(4)]
    assert [row["true"] for row in teacher.dataframe[0].value.to_dict("records")] == [
        config.class_names[t] for t in truth
    ]
    for phone_number, phone in enumerate(phones):
        phone.run()
        assert_no_errors(phone)
        score = sum((n + 1 + phone_number) % 10 == truth[n] for n in range(4))
        assert phone.subheader[0].value == f"You answered 4 of 4 items: {score} of them right"
        shown = phone.dataframe[0].value.to_dict("records")
        assert [row["true"] for row in shown] == [config.class_names[t] for t in truth]


def test_no_phone_page_names_a_true_label_before_the_reveal():
    # Every true label is "zebra", never released and never answered: the name on any phone's
    # page, before the reveal, would be a true label that left the server.
    names = ("cat", "dog", "zebra")
    config = RoundConfig(1.0, "digits", names, 3)
    items = tuple(Item(n, 2, n % 2) for n in range(3))
    keys = round_store().create(config, items, config.uniform_bound)
    code = keys.code
    phone = open_page("pages/play.py", round=code)
    for number in range(1, 4):
        assert not any("zebra" in text for text in _texts(phone)), _texts(phone)
        assert [b.label for b in phone.main.button] == list(names)  # whatever the truth
        phone.button(key=f"answer_{number}_0").click().run()
    assert not any("zebra" in text for text in _texts(phone)) and not phone.dataframe
    round_store().reveal(code, keys.teacher)
    phone.run()
    assert phone.subheader[0].value == "You answered 3 of 3 items: 0 of them right"
    assert [row["true"] for row in phone.dataframe[0].value.to_dict("records")] == ["zebra"] * 3


def test_a_forged_seat_in_a_link_gets_a_new_seat_and_a_reload_keeps_its_own():
    _, code = _teacher(items=2)
    store = round_store()
    honest = open_page("pages/play.py", round=code)
    seat = honest.session_state["_class_round_seats"][code]
    honest.button(key="answer_1_3").click().run()
    forged = open_page("pages/play.py", round=code, seat="not-a-seat-of-this-round")
    assert_no_errors(forged)
    new_seat = forged.session_state["_class_round_seats"][code]
    assert new_seat != seat and store.has_seat(code, new_seat)
    assert not store.has_seat(code, "not-a-seat-of-this-round")
    assert _question(forged) == 1  # its own seat: nothing answered yet
    reloaded = open_page("pages/play.py", round=code, seat=seat)  # the phone reloads its link
    assert reloaded.session_state["_class_round_seats"][code] == seat
    assert _question(reloaded) == 2
    assert store.tally(code).answers == 1


def test_the_variant_shows_each_items_image_and_its_priors_bound():
    teacher, code = _teacher(items=2, image=True)
    assert round_store().config(code).mechanism == "rr-prior"
    assert any("public prior" in c.value for c in teacher.caption)
    phone = open_page("pages/play.py", round=code)
    assert_no_errors(phone)
    assert phone.get("imgs") or phone.get("image")


def test_an_unknown_or_odd_code_is_answered_without_echoing_it():
    for code in ("ZZZZZ", "http://evil.example"):
        phone = open_page("pages/play.py", round=code)
        assert_no_errors(phone)
        assert [w.value for w in phone.warning] == [
            "No open round has this code: it has ended, or check the code."
        ]


def test_the_link_uses_the_network_address_when_the_teacher_is_on_localhost(monkeypatch):
    monkeypatch.setenv("LABELDP_CLASS_URL", "https://class.example.org/labeldp/")
    assert round_link("ABCDE") == ("https://class.example.org/labeldp/play?round=ABCDE", "")


def test_without_segno_the_link_is_still_shown(monkeypatch):
    monkeypatch.setitem(sys.modules, "segno", None)  # import segno raises ImportError
    teacher, code = _teacher(items=1)
    assert any("No QR code" in c.value for c in teacher.caption)
    assert any(f"/play?round={code}" in m.value for m in teacher.markdown)


def test_a_round_the_dataset_cannot_fill_says_why_and_opens_nothing(monkeypatch):
    import ui.class_round

    def refuse(*_args, **_kwargs):
        raise InvalidInputError("class 3 has 2 examples to draw from; ask for fewer items")

    monkeypatch.setattr(ui.class_round, "draw_items", refuse)
    app = open_page("pages/play.py", epsilon="1.0", epochs="1")
    app.button(key="round_open").click().run()
    assert not app.exception
    assert [e.value for e in app.error] == [
        "No round was opened: class 3 has 2 examples to draw from; ask for fewer items"
    ]
    assert "_class_round_code" not in app.session_state


def _screen(app, code: str) -> list[str]:
    """Everything a page shows (texts, metrics, tables, charts), with the round's code masked."""
    import json

    kinds = ("markdown", "caption", "info", "warning", "success", "subheader", "title")
    shown = [str(element.value) for kind in kinds for element in getattr(app, kind)]
    shown += [f"{m.label} {m.value}" for m in app.metric]
    shown += [b.label for b in app.button] + [t.label for t in app.toggle]
    shown += [json.dumps(frame.value.to_dict("records")) for frame in app.dataframe]
    shown += [element.proto.spec for element in app.get("plotly_chart")]
    return [text.replace(code, "CODE") for text in shown]


def _scripted_round(monkeypatch, truth: list[int]) -> tuple[list[str], list[str]]:
    """The teacher's screen and a phone's, before the reveal, 10 seats having answered each class
    on every item of a round released as class 3 with true labels ``truth``."""
    import ui.class_round

    items = tuple(Item(10 + n, label, 3) for n, label in enumerate(truth))
    monkeypatch.setattr(
        ui.class_round, "draw_items", lambda dataset, config: (items, config.uniform_bound)
    )
    teacher, code = _teacher(items=len(truth))
    store = round_store()
    for seat in range(100):
        token = store.join(code)
        for number in range(1, len(truth) + 1):
            store.answer(code, token, number, seat // 10)
    teacher.run()
    assert_no_errors(teacher)
    phone = open_page("pages/play.py", round=code)
    for number in range(1, len(truth) + 1):
        phone.button(key=f"answer_{number}_{number}").click().run()
    return _screen(teacher, code), _screen(phone, code)


def test_before_the_reveal_the_screens_hold_nothing_of_the_truth(monkeypatch):
    # Issue 49, item 3: the teacher's projected tally counted right answers, so a student who
    # answered an item once per class on fresh seats read its true label off the count. Two
    # rounds that differ only in their true labels must show the same screens before the reveal.
    first_teacher, first_phone = _scripted_round(monkeypatch, [0, 5, 9])
    round_store.clear()
    second_teacher, second_phone = _scripted_round(monkeypatch, [1, 5, 8])
    assert first_phone == second_phone
    assert first_teacher == second_teacher
    assert any(text.startswith("100 phones, 300 answers.") for text in first_teacher)


def _seated_round(seats: int = 1) -> str:
    """A round opened straight in the store, with ``seats`` phones joined; its code."""
    config = RoundConfig(1.0, "digits", tuple(str(k) for k in range(10)), 1)
    code = round_store().create(config, (Item(0, 1, 1),), config.uniform_bound).code
    for _ in range(seats):
        round_store().join(code)
    return code


def test_a_phone_past_the_seat_cap_is_told_the_round_is_full():
    code = _seated_round(seats=120)
    phone = open_page("pages/play.py", round=code)
    assert not phone.exception, [e.value for e in phone.exception]
    assert [w.value for w in phone.warning] == [
        "You cannot join this round: the round is full: 120 seats, the most a round takes. "
        "Ask your teacher."
    ]
    assert not phone.main.button and round_store().tally(code).seats == 120


def test_one_browser_session_joins_at_most_ten_rounds():
    codes = [_seated_round(seats=0) for _ in range(11)]
    phone = open_page("pages/play.py", round=codes[0])
    for code in codes[1:]:
        phone.query_params["round"] = code
        phone.run()
    assert not phone.exception, [e.value for e in phone.exception]
    assert [w.value for w in phone.warning] == [
        "You cannot join this round: this browser tab has joined 10 rounds, the most one visit "
        "may. Ask your teacher."
    ]
    assert [round_store().tally(code).seats for code in codes] == [1] * 10 + [0]


def test_a_teacher_told_the_server_is_full_keeps_every_seated_round():
    seated = [_seated_round() for _ in range(20)]
    app = open_page("pages/play.py", epsilon="1.0", epochs="1")
    app.button(key="round_open").click().run()
    assert not app.exception
    assert [e.value for e in app.error] == [
        "No round was opened: the server holds 20 rounds with phones in them, the most it keeps "
        "at once; end one (or wait until one expires, 4 hours after it opened) to open another"
    ]
    assert all(round_store().is_open(code) for code in seated)


def _block(node, key: str):
    """The keyed container ``key`` in an AppTest tree (None if absent)."""
    if str(getattr(node.proto, "id", "")).endswith(f"-{key}"):
        return node
    for child in getattr(node, "children", {}).values():
        if (found := _block(child, key)) is not None:
            return found
    return None


def test_the_class_round_page_opens_runs_and_reveals_a_round():
    # Issue 53 §2: the Class round page could only join a round; the teacher's panel sat three
    # screens down What ε means. Now it is the page's top: open, the code and link, reveal.
    app = open_page("pages/play.py", epsilon="1.0", round_items="3", demo="1")
    assert_no_errors(app)
    page_buttons = [b.key for b in app.main.button if not b.key.startswith("tour_")]
    assert page_buttons[0] == "round_open"  # the first thing under the title (and the tour)
    app.button(key="round_open").click().run()
    assert_no_errors(app)
    code = app.session_state["_class_round_code"]
    shown = [m.value for m in _block(app.main, "round_address").markdown]  # the large type
    assert shown[0] == code and shown[1].endswith(f"/play?round={code}")
    assert round_store().config(code).items == 3 and round_store().config(code).epsilon == 1.0
    visitor = open_page("pages/play.py")  # another browser on the same page: no teacher's token
    assert not [b for b in visitor.button if b.key in ("round_reveal", "round_end")]
    app.button(key="round_reveal").click().run()
    assert_no_errors(app)
    assert round_store().tally(code).revealed and app.dataframe


def test_a_phone_sees_what_it_answered_and_how_many_of_those_were_right():
    names = ("cat", "dog", "zebra")
    config = RoundConfig(1.0, "digits", names, 3)
    keys = round_store().create(config, tuple(Item(n, 2, 0) for n in range(3)), 0.5)
    phone = open_page("pages/play.py", round=keys.code)
    phone.button(key="answer_1_2").click().run()  # right
    phone.button(key="answer_2_0").click().run()  # wrong; item 3 left unanswered
    round_store().reveal(keys.code, keys.teacher)
    phone.run()
    assert_no_errors(phone)
    assert [s.value for s in phone.subheader] == ["You answered 2 of 3 items: 1 of them right"]


def test_a_phone_that_joins_after_the_reveal_is_told_the_round_is_over():
    keys = round_store().create(
        RoundConfig(1.0, "digits", ("a", "b"), 2), (Item(0, 1, 1), Item(1, 0, 0)), 0.5
    )
    round_store().reveal(keys.code, keys.teacher)
    late = open_page("pages/play.py", round=keys.code)
    assert_no_errors(late)
    assert [box.value for box in late.info] == [
        "The round is over: the teacher has revealed the true labels."
    ]
    assert not late.subheader and round_store().tally(keys.code).seats == 0


def test_what_epsilon_means_sends_the_teacher_to_the_round_at_its_epsilon():
    app = open_page("pages/epsilon_meaning.py", epsilon="2.0", epochs="1")
    assert_no_errors(app)
    (link,) = [e for e in app.get("page_link") if "Play it as a class" in e.proto.label]
    assert link.proto.label.endswith("open a round at ε = 2 on the Class round page")
    assert not [b for b in app.button if b.key == "round_open"]  # the panel is not here
    app.switch_page("pages/play.py").run()
    assert app.number_input(key="round_epsilon").value == 2.0
    assert app.button(key="round_open").label == "Open a round for the class at ε = 2"
