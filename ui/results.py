"""Cached access to core results for the pages: Streamlit's memory cache over the disk cache."""

import math
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import streamlit as st

from labeldp_core.base.numbers import score_text
from labeldp_core.cache import ResultCache
from labeldp_core.data import load_dataset
from labeldp_core.engine.diagnostics import diagnostics_sentence
from labeldp_core.engine.timing import spoken_duration
from labeldp_core.errors import DatasetUnavailableError, LabelDPError
from labeldp_core.experiments import MECHANISMS, RunConfig, RunResult, make_config, road
from labeldp_core.experiments.demo import log_interpolate, point_epsilons
from labeldp_core.experiments.road import Plan, Road
from labeldp_core.experiments.service import ComputeService, default_workers
from ui.cluster import cluster, run_on_the_cluster
from ui.epsilon import answer_area
from ui.links import report_refused

__all__ = [
    "READ_ONLY_NOTE",
    "button_label",
    "compute_service",
    "computed_stops",
    "dataset_problem",
    "diagnostics_caption",
    "estimate",
    "few_rows_note",
    "is_stored",
    "neighbour_sentence",
    "read_only",
    "replay_caption",
    "reported_errors",
    "result_cache",
    "result_for",
    "result_road",
    "run_with_progress",
    "stored",
    "stored_many",
]


@st.cache_resource(show_spinner=False)
def result_cache() -> ResultCache:
    """One handle on the disk cache per server process."""
    return ResultCache()


@st.cache_resource(show_spinner=False)
def compute_service() -> ComputeService | None:
    """The server's worker pool (one per server process), or None to compute in the page.

    ``$LABELDP_WORKERS`` sets how many points are computed at once (default: one per core);
    0 computes in the page's own thread, as the tests do to swap in fast trainers.
    """
    workers = default_workers()
    if read_only() or not workers:
        return None
    return ComputeService(result_cache().directory, workers)


@st.cache_resource(show_spinner=False)
def result_road() -> Road:
    """The one road to the disk cache's results, one per server process.

    Each result is read from disk once and then handed to every session as the same
    :class:`RunResult` (:class:`~labeldp_core.experiments.road.Road`).
    """
    return Road(result_cache())


def read_only() -> bool:
    """Whether this server only shows what is cached (``LABELDP_READ_ONLY=1``: classroom mode).

    Then no page computes anything, with or without a click: every visitor sees the points
    warmed before class, and a link or a button cannot start work on a shared server.
    """
    return os.environ.get("LABELDP_READ_ONLY", "") not in ("", "0")


#: What a read-only server says where another would compute.
READ_ONLY_NOTE = (
    "This server is read-only (classroom mode): it shows the points computed before class, and "
    "this one was not. Pick a value on the demo grid, or run the app on your own machine."
)


@st.cache_data(show_spinner=False)
def dataset_problem(name: str) -> str | None:
    """Why ``name`` cannot be loaded here, or None if it loads."""
    try:
        load_dataset(name)
    except DatasetUnavailableError as exc:
        return str(exc)
    return None


def stored(config: RunConfig) -> RunResult | None:
    """The cached result of ``config`` or None, answered from memory after the first look."""
    return result_road().stored(config)


def is_stored(config: RunConfig) -> bool:
    """Whether ``config``'s result is cached: a presence check (the slider's stops), not a read."""
    return result_road().stored(config) is not None


def stored_many(configs: list[RunConfig]) -> tuple[list[RunResult], list[RunConfig]]:
    """Split ``configs`` into the results already cached and the configs still missing."""
    found, absent = [], []
    for config in configs:
        result = stored(config)
        if result is None:
            absent.append(config)
        else:
            found.append(result)
    return found, absent


def run_with_progress(configs: list[RunConfig], label: str) -> list[RunResult]:
    """Compute ``configs`` one by one under a progress bar; each is stored as soon as it is done.

    They are points this run of the page has just found missing (:func:`stored_many`), so the
    road computes them without looking them up again
    (:meth:`~labeldp_core.experiments.road.Road.missing`).
    """
    return _computed_with_progress([result_road().missing(config) for config in configs], label)


def _computed_with_progress(plans: list[Plan], label: str) -> list[RunResult]:
    """Compute the points ``plans`` found missing under a progress bar (:func:`run_with_progress`).

    The road computes each into the store its plan found
    (:meth:`~labeldp_core.experiments.road.Road.computed`). With a compute service the points
    are computed by its workers (shared with every session that asks for the same point); the
    bar then also says how many points are queued before it. With a Dask scheduler set
    (``$LABELDP_SCHEDULER``) they are sent to its cluster at once and the bar counts them as
    they return.
    """
    bar = st.progress(0.0, text=label)
    session = cluster()
    if session is not None:
        note = st.caption(CLUSTER_STOP_NOTE)

        def show(fraction: float, message: str) -> None:
            bar.progress(fraction, text=f"{label}: {message}")

        configs = [plan.config for plan in plans]
        results = run_on_the_cluster(session, configs, result_cache(), show)
        bar.empty()
        note.empty()
        return results
    service = compute_service()
    note = st.caption(STOP_NOTE if service is None else SERVICE_STOP_NOTE)
    results = []
    for index, plan in enumerate(plans):
        config = plan.config
        prefix = f"{label} {index + 1}/{len(plans)} (ε={config.epsilon:g}, seed {config.seed})"

        def show(fraction: float, message: str, i: int = index, p: str = prefix) -> None:
            bar.progress(min((i + fraction) / len(plans), 1.0), text=f"{p}: {message}")

        results.append(result_road().computed(plan, show, service))
    bar.empty()
    note.empty()
    return results


STOP_NOTE = "Stop (top right) halts the computation; every point already finished stays cached."
CLUSTER_STOP_NOTE = (
    "Computing on the Dask cluster: Stop (top right) cancels the points still out there; every "
    "point already returned stays cached."
)
SERVICE_STOP_NOTE = (
    "Stop (top right) stops waiting: a point already being computed still finishes and is "
    "cached; one still queued is dropped unless another visitor waits for it too."
)


def estimate(configs: list[RunConfig]) -> float | None:
    """Seconds to compute ``configs`` on this machine, from its past runs of their settings."""
    return result_road().estimate(configs)


def button_label(action: str, configs: list[RunConfig], seconds: float | None) -> str:
    """'Compute ε = 2 on digits (1 missing point, about 4 s)': what a button computes, how long."""
    count = f"{len(configs)} missing point" + ("s" if len(configs) != 1 else "")
    return f"{action} ({count}, {spoken_duration(seconds)})"


def result_for(config: RunConfig, button: str, progress_label: str) -> RunResult | None:
    """The result of ``config``: stored; computed at once when quick; else behind a button.

    The one road from a page to a stored result: ``config`` comes from ``make_config``, which
    checked it (ε included) once; one descent (:meth:`~labeldp_core.experiments.road.Road.plan`)
    looks it up (from memory after the first look) and says what a missing one takes, which is
    then computed (by the server's workers, the cluster or the page) and stored. A missing
    point is explained right under the ε control, in view (:func:`_offer`). Returns None while
    the point waits for its button.
    """
    computes = not read_only()
    plan = result_road().plan(config, computes)
    if plan.result is not None:
        return plan.result
    area = answer_area()
    if not computes:
        area.info(READ_ONLY_NOTE)
        return None
    if plan.at_once or _offer(area, plan, button):
        return _computed_with_progress([plan], progress_label)[0]
    return None


def _offer(area, plan: Plan, button: str) -> bool:
    """Offer to compute ``plan``'s point under the ε control; whether its button was clicked.

    One line says what the button computes, one the estimate read off the computed neighbours
    (greyed, called an estimate), and the button says roughly how long it takes.
    """
    config = plan.config
    area.caption(
        f"ε = {config.epsilon:g} is not computed yet: the button computes this page's result at "
        f"exactly that ε (seed {config.seed}, {config.epochs} epoch"
        f"{'s' if config.epochs != 1 else ''}) and caches it."
    )
    area.caption(neighbour_sentence(config.epsilon, plan.neighbours))
    label = button_label(button, [config], plan.seconds)
    return area.button(label, type="primary", key="compute_point")


def point_under_headline(
    headline: Callable[[RunResult | None], None],
    make: Callable[[], RunConfig],
    button: str,
    progress_label: str,
) -> RunResult | None:
    """Draw a closed-form headline at once, then the page's :func:`result_for` under it.

    ``headline(None)`` draws the closed form before anything is computed; once the point is
    stored, ``headline(result)`` draws it again in the same place with what the run measured.
    ``make`` builds the point's config inside :func:`reported_errors`, so a refused setting is
    said on the page.
    """
    area = st.empty()
    with area.container():
        headline(None)
    with reported_errors():
        result = result_for(make(), button, progress_label)
    if result is not None:
        with area.container():
            headline(result)
    return result


def neighbour_sentence(epsilon: float, known: dict[float, float]) -> str:
    """The test accuracy at ``epsilon`` read off its computed neighbours ``known``, in words.

    Read off the straight line (on log ε) between the nearest computed epsilons below and above,
    among those `warm` computes for this page; said to be an estimate, never shown as a result.
    """
    found = log_interpolate(epsilon, known)
    if found is None:
        return (
            f"No estimate: no computed point on both sides of ε = {epsilon:g} with these settings."
        )
    value, low, high = found
    return (
        f"Estimate, not computed: test accuracy ≈ {score_text(value)}, on the line (log ε) "
        f"between ε = {low:g} ({score_text(known[low])}) and ε = {high:g} "
        f"({score_text(known[high])})."
    )


def computed_stops(
    mechanism: str, controls: Any, settings: dict[str, object] | None = None
) -> tuple[float, ...]:
    """Where the ε slider stops on ``mechanism``'s page: the epsilons whose point answers at once.

    Those of :func:`point_epsilons` (what `warm` computes, per dataset) at which the page's
    point is cached, or computed without a click (quick, on the demo grid), so no stop shows a
    compute button. The point is the one for the sidebar's ``controls`` (a
    :class:`ui.controls.Controls`) and the page's current ``settings`` (as the page passes them
    to ``make_config``; default: the sidebar's model only), so a page whose settings change the
    cache key stops where its own points are. All of them while fewer than two answer: a slider
    needs two stops to move (their points wait for a button).
    """
    grid = point_epsilons(mechanism, controls.dataset)
    configs = _page_points(mechanism, controls, grid, settings)
    missing = [c for c in configs if not is_stored(c)]
    seconds = estimate(missing[:1]) if missing and not read_only() else None
    slow = [c for c in missing if read_only() or not road.computes_at_once([c], seconds)]
    stops = [c.epsilon for c in configs if c not in slow]
    return tuple(stops) if len(stops) >= 2 else grid


def _page_points(
    mechanism: str, controls: Any, grid: Sequence[float], settings: dict[str, object] | None
) -> list[RunConfig]:
    """``mechanism``'s point at each of ``grid`` with the page's ``settings`` for ``controls``.

    Without ``settings``: its default settings, with the sidebar's model where the mechanism
    takes one (as `warm` computes them). None if the choices do not make a valid config.
    """
    if settings is None:
        model_setting = MECHANISMS[mechanism].all_settings().get("model")
        takes_model = model_setting is not None and controls.model in model_setting.choices
        settings = {"model": controls.model} if takes_model else {}
    where = (controls.dataset, controls.seed, controls.epochs_asked)
    try:
        return [make_config(mechanism, where[0], e, *where[1:], settings) for e in sorted(grid)]
    except LabelDPError:
        return []


@contextmanager
def reported_errors() -> Iterator[None]:
    """Show a core error as ``st.error`` with its fix and stop the page, instead of a traceback.

    Every page enters it after drawing its controls, so link values those controls refused are
    reported here too (see :mod:`ui.links`): even when Streamlit runs the page without ``app.py``.
    """
    report_refused()
    try:
        yield
    except LabelDPError as exc:
        st.error(str(exc))
        st.stop()


def replay_caption(container, result: RunResult) -> None:
    """Say in one line that a run with seeded (float) noise replays from its seed.

    The seed is printed in every result and link, so such a run is for teaching only.
    """
    if result.details.get("noise_mode") == "float":
        container.caption(
            f"**Replayable from its seed:** this run's noise came from a generator seeded by "
            f"seed {result.seed}, which its result and link show, so anyone can replay it: a "
            "teaching run, not a release (noise=secure seeds it from the operating system)."
        )


def diagnostics_caption(container, results: list[RunResult]) -> None:
    """Say on the page which of the shown figures are diagnostics computed without privacy.

    On a small test split it also says how far luck alone moves a score (:func:`few_rows_note`).
    """
    paths = [path for r in results if r.diagnostics for path in r.diagnostics["keys"]]
    if results:
        container.caption(diagnostics_sentence(paths) + few_rows_note(results))


#: Fewer test rows than this make a test accuracy too noisy to read without its error.
FEW_TEST_ROWS = 200


def few_rows_note(results: list[RunResult]) -> str:
    """A sentence on the binomial noise of test accuracies scored on few rows, else "".

    A test accuracy p on n rows has standard error √(p(1 − p)/n): on 36 rows up to 0.08, so a
    difference of 0.15 between two points, or a score under chance, can be luck alone.
    """
    scored = [r for r in results if r.test_accuracy is not None and r.n_test < FEW_TEST_ROWS]
    if not scored:
        return ""
    rows = min(r.n_test for r in scored)
    error = max(math.sqrt(r.test_accuracy * (1 - r.test_accuracy) / r.n_test) for r in scored)
    chance = 1 / scored[0].num_classes
    return (
        f" Scored on {rows} test rows only: a test accuracy's standard error is about "
        f"{max(error, 0.5 / rows):.2f} (binomial, √(p(1 − p)/n)), so differences of twice that, "
        f"or a score below chance (1/K = {chance:.2f}), can be the luck of so few rows."
    )
