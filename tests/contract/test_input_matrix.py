"""The bad-input matrix is whole: every public function of the library has a row in a table."""

from labeldp_core import accounting, mechanisms
from labeldp_core.errors import InvalidInputError, LabelDPError
from tests.contract.test_accounting_inputs import ACCOUNTING_ROWS
from tests.contract.test_engine_inputs import ENGINE_ROWS
from tests.contract.test_mechanism_inputs import MECHANISM_ROWS

ROWS = [*MECHANISM_ROWS, *ACCOUNTING_ROWS, *ENGINE_ROWS]


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
