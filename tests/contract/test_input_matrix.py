"""The bad-input matrix is whole: every public function of the library has a row in a table."""

from labeldp_core import accounting, mechanisms
from labeldp_core.errors import InvalidInputError, LabelDPError
from labeldp_core.registry import FAMILIES
from tests.contract.test_accounting_inputs import ACCOUNTING_ROWS
from tests.contract.test_engine_inputs import ENGINE_ROWS
from tests.contract.test_mechanism_inputs import MECHANISM_ROWS, SHARED_ROWS
from tests.families import family_modules

ROWS = [*MECHANISM_ROWS, *ACCOUNTING_ROWS, *ENGINE_ROWS]
#: The central tables' rows, without any family's (each family's are in its tests folder).
CENTRAL_ROWS = [*SHARED_ROWS, *ACCOUNTING_ROWS, *ENGINE_ROWS]


def test_invalid_input_error_is_a_value_error_and_a_labeldp_error():
    assert issubclass(InvalidInputError, ValueError)
    assert issubclass(InvalidInputError, LabelDPError)


def uncovered(rows: list) -> list[str]:
    """The public functions of the library (every registered family's too) without a row."""
    covered = {row.function for row in rows}
    return [
        f"{module.__name__}.{name}"
        for module in (mechanisms, accounting)
        for name in module.__all__
        if callable(obj := getattr(module, name))
        and not isinstance(obj, type)
        and obj not in covered
    ]


def test_every_public_function_is_in_the_matrix():
    missing = uncovered(ROWS)
    assert not missing, (
        "add a Row for each to its layer's table in tests/contract/ (a family's release API: "
        f"ROWS in tests/families/<family>/bad_inputs.py): {missing}"
    )
    assert all(row.bad for row in ROWS), "every row needs bad values"
    assert len({row.name for row in ROWS}) == len(ROWS), "one row per function"


def test_a_familys_rows_are_in_its_tests_folder_and_only_the_shared_noise_is_central():
    # A family's functions (its declared api) get their rows beside its tests, so that adding
    # or removing a family edits no central table; the central one keeps what no family owns.
    owner = {name: family.id for family in FAMILIES for api in family.api for name in api.names}
    for family, module in family_modules("bad_inputs").items():
        strays = [row.name for row in module.ROWS if owner.get(row.name) != family]
        assert not strays, f"tests/families/{family}/bad_inputs.py: not {family}'s: {strays}"
    central = {row.name: owner[row.name] for row in SHARED_ROWS if row.name in owner}
    assert not central, f"move each to tests/families/<family>/bad_inputs.py: {central}"
