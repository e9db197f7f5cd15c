"""With ``$LABELDP_SCHEDULER`` set, a page computes its missing point on the Dask cluster."""

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config
from labeldp_core.experiments.runner import result_key
from ui.cluster import cluster

# One worker of `pytest -n` runs every test that starts Dask or worker processes.
pytestmark = pytest.mark.xdist_group("cluster")


@pytest.fixture(scope="module")
def page_cluster():
    """A one-worker cluster of the page tests' own, whose client the app opens and closes.

    The session's cluster (``dask_cluster``) stays out of the app's thread and resource cache.
    """
    from labeldp_core.cluster import open_cluster

    session = open_cluster(workers=1)
    yield session
    session.close()


def _keys_on_workers(session) -> set[str]:
    """Every key in the workers' own caches (a lambda: Dask sends it by value)."""
    module = "labeldp_core.cluster.worker"
    found = session.client.run(
        lambda: getattr(__import__(module, fromlist=["_LOCAL"])._LOCAL, "stored_keys", list)()
    )
    return {key for keys in found.values() for key in keys}


def test_a_page_computes_its_missing_point_on_the_cluster_and_says_so(page_cluster, monkeypatch):
    address = page_cluster.client.scheduler.address
    monkeypatch.setenv("LABELDP_SCHEDULER", address)
    config = make_config("rr", "digits", 1.0, 0, 1, {"model": "logistic"})
    key = result_key(ResultCache(), config)
    try:
        app = open_page("pages/randomized_response.py", epochs="1", model="logistic")
    finally:
        cluster().client.close()  # the app's client (one per server process)
    assert_no_errors(app)
    assert {m.label: m.value for m in app.metric}["ε spent"] == "1"
    assert lookup(config, ResultCache()) is not None  # stored by the app, the cluster's client
    assert key in _keys_on_workers(page_cluster)  # computed by a worker
    (panel,) = [c.value for c in app.sidebar.caption if "Dask cluster" in c.value]
    assert (
        f"computed on the Dask cluster at {address}: 1 worker · " in panel and "dashboard" in panel
    )


def test_an_unreachable_scheduler_is_said_in_the_sidebar_and_on_the_page(monkeypatch):
    monkeypatch.setenv("LABELDP_SCHEDULER", "tcp://127.0.0.1:1")
    app = open_page("pages/randomized_response.py", epochs="1", model="logistic")
    assert not app.exception
    warnings = [w.value for w in app.sidebar.warning]
    assert any("no Dask scheduler answered at tcp://127.0.0.1:1" in w for w in warnings)
    assert any("no Dask scheduler answered" in e.value for e in app.error)
