"""Generate the lists of ``[tool.mutmut]`` in ``pyproject.toml``: what mutmut mutates, and the
tests it runs against the mutants.

The privacy-critical code is the shared base's noise, accounting and DP-SGD step
(:data:`SHARED_TARGETS`) and each family's release and its experiments' hand-off of epsilon and
noise, which every family declares (:attr:`labeldp_core.families.family.Family.mutation_targets`):
``only_mutate``. The tests run against them (``pytest_add_cli_args_test_selection``) are the
shared base's (:data:`SHARED_TESTS`) and the tests folder of each family that has files mutated
(``tests/families/<family>/``). Both lists in ``pyproject.toml`` are this module's output, never
edited by hand:

    python tests/mutation_targets.py           # print the generated blocks
    python tests/mutation_targets.py --write   # rewrite them in pyproject.toml
    python tests/mutation_targets.py --check   # exit 1 if pyproject.toml is out of date

``tests/test_registry.py`` checks that ``pyproject.toml`` holds the generated lists.
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
    "labeldp_core/accounting/sgm_rdp.py",
    "labeldp_core/engine/blocks/release_noise.py",
    "labeldp_core/training/dpsgd.py",
)
#: The shared base's fast tests that execute the targets (DP-SGD's by name: its other tests
#: train for seconds).
SHARED_TESTS = (
    "tests/noise/test_noise_plans.py",
    "tests/noise/test_discrete_laplace.py",
    "tests/noise/test_secure_noise.py",
    "tests/accounting/test_composition.py",
    "tests/accounting/test_dpsgd_accounting.py",
    "tests/accounting/test_sgm_rdp.py",
    "tests/accounting/test_wording.py",
    "tests/contract/test_release_contract.py",
    "tests/contract/test_mechanism_inputs.py",
    "tests/contract/test_accounting_inputs.py",
    "tests/contract/test_engine_inputs.py",
    "tests/contract/test_reported_figures.py",
    "tests/experiments/test_epsilon_spent.py",
    "tests/experiments/test_experiments.py",
    "tests/release_audit/test_audit_cases.py",
    *(
        f"tests/training/test_dpsgd.py::{name}"
        for name in (
            "test_the_loop_samples_at_its_rate_and_hands_the_optimiser_its_noise",
            "test_each_step_releases_the_clipped_sum_plus_gaussian_noise_over_the_expected_batch",
            "test_empty_poisson_draws_still_take_a_noisy_step",
            "test_first_adam_step_moves_every_weight_against_its_own_noisy_gradient",
            "test_the_dp_optimiser_wraps_the_optimiser_asked_with_the_privacy_settings",
            "test_the_outcome_is_the_trained_model_its_test_curve_and_its_empty_draws",
            "test_without_noise_each_step_releases_exactly_the_clipped_sum_over_the_expected_batch",
        )
    ),
)
#: The package's doctests, selected last.
DOCTESTS = "labeldp_core/"
#: How to run this module.
COMMAND = "python tests/mutation_targets.py"


def mutation_targets() -> list[str]:
    """The shared targets, then every registered family's declared ones, in the families' order."""
    from labeldp_core.registry import FAMILIES

    declared = [target for family in FAMILIES for target in family.mutation_targets]
    return list(dict.fromkeys([*SHARED_TARGETS, *declared]))


def selected_tests() -> list[str]:
    """The shared tests, the tests folder of every registered family with files mutated, then the
    package's doctests.

    A family's tests folder is ``tests/families/<family>/`` (the package
    ``tests.families.<family>``): every test in it runs against the mutants, so a test file the
    family adds is selected without an edit here.
    """
    from labeldp_core.registry import FAMILIES
    from tests.families import has_tests

    folders = [
        f"tests/families/{family.id}/"
        for family in FAMILIES
        if family.mutation_targets and has_tests(family.id)
    ]
    return [*SHARED_TESTS, *folders, DOCTESTS]


def generated() -> dict[str, list[str]]:
    """Each generated key of ``[tool.mutmut]`` with its list."""
    return {
        "only_mutate": mutation_targets(),
        "pytest_add_cli_args_test_selection": selected_tests(),
    }


def block(key: str, values: list[str]) -> str:
    """``key = [...]`` as a block of ``pyproject.toml`` (one value a line)."""
    return f"{key} = [\n" + "".join(f'    "{value}",\n' for value in values) + "]\n"


def written(text: str, lists: dict[str, list[str]]) -> str:
    """``pyproject.toml``'s ``text`` with the block of each key of ``lists`` replaced by its list.

    Raises:
        ValueError: if ``text`` holds no block for one of the keys.
    """
    for key, values in lists.items():
        pattern = re.compile(rf"^{key} = \[\n(?:    .*\n)*?\]\n", flags=re.MULTILINE)
        text, found = pattern.subn(lambda _, k=key, v=values: block(k, v), text, count=1)
        if not found:
            raise ValueError(f"pyproject.toml has no '{key} = [' block under [tool.mutmut]")
    return text


def main(argv: list[str]) -> int:
    """Print, write (``--write``) or check (``--check``) the generated blocks; 1 if out of date."""
    sys.path.insert(0, str(ROOT))
    lists = generated()
    text = PYPROJECT.read_text(encoding="utf-8")
    if "--write" in argv:
        PYPROJECT.write_text(written(text, lists), encoding="utf-8")
    elif "--check" in argv:
        stale = [key for key, values in lists.items() if written(text, {key: values}) != text]
        if stale:
            print(f"{PYPROJECT.name}: {', '.join(stale)} out of date; run {COMMAND} --write")
            return 1
    else:
        print("".join(block(key, values) for key, values in lists.items()), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
