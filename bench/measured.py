"""The figures the docs state about a warm, written from the bench's records, never by hand.

``bench/warm_speed.py --write`` stores what it measured in ``bench/measured/warm-DATASET.json``
(the wall time, when the pages' phase was done, the points of each phase, each kind of point's
median seconds, the commit and the machine's load) and each point's seconds in order
(``timeline-DATASET.json``); this module renders those records into the blocks of the docs
between ``<!-- measured:NAME:begin -->`` and ``<!-- measured:NAME:end -->``, or, where no record
of the code's points exists, a sentence that names the command that measures it, and writes the
per-family seconds a warm's time left starts from (``labeldp_core/services/warm_rates.json``).
``tests/docs/test_measured_figures.py`` fails when a block or the rates differ from their
rendering, when a record counts other points than the warm plans now (a family added some:
measure again), and when a page states a warm's or the suite's time outside a block.

Run: ``.venv/bin/python bench/measured.py`` rewrites every block and the rates from the records
(``make bench`` runs it with the others).
"""

import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script, bench/ is on the path and the project is not
RECORDS = ROOT / "bench" / "measured"
#: The pages whose blocks are written here: the README and every page of the site.
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
_BLOCK = re.compile(r"<!-- measured:([\w-]+):begin -->(.*?)<!-- measured:\1:end -->", re.DOTALL)
#: A progress line of ``warm``: ``[ 12.5%] POINT (SECONDS s); ...``.
_POINT = re.compile(r"^\[ *[\d.]+%\] (.+?) \(([\d.]+) s\);")
#: A run's seed in a point's label: ``rr ε=1 seed=2``.
_SEED = re.compile(r" seed=(\d+)")


def record_path(dataset: str) -> Path:
    """Where the record of a warm of ``dataset`` is kept."""
    return RECORDS / f"warm-{dataset}.json"


def read_record(dataset: str) -> dict | None:
    """The stored record of a warm of ``dataset``, or None if it was never measured."""
    path = record_path(dataset)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def planned_points(dataset: str) -> dict[str, int]:
    """How many points each phase of a warm of ``dataset`` has on this code (from any cache)."""
    from labeldp_core.services import reproduce
    from labeldp_core.services.warm import warm_tasks

    counts = {"pages": 0, "model audits": 0}
    for task in warm_tasks(dataset, reproduce.dataset_configs(dataset)):
        counts[task.phase] += 1
    return counts


def warm_record(dataset: str, total: float, lines: list[tuple[float, str]], where: dict) -> dict:
    """The record of a warm from an empty cache: its wall seconds and timed progress ``lines``.

    The pages' phase was done at the last line of a point that is not a model audit (from an
    empty cache every point has its line), every page's lines and the slider's stops at the last
    that is not a band either (a curve's later seed); ``where`` gives the commit, cores and load.
    """
    points = [(at, _POINT.match(line)) for at, line in lines]
    points = [(at, match.group(1)) for at, match in points if match]
    pages = [at for at, label in points if point_kind(label) != "model audit"]
    lines_drawn = [at for at, label in points if not _band_or_audit(label)]
    return where | {
        "dataset": dataset,
        "points": planned_points(dataset),
        "seconds": {
            "all": round(total, 1),
            "pages": round(max(pages, default=0.0), 1),
            "lines": round(max(lines_drawn, default=0.0), 1),
        },
        "costs": point_costs([line for _, line in lines]),
    }


def _band_or_audit(label: str) -> bool:
    """Whether a progress line's point is a model audit or a curve's later seed (its band).

    >>> [_band_or_audit(p) for p in ("rr ε=1 seed=0", "rr ε=1 seed=2", "audit rr case 1")]
    [False, True, False]
    """
    seed = _SEED.search(label)
    return point_kind(label) == "model audit" or (seed is not None and seed.group(1) != "0")


def stale_records() -> list[str]:
    """A line for each record whose warm planned other points than a warm plans now."""
    stale = []
    for path in sorted(RECORDS.glob("warm-*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        now = planned_points(record["dataset"])
        if record["points"] != now:
            stale.append(
                f"{path.name} measured {record['points']} points, a warm plans {now} now: run "
                f"bench/warm_speed.py --dataset {record['dataset']} --write again (or delete "
                "the record and run bench/measured.py: the docs then say it is not measured)"
            )
    return stale


def point_kind(label: str) -> str:
    """What a progress line's point is, for its cost: a mechanism, an audit case, a model audit.

    >>> [point_kind(p) for p in ("rr ε=1 seed=0", "audit pate case 3", "model audit rr ε=2")]
    ['rr', 'audit case', 'model audit']
    """
    if label.startswith("model audit "):
        return "model audit"
    return "audit case" if label.startswith("audit ") else label.split(" ")[0]


def point_costs(lines: list[str]) -> dict[str, float]:
    """Each kind of point's median seconds in a warm's progress ``lines``, costliest first.

    >>> point_costs(["[ 50.0%] rr ε=1 seed=0 (2.0 s); x", "[100.0%] rr ε=2 seed=0 (4.0 s); x"])
    {'rr': 3.0}
    """
    seconds: dict[str, list[float]] = {}
    for line in lines:
        match = _POINT.match(line)
        if match:
            seconds.setdefault(point_kind(match.group(1)), []).append(float(match.group(2)))
    medians = {kind: round(statistics.median(found), 1) for kind, found in seconds.items()}
    return dict(sorted(medians.items(), key=lambda item: -item[1]))


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"


def warm_sentence(dataset: str, record: dict | None) -> str:
    """The docs' sentence on how long a warm of ``dataset`` takes: measured, or how to measure."""
    command = f"`bench/warm_speed.py --dataset {dataset} --write`"
    if record is None:
        return (
            f"how long `warm --dataset {dataset}` takes on this code is not measured yet: "
            f"{command} measures it from an empty cache and writes it here"
        )
    points, seconds = record["points"], record["seconds"]
    pages = f"every page's {points['pages']} points"
    if "lines" in seconds:  # records from before the bands came after the lines have none
        pages = (
            f"every line of every page and the slider's stops (the curves' first seed: what "
            f"`--until-pages` waits for) ready after {_minutes(seconds['lines'])}, {pages} (the "
            "other seeds' bands too)"
        )
    return (
        f"`warm --dataset {dataset}` took {_minutes(seconds['all'])} from an empty cache on "
        f"{record['cores']} cores{_processor(record)} (load {record['load']:.1f}), {pages} ready "
        f"after {_minutes(seconds['pages'])}, its {points['model audits']} model audits after "
        f"them; measured by {command} on commit {record['commit']}{_speed(record)}"
    )


def _processor(record: dict) -> str:
    """`` of CPU, vector instructions`` if the record names them (older ones do not)."""
    return f" of {record['processor']}" if record.get("processor") else ""


def _speed(record: dict) -> str:
    """The machine's speed measured before the warm, if the record has it (older ones do not)."""
    yardstick = record.get("yardstick")
    return f", {yardstick_text(yardstick)}" if yardstick else ""


def yardstick_text(speed: dict[str, dict[str, float]]) -> str:
    """The machine's speed (``bench/machine_speed.py``'s figures) in words.

    >>> yardstick_text({"cnn": {"cpu": 1.23, "wall": 1.3}, "python": {"cpu": 0.4, "wall": 0.5}})
    'yardstick (bench/machine_speed.py, best wall s): CNN 300 steps 1.30 s, Python 0.50 s'
    """
    return (
        "yardstick (bench/machine_speed.py, best wall s): "
        f"CNN 300 steps {speed['cnn']['wall']:.2f} s, Python {speed['python']['wall']:.2f} s"
    )


def costs_table(dataset: str, record: dict | None) -> str:
    """The docs' table of each kind of point's median seconds in a warm of ``dataset``."""
    if record is None:
        return (
            f"Not measured yet: `bench/warm_speed.py --dataset {dataset} --write` writes each "
            "kind of point's median seconds here."
        )
    rows = [f"| `{kind}` | {seconds:.1f} |" for kind, seconds in record["costs"].items()]
    head = f"Median seconds of one point in a warm of {dataset} ({warm_sentence(dataset, record)})."
    return "\n".join([head, "", "| point | seconds |", "|---|---:|", *rows])


def rendered(name: str) -> str:
    """The text of the block ``name``: ``warm-DATASET`` (a sentence) or ``costs-DATASET``."""
    kind, _, dataset = name.partition("-")
    render = {"warm": warm_sentence, "costs": costs_table}.get(kind)
    if render is None or not dataset:
        raise ValueError(f"unknown measured block {name!r}: warm-DATASET or costs-DATASET")
    text = render(dataset, read_record(dataset))
    return f"\n{text}\n" if kind == "costs" else text


def rewrite(page: str) -> str:
    """``page`` with every block's text replaced by its rendering from the records."""
    return _BLOCK.sub(
        lambda m: f"<!-- measured:{m[1]}:begin -->{rendered(m[1])}<!-- measured:{m[1]}:end -->",
        page,
    )


def blocks(page: str) -> list[tuple[str, str]]:
    """(name, text) of every block of ``page``."""
    return _BLOCK.findall(page)


def outside_blocks(page: str) -> str:
    """``page`` with every block's text left out (what a person wrote by hand)."""
    return _BLOCK.sub("", page)


def timeline_path(dataset: str) -> Path:
    """Where each point of a measured warm of ``dataset`` is kept, with its seconds, in order."""
    return RECORDS / f"timeline-{dataset}.json"


def timeline(lines: list[str]) -> list[list]:
    """Each point of a warm's progress ``lines`` and its seconds, in the order they were done."""
    matches = (_POINT.match(line) for line in lines)
    return [[match.group(1), float(match.group(2))] for match in matches if match]


def rate_kind(label: str) -> str:
    """A point's family for the warm's time left: :func:`point_kind` with an audit's mechanism.

    >>> rate_kind("model audit dpsgd ε=2"), rate_kind("audit pate case 3"), rate_kind("rr ε=1")
    ('model audit dpsgd', 'audit case pate', 'rr')
    """
    kind = point_kind(label)
    if kind == "model audit":
        return f"{kind} {label.split(' ')[2]}"
    return f"{kind} {label.split(' ')[1]}" if kind == "audit case" else kind


def family_rates(points: list[list]) -> dict[str, float]:
    """Each family's median seconds a point over a timeline's ``points`` (label, seconds)."""
    seconds: dict[str, list[float]] = {}
    for label, spent in points:
        seconds.setdefault(rate_kind(label), []).append(spent)
    return {kind: round(statistics.median(found), 2) for kind, found in sorted(seconds.items())}


def rates_text() -> str:
    """The per-family seconds a warm's time left starts from (``warm_rates.json``), as JSON.

    By dataset: the family medians of its measured timeline (an audit's per mechanism)
    beside the record's costs, which still count its model audits as one family for a
    mechanism the timeline has none of; with the record's commit, cores and load.
    A warm scales them by how fast it runs the families it has seen
    (``labeldp_core.services.warm_estimate``).
    """
    rates = {}
    for path in sorted(RECORDS.glob("warm-*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        dataset = record["dataset"]
        kept = timeline_path(dataset)
        costs = dict(record["costs"])
        if kept.exists():
            costs |= family_rates(json.loads(kept.read_text(encoding="utf-8"))["points"])
        rates[dataset] = {key: record[key] for key in ("commit", "cores", "load")}
        rates[dataset]["costs"] = costs
    return json.dumps(rates, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    """Rewrite every page's blocks and the warm's rates from the records; name what changed."""
    from labeldp_core.services.warm_estimate import RATES_FILE

    text = rates_text()
    if not RATES_FILE.exists() or RATES_FILE.read_text(encoding="utf-8") != text:
        RATES_FILE.write_text(text, encoding="utf-8")
        print(f"wrote the measured rates into {RATES_FILE.relative_to(ROOT)}")
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"wrote the measured figures into {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
