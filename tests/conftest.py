"""Every test gets its own empty result cache and no network downloads; property tests are fixed.

Nothing here imports Streamlit: the app's fixtures are in tests/app/conftest.py, so the tests of
the library run without it (tests/contract/test_registrations.py checks).
"""

import signal
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from labeldp_core.cache import ResultCache
from labeldp_core.data import load_dataset, loaders
from labeldp_core.training import loop
from tests.isolation import isolate

# Hypothesis draws its examples from a hash of each test (not the clock, not a saved database, so
# every run and every machine tries the same ones) and never fails an example for being slow.
settings.register_profile("labeldp", derandomize=True, deadline=None)
settings.load_profile("labeldp")


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """Under ``pytest -n N --dist loadgroup``, a module's tests that share a fixture stay together.

    A module-scoped fixture (a trained model audit, a cache its tests fill in turn) is then
    computed once, on one worker, not once on each. Browser and cluster tests name their group.
    """
    for item in items:
        fixtures = getattr(item, "_fixtureinfo", None)
        if item.get_closest_marker("xdist_group") is not None or fixtures is None:
            continue
        scopes = {defs[-1].scope for defs in fixtures.name2fixturedefs.values() if defs}
        if scopes & {"module", "package"}:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    yield
    _group_ids_for_pytest_9_2(items)


def _group_ids_for_pytest_9_2(items: list[pytest.Item]) -> None:
    """Make pytest-xdist's group suffix count on pytest 9.2 (pytest-xdist issue #1386).

    In a worker, xdist marks a grouped test by appending ``@group`` to ``item._nodeid``; pytest
    9.2 reads the id from ``item._id`` instead, so the groups were silently ignored (each test
    went to any worker). Where the two differ, the id xdist meant is set; elsewhere, nothing.
    """
    for item in items:
        meant = getattr(item, "_nodeid", None)
        if isinstance(meant, str) and hasattr(item, "_id") and meant != item.nodeid:
            from _pytest.nodeid import NodeId

            item._id = NodeId.parse(meant)


@pytest.fixture(scope="session", autouse=True)
def sigint_as_from_a_terminal() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in the tests and in every command they start.

    A run started with SIGINT ignored (``make test > log &`` in a script: the shell keeps a
    background job out of the terminal's Ctrl+C) passes that on to every process it starts, and
    the commands keep it ignored, as they should (docs/command-line.md): the stop tests sending
    SIGINT then saw no stop at all. The tests run as from a terminal, whatever started the run.
    """
    before = signal.getsignal(signal.SIGINT)
    if before is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate(monkeypatch, tmp_path / "cache")


@pytest.fixture
def no_local_mnist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """MNIST is absent whatever this machine holds.

    An empty data folder, no system package, downloads off, and no copy loaded earlier in this
    process (``load_dataset`` keeps one per process).
    """
    monkeypatch.setenv("LABELDP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LABELDP_OFFLINE", "1")
    monkeypatch.delitem(loaders.SYSTEM_DATA_DIRS, "MNIST", raising=False)
    load_dataset.cache_clear()


@pytest.fixture
def cache(isolated_cache: Path) -> Iterator[ResultCache]:
    store = ResultCache(isolated_cache)
    yield store
    store.close()


@pytest.fixture
def instant_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every model trains one epoch on 64 examples: this test is about URLs, not accuracy.

    See :func:`instant_models`, which it applies.
    """
    instant_models(monkeypatch)


def instant_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """Patch every training so that a model trains one epoch on 64 examples.

    Reopening a page with a changed control recomputes its results; with real training the PATE
    page alone (50 teachers, 200 steps each, for every changed setting) would take minutes.
    LabelDP-Pro trains in a loop of its own: it runs one epoch on the full set (its noise is
    still calibrated for the epochs asked, and its ε spent accounted for the steps it took).
    PATE's teachers and student on patch features (``features=patches``) are logistic
    regressions: they stop after a few L-BFGS iterations (a teacher took about 45 ms of CPU to
    converge, 50 teachers a run); on pixels, trained together as one batched model
    (:mod:`labeldp_core.training.ensemble_members`), each trains one epoch on the first 64
    examples of its shard. DP-SGD takes every noisy step its accounting counts (the
    same examples, sample rate, steps and σ) on a logistic model: its default recipe's 240
    steps of the CNN took about 2.8 s of CPU on each page opened at its defaults.
    """
    from labeldp_core.families.labeldp_pro import trainer as pro_trainer
    from labeldp_core.families.pate import patch_student
    from labeldp_core.training import dpsgd as dpsgd_training
    from labeldp_core.training import ensemble_members

    original, original_pro = loop._fit, pro_trainer.train_labeldp_pro
    original_votes = ensemble_members.member_votes
    original_dpsgd = dpsgd_training.train_dpsgd_classifier
    original_logistic = patch_student.fit_logistic

    def tiny(x_train, targets, outputs, loss_fn, evaluate, settings, seed, progress):
        small = replace(settings, epochs=1)
        return original(
            x_train[:64], targets[:64], outputs, loss_fn, evaluate, small, seed, progress
        )

    def tiny_votes(images, labels, shards, queries, num_classes, settings, *args):
        small = [shard[:64] for shard in shards]
        return original_votes(
            images, labels, small, queries, num_classes, replace(settings, epochs=1), *args
        )

    def tiny_pro(data, num_classes, settings, *args, **kwargs):
        return original_pro(data, num_classes, replace(settings, epochs=1), *args, **kwargs)

    def logistic_dpsgd(x_train, y_train, x_test, y_test, num_classes, settings, *args, **kwargs):
        logistic = replace(settings, model="logistic")
        return original_dpsgd(
            x_train, y_train, x_test, y_test, num_classes, logistic, *args, **kwargs
        )

    def few_iterations(features, labels, num_classes):
        from sklearn.exceptions import ConvergenceWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return original_logistic(features, labels, num_classes)

    monkeypatch.setattr(loop, "_fit", tiny)
    monkeypatch.setattr(ensemble_members, "member_votes", tiny_votes)
    monkeypatch.setattr(pro_trainer, "train_labeldp_pro", tiny_pro)
    monkeypatch.setattr(dpsgd_training, "train_dpsgd_classifier", logistic_dpsgd)
    monkeypatch.setattr(patch_student, "_ITERATIONS", 5)
    monkeypatch.setattr(patch_student, "fit_logistic", few_iterations)


def _untrained(model: str, images, outputs: int):
    """A model with its seeded initial weights, standing in for a trained one."""
    import torch

    from labeldp_core.models import build_model
    from labeldp_core.training import TrainOutcome

    torch.manual_seed(0)
    return TrainOutcome(build_model(model, tuple(images.shape[1:]), outputs).eval(), (0.5,))


def untrained_models(patch: pytest.MonkeyPatch) -> None:
    """Patch every training of labels so that models keep their initial weights.

    Runs still split, release, account and report; PATE's teachers vote at random. Shared by
    :func:`fast_runs` and the browser tests' stand-in training.
    """
    import numpy as np

    from labeldp_core.engine import context
    from labeldp_core.families.pate import experiment as pate_experiment

    def train(ctx, targets, *, images=None, **kwargs):
        outputs = 1 if ctx.task == "regression" else ctx.dataset.num_classes
        images = ctx.dataset.x_train if images is None else images
        return _untrained(ctx.train_settings.model, images, outputs)

    def votes(x_train, y_train, shards, queries, num_classes, *args):
        return np.random.default_rng(0).integers(0, num_classes, (len(shards), len(queries)))

    def student(images, labels, x_test, y_test, num_classes, settings, *args):
        return _untrained(settings.model, images, num_classes)

    patch.setattr(context.RunContext, "train", train)
    patch.setattr(pate_experiment, "ensemble_votes", votes)
    patch.setattr(loop, "train_classifier", student)


@pytest.fixture(scope="module")
def fast_runs(tmp_path_factory) -> Iterator[ResultCache]:
    """No training anywhere: every model keeps its initial weights; one cache for the module.

    Runs still split, release, account and report, so tests of the accounting run every
    mechanism at dozens of epsilons in seconds (PATE's teachers vote at random).
    """
    with pytest.MonkeyPatch.context() as patch:
        untrained_models(patch)
        store = ResultCache(tmp_path_factory.mktemp("fast-runs"))
        yield store
        store.close()


#: The one Dask cluster open in this process (see :func:`dask_cluster`).
_CLUSTER: list[Any] = []


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory) -> Any:
    """A Dask cluster of two single-threaded worker processes, shared by the modules that use it.

    Started by the first test that asks and closed after the last one (``pytest_runtest_teardown``
    below), not at the end of the run: idle, its scheduler and two workers took 6.5 s of CPU a
    minute (issue 52), for the ten minutes the rest of the suite ran after the cluster tests.
    Its workers find no MNIST (an empty data folder, downloads off), so a point on MNIST fails
    on them, as on a worker where `make data` was not run.
    """
    if not _CLUSTER:
        from labeldp_core.cluster import open_cluster

        data = tmp_path_factory.mktemp("worker-data")
        env = {"LABELDP_DATA_DIR": str(data), "LABELDP_OFFLINE": "1"}
        _CLUSTER.append(open_cluster(workers=2, env=env))
    return _CLUSTER[0]


_LAST_CLUSTER_TEST = pytest.StashKey[pytest.Item | None]()


def _last_cluster_test(session: pytest.Session) -> pytest.Item | None:
    """The last test of the run (in collection order) that uses ``dask_cluster``.

    Under ``--dist loadgroup`` every such test is in the ``cluster`` group, which one worker runs
    in collection order, so no test of that worker needs the cluster after this one. Found once.
    """
    if _LAST_CLUSTER_TEST not in session.stash:
        users = [item for item in session.items if "dask_cluster" in item.fixturenames]
        session.stash[_LAST_CLUSTER_TEST] = users[-1] if users else None
    return session.stash[_LAST_CLUSTER_TEST]


@pytest.fixture(scope="session", autouse=True)
def cluster_closed_at_the_end() -> Iterator[None]:
    """Whatever ran last, no cluster outlives the run."""
    yield
    while _CLUSTER:
        _CLUSTER.pop().close()


#: The one Chromium open in this process, with the context manager that closes it.
_CHROMIUM: list[tuple[AbstractContextManager, Any]] = []


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Debian's Chromium, launched once for the browser modules that run one after the other.

    A launch and its close took about 4 s under load, and each browser module had one of its
    own. What a module's tests left open is closed after its last, so a page a failed test left
    (a phone polling a round) never outlives its module's server.
    """
    if not _CHROMIUM:
        from debian_chromium import chromium_browser

        opened = chromium_browser()
        _CHROMIUM.append((opened, opened.__enter__()))
    chromium = _CHROMIUM[0][1]
    yield chromium
    for context in chromium.contexts:
        context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Close the shared Chromium once the next test is in a module that does not use it, and the
    shared Dask cluster after the last test that uses it.

    Playwright's sync API keeps its event loop running in this thread while it is open, where
    ``asyncio.run`` then fails (``tests/app/test_app_server.py``'s sessions): no other test may
    run beside it.
    """
    yield
    leaving = nextitem is None or nextitem.path != item.path
    if _CHROMIUM and leaving and "browser" not in getattr(nextitem, "fixturenames", ()):
        opened, _ = _CHROMIUM.pop()
        opened.__exit__(None, None, None)
    if _CLUSTER and item is _last_cluster_test(item.session):
        _CLUSTER.pop().close()


@pytest.fixture
def toy_family(tmp_path, monkeypatch):
    """A toy mechanism family dropped onto the families' path for the test.

    Not yet in the registry's families: a test finds it (``discovered_again``) or registers it.
    """
    from toy_family import forget_toy, load_toy_family

    yield load_toy_family(tmp_path, monkeypatch)
    forget_toy()
