"""Classroom mode (``LABELDP_READ_ONLY=1``, ``make classroom``): cached points only, no work."""

import subprocess
from pathlib import Path

from app_helpers import open_page

import ui.results
import ui.sweeps
from labeldp_core.experiments import make_config, run
from labeldp_core.services import release_audits as audit_suite

ROOT = Path(__file__).resolve().parents[2]
RR_PAGE = "pages/randomized_response.py"


def _refuse_to_compute(monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("a read-only server computed something")

    # ui.sweeps holds its own name for it (imported here first, so the real one is kept after)
    for module in (ui.results, ui.sweeps):
        monkeypatch.setattr(module, "run_with_progress", refuse)
    monkeypatch.setattr(audit_suite, "audit_case", refuse)


def test_a_point_not_cached_gets_a_note_and_no_button(monkeypatch):
    monkeypatch.setenv("LABELDP_READ_ONLY", "1")
    _refuse_to_compute(monkeypatch)
    app = open_page(RR_PAGE, epochs="1")
    assert not app.exception, [e.value for e in app.exception]
    assert not app.button, [b.label for b in app.button]
    notes = [box.value for box in app.info] + [c.value for c in app.caption]
    assert sum(ui.results.READ_ONLY_NOTE in note for note in notes) == 2  # the point, the sweep


def test_a_cached_point_is_shown_as_on_any_server(cache, monkeypatch):
    config = make_config("rr", "digits", 1.0, epochs=1)
    expected = run(config, cache)
    monkeypatch.setenv("LABELDP_READ_ONLY", "1")
    _refuse_to_compute(monkeypatch)
    app = open_page(RR_PAGE, epochs="1")
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Test accuracy"] == f"{expected.test_accuracy:.3f}"


def test_the_audit_page_shows_only_stored_audits(monkeypatch):
    monkeypatch.setenv("LABELDP_READ_ONLY", "1")
    _refuse_to_compute(monkeypatch)
    app = open_page("pages/audit.py")
    assert not app.exception, [e.value for e in app.exception]
    assert [box.value for box in app.info] == [ui.results.READ_ONLY_NOTE]


def test_a_read_only_server_starts_no_worker(monkeypatch):
    monkeypatch.setenv("LABELDP_READ_ONLY", "1")
    monkeypatch.setenv("LABELDP_WORKERS", "2")
    ui.results.compute_service.clear()
    try:
        assert ui.results.compute_service() is None
    finally:
        ui.results.compute_service.clear()


def test_make_classroom_serves_the_network_read_only_to_known_hosts():
    command = subprocess.run(
        ["make", "-n", "classroom", "CLASS_HOSTS=teacher.local 10.0.0.5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "LABELDP_READ_ONLY=1" in command and "--server.address 0.0.0.0" in command
    assert "--server.allowedHosts teacher.local --server.allowedHosts 10.0.0.5" in command
