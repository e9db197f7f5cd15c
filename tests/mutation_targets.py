"""Generate ``only_mutate`` of ``[tool.mutmut]`` in ``pyproject.toml``: the files mutmut mutates.

The privacy-critical code is the shared base's noise, accounting and DP-SGD step
(:data:`SHARED_TARGETS`) and each family's release and its experiments' hand-off of epsilon and
noise, which every family declares (:attr:`labeldp_core.families.family.Family.mutation_targets`).
The list in ``pyproject.toml`` is this module's output, never edited by hand:

    python tests/mutation_targets.py           # print the generated block
    python tests/mutation_targets.py --write   # rewrite it in pyproject.toml
    python tests/mutation_targets.py --check   # exit 1 if pyproject.toml is out of date

``tests/test_registry.py`` checks that ``pyproject.toml`` holds the generated list.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
#: The shared base's privacy-critical files (no family declares them): the noise plans and
#: samplers' hand-off, the accounting every family composes with, DP-SGD's step.
SHARED_TARGETS = (
    "labeldp_core/noise/noise_plans.py",
    "labeldp_core/noise/label_histogram.py",
    "labeldp_core/noise/randomized_response.py",
    "labeldp_core/accounting/composition.py",
    "labeldp_core/accounting/zcdp.py",
    "labeldp_core/accounting/gaussian_curve.py",
    "labeldp_core/accounting/dpsgd.py",
    "labeldp_core/engine/release_noise.py",
    "labeldp_core/training/dpsgd.py",
)
#: How to run this module.
COMMAND = "python tests/mutation_targets.py"
#: The ``only_mutate = [...]`` block of ``pyproject.toml``.
BLOCK = re.compile(r"^only_mutate = \[\n(?:    .*\n)*?\]\n", flags=re.MULTILINE)


def mutation_targets() -> list[str]:
    """The shared targets, then every registered family's declared ones, in the families' order."""
    from labeldp_core.registry import FAMILIES

    declared = [target for family in FAMILIES for target in family.mutation_targets]
    return list(dict.fromkeys([*SHARED_TARGETS, *declared]))


def only_mutate_block(targets: list[str]) -> str:
    """``targets`` as the ``only_mutate`` block of ``pyproject.toml`` (one path a line)."""
    return "only_mutate = [\n" + "".join(f'    "{target}",\n' for target in targets) + "]\n"


def written(text: str, targets: list[str]) -> str:
    """``pyproject.toml``'s ``text`` with its ``only_mutate`` block replaced by ``targets``'.

    Raises:
        ValueError: if ``text`` holds no ``only_mutate`` block.
    """
    new, found = BLOCK.subn(lambda _: only_mutate_block(targets), text, count=1)
    if not found:
        raise ValueError("pyproject.toml has no 'only_mutate = [' block under [tool.mutmut]")
    return new


def main(argv: list[str]) -> int:
    """Print, write (``--write``) or check (``--check``) the generated block; 1 if out of date."""
    sys.path.insert(0, str(ROOT))
    targets = mutation_targets()
    text = PYPROJECT.read_text(encoding="utf-8")
    if "--write" in argv:
        PYPROJECT.write_text(written(text, targets), encoding="utf-8")
    elif "--check" in argv:
        if written(text, targets) != text:
            print(f"{PYPROJECT.name}: only_mutate is out of date; run {COMMAND} --write")
            return 1
    else:
        print(only_mutate_block(targets), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
