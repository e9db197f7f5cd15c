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
    pattern = r"dtype=np\.\w+|astype\(np\.|np\.asarray\(\w+, np\.\w+\)|dtype=total|min_scalar"
    if not re.search(pattern, s.old):
        return False

    def bare(code: str) -> str:
        code = re.sub(r"(dtype=)?(np\.(float64|int64)|None|total)\s*(?=[,)])", "", code)
        return re.sub(r"[\s,]+\)", ")", code).replace(" ", "")

    return (
        bare(s.old) == bare(s.new)
        or ("min_scalar_type" in s.old and "min_scalar_type" in s.new)
        or "astype(None" in s.new
    )


def _last_axis(s: Survivor) -> bool:
    swaps = [
        ("axis=-1", "axis=+1"),
        ("shape[-1]", "shape[+1]"),
        (r",\s*axis=-1", ", "),
        (r",\s*axis=[01]\s*\)", ", )"),
        (r",\s*axis=0,", ","),
    ]
    for pattern, replacement in swaps:  # each occurrence on its own, as a mutant changes one
        for match in re.finditer(re.escape(pattern) if "\\" not in pattern else pattern, s.old):
            if s.old[: match.start()] + replacement + s.old[match.end() :] == s.new:
                return True
    return False


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


def _progress_span(s: Survivor) -> bool:
    span = r"\b(start|end)=[\w.]+,?\s*"
    return bool(re.search(span, s.old)) and re.sub(span, "", s.old) == re.sub(span, "", s.new)


@dataclass(frozen=True)
class Reviewed:
    """One mutant looked at by hand: where, what changed (substrings), and why it is harmless."""

    function: str
    old: str
    new: str
    why: str

    def matches(self, s: Survivor) -> bool:
        return s.function.endswith(self.function) and self.old in s.old and self.new in s.new


#: Mutants no syntactic rule can judge, each explained after reading the code around it.
REVIEWED = [
    Reviewed(
        "_stable_softmax",
        "where=shifted",
        "zeros_like(shifted), )",
        "computes exp below exp(-700) too: those weights are < 1e-304 beside the row's 1",
    ),
    Reviewed(
        "_sample_rows",
        "* cumulative[:, -1]",
        "/ cumulative[:, -1]",
        "the cumulative sum of probabilities ends at 1 (to rounding): * and / agree",
    ),
    Reviewed(
        "_sample_rows",
        "shape[-1] - 1",
        "shape[-1] + 1",
        "a guard against rounding: a draw below the last cumulative value never reaches it",
    ),
    Reviewed(
        "_log_binomial",
        "- gammaln(k + 1)",
        "+ gammaln(k + 1)",
        "adds a constant to every log-weight of the row, which the softmax removes",
    ),
    Reviewed(
        "_log_binomial",
        "gammaln(k + 1)",
        "gammaln(k + 2)",
        "adds a constant to every log-weight of the row, which the softmax removes",
    ),
    Reviewed(
        "_log_binomial",
        "valid = n >= k",
        "valid = None",
        "gammaln is +inf at 0 and the negative integers, so n < k still gives -inf",
    ),
    Reviewed(
        "exponential_topk",
        'kind="stable"',
        "",
        "another sort among tied utilities: every order consistent with the utilities "
        "yields the same distribution over sets",
    ),
    Reviewed(
        "exponential_topk",
        "= np.inf",
        "= None",
        "stores NaN instead of inf; argpartition puts NaN last, as it puts inf",
    ),
    Reviewed(
        "exponential_topk",
        "argpartition(keys, k - 2",
        "argpartition(keys, k - 3",
        "the better members are the leading positions; NumPy's partition returns the same "
        "k-1 keys either way (measured: identical draws at k = 3, 5, 7 over 60,000 rows)",
    ),
    Reviewed(
        "run_alibi",
        "plan.epsilon_spent, estimate.prior, scale=plan.scale",
        "",
        "the posterior gets its noise scale twice, as scale and as the epsilon 2/scale; "
        "dropping either leaves the other, which gives the same likelihood",
    ),
    Reviewed(
        "estimate_prior",
        "one_group, labels, 1,",
        "one_group, labels, 2,",
        "counts a second, empty group whose noisy row is discarded: row 0 keeps its law",
    ),
    Reviewed(
        "run_laplace_regression",
        "high - low",
        "high + low",
        "low is the constant 0.0 two lines above",
    ),
    Reviewed(
        "run_rr_bins",
        "minlength=data.num_classes",
        "",
        "every dataset shipped here has every class in its training split (users' own "
        "tables, issue 21, will need a test with a missing class)",
    ),
    Reviewed(
        "_random_draws", "insert(0,", "insert(1,", "only the order in which the sources are listed"
    ),
    Reviewed(
        "image_clusters",
        '"image-clusters"',
        "None",
        "another name for the artefact's key space; the key still hashes the payload",
    ),
    Reviewed(
        "set_size_details",
        "key(SET_SIZES_KIND",
        "key(None",
        "another name for the artefact's key space; the key still hashes the config",
    ),
    Reviewed(
        "cluster_scores",
        "min(SILHOUETTE_SAMPLE",
        "sample = None",
        "scores every output instead of a sample: the sample only bounds the time",
    ),
    Reviewed(
        "run_softmax_laplace",
        "config.seed)",
        "None)",
        "k-means unseeded: a diagnostic of the outputs, not a release",
    ),
    Reviewed(
        "run_softmax_laplace",
        "replace=False",
        "replace=None",
        "None is falsy: NumPy samples without replacement as with False",
    ),
    Reviewed(
        "vote_counts",
        "total = np.min_scalar_type",
        "total = None",
        "the counts' dtype only (NumPy's default integer): the same counts",
    ),
    Reviewed(
        "_laplace_plan",
        "gaussian_plan(0.0, noise)",
        "gaussian_plan(0.0, )",
        "no noise at scale 0: only the dtype of the zeros added changes",
    ),
    Reviewed(
        "GaussianPlan.draw",
        "np.zeros(shape, dtype=",
        "",
        "zeros (sigma 0: no noise) in another dtype; the counts they are added to keep "
        "their values",
    ),
    Reviewed(
        "LaplacePlan.draw",
        "self.discrete(shape, rng, source)",
        "discrete(shape, None,",
        "secure draws read the secure source; the generator is not used by them",
    ),
    Reviewed(
        "_sorted_descending",
        "columns.shape[0] >",
        "columns.shape[1] >",
        "picks the other of two exact descending sorts (np.sort or the sorting network)",
    ),
    Reviewed(
        "_best_sizes",
        "np.arange(1, num_classes + 1)",
        "num_classes + 2",
        "one more keep probability computed, never read (sizes go up to K)",
    ),
    Reviewed(
        "_best_sizes",
        "best = mass * keep[0]",
        "best = mass / keep[0]",
        "keep[0], the keep chance of a one-label set, is exactly 1",
    ),
    Reviewed(
        "_best_sizes",
        "threshold = descending[0]",
        "threshold = descending[1]",
        "with k* = 1 the set is the single largest prior either way: a tie at the top "
        "always makes a two-label set better, and below the top needed = 0 excludes ties",
    ),
    Reviewed(
        "_noisy_step",
        "set_to_none=True",
        "",
        "zeroed instead of freed gradients: the step writes every .grad afresh either way",
    ),
    Reviewed(
        "_noisy_step",
        "continue",
        "break",
        "the project's models have no frozen parameter, so the loop never meets one",
    ),
    Reviewed(
        "_noisy_step",
        "new_zeros((0, *parameter.shape))",
        "new_zeros((1,",
        "an empty draw gets one all-zero example instead of none: its clipped sum is 0 too",
    ),
    Reviewed(
        "train_dpsgd_classifier",
        "memory_format=_memory_format(settings)",
        "memory_format=None",
        "the tensors' memory layout only: the same numbers",
    ),
    Reviewed(
        "train_dpsgd_classifier",
        "clip, noise, privacy.optimizer",
        "clip, None,",
        "Opacus draws the noise from its own unseeded generator: the same law, no replay",
    ),
    Reviewed(
        "_noisy_step",
        "images.shape[0] == 0",
        "images.shape[1] == 0",
        "an empty draw then runs the loss on no example: a zero clipped sum, as before",
    ),
    Reviewed(
        "_top_sets",
        "",
        "",
        "k* never splits a group of tied priors (along equal priors the keep chance "
        "(A + jp)/(c + j) is monotone in j), so the tie count is never cut; and members "
        "beyond k* could not be released anyway: the coins pick among the first k*",
    ),
    Reviewed(
        "_check_priors",
        "",
        "",
        "RR-with-prior is epsilon-label-DP for any prior that does not read the example's "
        "label, valid or not: these lines only decide which input error is raised (each "
        "message is tested in tests/contract/) or rescale rows that already sum "
        "to 1 within the tolerance",
    ),
    Reviewed(
        "set_keep_probability",
        "np.issubdtype(sizes.dtype, np.floating)",
        "",
        "accepts or refuses whole sizes stored as floats; the value computed is the same",
    ),
    Reviewed(
        "rr_plan",
        "flip = max(1,",
        "flip = max(2,",
        "the downward search that follows ends at the smallest m within epsilon anyway",
    ),
    Reviewed(
        "rr_plan",
        "flip += 1",
        "flip += 2",
        "overshooting by one is undone by the downward search to the smallest m",
    ),
    Reviewed(
        "rr_plan",
        "while flip > 1 and",
        "while flip > 2 and",
        "the search reaches m = 1 only from a start of 1: a start of ceil(e^-eps D) >= 2 "
        "means eps < ln D, where m = 1 is not within epsilon",
    ),
    Reviewed(
        "_log_ratio",
        '+ Decimal("1e-40")',
        '- Decimal("1e-40")',
        "a margin of 1e-40 on a 50-digit logarithm: no float64 epsilon can tell the sign",
    ),
]


def _reviewed(s: Survivor) -> bool:
    return any(entry.matches(s) for entry in REVIEWED)


def _in(*functions: str) -> Callable[[Survivor], bool]:
    return lambda s: any(s.function.endswith(f) for f in functions)


#: (class, rule, why) in the order they are tried.
CLASSES: list[tuple[str, Callable[[Survivor], bool], str]] = [
    (
        "equivalent: symmetric noise",
        _symmetric_noise,
        "Subtracts the noise instead of adding it. Laplace, Gaussian and their discrete versions "
        "are symmetric about 0, so counts - Z has exactly the law of counts + Z: the release is "
        "the same random variable.",
    ),
    (
        "equivalent: last axis of 2-D arrays",
        _last_axis,
        "Swaps axis -1 for axis 1 or drops an axis argument whose default is the same. The arrays "
        "here are 2-D (utilities and counts are made 2-D on entry), where -1 and 1 are one axis.",
    ),
    (
        "equivalent: same values in another dtype",
        _dtype,
        "Drops or changes a dtype. Every value the code then computes is the same (integers stay "
        "exact in float64 below 2^53; booleans sum to the same count); only memory use changes.",
    ),
    (
        "privacy-neutral: wording",
        lambda s: _text(s) or s.function.endswith("describe"),
        "Changes only the words of a description, a message or a detail's key. What is released "
        "and every epsilon reported are unchanged; the pages that read the keys have their own "
        "tests outside the fast pool.",
    ),
    (
        "equivalent: the optimiser's defaults",
        _in("_dp_optimizer"),
        "Changes a default argument of _dp_optimizer, or a branch of it that no default reaches: "
        "the only caller passes the optimiser and momentum explicitly, and the tests of "
        "tests/training/test_dpsgd.py fix both; the noise, clip and batch handed to Opacus are "
        "untouched.",
    ),
    (
        "privacy-neutral: grad-sample mode",
        _in("_wrap"),
        "Runs another of the per-example gradient modes (ghost clipping, hooks, functorch). Each "
        "clips every example's gradient to C and adds the same noise; tests/training/test_dpsgd.py "
        "checks "
        "the released step of every mode. Only the speed changes.",
    ),
    (
        "equivalent for privacy: the source of secure draws",
        _secure_source,
        "Passes no source, or none, to a secure draw, which then reads os.urandom, as the runs do "
        "(a seeded source exists for tests only); float draws ignore the argument.",
    ),
    (
        "privacy-neutral: seeding",
        _seeding,
        "Seeds a generator differently or not at all: the draws keep their distribution, so the "
        "release keeps its guarantee; only replaying a run from its seed changes.",
    ),
    (
        "privacy-neutral: progress bar spans",
        _progress_span,
        "Changes which part of the progress bar a training step fills; nothing it computes.",
    ),
    (
        "equivalent: reviewed one by one",
        _reviewed,
        "Each was read in its context; the reason is in REVIEWED in tests/mutation_report.py.",
    ),
    (
        "open: input checks at their edges",
        _input_check,
        "Accepts or refuses an edge input differently (a zero clip, a wrong type). No valid input "
        "changes its release, but these are real differences: each waits for a boundary test.",
    ),
    (
        "equivalent or privacy-neutral: ties",
        _tie,
        "Turns a strict comparison into a non-strict one (or back) where the two sides meet only "
        "on a tie: of a continuous random draw (probability 0) or of a data-independent choice "
        "between equally good options (the release stays as private; its utility is the same).",
    ),
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
    print(
        f"wrote {REPORT.relative_to(ROOT)}: {len(found)} survivors, "
        + ", ".join(f"{n} {c}" for c, n in counts.most_common())
    )


if __name__ == "__main__":
    main()
