"""Sidebar controls shared by every page, bound to the URL so a copied link reopens the view."""

import inspect
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from labeldp_core.data import DATASETS, dataset_info
from labeldp_core.data.tables import is_table, stored_tables, table_info
from labeldp_core.engine.spec import COMMON_SETTINGS
from labeldp_core.noise.secure_noise import NOISE_KINDS
from ui.cluster import cluster_panel
from ui.demo import demo_mode, demo_toggle, tour_panel
from ui.glossary import glossary
from ui.links import linked, note_link, report_refused
from ui.results import dataset_problem, read_only
from ui.whole_lines import whole_lines

__all__ = [
    "Controls",
    "current_controls",
    "end_of_run",
    "noise_control",
    "shared_controls",
]

FALLBACK_DATASET = "digits"
_CONTROLS = "_shared_controls"
_DRAWN = "_shared_controls_drawn"
_LEFT_FOLDER_MODE = "_left_pages_folder_mode"
EPOCH_CHOICES = ("auto", "1", "2", "3", "5", "10", "20", "40", "80")


@dataclass(frozen=True)
class Controls:
    """The shared choices: dataset (after any fallback), seed, model and epochs."""

    dataset: str
    seed: int
    model: str
    epochs: int
    #: 'auto' epochs: :attr:`epochs` is then the dataset's default, and a mechanism with a
    #: recipe of its own (DP-SGD's tens of epochs) trains for the recipe's.
    auto_epochs: bool = False

    @property
    def dataset_name(self) -> str:
        """How the dataset is called in sentences: its id, or a table's own name."""
        return table_info(self.dataset).name if is_table(self.dataset) else self.dataset

    @property
    def epochs_asked(self) -> int | None:
        """The epochs to hand to ``make_config``: None on 'auto', so the recipes apply."""
        return None if self.auto_epochs else self.epochs

    @property
    def settings(self) -> dict[str, object]:
        """Training settings in the form :func:`make_config` takes."""
        return {"model": self.model}


#: Shared controls a page does not use, by the page's URL path, and why: drawn disabled.
PAGE_IGNORES: dict[str, tuple[tuple[str, ...], str]] = {
    "laplace_noise": (("dataset", "model", "epochs"), "it draws closed-form noise, no data"),
    "audit": (("dataset", "model", "epochs"), "the audit runs the release steps on fixed inputs"),
    "compare": (("seed",), "it averages seeds 0, 1 and 2"),
    "papers": (("dataset", "seed", "model", "epochs"), "each row names its own dataset and seeds"),
    "your_data": (("seed", "model", "epochs"), "it adds tables; the other pages train on them"),
}


def shared_controls(page: str = "") -> Controls:
    """Dataset, seed, model and epochs in the sidebar; a missing dataset falls back to digits.

    The controls that ``page`` (a URL path) does not use are drawn disabled, with the reason.
    In demo mode the sidebar keeps the dataset only (seed 0, default model, 'auto' epochs: what
    ``make warm`` computed) and the page opens with its stop of the guided tour.
    """
    note_link()
    whole_lines()
    demo = demo_toggle()
    tour_panel(f"pages/{page}.py" if page else "app.py")
    sidebar = st.sidebar
    sidebar.header("Data" if demo else "Data and model")
    ignored, reason = PAGE_IGNORES.get(page, ((), ""))
    if ignored:
        sidebar.caption(f"This page does not use the {', '.join(ignored)}: {reason}.")
    dataset = _dataset_control(sidebar, "dataset" in ignored)
    if "dataset" not in ignored and not is_table(dataset):  # a table says its own, below
        sidebar.caption(dataset_info(dataset).threat_note)
    if demo:
        seed, model, choice = 0, COMMON_SETTINGS["model"].default, "auto"
    else:
        seed, model, choice = _training_controls(sidebar, ignored, dataset)
    default_epochs = dataset_info(dataset).default_epochs
    epochs = default_epochs if choice == "auto" else int(choice)
    controls = Controls(
        dataset=dataset,
        seed=int(seed),
        model=model,
        epochs=int(epochs),
        auto_epochs=choice == "auto",
    )
    glossary()
    if not read_only():
        cluster_panel()
    st.session_state[_CONTROLS] = controls
    st.session_state[_DRAWN] = True
    report_refused()
    return controls


def _dataset_control(sidebar, disabled: bool) -> str:
    """The dataset chosen, or the bundled fallback (with a message) if it cannot be loaded."""
    # Bound selectboxes put the displayed option in the URL, so options are shown as they are:
    # a table of the user's own as "its name · table-<id>".
    owned = {f"{info.name} · {info.id}": info.id for info in stored_tables()}
    chosen = linked(
        sidebar.selectbox,
        "Dataset",
        "dataset",
        [*DATASETS, *owned],
        disabled=disabled,
        help="\n".join(f"- {d.name}: {d.description}" for d in DATASETS.values())
        + "\n- your own tables: add one on the 'Your data' page",
    )
    dataset = owned.get(chosen, chosen)
    problem = dataset_problem(dataset)
    if problem is None:
        return dataset
    st.error(
        f"The dataset {dataset} is not on this machine, so this page shows the bundled "
        f"{FALLBACK_DATASET} dataset instead. Whoever runs the server can add it (the "
        "details below say how); the other datasets in the list work now."
    )
    with st.expander("Details for whoever runs the server"):
        st.code(problem, language=None)
    return FALLBACK_DATASET


def _training_controls(sidebar, ignored: tuple[str, ...], dataset: str) -> tuple[int, str, str]:
    """Seed, model and the epochs choice ('auto' or a number), drawn in the sidebar."""
    seed = sidebar.number_input(
        "Seed",
        min_value=0,
        max_value=2**32 - 1,
        value=0,
        step=1,
        key="seed",
        bind="query-params",
        disabled="seed" in ignored,
    )
    models = [m for m in COMMON_SETTINGS["model"].choices if m != "cnn" or not is_table(dataset)]
    model = linked(sidebar.selectbox, "Model", "model", models, disabled="model" in ignored)
    if is_table(dataset):
        sidebar.caption(
            "A table has features, not images: the CNN is not offered (the MLP trains by default)."
        )
        sidebar.caption(_table_privacy(dataset))
    default_epochs = dataset_info(dataset).default_epochs
    choice = linked(
        sidebar.selectbox,
        "Training epochs",
        "epochs",
        EPOCH_CHOICES,
        disabled="epochs" in ignored,
        help=f"'auto' uses a good value for the dataset ({default_epochs} for {dataset}), or the "
        "mechanism's published recipe where it has one (DP-SGD: 40).",
    )
    return int(seed), model, choice


def _table_privacy(dataset: str) -> str:
    """What an epsilon on a table protects, and what it takes as known."""
    info = table_info(dataset)
    known = "the features and which rows have a label are taken as known"
    if not info.unprotected:
        return f"On this table ε protects each row's label; {known}."
    return (
        f"On this table ε protects each row's label; {known}, and so is "
        f"{' and '.join(info.unprotected)}: that comes from the labels and is not protected "
        "(give it in public on the 'Your data' page)."
    )


def current_controls() -> Controls:
    """The shared controls ``app.py`` drew in this run, or drawn now if the page runs on its own.

    Streamlit runs a file of ``pages/`` by itself, without ``app.py``, on the first visit of a
    freshly started server to that page's link: that run is restarted through ``app.py`` once.
    ``AppTest`` runs a page alone on every run after that, so a page can still draw the shared
    sidebar itself; no ``end_of_run`` follows, so the mark is cleared here and the next run
    draws the sidebar again.
    """
    if st.session_state.get(_DRAWN):
        return st.session_state[_CONTROLS]
    if PagesManager.uses_pages_directory and not st.session_state.get(_LEFT_FOLDER_MODE):
        # Streamlit's pages-folder mode (a fresh server's first visit is a direct link to a page)
        # lists raw file names as navigation. Leave that mode for good and run again through
        # app.py, which shows the app's own navigation, then this page. (AppTest re-enters the
        # mode on every run: the session's mark keeps it to one rerun, which loses no click.)
        PagesManager.uses_pages_directory = False
        st.session_state[_LEFT_FOLDER_MODE] = True
        st.rerun()
    caller = inspect.currentframe().f_back  # the page's script: its file names its URL path
    controls = shared_controls(Path(caller.f_globals.get("__file__", "")).stem)
    st.session_state.pop(_DRAWN, None)
    return controls


def end_of_run() -> None:
    """End a run of ``app.py``: report refused link values, forget the shared controls were drawn.

    The page's own controls are drawn by now, so link values they refused are reported here.
    """
    report_refused()
    st.session_state.pop(_DRAWN, None)


NOISE_HELP = (
    "float: NumPy's generator, seeded by the run (reproducible, for teaching and comparing). "
    "secure: every random draw of the release (noise, randomized-response coins, tie-breaks) "
    "from os.urandom, exact integer noise on integer data; not reproducible from the seed, and "
    "what a real release should use."
)


def noise_control(container=None, note: str = "") -> str:
    """The noise mode of a release, ``float`` or ``secure``, bound to the URL as ``noise``.

    Not drawn in demo mode, which shows the default (``float``), as ``make warm`` computed it.

    ``note`` is added to the help (what switching costs on this page).
    """
    if demo_mode():  # what `make warm` computed
        return NOISE_KINDS[0]
    box = container if container is not None else st.sidebar
    return linked(box.selectbox, "Noise", "noise", NOISE_KINDS, help=f"{NOISE_HELP} {note}".strip())
