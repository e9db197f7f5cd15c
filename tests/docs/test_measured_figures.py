"""No figure in the docs that the bench did not measure: warm times come from bench/measured/."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.pages import ROOT, script_module
from tests.durations_report import BEGIN, END

measured = script_module("measured", ROOT / "bench" / "measured.py")

#: A duration: "4 minutes", "2 min 16 s", "about 10 s", "1,279 s".
_DURATION = re.compile(r"\b\d[\d,.]* ?(?:minutes?|min|seconds?|s|h|hours?)\b")
#: What a sentence must speak of for its duration to be a warm's or the suite's time.
_SUBJECT = re.compile(
    r"`(?:make )?warm\b|\bwarm --|make warm|make test\b|the (?:default )?suite", re.IGNORECASE
)

#: A warm from an empty cache as warm_speed.py reads it: (seconds since start, line).
FAKE_LINES = [
    (4.0, "[ 25.0%] rr ε=1 seed=0 (2.0 s); about 9 s left; first views ready: 0/2"),
    (7.5, "[ 50.0%] rr ε=2 seed=0 (4.0 s); about 6 s left; first views ready: 1/2"),
    (9.0, "[ 60.0%] audit rr case 1 (1.0 s); about 20 s left; first views ready: 2/2"),
    (12.0, "[ 80.0%] rr ε=1 seed=1 (3.0 s); about 18 s left; first views ready: 2/2"),
    (30.0, "[100.0%] model audit rr ε=1 (21.0 s); about 0 s left; first views ready: 2/2"),
]


def test_every_block_of_the_docs_is_what_the_benchs_records_say():
    for page in measured.PAGES:
        text = page.read_text(encoding="utf-8")
        assert measured.rewrite(text) == text, (
            f"{page.relative_to(ROOT)}: a measured block was edited by hand or its record "
            "changed; run bench/measured.py"
        )
    names = {name for page in measured.PAGES for name, _ in measured.blocks(page.read_text())}
    assert {"warm-digits", "costs-digits"} <= names


def test_the_warms_rates_are_what_the_benchs_records_say():
    from labeldp_core.services.warm_estimate import RATES_FILE, reference_rates

    assert RATES_FILE.read_text(encoding="utf-8") == measured.rates_text(), (
        "labeldp_core/services/warm_rates.json was edited by hand or a record changed; "
        "run bench/measured.py"
    )
    assert reference_rates("digits")["model audit"] > reference_rates("digits")["rr"] > 0


def test_every_record_counts_the_points_a_warm_plans_now():
    assert measured.stale_records() == []


def _sentences(text: str) -> list[str]:
    """The sentences of a page, comments included: a list item or a paragraph ends one."""
    ends = r"(?<=[.!?])\s+(?=[A-Z`*(\[])|\n\s*\n|\n\s*(?=[-*|] |\d+\. |#)"
    return re.split(ends, text)


@pytest.mark.parametrize("page", measured.PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_states_a_warms_or_the_suites_time_by_hand(page: Path):
    by_hand = measured.outside_blocks(page.read_text(encoding="utf-8"))
    by_hand = re.sub(f"{BEGIN}.*?{END}", "", by_hand, flags=re.DOTALL)  # make test-durations'
    found = [
        " ".join(sentence.split())
        for sentence in _sentences(by_hand)
        if _SUBJECT.search(sentence) and _DURATION.search(sentence)
    ]
    assert found == [], "a time that no bench wrote: put it in a measured block, or drop it"


def test_the_guard_catches_the_figures_it_replaced():
    stale = "1. The day before: `make warm` (digits takes about\n   4 minutes on 2 cores)."
    suite = "Alone, `make test` took 649 s.\n\nThe suite took 12 min on 2 cores."
    found = [s for s in _sentences(f"{stale}\n{suite}") if _DURATION.search(s)]
    assert len(found) == 3 and all(_SUBJECT.search(s) for s in found)


def test_a_warm_is_recorded_from_its_lines_and_written_into_the_docs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(measured, "RECORDS", tmp_path)
    monkeypatch.setattr(measured, "planned_points", lambda d: {"pages": 3, "model audits": 1})
    where = {"commit": "abc1234", "cores": 2, "load": 1.25}
    record = measured.warm_record("digits", 31.0, FAKE_LINES, where)
    assert record["seconds"] == {"all": 31.0, "pages": 12.0, "lines": 9.0}
    assert record["costs"] == {"model audit": 21.0, "rr": 3.0, "audit case": 1.0}
    measured.record_path("digits").write_text(json.dumps(record))
    page = "Before. <!-- measured:warm-digits:begin -->old<!-- measured:warm-digits:end --> After."
    assert measured.rewrite(page) == (
        "Before. <!-- measured:warm-digits:begin -->`warm --dataset digits` took 31 s from an "
        "empty cache on 2 cores (load 1.2), every line of every page and the slider's stops "
        "(the curves' first seed: what `--until-pages` waits for) ready after 9 s, every page's "
        "3 points (the other seeds' bands "
        "too) ready after 12 s, its 1 model audits after them; measured by `bench/warm_speed.py "
        "--dataset digits --write` on commit abc1234<!-- measured:warm-digits:end --> After."
    )
    table = measured.rendered("costs-digits")
    assert "| `model audit` | 21.0 |\n| `rr` | 3.0 |\n| `audit case` | 1.0 |" in table
    assert measured.stale_records() == []
    monkeypatch.setattr(measured, "planned_points", lambda d: {"pages": 4, "model audits": 1})
    (stale,) = measured.stale_records()
    assert "warm-digits.json measured" in stale and "--dataset digits --write" in stale


def test_a_record_with_the_machines_speed_says_it_beside_the_time():
    """A time compares with another only beside the machine's speed then (machine_speed.py)."""
    record = {
        "commit": "abc1234",
        "cores": 2,
        "load": 1.0,
        "points": {"pages": 3, "model audits": 1},
        "seconds": {"all": 31.0, "pages": 9.0},
    }
    assert "yardstick" not in measured.warm_sentence("digits", record)
    speed = {"cnn": {"cpu": 1.2, "wall": 1.25}, "python": {"cpu": 0.5, "wall": 0.5}}
    sentence = measured.warm_sentence("digits", record | {"yardstick": speed})
    assert sentence.endswith(
        "on commit abc1234, yardstick (bench/machine_speed.py, best wall s): "
        "CNN 300 steps 1.25 s, Python 0.50 s"
    )


def test_without_a_record_a_block_names_the_command_that_measures_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(measured, "RECORDS", tmp_path)
    sentence = measured.rendered("warm-mnist-5k")
    assert "not measured yet" in sentence and "--dataset mnist-5k --write" in sentence
    assert not _DURATION.search(sentence)
    with pytest.raises(ValueError, match="unknown measured block"):
        measured.rendered("speed-digits")


def test_the_bench_counts_the_planned_points_when_run_as_a_script(tmp_path):
    """``bench/warm_speed.py --write`` runs as a script: bench/ on the path, not the project."""
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import measured; "
        "print(measured.planned_points('digits'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-P", "-c", probe, str(ROOT / "bench")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert "'pages':" in done.stdout
