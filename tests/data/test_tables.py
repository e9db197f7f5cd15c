"""Tables of the user's own: parsing, every refused input, features, identity, forgetting."""

import io
import re
import threading

import numpy as np
import pandas as pd
import pytest

from labeldp_core.data import dataset_info, load_dataset, table_results, tables
from labeldp_core.data.table_results import TableForgottenError, forget_table, results_cache
from labeldp_core.data.tables import add_table, example_table, table_exists
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import lookup, make_config, run
from labeldp_core.training import loop


def _csv(rows: int = 200, classes: int = 3, seed: int = 0, **extra) -> bytes:
    """A table with two numeric features, a category, and a label that depends on them."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 2))
    labels = (x[:, 0] > 0).astype(int) + ((x[:, 1] > 1) & (classes > 2)).astype(int)
    frame = pd.DataFrame(
        {
            "a": x[:, 0],
            "b": x[:, 1] * 10 + 3,
            "colour": rng.choice(["red", "green", "blue"], rows),
            "label": [f"c{i}" for i in labels],
        }
    )
    for name, column in extra.items():
        frame[name] = column
    return frame.to_csv(index=False).encode()


def _add(data: bytes, label: str = "label", name: str = "t") -> tables.TableInfo:
    return add_table(data, label, name)


def test_a_table_becomes_a_dataset_with_standardised_features_and_one_hot_categories():
    info = _add(_csv())
    data = load_dataset(info.id)
    assert info.features == ("a", "b", "colour=blue", "colour=green", "colour=red")
    assert "label" not in " ".join(info.features)
    assert data.x_train.shape == (160, 1, 1, 5) and data.x_test.shape == (40, 1, 1, 5)
    numeric = data.x_train[:, 0, 0, :2]
    np.testing.assert_allclose(numeric.mean(axis=0), 0, atol=1e-6)  # the training split's mean
    np.testing.assert_allclose(numeric.std(axis=0), 1, atol=1e-5)
    assert abs(data.x_test[:, 0, 0, :2].mean()) > 1e-4  # the test split is scaled, not fitted
    assert set(np.unique(data.x_train[:, 0, 0, 2:])) == {0.0, 1.0}
    assert data.class_names == ("c0", "c1", "c2") and dataset_info(info.id).num_classes == 3


def test_the_same_bytes_under_another_name_share_results_and_a_changed_cell_does_not(cache):
    data = _csv()
    first = _add(data, name="first")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tables, "read_table", lambda data: pytest.fail("prepared twice"))
        renamed = _add(data, name="renamed copy")  # stored already: renamed, not prepared again
    assert first.id == renamed.id and tables.table_info(first.id).name == "renamed copy"
    config = make_config("rr", first.id, 1.0, 0, 1, {"model": "logistic"})
    run(config, cache)
    assert lookup(make_config("rr", renamed.id, 1.0, 0, 1, {"model": "logistic"}), cache)
    edited = data.replace(b"red", b"pink", 1)
    assert _add(edited).id != first.id
    assert _add(data, label="colour").id != first.id  # other options: another dataset


def test_results_of_a_table_live_beside_it_and_forgetting_deletes_both(cache):
    info = _add(_csv())
    config = make_config("rr", info.id, 1.0, 0, 1, {"model": "logistic"})
    run(config, cache)
    assert len(cache) == 0  # nothing of the table in the main cache
    folder = cache.directory / "tables" / info.id
    assert (folder / "results").is_dir() and (folder / "arrays.npz").is_file()
    assert forget_table(info.id) and not folder.exists() and not table_exists(info.id)
    with pytest.raises(InvalidInputError, match="no table"):
        lookup(config, cache)
    assert not forget_table(info.id)


def test_the_cnn_is_refused_with_the_fix_and_the_mlp_is_the_default():
    info = _add(_csv())
    assert make_config("rr", info.id, 1.0).setting("model") == "mlp"
    with pytest.raises(InvalidInputError, match="model=cnn needs images"):
        make_config("rr", info.id, 1.0, settings={"model": "cnn"})


def test_rows_without_a_label_are_dropped_and_counted():
    data = _csv(rows=220).decode().splitlines()
    for i in range(1, 11):  # ten labels blanked
        data[i] = data[i].rsplit(",", 1)[0] + ","
    info = _add("\n".join(data).encode())
    assert info.rows == 210
    assert any(note.startswith("10 rows without a label were dropped") for note in info.notes)


def test_missing_and_infinite_numbers_are_imputed_with_the_training_median():
    data = _csv().decode().splitlines()
    data[1] = ",".join(["", "inf", *data[1].split(",")[2:]])
    data[2] = ",".join(["nan", *data[2].split(",")[1:]])
    info = _add("\n".join(data).encode())
    assert "3 missing or infinite numbers imputed with the training median" in info.notes
    assert np.isfinite(load_dataset(info.id).x_train).all()


def test_a_category_with_too_many_values_is_dropped_with_a_note():
    info = _add(_csv(ident=[f"id{i}" for i in range(200)]))
    assert not any(name.startswith("ident") for name in info.features)
    assert "column 'ident' has 200 distinct values (more than 50): dropped" in info.notes


BAD_TABLES = {
    "empty": (b"", "the file is empty"),
    "blank": (b"  \n\n", "the file is empty"),
    "not utf-8": (("a,label\n" + "é,1\n" * 120).encode("latin-1"), "not UTF-8"),
    "binary": (b"a,label\n\x00\x01\x02", "binary data"),
    "header only": (b"a,b,label\n", "a header but no rows"),
    "duplicate columns": (b"a,a,label\n" + b"1,2,x\n" * 120, "duplicate column names: 'a'"),
    "ragged": (b"a,label\n1,2\n1,2,3,4\n", "line 3 has 4 values where the header names 2 columns"),
    "no label column": (_csv().replace(b"label", b"other", 1), "no column named 'label'"),
    "few rows": (_csv(rows=60), "60 labelled rows; at least 100"),
    "one class": (b"a,label\n" + b"1,x\n" * 120, "one class only"),
    "too many classes": (_csv(label=[f"k{i}" for i in range(200)]), "200 distinct values"),
    "labels mostly missing": (b"a,label\n" + b"1,x\n2,y\n" * 40 + b"3,\n" * 100, "more than half"),
    "no feature": (b"label\n" + b"x\ny\n" * 60, "no usable feature column"),
    "a damaged parquet": (b"PAR1 not really", "not a readable Parquet table"),
}


@pytest.mark.parametrize(("data", "match"), BAD_TABLES.values(), ids=BAD_TABLES)
def test_a_bad_table_is_refused_with_what_to_change_and_nothing_is_kept(data, match):
    with pytest.raises(InvalidInputError, match=match) as refused:
        _add(data)
    assert "\n" not in str(refused.value)
    assert tables.stored_tables() == []


def test_a_ragged_csv_is_explained_in_the_users_words_not_the_parsers():
    with pytest.raises(InvalidInputError) as refused:
        _add(b"a,b,label\n1,2,0\n3,4,1,5\n5,6,1\n")
    assert "C error" not in str(refused.value) and "tokenizing" not in str(refused.value)
    assert "line 3 has 4 values where the header names 3 columns" in str(refused.value)


def test_a_file_over_the_size_limit_is_refused_before_parsing(monkeypatch):
    monkeypatch.setattr(tables, "MAX_TABLE_BYTES", 1000)
    with pytest.raises(InvalidInputError, match="the limit is 0 MB"):
        _add(_csv())


def test_parquet_reads_like_csv_and_the_examples_are_tables():
    frame = pd.read_csv(io.BytesIO(_csv()))
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    assert _add(buffer.getvalue()).features == _add(_csv()).features
    for name, label in (("wine", "class"), ("breast-cancer", "class")):
        info = _add(example_table(name), label=label, name=name)
        assert info.rows >= 178 and len(info.class_names) in (2, 3)


def test_a_category_after_more_than_127_columns_lands_in_its_own_columns():
    # Written for a bug: the category codes were 8-bit and overflowed past the 127th column.
    frame = pd.read_csv(io.BytesIO(_csv()))
    wide = pd.DataFrame({f"n{i}": np.arange(200.0) * (i + 1) for i in range(130)})
    late = pd.Series(np.tile(["up", "down"], 100), name="late")
    info = _add(pd.concat([frame, wide, late], axis=1).to_csv(index=False).encode())
    data = load_dataset(info.id)
    assert info.features[-2:] == ("late=down", "late=up") and len(info.features) == 137
    late_columns = data.x_train[:, 0, 0, -2:]
    assert set(late_columns.sum(axis=1)) == {1.0}  # exactly one of the two per row


def _ratings(rows: int = 200) -> bytes:
    """A table whose label is a rating 1..5 that grows with the feature ``a``."""
    rng = np.random.default_rng(1)
    a = rng.normal(size=rows)
    rating = np.clip(np.round(3 + a), 1, 5).astype(int)
    return (
        pd.DataFrame({"a": a, "b": rng.normal(size=rows), "rating": rating})
        .to_csv(index=False)
        .encode()
    )


def test_a_whole_number_label_in_a_public_range_is_a_regression_table(cache):
    info = add_table(_ratings(), "rating", "ratings", task="regression", low=0, high=6)
    assert (info.task, info.low, info.high) == ("regression", 0, 6)
    assert info.class_names == ("0", "1", "2", "3", "4", "5", "6")
    assert not any("leaks" in note for note in info.notes) and info.unprotected == ()
    data = load_dataset(info.id)
    values = pd.read_csv(io.BytesIO(_ratings()))["rating"]
    assert sorted(np.concatenate([data.y_train, data.y_test]).tolist()) == sorted(values - 0)
    for mechanism in ("laplace-regression", "rr-bins"):
        result = run(make_config(mechanism, info.id, 2.0, 0, 1, {"model": "logistic"}), cache)
        assert result.test_mse is not None and result.epsilon_spent <= 2.0
        assert result.num_classes == 7  # the mechanisms see the values 0..6


def test_a_range_from_the_data_is_used_with_a_note_that_it_leaks_and_outliers_are_clamped():
    derived = add_table(_ratings(), "rating", "r", task="regression")
    assert (derived.low, derived.high) == (1, 5)
    assert derived.unprotected == ("the range 1..5 (the column's own minimum and maximum)",)
    assert any("own minimum and maximum, which it leaks" in note for note in derived.notes)
    clamped = add_table(_ratings(), "rating", "r", task="regression", low=2, high=4)
    assert any("outside 2..4 were clamped into it" in note for note in clamped.notes)
    assert len({derived.id, clamped.id}) == 2  # the range is part of the identity


def _prices(rows: int = 300, scale: float = 1.0, first: object = None) -> bytes:
    """A table whose label is a price (not whole) that grows with the feature ``a``."""
    rng = np.random.default_rng(2)
    a = rng.normal(size=rows)
    price = np.round(np.clip(10 + 4 * a + rng.normal(size=rows), 0.5, 20.5), 2) * scale
    frame = pd.DataFrame({"a": a, "b": rng.normal(size=rows), "price": price.astype(object)})
    if first is not None:
        frame.loc[0, "price"] = first
    return frame.to_csv(index=False).encode()


def test_numbers_that_are_not_whole_are_snapped_to_the_nearest_value_of_a_public_grid(cache):
    info = add_table(_prices(), "price", "prices", task="regression", low=0.5, high=20.5, grid=41)
    assert (info.low, info.high, info.grid, info.value_step) == (0.5, 20.5, 41, 0.5)
    assert info.class_names[:3] == ("0.5", "1", "1.5") and len(info.class_names) == 41
    data = load_dataset(info.id)
    assert data.class_values[[0, 1, -1]].tolist() == [0.5, 1.0, 20.5]
    prices = pd.read_csv(io.BytesIO(_prices()))["price"].to_numpy()
    snapped = data.class_values[np.concatenate([data.y_train, data.y_test])]
    # every price moved to a grid value at most half a step away, none lost
    assert np.allclose(np.sort(snapped), np.sort(0.5 + 0.5 * np.rint((prices - 0.5) / 0.5)))
    (note,) = [n for n in info.notes if "snapped" in n]
    moved = np.abs(prices - (0.5 + 0.5 * np.rint((prices - 0.5) / 0.5)))
    assert f"by {moved.mean():.4g} on average" in note


def test_a_grid_reports_every_figure_in_the_labels_units_and_spends_the_same_epsilon(cache):
    """The same prices in cents: the same positions, noise and model; every MSE times 100²."""
    found = {}
    for scale in (1.0, 100.0):
        info = add_table(
            _prices(scale=scale),
            "price",
            f"x{scale}",
            task="regression",
            low=0.5 * scale,
            high=20.5 * scale,
            grid=41,
        )
        settings = {"model": "logistic"}
        found[scale] = {
            m: run(make_config(m, info.id, 1.0, 0, 1, settings), cache)
            for m in ("laplace-regression", "rr-bins")
        }
    for mechanism in ("laplace-regression", "rr-bins"):
        euros, cents = found[1.0][mechanism], found[100.0][mechanism]
        assert cents.epsilon_spent == euros.epsilon_spent <= 1.0
        assert cents.test_mse == pytest.approx(euros.test_mse * 100**2, rel=1e-5)
        assert cents.baseline_test_mse == pytest.approx(euros.baseline_test_mse * 100**2, rel=1e-5)
        for name in ("label_mse", "expected_label_mse"):
            assert cents.details[name] == pytest.approx(euros.details[name] * 100**2, rel=1e-9)
    laplace = found[100.0]["laplace-regression"].details
    assert (laplace["low"], laplace["high"], laplace["sensitivity"]) == (50.0, 2050.0, 2000.0)
    assert laplace["noise_scale"] == pytest.approx(2000.0, rel=1e-12)  # (high - low) / ε, ε = 1


BAD_NUMBERS = {
    "text label": (_csv(), {}, "not numbers"),
    "fractions": (_ratings().replace(b",3\n", b",3.5\n", 1), {}, "not whole"),
    "only low": (_ratings(), {"low": 1}, "give both low and high"),
    "low above high": (_ratings(), {"low": 5, "high": 1}, "must hold 2 to 100 whole values"),
    "range too wide": (_ratings(), {"low": 0, "high": 500}, "must hold 2 to 100 whole values"),
    "fractional bound": (_ratings(), {"low": 0.5, "high": 5}, "must be whole numbers"),
    "fractions, no grid": (_prices(), {"low": 0, "high": 25}, "not whole: give a grid"),
    "grid of one": (_prices(), {"grid": 1}, "grid must be a whole number of values in 2..100"),
    "grid too fine": (_prices(), {"grid": 101}, "grid must be a whole number of values in 2"),
    "fractional grid": (_prices(), {"grid": 2.5}, "grid must be a whole number of values"),
    "grid, nan bound": (_prices(), {"low": float("nan"), "high": 5, "grid": 9}, "finite numbers"),
    "grid, bounds reversed": (_prices(), {"low": 5, "high": 0.5, "grid": 9}, "low < high"),
    "grid, text bound": (_prices(), {"low": "0", "high": 5, "grid": 9}, "finite numbers"),
    "wide whole range": (_ratings(), {"low": 0, "high": 500}, "give a grid of at most 100"),
    "infinite label": (_prices(first="inf"), {"grid": 9}, "infinite numbers"),
    "one value only": (_prices(scale=0.0), {"grid": 9}, "has one value only"),
}


@pytest.mark.parametrize(("data", "bounds", "match"), BAD_NUMBERS.values(), ids=BAD_NUMBERS)
def test_a_bad_numeric_label_is_refused(data, bounds, match):
    label = next((c for c in ("rating", "price") if c.encode() in data[:80]), "label")
    with pytest.raises(InvalidInputError, match=match):
        add_table(data, label, "t", task="regression", **bounds)
    assert tables.stored_tables() == []


def test_a_range_is_refused_for_classes_and_an_unknown_task_too():
    with pytest.raises(InvalidInputError, match="apply to a numeric label"):
        add_table(_csv(), "label", "t", low=0, high=3)
    with pytest.raises(InvalidInputError, match="apply to a numeric label"):
        add_table(_csv(), "label", "t", grid=5)
    with pytest.raises(InvalidInputError, match="task must be one of"):
        add_table(_csv(), "label", "t", task="ranking")


def test_one_changed_label_moves_no_row_between_train_and_test_nor_any_feature():
    """Label DP protects the label alone: the split and the features must not look at it.

    (A stratified split did: one label changed sent other rows between train and test, so the
    model's training rows, and the features' statistics, depended on a private label.)
    """
    frame = pd.read_csv(io.BytesIO(_csv(rows=300)))
    changed = frame.copy()
    changed.loc[7, "label"] = "c0" if frame.loc[7, "label"] != "c0" else "c1"
    first = load_dataset(_add(frame.to_csv(index=False).encode()).id)
    second = load_dataset(_add(changed.to_csv(index=False).encode()).id)
    assert np.array_equal(first.x_train, second.x_train)
    assert np.array_equal(first.x_test, second.x_test)
    assert (first.y_train != second.y_train).sum() + (first.y_test != second.y_test).sum() == 1


def test_classes_known_in_public_are_used_in_their_order_and_the_columns_own_are_noted():
    own = _add(_csv())
    assert own.class_names == ("c0", "c1", "c2")
    assert any("which classes occur is not protected" in note for note in own.notes)
    assert own.unprotected == ("which classes occur (the column's own values)",)
    given = add_table(_csv(), "label", "t", classes=["c2", "c1", "c0", "c3"])
    assert given.unprotected == ()
    assert given.class_names == ("c2", "c1", "c0", "c3") and given.id != own.id
    assert not any("not protected" in note for note in given.notes)
    data, reference = load_dataset(given.id), load_dataset(own.id)
    assert np.array_equal(data.y_train, 2 - reference.y_train)  # the same rows, renamed


def test_the_examples_classes_are_the_ones_their_files_hold():
    for name, classes in tables.EXAMPLE_CLASSES.items():
        column = pd.read_csv(io.BytesIO(example_table(name)))["class"]
        assert set(column) == set(classes), name


BAD_CLASSES = {
    "a label not listed": (["c0", "c1"], "labels are not among the classes given (e.g. 'c2')"),
    "repeated": (["c0", "c1", "c2", "c1"], "distinct, non-empty names (repeated: 'c1')"),
    "empty name": (["c0", "c1", "c2", " "], "distinct, non-empty names"),
    "one class": (["c0"], "give 2 to 100 classes, got 1"),
    "a string": ("c0,c1,c2", "classes must be a list of names"),
    "numbers": ([0, 1, 2], "classes must be a list of names"),
}


@pytest.mark.parametrize(("classes", "match"), BAD_CLASSES.values(), ids=BAD_CLASSES)
def test_a_bad_list_of_classes_is_refused(classes, match):
    with pytest.raises(InvalidInputError, match=re.escape(match)):
        add_table(_csv(), "label", "t", classes=classes)
    assert tables.stored_tables() == []
    with pytest.raises(InvalidInputError, match="classes apply to a label read as classes"):
        add_table(_ratings(), "rating", "t", task="regression", classes=["1", "2"])


def test_the_values_of_a_fine_grid_far_from_zero_keep_names_of_their_own():
    frame = pd.read_csv(io.BytesIO(_prices()))
    frame["price"] = 1_000_000 + frame["price"] / 20
    info = add_table(
        frame.to_csv(index=False).encode(),
        "price",
        "t",
        task="regression",
        low=1_000_000,
        high=1_000_001,
        grid=100,
    )
    assert len(set(info.class_names)) == 100
    assert info.class_names[0] == "1000000" and info.class_names[-1] == "1000001"


#: What a running point's open cache holds for a worker process: opened before the forget.
_FORGOTTEN = "the table was forgotten while this point was computing"


def test_a_workers_open_cache_does_not_recreate_a_forgotten_table(cache):
    # Issue 34: a worker opened the table's results before another session forgot it; its
    # next write (the clean model's probabilities: a value file of its own) recreated the folder.
    info = _add(_csv())
    held = results_cache(cache, info.id)
    # The worker is another process: forget cannot close its handle.
    table_results._RESULT_CACHES.clear()
    assert forget_table(info.id)
    probabilities = {"probabilities": np.random.default_rng(0).random((160, 3))}  # > 32 KB
    with pytest.raises(TableForgottenError, match=_FORGOTTEN):
        held.put_arrays(held.key("clean", {"n": 1}), probabilities)
    assert not (cache.directory / "tables" / info.id).exists()
    held.close()


def test_a_point_running_when_its_table_is_forgotten_fails_with_a_clear_message(cache, monkeypatch):
    info = _add(_csv())
    original = loop._fit

    def forgotten_while_training(*args, **kwargs):
        forget_table(info.id)  # another session, while the clean model trains
        return original(*args, **kwargs)

    monkeypatch.setattr(loop, "_fit", forgotten_while_training)
    config = make_config("rr", info.id, 1.0, 0, 1, {"model": "logistic"})
    with pytest.raises(TableForgottenError, match=_FORGOTTEN):
        run(config, cache)
    assert not (cache.directory / "tables" / info.id).exists()


def test_forget_waits_for_a_write_in_progress_and_the_next_write_is_refused(cache):
    info = _add(_csv())
    held = results_cache(cache, info.id)
    writing, finish = threading.Event(), threading.Event()
    store = held._store.set

    def slow_set(*args, **kwargs):  # a write that takes a while, inside the table's lock
        writing.set()
        finish.wait()
        return store(*args, **kwargs)

    held._store.set = slow_set
    writer = threading.Thread(
        target=held.put_json, args=(held.key("result", {}), {"a": 1}), daemon=True
    )
    forgetting = threading.Thread(target=forget_table, args=(info.id,), daemon=True)
    writer.start()
    try:
        writing.wait()
        forgetting.start()
        forgetting.join(0.3)
        assert forgetting.is_alive()  # waits for the write to end
        assert (cache.directory / "tables" / info.id / "table.json").is_file()
    finally:
        finish.set()
        writer.join()
        forgetting.join()
    assert not (cache.directory / "tables" / info.id).exists()
    with pytest.raises(TableForgottenError):
        results_cache(cache, info.id)
