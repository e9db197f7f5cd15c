"""The widgets of the 'Your data' page: upload or example, preview, label choice, forget."""

import pandas as pd
import streamlit as st

from labeldp_core import plots
from labeldp_core.data.table_results import forget_table
from labeldp_core.data.tables import (
    EXAMPLE_CLASSES,
    MAX_CLASSES,
    MAX_TABLE_BYTES,
    TableInfo,
    add_table,
    example_table,
    stored_tables,
)
from labeldp_core.errors import LabelDPError
from ui.export import chart
from ui.links import linked
from ui.table_reading import forget_parsed, one_at_a_time, parsed_table

__all__ = ["chosen_file", "forget_panel", "preview_and_add"]

_EXAMPLES = {"wine": "class", "breast-cancer": "class"}
_FILE = "your_data_file"
_EXAMPLE = "your_data_example"
_UPLOAD = "your_data_upload"
_NO_SIZE_NOTE = "<style>[data-testid='stFileUploaderDropzoneInstructions'] {display: none;}</style>"


def chosen_file() -> tuple[str, bytes] | None:
    """The file to look at: an upload, or a bundled example after its button; else None."""
    # Streamlit's drop zone writes its own size in rounded decimal units (512 MB as "1GB per
    # file"): hidden, and the label says the limit instead.
    st.markdown(_NO_SIZE_NOTE, unsafe_allow_html=True)
    upload = st.file_uploader(
        f"A CSV (UTF-8) or Parquet table, up to {MAX_TABLE_BYTES // 2**20} MB",
        type=["csv", "parquet"],
        key="table_upload",
        help=f"Up to {MAX_TABLE_BYTES // 2**20} MB; one row per example, one column per value.",
        max_upload_size=MAX_TABLE_BYTES // 2**20,  # the core's limit, whatever the server's config
    )
    left, right = st.columns([2, 1])
    example = linked(left.selectbox, "…or an example", "table_example", list(_EXAMPLES))
    if right.button("Try an example", key="table_try_example"):
        _choose(example, example_table(example), example=True)
    elif upload is not None and st.session_state.get(_UPLOAD) != upload.file_id:
        # Read once per upload: Streamlit hands the file over again on every rerun.
        st.session_state[_UPLOAD] = upload.file_id
        _choose(upload.name.rsplit(".", 1)[0], upload.getvalue())
    return st.session_state.get(_FILE)


def _choose(name: str, data: bytes, example: bool = False) -> None:
    """Look at a new file: its own class list's default, not the last file's."""
    st.session_state[_FILE] = (name, data)
    st.session_state[_EXAMPLE] = name if example else None
    st.session_state.pop("table_classes", None)


def preview_and_add(name: str, data: bytes) -> TableInfo | None:
    """Show the table, ask for its label column and name; the stored table once added."""
    try:
        parsed = parsed_table(data)
    except LabelDPError as exc:
        st.error(f"This file cannot be used: {exc}")
        return None
    frame = parsed.frame
    st.caption(f"{frame.shape[0]:,} rows, {frame.shape[1]} columns. The first rows:")
    st.dataframe(frame.head(8), hide_index=True)
    st.dataframe(parsed.columns, hide_index=True)
    columns = [str(column) for column in frame.columns]
    known = _EXAMPLES.get(name)
    default = columns.index(known) if known in columns else len(columns) - 1
    label = st.selectbox("The label (the private column)", columns, index=default, key="label")
    example = st.session_state.get(_EXAMPLE)  # an upload called wine.csv is not the example
    public = EXAMPLE_CLASSES.get(example) if example == name and label == known else None
    options = _task_controls(frame[label], public)
    counts = frame[label].astype(str).value_counts().sort_index()
    chart(
        st,
        plots.label_histogram,
        tuple(counts.index),
        tuple(counts.to_numpy().tolist()),
        label,
        key="table_labels",
    )
    shown = st.text_input("Its name in the dataset list", value=name, key="table_name")
    if not st.button("Use this table", key="table_add", type="primary"):
        return None
    try:
        with one_at_a_time("prepared"):
            info = add_table(data, label, shown.strip() or name, **options)
    except LabelDPError as exc:
        st.error(f"This table cannot be used: {exc}")
        return None
    for note in info.notes:
        st.info(note)
    st.success(
        f"'{info.name}' is in the sidebar's dataset list: pick it there, then any page "
        f"trains on it ({info.n_train:,} training rows, {len(info.features)} features)."
    )
    return info


def _task_controls(column: pd.Series, public: tuple[str, ...] | None) -> dict:
    """:func:`add_table`'s options: classes (maybe a public list) or numbers (range, grid)."""
    number = (
        st.radio(
            "The label is",
            ["a class", "a number"],
            key="table_task",
            horizontal=True,
            help="A number (a rating, a price) can be read either way when it takes few values: as "
            "a number, the regression mechanisms (Laplace on labels) see how far apart two are.",
        )
        == "a number"
    )
    if not number:
        listed = st.text_input(
            "Its classes, if they are known in public (comma-separated)",
            value=",".join(public or ()),
            key="table_classes",
            help="Left empty, the column's own values are the classes, and which classes occur "
            "is then not protected: a class that one row alone has gives its label away.",
        )
        classes = listed.split(",") if listed.strip() else None
        return {"task": "classification", "classes": classes}
    return {"task": "regression", **_number_controls(column)}


def _number_controls(column: pd.Series) -> dict:
    """A numeric label's range (public, or the column's own) and, if it needs one, a grid."""
    numbers = pd.to_numeric(column, errors="coerce")
    whole = bool(numbers.notna().all() and (numbers == numbers.round()).all())
    grid = None
    snap = st.checkbox(
        "Snap it to a grid of evenly spaced values",
        value=not whole,
        key="table_snap",
        help="Needed for numbers that are not whole (a price, a temperature) or a range of more "
        "than 100 values; the MSE then includes the snapping's.",
    )
    if snap:
        grid = int(
            st.number_input(
                "How many values",
                min_value=2,
                max_value=MAX_CLASSES,
                value=20,
                step=1,
                key="table_grid",
            )
        )
    public = st.checkbox(
        "Its range is known in public (a rating from 1 to 5, say)", key="table_public"
    )
    if not public:
        st.caption(
            "Without a public range the column's own minimum and maximum are used, and "
            "they leak: the note after adding the table says so."
        )
        return {"grid": grid}
    kind = int if grid is None else float  # whole numbers without a grid
    left, right = st.columns(2)
    low = left.number_input("Lowest value", value=kind(0), step=kind(1), key="table_low")
    high = right.number_input("Highest value", value=kind(10), step=kind(1), key="table_high")
    return {"low": low, "high": high, "grid": grid}


def forget_panel(buttons: bool = True) -> None:
    """Every stored table, each with a button that deletes it and every result computed from it.

    Without ``buttons`` (a read-only server) the tables are listed only.
    """
    found = stored_tables()
    st.subheader("Your tables")
    st.caption(
        "Kept on this server (readable by the account that runs it only), with every "
        "result computed from them, until forgotten here."
    )
    if not found:
        st.caption("None yet.")
    for info in found:
        left, right = st.columns([3, 1])
        left.markdown(
            f"**{info.name}**: label `{info.label}`, {info.rows:,} rows, "
            f"{_label_kind(info)} (`{info.id}`)"
        )
        if buttons and right.button("Forget this dataset", key=f"forget_{info.id}"):
            forget_table(info.id)
            forget_parsed()  # no parsed copy of its file lingers in the server's memory
            st.rerun()


def _label_kind(info: TableInfo) -> str:
    """What the label is: how many classes, or which numbers."""
    if info.task == "classification":
        return f"{len(info.class_names)} classes"
    grid = f" on a grid of {info.grid}" if info.grid else ""
    return f"numbers {info.low:g}..{info.high:g}{grid}"
