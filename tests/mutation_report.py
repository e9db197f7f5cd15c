"""Write tests/MUTATION.md: every mutant that survived ``make mutation``, sorted into classes.

Run after ``mutmut run`` (``make mutation`` does). Each surviving mutant is read from the mutated
sources in ``mutants/`` (the original function beside the mutant), reduced to its changed lines
and put into the first class whose rule matches. A class says why its mutants are harmless to
the privacy guarantee, or that they are not and wait for a test; ``open`` holds what no rule
explains yet. The rules are syntactic: a class is a claim about every mutant in it, so each rule
is narrow, and what it cannot judge falls through to ``open``.
"""

import ast
import difflib
import io
import json
import re
import subprocess
import sys
import tokenize
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "tests" / "MUTATION.md"


@dataclass(frozen=True)
class Survivor:
    """One surviving mutant: where it is and the lines it changed."""

    module: str
    name: str
    old: str
    new: str

    @property
    def function(self) -> str:
        return re.sub(r"__mutmut_\d+$", "", self.name.removeprefix("x_")).replace("ǁ", ".")


def survivors() -> list[Survivor]:
    """The surviving mutants that ``mutmut results`` lists, with their changed lines."""
    listing = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    names = [line.split(":")[0].strip() for line in listing.splitlines() if "survived" in line]
    sources: dict[Path, tuple[str, dict[str, ast.AST]]] = {}
    found = []
    for full in names:
        module, _, name = full.rpartition(".")
        path = ROOT / "mutants" / (module.replace(".", "/") + ".py")
        if path not in sources:
            text = path.read_text()
            nodes = {n.name: n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)}
            sources[path] = (text, nodes)
        text, nodes = sources[path]
        original = re.sub(r"__mutmut_\d+$", "__mutmut_orig", name)
        before = ast.get_source_segment(text, nodes[original]).splitlines()[1:]
        after = ast.get_source_segment(text, nodes[name]).splitlines()[1:]
        lines = list(difflib.unified_diff(before, after, lineterm="", n=0))[2:]
        old = " ".join(x[1:].strip() for x in lines if x.startswith("-"))
        new = " ".join(x[1:].strip() for x in lines if x.startswith("+"))
        found.append(Survivor(module.removeprefix("labeldp_core."), name, old, new))
    return found


def _without_strings(code: str) -> str | None:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    return " ".join("S" if t.type == tokenize.STRING else t.string for t in tokens)


def _text(s: Survivor) -> bool:
    same = _without_strings(s.old) == _without_strings(s.new) is not None
    return same and not re.search(r"==|!=|\bin\b|mode|kind=|order=|optimizer|prior", s.old)


def _symmetric_noise(s: Survivor) -> bool:
    return re.sub(r"\+ ((?:check_)?plan\.(?:draw|discrete))", r"- \1", s.old) == s.new


def _dtype(s: Survivor) -> bool:
    pattern = r"dtype=np\.\w+|astype\(np\.min_scalar_type\([^()]*\)|dtype=total"
    if not re.search(pattern, s.old):
        return False
    kept = re.sub(r",?\s*(dtype=None|dtype=\w+)\s*(?=[,)])", "", s.new)
    return re.sub(r",?\s*dtype=[\w.]+\s*(?=[,)])", "", s.old).replace(" ", "") == kept.replace(
        " ", ""
    ) or ("min_scalar_type" in s.old and "min_scalar_type" in s.new) or "astype(None" in s.new


def _last_axis(s: Survivor) -> bool:
    variants = {
        s.old.replace("axis=-1", "axis=+1"),
        s.old.replace("shape[-1]", "shape[+1]"),
        re.sub(r",\s*axis=-1", ", ", s.old),
        re.sub(r",\s*axis=[01]\s*\)", ", )", s.old),
        re.sub(r",\s*axis=0,", ",", s.old),
    }
    return s.new in variants


def _input_check(s: Survivor) -> bool:
    text = s.old + " " + s.function
    return bool(
        re.search(r"check|isinstance|isfinite|ndim|\.size == |shape\[0\] == 0|issubdtype", text)
    )


def _tie(s: Survivor) -> bool:
    for a, b in (("<", "<="), (">", ">="), ("<=", "<"), (">=", ">")):
        for match in re.finditer(re.escape(a) + r"(?!=)", s.old):
            if s.old[: match.start()] + b + s.old[match.end() :] == s.new:
                return True
    return False


def _secure_source(s: Survivor) -> bool:
    return bool(re.search(r"\bsource\)", s.old)) and bool(re.search(r"(None\)|, \))$", s.new))


def _seeding(s: Survivor) -> bool:
    return bool(re.search(r"manual_seed|generator=|random_state=", s.old)) and (
        "None" in s.new or "0x5EED" in s.old or "generator=" not in s.new
    )


def _in(*functions: str) -> Callable[[Survivor], bool]:
    return lambda s: any(s.function.endswith(f) for f in functions)


#: (class, rule, why) in the order they are tried.
CLASSES: list[tuple[str, Callable[[Survivor], bool], str]] = [
    ("equivalent: symmetric noise", _symmetric_noise,
     "Subtracts the noise instead of adding it. Laplace, Gaussian and their discrete versions are "
     "symmetric about 0, so counts - Z has exactly the law of counts + Z: the release is the "
     "same random variable."),
    ("equivalent: last axis of 2-D arrays", _last_axis,
     "Swaps axis -1 for axis 1 or drops an axis argument whose default is the same. The arrays "
     "here are 2-D (utilities and counts are made 2-D on entry), where -1 and 1 are one axis."),
    ("equivalent: same values in another dtype", _dtype,
     "Drops or changes a dtype. Every value the code then computes is the same (integers stay "
     "exact in float64 below 2^53; booleans sum to the same count); only memory use changes."),
    ("privacy-neutral: wording", lambda s: _text(s) or s.function.endswith("describe"),
     "Changes only the words of a description, a message or a detail's key. What is released "
     "and every epsilon reported are unchanged; the pages that read the keys have their own "
     "tests outside the fast pool."),
    ("equivalent: the optimiser's defaults", _in("_dp_optimizer"),
     "Changes a default argument of _dp_optimizer, or a branch of it that no default reaches: "
     "the only caller passes the optimiser and momentum explicitly, and the tests of "
     "tests/test_dpsgd.py fix both; the noise, clip and batch handed to Opacus are untouched."),
    ("privacy-neutral: grad-sample mode", _in("_wrap"),
     "Runs another of the per-example gradient modes (ghost clipping, hooks, functorch). Each "
     "clips every example's gradient to C and adds the same noise; tests/test_dpsgd.py checks "
     "the released step of every mode. Only the speed changes."),
    ("equivalent for privacy: the source of secure draws", _secure_source,
     "Passes no source, or none, to a secure draw, which then reads os.urandom, as the runs do "
     "(a seeded source exists for tests only); float draws ignore the argument."),
    ("privacy-neutral: seeding", _seeding,
     "Seeds a generator differently or not at all: the draws keep their distribution, so the "
     "release keeps its guarantee; only replaying a run from its seed changes."),
    ("open: input checks at their edges", _input_check,
     "Accepts or refuses an edge input differently (a zero clip, a wrong type). No valid input "
     "changes its release, but these are real differences: each waits for a boundary test."),
    ("equivalent or privacy-neutral: ties", _tie,
     "Turns a strict comparison into a non-strict one (or back) where the two sides meet only on "
     "a tie: of a continuous random draw (probability 0) or of a data-independent choice between "
     "equally good options (the release stays as private; its utility is the same)."),
]


def classify(found: list[Survivor]) -> dict[str, list[Survivor]]:
    """Each survivor under the first class whose rule matches, else under ``open``."""
    classes: dict[str, list[Survivor]] = defaultdict(list)
    for survivor in found:
        name = next((c for c, rule, _ in CLASSES if rule(survivor)), "open: not yet classified")
        classes[name].append(survivor)
    return classes


def _row(s: Survivor) -> str:
    def cell(code: str) -> str:
        return "`" + code.replace("|", "\\|").replace("`", "'")[:150] + "`" if code else "(deleted)"

    number = s.name.rsplit("_", 1)[-1]
    return f"| {s.module}.{s.function} | {number} | {cell(s.old)} | {cell(s.new)} |"


def report(found: list[Survivor], stats: dict) -> str:
    """The Markdown report: totals, counts by class and module, then every survivor."""
    classes = classify(found)
    why = {name: text for name, _, text in CLASSES}
    why["open: not yet classified"] = "No rule explains these yet: each needs a look, then a test."
    caught = stats["killed"] + stats["timeout"]
    ran = caught + stats["survived"] + stats["suspicious"] + stats["segfault"]
    lines = [
        "# Surviving mutants of `make mutation`",
        "",
        "Written by `tests/mutation_report.py` after `make mutation`: "
        f"{stats['total']} mutants, {ran} run by some fast test, {stats['killed']} killed, "
        f"{stats['timeout']} timed out (counted as killed), {stats['survived']} survived: "
        f"**kill rate {caught / ran:.1%}**.",
        "",
        "| class | mutants |",
        "| --- | --- |",
        *[f"| {name} | {len(items)} |" for name, items in sorted(classes.items())],
        "",
        "| module | survivors |",
        "| --- | --- |",
        *[f"| {m} | {n} |" for m, n in Counter(s.module for s in found).most_common()],
    ]
    for name, items in sorted(classes.items()):
        lines += ["", f"## {name} ({len(items)})", "", why[name], ""]
        lines += ["| function | mutant | original | mutated |", "| --- | --- | --- | --- |"]
        lines += [_row(s) for s in items]
    return "\n".join(lines) + "\n"


def main() -> None:
    stats = json.loads((ROOT / "mutants" / "mutmut-cicd-stats.json").read_text())
    found = survivors()
    REPORT.write_text(report(found, stats))
    counts = Counter(c.split(":")[0] for c, items in classify(found).items() for _ in items)
    print(f"wrote {REPORT.relative_to(ROOT)}: {len(found)} survivors, " + ", ".join(
        f"{n} {c}" for c, n in counts.most_common()))  # fmt: skip


if __name__ == "__main__":
    main()
