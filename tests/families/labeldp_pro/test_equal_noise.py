"""The Papers page's equal-noise reading: the paper's likely sigma, and our epsilon at it.

The sigma stored beside each LabelDP-Pro row must be the one dp_accounting calibrates for the
paper's epsilon (add/remove PLD, the row's schedule and delta): the budget is met at it and not
at 1% less noise. Our run at :func:`equal_noise_epsilon` must calibrate back to that sigma.
"""

import dp_accounting
import pytest

from labeldp_core.accounting.dpsgd import sampling_schedule
from labeldp_core.data import training_size
from labeldp_core.families.labeldp_pro.accounting import calibrate_label_noise
from labeldp_core.families.labeldp_pro.equal_noise import equal_noise_epsilon
from labeldp_core.families.labeldp_pro.experiment import labeldp_pro_recipe
from labeldp_core.services.published import published_figures
from tests.families.labeldp_pro.pld_reference import google_pld_epsilon

PRO_ROWS = [f for f in published_figures() if f.ours["mechanism"] == "labeldp-pro"]
#: The distinct (sigma, schedule, paper's epsilon) points, one accountant check each.
POINTS = sorted(
    {
        (
            f.equal_noise["noise_multiplier"],
            *sampling_schedule(
                training_size(f.dataset), f.equal_noise["batch"], f.equal_noise["epochs"]
            ),
            f.equal_noise["delta"],
            f.epsilon,
        )
        for f in PRO_ROWS
    }
)


def _add_remove_epsilon(sigma: float, q: float, steps: int, delta: float) -> float:
    add_remove = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    return google_pld_epsilon(sigma, q, steps, delta, add_remove, interval=1e-3)


def test_every_labeldp_pro_row_names_its_noise_on_our_recipes_schedule():
    # Our equal-noise run is the recipe's run at another epsilon: its sampling rate and steps
    # must be those the stored sigma was computed for.
    assert len(PRO_ROWS) == 8
    for figure in PRO_ROWS:
        entry = figure.equal_noise
        recipe = labeldp_pro_recipe(figure.dataset)
        assert (entry["batch"], entry["epochs"]) == (recipe["batch"], recipe["epochs"])
        assert entry["delta"] == 1e-5


@pytest.mark.parametrize(("sigma", "q", "steps", "delta", "epsilon"), POINTS)
def test_the_stored_sigma_is_dp_accountings_for_the_papers_epsilon(sigma, q, steps, delta, epsilon):
    assert _add_remove_epsilon(sigma, q, steps, delta) <= epsilon
    assert _add_remove_epsilon(0.99 * sigma, q, steps, delta) > epsilon


@pytest.mark.parametrize(("sigma", "q", "steps", "delta", "epsilon"), POINTS)
def test_our_run_at_the_equal_noise_epsilon_calibrates_to_that_sigma(
    sigma, q, steps, delta, epsilon
):
    ours = equal_noise_epsilon(sigma, q, steps, delta)
    assert ours > epsilon  # our group-privacy reading certifies less at the same noise
    assert sigma <= calibrate_label_noise(ours, delta, q, steps) <= 1.01 * sigma
