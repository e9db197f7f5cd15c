"""The registry: every table derives from the families found in their folders, so a new family is
one folder. A toy family dropped onto the families' path for one test is found and shows on every
derived table: the engine's mechanisms, Compare's defaults, the audit suite, the colours and
figures, the demo grid, the app's pages (and navigation: tests/app/test_page_table.py) and the
docs' table; once the test is over, it is gone from all of them."""

import importlib
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from labeldp_core import plots, registry
from labeldp_core.experiments import MECHANISMS, make_config, mechanism_spec, run
from labeldp_core.experiments.demo import demo_configs
from labeldp_core.plots_base.colours import series_styles
from labeldp_core.registry import (
    FAMILIES,
    ON_COMPARE,
    discover,
    discovered_again,
    family_of,
    mechanism_entries,
    registered,
)
from labeldp_core.services.release_audits import audit_cases, audit_mechanism
from tests.fresh_imports import imported_after


def test_a_toy_family_from_a_folder_shows_on_every_derived_table(toy_family):
    assert "toy-coin" not in MECHANISMS
    with discovered_again():
        assert FAMILIES[-1] is toy_family  # found in its folder; it declares no order: last
        assert mechanism_spec("toy-coin").title == "Toy coins"
        assert family_of("toy-coin") is toy_family
        assert "toy-coin" in ON_COMPARE
        assert [case.name for case in audit_cases("toy-coin", 1.0)] == [
            "toy-coin",
            "toy-coin (control: 3ε)",
        ]
        toy = series_styles({"Toy coins": []}, registry.MECHANISM_STYLES)
        assert toy["Toy coins"] == ("#123456", "solid")
        assert plots.toy_keep_figure([1.0]).data[0].x == (1.0,)
        grid = demo_configs("digits", ["toy-coin"], seeds=[0])
        assert sorted(config.epsilon for config in grid) == [0.5, 2.0]
        assert (toy_family, toy_family.page) in registry.pages()  # the app's navigation
        assert "toy-coin" in _docs_table()
    assert "toy-coin" not in MECHANISMS and toy_family not in FAMILIES
    assert not hasattr(plots, "toy_keep_figure")
    assert toy_family not in [family for family, _ in registry.pages()]


def test_a_registered_toy_family_runs_and_its_audit_catches_its_control(toy_family, isolated_cache):
    with registered(toy_family):
        result = run(make_config("toy-coin", "digits", 1.0, 0, 1, {"model": "logistic"}))
        honest, control = audit_mechanism("toy-coin", 1.0, trials=20_000, seed=0)
    assert result.mechanism == "toy-coin" and result.epsilon_spent <= 1.0
    assert result.epsilon_spent == pytest.approx(1.0)
    assert not honest.violates and control.violates


def test_two_families_cannot_declare_one_mechanism_id(toy_family):
    clash = toy_family.mechanisms[0].spec.__class__(
        **{**vars(toy_family.mechanisms[0].spec), "id": "rr"}
    )
    twin = type(toy_family)(
        **{**vars(toy_family), "mechanisms": (type(toy_family.mechanisms[0])(clash, "#000000"),)}
    )
    with registered(twin), pytest.raises(ValueError, match="declared by two families: rr"):
        registry.mechanism_entries()


def test_every_mechanism_has_a_fixed_colour_of_its_own():
    colours = [entry.colour for entry in registry.mechanism_entries()]
    assert len(set(colours)) == len(colours) == len(MECHANISMS)
    assert all(len(c) == 7 and c.startswith("#") and int(c[1:], 16) >= 0 for c in colours)


def test_families_are_found_in_their_declared_order_each_with_its_own_place():
    assert [family.id for family in discover()] == [family.id for family in FAMILIES]
    places = [family.order for family in FAMILIES]
    assert places == sorted(places) and len(set(places)) == len(places)
    assert FAMILIES[0].id == "randomized_response"  # the first page under Mechanisms


def test_a_folder_under_the_families_that_declares_no_family_is_refused(tmp_path, monkeypatch):
    from labeldp_core import families

    (tmp_path / "half_done").mkdir()
    (tmp_path / "half_done" / "__init__.py").write_text('"""No FAMILY yet."""\n')
    monkeypatch.setattr(families, "__path__", [*families.__path__, str(tmp_path)])
    try:
        with pytest.raises(TypeError, match="half_done declares no FAMILY"):
            discover()
    finally:
        sys.modules.pop("labeldp_core.families.half_done", None)
        vars(families).pop("half_done", None)


def test_every_family_folder_is_registered_and_declares_its_own_folder():
    folders = {
        path.parent.name for path in Path(registry.__file__).parent.glob("families/*/__init__.py")
    }
    assert folders == {family.id for family in FAMILIES}
    assert all(family.folder.name == family.id for family in FAMILIES)
    assert np.all([Path(target).exists() for f in FAMILIES for target in f.mutation_targets])


def _docs_table() -> str:
    """The docs' mechanism table, as the docs site builds it."""
    sys.path.insert(0, str(Path(registry.__file__).resolve().parents[1] / "docs" / "hooks"))
    try:
        mechanisms_hook = importlib.import_module("mechanisms")
    finally:
        sys.path.pop(0)
    return mechanisms_hook.mechanism_table(mechanisms_hook.families())


def _mutmut_config() -> dict:
    """``[tool.mutmut]`` of ``pyproject.toml``, as mutmut reads it."""
    import tomllib

    from tests.mutation_targets import PYPROJECT

    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["mutmut"]


def test_the_mutation_run_mutates_the_generated_targets_every_familys_among_them():
    from tests.mutation_targets import main, mutation_targets

    assert _mutmut_config()["only_mutate"] == mutation_targets()
    declared = {target for family in FAMILIES for target in family.mutation_targets}
    assert declared <= set(mutation_targets())
    assert main(["--check"]) == 0


def test_the_mutation_run_selects_the_generated_tests_every_mutated_familys_folder_among_them():
    from tests.mutation_targets import ROOT, selected_tests

    selection = selected_tests()
    assert _mutmut_config()["pytest_add_cli_args_test_selection"] == selection
    mutated = [family.id for family in FAMILIES if family.mutation_targets]
    assert [f"tests/families/{family}/" for family in mutated] == [
        path for path in selection if path.startswith("tests/families/")
    ]
    assert [path for path in selection if not (ROOT / path.split("::")[0]).exists()] == []
    assert len(set(selection)) == len(selection)


def test_listing_the_families_imports_no_torch():
    # The CLI's list, choose and the docs read the registry: torch (seconds to import) waits
    # until a training runs. A release call is named by its module's dotted name for this.
    assert imported_after("import labeldp_core.registry", ["torch", "opacus"]) == []
    for mechanism in mechanism_entries():
        assert all(isinstance(step.module, str) for step in mechanism.releases)


def test_the_toy_family_shows_on_the_tables_once_kept_by_hand(toy_family):
    # Issue 49: labeldp_core.mechanisms, the secure-release table of the epsilon tests and the
    # attacked mechanisms of 'What ε means' were hand-kept lists that dropped vector RR.
    from labeldp_core import mechanisms
    from tests.experiments.test_epsilon_spent import secure_releases

    assert "toy_release" not in mechanisms.__all__
    with discovered_again():
        assert "toy_release" in mechanisms.__all__ and "toy_release" in dir(mechanisms)
        rng = np.random.default_rng(0)
        released = mechanisms.toy_release(np.zeros(50, dtype=int), 30.0, 3, rng)
        assert np.array_equal(released, np.zeros(50))
        assert "toy-coin" in registry.TRAINS_ON_RELEASED_LABELS
        assert [step.function for step in secure_releases()["toy-coin"]] == ["toy_release"]
    assert "toy_release" not in mechanisms.__all__
    assert "toy-coin" not in registry.TRAINS_ON_RELEASED_LABELS
    assert "toy-coin" not in secure_releases()
    for name in ("vector_randomized_response", "train_labeldp_pro"):  # the two it missed
        assert name in mechanisms.__all__
    assert "vector-rr" in registry.TRAINS_ON_RELEASED_LABELS and "vector-rr" in secure_releases()


def _derived_lists() -> dict[str, object]:
    """Every list the tests and the tools once kept by hand (issue 55), derived now."""
    from tests.contract.test_input_matrix import CENTRAL_ROWS, uncovered
    from tests.contract.test_mechanism_inputs import family_rows
    from tests.contract.test_release_contract import contract_cases
    from tests.contract.test_reported_figures import draw_variants, release_steps
    from tests.experiments.test_epsilon_spent import named_diagnostics
    from tests.mutation_targets import mutation_targets, selected_tests
    from tests.release_audit.test_audit_cases import (
        audit_points,
        not_audited,
        powerful_cases,
        slow_audits,
        tight_cases,
    )
    from tests.release_spies import merged_contracts
    from tests.services.test_warm import audited_classifiers

    return {
        "mechanisms": list(MECHANISMS),
        "navigation": registry.pages(),  # ui.navigation's page table (tests/app/test_page_table)
        "tight": tight_cases(),
        "slow": slow_audits(),
        "powerful": powerful_cases(),
        "audited": [param.values for param in audit_points()],
        "not audited": not_audited(),
        "diagnostics": named_diagnostics(),
        "warm's canary audits": audited_classifiers(),
        "mutated": mutation_targets(),
        "mutation tests": selected_tests(),
        "release contracts": set(merged_contracts("IMPLIED")),
        "contract runs": contract_cases(),
        "draw steps": release_steps(),
        "draw runs": draw_variants(),
        "bad-input rows": [row.name for row in family_rows()],
        "uncovered without the families' rows": uncovered(CENTRAL_ROWS),
        "uncovered": uncovered([*CENTRAL_ROWS, *family_rows()]),
    }


def test_a_toy_family_dropped_into_the_families_is_on_every_derived_list(toy_family):
    # Issue 55: the registry's mechanisms, the app's navigation, the audit tests' sets, the
    # diagnostics the epsilon tests check, warm's runs and model audits, mutmut's targets and
    # tests, the contract tables (release contracts, the contract's runs, the draws' steps and
    # runs) and the bad-input matrix come from the family's folder and its tests folder: nothing
    # else is edited.
    from labeldp_core.services.warm import warm_tasks
    from tests.contract.bad_values import check_bad_call, check_valid_call
    from tests.contract.test_mechanism_inputs import family_rows

    before = _derived_lists()
    with discovered_again():
        found = _derived_lists()
        (row,) = [row for row in family_rows() if row.name == "toy_release"]
        check_valid_call(row)
        for bad in row.bad:  # its bad values are refused as every public function's are
            check_bad_call(row, bad)
        tasks = warm_tasks("digits")
    assert found["mechanisms"] == [*before["mechanisms"], "toy-coin"]
    assert found["navigation"] == [*before["navigation"], (toy_family, toy_family.page)]
    assert found["tight"] == before["tight"] | {"toy-coin": 0.9}
    assert found["slow"] == before["slow"] | {"toy-coin": (2.0,)}
    assert found["powerful"] == [*before["powerful"], ("toy-coin", 0)]
    assert found["audited"] == [*before["audited"], ("toy-coin", 0.5), ("toy-coin", 2.0)]
    assert found["not audited"] == before["not audited"]
    assert found["diagnostics"] == before["diagnostics"] | {"toy-coin": ("flip_rate",)}
    assert found["warm's canary audits"] == before["warm's canary audits"] | {"toy-coin"}
    assert found["mutated"] == [*before["mutated"], "labeldp_core/families/toy_coin/release.py"]
    toy_tests = "tests/families/toy_coin/"  # its tests folder, before the doctests
    assert found["mutation tests"] == [*before["mutation tests"][:-1], toy_tests, "labeldp_core/"]
    assert found["release contracts"] == before["release contracts"] | {"toy-coin"}
    toy_contract_runs = [("toy-coin", {}, "float"), ("toy-coin", {}, "secure")]
    assert found["contract runs"] == [*before["contract runs"], *toy_contract_runs]
    toy_steps = {"toy-coin": [("toy_release", "toy coins")]}  # its release, named in random_draws
    assert found["draw steps"] == before["draw steps"] | toy_steps
    assert found["draw runs"] == [*before["draw runs"], ("toy-coin", {})]
    assert found["bad-input rows"] == [*before["bad-input rows"], "toy_release"]
    # The matrix sees its public release: covered by its tests folder's row, named without it.
    assert found["uncovered"] == before["uncovered"] == []
    toy = "labeldp_core.mechanisms.toy_release"
    without = set(before["uncovered without the families' rows"])
    assert set(found["uncovered without the families' rows"]) == without | {toy}
    toy_runs = {t.config.epsilon for t in tasks if t.config and t.config.mechanism == "toy-coin"}
    assert toy_runs == {0.5, 2.0}  # warm computes its demo grid
    model_audits = {(m, e) for m, _, e in (t.model_audit for t in tasks if t.model_audit)}
    assert {("toy-coin", 0.5), ("toy-coin", 2.0)} <= model_audits
    assert _derived_lists() == before  # and once it is gone, it is on none of them


def test_a_toy_mechanism_without_an_audit_is_on_the_not_audited_list_and_no_audit_list(toy_family):
    # The audit tests' lists both ways: a mechanism that says why it has no audit case of its own
    # (not_audited) joins that list, and none of the audited ones.
    from tests.release_audit.test_audit_cases import not_audited

    why = "made of the other toys' releases, each audited where it is declared"
    unaudited = replace(toy_family.mechanisms[0], audit=None, not_audited=why)
    before = _derived_lists()
    with registered(replace(toy_family, mechanisms=(unaudited,))):
        found = _derived_lists()
        assert set(registry.CASES) == set(MECHANISMS) - set(not_audited())  # the audit test's rule
    assert found["not audited"] == before["not audited"] | {"toy-coin": why}
    for name in ("tight", "slow", "powerful", "audited"):
        assert found[name] == before[name], name
    assert found["mechanisms"] == [*before["mechanisms"], "toy-coin"]


def test_one_registration_says_what_each_table_says_of_its_mechanism():
    """The runner's one look-up per descent (spec, result unit, card) agrees with every table."""
    for entry in mechanism_entries():
        found = registry.registration(entry.id)
        assert found.spec is mechanism_spec(entry.id), entry.id
        assert found.unit == registry.result_unit(entry.id), entry.id
        assert found.card(None, 1e-5) == entry.card(None, 1e-5), entry.id
    with pytest.raises(ValueError, match="unknown mechanism 'no-such'"):
        registry.registration("no-such")
