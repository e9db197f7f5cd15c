"""The 'Your data' page: an example table added, shown in the sidebar, trained on, forgotten."""

from app_helpers import assert_no_errors, open_page

from labeldp_core.data.tables import stored_tables

PAGE = "pages/your_data.py"


def test_an_example_table_is_added_listed_trained_on_and_forgotten():
    app = open_page(PAGE)
    assert_no_errors(app)
    app.selectbox(key="table_example").set_value("wine")
    app.button(key="table_try_example").click().run()
    assert_no_errors(app)
    assert app.selectbox(key="label").value == "class"
    assert any("178 rows, 14 columns" in c.value for c in app.caption)
    app.button(key="table_add").click().run()
    assert_no_errors(app)
    (info,) = stored_tables()
    assert info.name == "wine" and info.class_names == ("class_0", "class_1", "class_2")
    assert not any("not protected" in note for note in info.notes)  # the classes are public
    assert any("is in the sidebar's dataset list" in s.value for s in app.success)

    page = open_page("pages/randomized_response.py", dataset=f"wine · {info.id}", epochs="1")
    assert_no_errors(page)
    assert page.sidebar.selectbox(key="model").options == ["mlp", "logistic"]
    metrics = {m.label: m.value for m in page.metric}
    assert metrics["ε spent"] == "1" and metrics["Training labels"] == "142"
    said = [c.value for c in page.sidebar.caption if "On this table ε protects" in c.value]
    assert said and "not protected" not in said[0]  # the example's classes are public

    from ui import table_reading

    assert table_reading._KEPT  # the parsed file, kept for the sessions that show it
    app = open_page(PAGE)
    app.button(key=f"forget_{info.id}").click().run()
    assert_no_errors(app)
    assert stored_tables() == [] and not table_reading._KEPT  # nor left in memory


def test_a_file_that_is_not_a_table_is_refused_on_the_page_and_nothing_is_kept():
    app = open_page(PAGE)
    app.session_state["your_data_file"] = ("notes", b"a,a,label\n1,2,x\n")
    app.run()
    assert not app.exception
    assert any("duplicate column names: 'a'" in e.value for e in app.error)
    assert not [b for b in app.button if b.key == "table_add"] and stored_tables() == []


def test_a_whole_number_label_with_a_public_range_becomes_a_regression_table():
    from tests.data.test_tables import _ratings

    app = open_page(PAGE)
    app.session_state["your_data_file"] = ("ratings", _ratings())
    app.run()
    app.selectbox(key="label").set_value("rating")
    app.radio(key="table_task").set_value("a number").run()
    assert any("they leak" in c.value for c in app.caption)
    assert not app.checkbox(key="table_snap").value  # whole numbers need no grid
    app.checkbox(key="table_public").check().run()
    app.number_input(key="table_low").set_value(1)
    app.number_input(key="table_high").set_value(5)
    app.button(key="table_add").click().run()
    assert_no_errors(app)
    (info,) = stored_tables()
    assert (info.task, info.low, info.high) == ("regression", 1, 5)


def test_numbers_that_are_not_whole_are_snapped_to_a_grid_the_page_offers_at_once():
    from tests.data.test_tables import _prices

    app = open_page(PAGE)
    app.session_state["your_data_file"] = ("prices", _prices())
    app.run()
    app.selectbox(key="label").set_value("price")
    app.radio(key="table_task").set_value("a number").run()
    assert app.checkbox(key="table_snap").value  # offered at once for fractions
    app.number_input(key="table_grid").set_value(11)
    app.checkbox(key="table_public").check().run()
    app.number_input(key="table_low").set_value(0.0)
    app.number_input(key="table_high").set_value(25.0)
    app.button(key="table_add").click().run()
    assert_no_errors(app)
    (info,) = stored_tables()
    assert (info.low, info.high, info.grid, info.value_step) == (0, 25, 11, 2.5)
    assert any("numbers 0..25 on a grid of 11" in m.value for m in app.markdown)
    page = open_page("pages/laplace_labels.py", dataset=f"prices · {info.id}", epochs="1")
    assert_no_errors(page)
    assert any(
        "label value in 0..25 gets noise of scale (high−low)/ε = 25/ε" in m.value
        for m in page.markdown
    )


def test_a_class_list_known_in_public_is_typed_in_and_without_one_the_page_says_it_leaks():
    from tests.data.test_tables import _csv

    app = open_page(PAGE)
    app.session_state["your_data_file"] = ("shapes", _csv())
    app.run()
    app.selectbox(key="label").set_value("label").run()
    assert app.text_input(key="table_classes").value == ""
    app.button(key="table_add").click().run()
    assert_no_errors(app)
    assert any("which classes occur is not protected" in i.value for i in app.info)
    app.text_input(key="table_classes").input("c2, c1, c0").run()
    app.button(key="table_add").click().run()
    assert_no_errors(app)
    public = [info for info in stored_tables() if info.class_names[0] == "c2"]
    assert [info.class_names for info in public] == [("c2", "c1", "c0")]
    for info in stored_tables():
        page = open_page("pages/rr_prior.py", dataset=f"{info.name} · {info.id}", epochs="1")
        said = " ".join(c.value for c in page.sidebar.caption)
        leaks = "which classes occur (the column's own values): that comes from the labels"
        assert (leaks in said) == (info.class_names[0] != "c2"), said
    app.text_input(key="table_classes").input("c0,c1").run()
    app.button(key="table_add").click().run()
    assert any("not among the classes given" in e.value for e in app.error)


def test_an_upload_called_like_an_example_gets_no_class_list_of_the_examples():
    from labeldp_core.data.tables import example_table

    app = open_page(PAGE)
    app.session_state["your_data_file"] = ("wine", example_table("wine"))  # an upload
    app.run()
    assert app.selectbox(key="label").value == "class"
    assert app.text_input(key="table_classes").value == ""
    app.button(key="table_try_example").click().run()  # the example itself: its public classes
    assert app.text_input(key="table_classes").value == "class_0,class_1,class_2"


def test_a_tables_values_reach_no_log_nor_the_servers_output(caplog, capfd):
    import logging

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    labels = rng.choice(["zebra-secret-7", "okapi-secret-9"], 150)
    frame = pd.DataFrame({"weight": rng.normal(size=150) + 4242.125, "secret": labels})
    caplog.set_level(logging.DEBUG)
    app = open_page(PAGE)
    app.session_state["your_data_file"] = ("animals", frame.to_csv(index=False).encode())
    app.run()
    app.selectbox(key="label").set_value("secret").run()
    app.button(key="table_add").click().run()
    assert_no_errors(app)
    (info,) = stored_tables()
    page = open_page("pages/randomized_response.py", dataset=f"animals · {info.id}", epochs="1")
    assert_no_errors(page)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    out, err = capfd.readouterr()
    for written in (logged, out, err):
        assert "secret-" not in written and "4242" not in written


def test_a_reversed_public_range_is_refused_on_the_page_and_nothing_is_kept():
    from tests.data.test_tables import _prices

    app = open_page(PAGE)
    app.session_state["your_data_file"] = ("prices", _prices())
    app.run()
    app.selectbox(key="label").set_value("price")
    app.radio(key="table_task").set_value("a number").run()
    app.checkbox(key="table_public").check().run()
    app.number_input(key="table_low").set_value(25.0)
    app.number_input(key="table_high").set_value(0.5)
    app.button(key="table_add").click().run()
    assert any("finite numbers with low < high" in e.value for e in app.error)
    assert stored_tables() == []


def test_sessions_showing_one_file_share_one_parse_and_the_server_keeps_a_few(monkeypatch):
    from tests.data.test_tables import _csv
    from ui import table_reading

    parses = []
    real = table_reading.read_table
    monkeypatch.setattr(table_reading, "read_table", lambda data: parses.append(1) or real(data))
    for _ in range(2):  # two students with the same file
        app = open_page(PAGE)
        app.session_state["your_data_file"] = ("shapes", _csv())
        app.run()
        assert_no_errors(app)
    assert len(parses) == 1
    for seed in range(table_reading.MAX_PARSED + 2):
        table_reading.parsed_table(_csv(seed=seed + 10))
    assert len(table_reading._KEPT) == table_reading.MAX_PARSED


def test_one_table_is_read_or_prepared_at_a_time_and_the_waiting_page_says_so(monkeypatch):
    import threading
    from contextlib import nullcontext

    from ui import table_reading

    said, entered = [], threading.Event()

    def spinner(text: str) -> nullcontext:
        said.append(text)
        return nullcontext()

    monkeypatch.setattr(table_reading.st, "spinner", spinner)

    def second() -> None:
        with table_reading.one_at_a_time("read"):
            entered.set()

    with table_reading.one_at_a_time("prepared"):
        waiting = threading.Thread(target=second)
        waiting.start()
        assert not entered.wait(0.3)  # it waits while the slot is held
    waiting.join()
    assert entered.is_set()
    assert said == ["Another table is being read on this server; yours is next..."]


def test_the_page_names_the_real_size_limit_and_no_server_path(monkeypatch):
    # The uploader said "1GB per file" (a server started with another config, not the core's
    # 512 MB) and the page printed the server's cache folder.
    from streamlit import config

    from labeldp_core.cache import default_dir
    from labeldp_core.data.tables import MAX_TABLE_BYTES

    original = config.get_option
    monkeypatch.setattr(
        config,
        "get_option",
        lambda key: 1024 if key == "server.maxUploadSize" else original(key),
    )
    app = open_page("pages/your_data.py")
    assert_no_errors(app)
    (uploader,) = app.get("file_uploader")
    assert uploader.proto.max_upload_size_mb == MAX_TABLE_BYTES // 2**20 == 512
    # Streamlit's drop zone would round it to "1GB per file": hidden, the label says 512 MB.
    assert uploader.label.endswith("up to 512 MB")
    assert any("stFileUploaderDropzoneInstructions" in m.value for m in app.markdown)
    texts = [e.value for e in [*app.caption, *app.markdown]]
    assert not [t for t in texts if str(default_dir()) in t or "/tables" in t], texts


def test_a_score_on_few_test_rows_says_how_noisy_it_is():
    # Wine keeps 36 test rows: a score there moves by about 0.08 from luck alone, and a page
    # once showed one below chance at ε = 0.25 with no word about it.
    from labeldp_core.data.tables import add_table, example_table

    info = add_table(example_table("wine"), "class", "wine")
    page = open_page(
        "pages/randomized_response.py", dataset=f"wine · {info.id}", epochs="1", epsilon="0.25"
    )
    assert_no_errors(page)
    said = [c.value for c in page.caption if "test rows only" in c.value]
    assert said and "standard error" in said[0] and "chance" in said[0], said
    bundled = open_page("pages/randomized_response.py", epochs="1")
    assert not [c.value for c in bundled.caption if "test rows only" in c.value]
