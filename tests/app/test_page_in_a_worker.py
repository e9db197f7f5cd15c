"""A page computes its point in a worker process of the compute service."""

from app_helpers import assert_no_errors, open_page

import ui.results
from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config


def test_a_page_computes_its_point_in_a_worker_and_says_so(monkeypatch):
    monkeypatch.setenv("LABELDP_WORKERS", "1")
    try:
        app = open_page("pages/randomized_response.py", epochs="1", model="logistic")
        assert_no_errors(app)
        service = ui.results.compute_service()
        assert service is not None and service.worker_pids()
        assert {m.label: m.value for m in app.metric}["ε spent"] == "1"
        config = make_config("rr", "digits", 1.0, 0, 1, {"model": "logistic"})
        assert lookup(config, ResultCache()) is not None  # cached by the worker
    finally:
        found = ui.results.compute_service()
        if found is not None:
            found.shutdown()
