"""Noise plans: each family's one owner draws the noise and reports an epsilon never above the ask.

Exact checks (fractions, 50-digit logarithms) where a closed form exists, chi-square tests of the
coins with fixed seeds, and the seeded generator's state to show that secure draws never use it.
"""

import math
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats

from labeldp_core.accounting import split_budget_by_share
from labeldp_core.base.validation import MAX_EPSILON
from labeldp_core.engine.blocks.release_noise import histogram_split
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.laplace_labels.label_prior import PriorEstimate, budget_table
from labeldp_core.families.laplace_labels.rr_bins_release import (
    optimal_bins,
    rr_bins_epsilon,
    rr_on_bins,
)
from labeldp_core.families.pate.release import confident_gnmax
from labeldp_core.mechanisms import (
    laplace_one_hot,
    laplace_regression,
    noisy_argmax,
    noisy_label_counts,
    rr_with_prior,
)
from labeldp_core.noise.noise_plans import (
    _sqrt_at_most,
    gaussian_plan,
    laplace_plan,
    laplace_plan_for_scale,
    rr_plan,
)
from labeldp_core.noise.randomized_response import randomized_response
from labeldp_core.noise.secure_noise import SeededSource, float_at_least

#: Every epsilon of a 0.05 grid, where 2 / (2 / epsilon) came out above epsilon for 16 of them.
GRID = [round(0.05 * i, 2) for i in range(1, 200)]
ALPHA = 1e-3
EPSILONS = st.floats(min_value=1e-6, max_value=MAX_EPSILON, allow_nan=False)


def _ln(ratio: Fraction) -> Decimal:
    context = Context(prec=60)
    return context.ln(Decimal(ratio.numerator)) - context.ln(Decimal(ratio.denominator))


def test_the_float_calibration_that_overspent_is_caught_on_the_grid():
    # The old reports: sensitivity / (sensitivity / epsilon) in floating point.
    overspent = [e for e in GRID if 2.0 / (2.0 / e) > e]
    assert 3.7 in overspent and len(overspent) == 16


@pytest.mark.parametrize("mode", ["float", "secure"])
@pytest.mark.parametrize("sensitivity", [1.0, 2.0, 9.0])
def test_laplace_plan_never_spends_more_than_asked_on_the_grid(sensitivity, mode):
    for epsilon in GRID:
        plan = laplace_plan(sensitivity, epsilon, mode)
        exact = Fraction(sensitivity) / Fraction(plan.exact_scale or plan.scale)
        assert exact <= Fraction(plan.epsilon_spent) <= Fraction(epsilon), epsilon
        if mode == "secure":  # the scale rounded up by less than 1/1000
            assert plan.exact_scale - Fraction(sensitivity) / Fraction(epsilon) < Fraction(1, 1000)
        else:  # at most one unit in the last place away
            assert epsilon - plan.epsilon_spent <= math.ulp(epsilon)


@given(epsilon=EPSILONS, sensitivity=st.sampled_from([1.0, 2.0, 9.0, 0.7]))
def test_laplace_plan_never_spends_more_than_asked_for_any_float(epsilon, sensitivity):
    plan = laplace_plan(sensitivity, epsilon)
    assert Fraction(sensitivity) / Fraction(plan.scale) <= Fraction(plan.epsilon_spent)
    assert plan.epsilon_spent <= epsilon


@given(epsilon=EPSILONS, classes=st.integers(min_value=2, max_value=1024))
def test_rr_plan_ratio_is_at_most_e_epsilon_exactly(epsilon, classes):
    plan = rr_plan(epsilon, classes)
    ratio = Fraction(plan.denominator, plan.flip_weight)
    assert _ln(ratio) <= Decimal(plan.epsilon_spent) <= Decimal(epsilon)
    assert plan.denominator + (classes - 1) * plan.flip_weight <= 2**62


def test_rr_plan_spends_all_it_can_on_its_grid():
    # m is the smallest flip weight whose ratio D/m stays within e^epsilon: one less overspends.
    for epsilon in GRID:
        plan = rr_plan(epsilon, 10)
        one_less = float_at_least(_ln(Fraction(plan.denominator, plan.flip_weight - 1)))
        assert one_less > epsilon >= plan.epsilon_spent
        # ln(D/(m-1)) - ln(D/m) is about 1/m: all that is left unspent.
        assert epsilon - plan.epsilon_spent <= 1.0 / (plan.flip_weight - 1) + math.ulp(epsilon)


def _release_losses(release_epsilon: float, mode: str) -> dict[str, float]:
    """What rr-prior, ALIBI and RR-on-bins (10 bins) spend of the release budget left to them."""
    return {
        "rr-prior": rr_plan(release_epsilon, 10, mode).epsilon_spent,
        "alibi": laplace_plan(2.0, release_epsilon, mode).epsilon_spent,
        "rr-bins": rr_bins_epsilon(10, release_epsilon),
    }


#: Issue 34's grid: 600 totals from 0.01 to 40, evenly spaced in log, the example among them.
COMPOSED_GRID = sorted({*GRID, *np.geomspace(0.01, 40, 600).tolist(), 5.082239008815137})


def test_histogram_and_release_add_up_to_at_most_the_total_exactly_on_the_grid():
    # Before issue 34 the floats said "equal to the total" where the exact sum was one unit in
    # the last place above it (e.g. 5.082239008815137, float mode).
    for mode in ("float", "secure"):
        for total in COMPOSED_GRID:
            split, plan = histogram_split(split_budget_by_share(total, 0.2), mode)
            assert split.prior_epsilon == plan.epsilon_spent
            estimate = PriorEstimate(np.ones(10) / 10, split, plan=plan)
            for name, release in _release_losses(split.release_epsilon, mode).items():
                exact = Fraction(split.prior_epsilon) + Fraction(release)
                reported = budget_table(estimate, name, release)[-1]["epsilon"]
                assert exact <= Fraction(reported) <= Fraction(total), (total, mode, name)


def test_gaussian_plan_accounts_a_sigma_never_above_the_one_drawn():
    for sigma in (0.3, 1.0, 7.77, 40.1):
        plan = gaussian_plan(sigma, "secure")
        assert Fraction(plan.sigma) ** 2 <= plan.exact_variance
        assert plan.exact_variance >= Fraction(sigma) ** 2
        assert gaussian_plan(sigma).sigma == sigma


def test_plans_refuse_what_they_cannot_draw():
    with pytest.raises(InvalidInputError, match="integer"):
        laplace_plan(2.0, 1.0, "secure").continuous((3,), np.random.default_rng(0))
    with pytest.raises(InvalidInputError, match="noise must be one of"):
        rr_plan(1.0, 10, "quantum")
    with pytest.raises(InvalidInputError, match="1024"):
        rr_plan(1.0, 2000)
    with pytest.raises(InvalidInputError, match=r"1\.\.3"):
        rr_plan(1.0, 3).keep(np.array([4]), np.random.default_rng(0))


@pytest.mark.parametrize("mode", ["float", "secure"])
def test_rr_coins_keep_with_the_plans_exact_probability(mode):
    plan = rr_plan(0.7, 5, mode)
    sizes = np.tile([1, 2, 5], 60_000)
    rng, source = np.random.default_rng(3), SeededSource(3)
    kept = plan.keep(sizes, rng, source)
    for size in (1, 2, 5):
        count = int(kept[sizes == size].sum())
        probability = float(plan.keep_probability(size))
        assert stats.binomtest(count, 60_000, probability).pvalue > ALPHA
    assert kept[sizes == 1].all()  # a set of one keeps its label


def _state(rng: np.random.Generator) -> dict:
    return rng.bit_generator.state


SECURE_RELEASES = {
    "randomized_response": lambda rng: randomized_response(
        np.arange(200) % 10, 0.5, 10, rng, noise="secure"
    ),
    "rr_with_prior": lambda rng: rr_with_prior(
        np.arange(200) % 4, np.full((200, 4), 0.25), 0.5, rng, noise="secure"
    ),
    "rr_on_bins": lambda rng: rr_on_bins(
        np.arange(200.0) % 5,
        optimal_bins(np.arange(5.0), np.full(5, 0.2), 2.0),
        rng,
        noise="secure",
    ),
    "laplace_one_hot": lambda rng: laplace_one_hot(np.arange(200) % 3, 0.5, 3, rng, noise="secure"),
    "laplace_regression": lambda rng: laplace_regression(
        np.arange(200.0) % 5, 0.5, 0, 4, rng, noise="secure"
    ),
    "noisy_label_counts": lambda rng: noisy_label_counts(
        np.zeros(200, int), np.arange(200) % 3, 1, 3, 0.5, rng, noise="secure"
    ),
    "lnmax": lambda rng: noisy_argmax(
        np.tile([[5, 5, 1]], (200, 1)), rng, laplace_scale=2.0, noise="secure"
    ),
    "gnmax": lambda rng: noisy_argmax(
        np.tile([[5, 5, 1]], (200, 1)), rng, gaussian_sigma=2.0, noise="secure"
    ),
    "confident_gnmax": lambda rng: confident_gnmax(
        np.tile([[5, 5, 1]], (200, 1)),
        rng,
        threshold=4,
        threshold_sigma=2.0,
        gaussian_sigma=2.0,
        noise="secure",
    ),
}


@pytest.mark.parametrize("name", list(SECURE_RELEASES))
def test_secure_releases_draw_nothing_from_the_seeded_generator(name):
    # Ties, coins and noise all come from os.urandom: the seeded generator's state is untouched,
    # and two calls with equally seeded generators release different things.
    release = SECURE_RELEASES[name]
    rng = np.random.default_rng(7)
    before = _state(rng)
    first = release(rng)
    assert _state(rng) == before
    second = release(np.random.default_rng(7))
    assert not np.array_equal(first, second)


def _replay_attack(release, labels: np.ndarray, num_classes: int, seed: int) -> float:
    """Accuracy of guessing each label by replaying the release with the seed for every class.

    The attacker knows the seed and the mechanism: for each candidate class c it computes what
    the release would give if every label were c, and guesses the class whose replay matches the
    observed release (the first such, else the released label itself).
    """
    observed = release(labels, np.random.default_rng(seed))
    replays = np.stack(
        [release(np.full_like(labels, c), np.random.default_rng(seed)) for c in range(num_classes)]
    )
    matches = replays == observed[None, :]
    guess = np.where(matches.any(axis=0), matches.argmax(axis=0), observed)
    return float(np.mean(guess == labels))


@pytest.mark.parametrize("mode", ["float", "secure"])
def test_a_seeded_replay_recovers_nothing_beyond_the_bound_in_secure_mode(mode):
    epsilon, classes, n = 0.1, 10, 20_000
    labels = np.random.default_rng(1).integers(0, classes, n)

    def release(values, rng):
        return randomized_response(values, epsilon, classes, rng, noise=mode)

    accuracy = _replay_attack(release, labels, classes, seed=42)
    bound = math.exp(epsilon) / (math.exp(epsilon) + classes - 1)  # 0.109
    if mode == "float":
        # Where the coins are seeded the attack finds every kept label: it has power.
        assert accuracy > 2 * bound
    else:
        assert accuracy <= bound + 4.5 * math.sqrt(bound * (1 - bound) / n)


@pytest.mark.parametrize("scale", [0.5, 3.0])
def test_lnmax_plan_for_a_scale_rounds_the_secure_scale_up(scale):
    assert laplace_plan_for_scale(scale).scale == scale
    secure = laplace_plan_for_scale(scale, "secure")
    assert secure.exact_scale >= Fraction(scale) and secure.scale == float(secure.exact_scale)


SEEDED_RELEASES = {
    "randomized_response": lambda source: randomized_response(
        np.arange(300) % 10, 0.5, 10, np.random.default_rng(), noise="secure", source=source
    ),
    "rr_with_prior": lambda source: rr_with_prior(
        np.arange(300) % 4,
        np.full((300, 4), 0.25),
        0.5,
        np.random.default_rng(),
        noise="secure",
        source=source,
    ),
    "rr_on_bins": lambda source: rr_on_bins(
        np.arange(300.0) % 5,
        optimal_bins(np.arange(5.0), np.full(5, 0.2), 2.0),
        np.random.default_rng(),
        noise="secure",
        source=source,
    ),
    "laplace_one_hot": lambda source: laplace_one_hot(
        np.arange(300) % 3, 0.5, 3, np.random.default_rng(), noise="secure", source=source
    ),
    "noisy_label_counts": lambda source: noisy_label_counts(
        np.zeros(300, int),
        np.arange(300) % 3,
        1,
        3,
        0.5,
        np.random.default_rng(),
        noise="secure",
        source=source,
    ),
    "lnmax": lambda source: noisy_argmax(
        np.tile([[5, 5, 1]], (300, 1)),
        np.random.default_rng(),
        laplace_scale=2.0,
        noise="secure",
        source=source,
    ),
    "gnmax": lambda source: noisy_argmax(
        np.tile([[5, 5, 1]], (300, 1)),
        np.random.default_rng(),
        gaussian_sigma=2.0,
        noise="secure",
        source=source,
    ),
    "confident_gnmax": lambda source: confident_gnmax(
        np.tile([[5, 5, 1]], (300, 1)),
        np.random.default_rng(),
        threshold=4,
        threshold_sigma=2.0,
        gaussian_sigma=2.0,
        noise="secure",
        source=source,
    ),
}


@pytest.mark.parametrize("name", list(SEEDED_RELEASES))
def test_every_secure_draw_comes_from_the_one_source_given(name):
    # Two releases fed the same seeded source agree bit for bit (unseeded generators beside
    # them): every coin, noise draw and tie-break came from that source and nothing else.
    release = SEEDED_RELEASES[name]
    first, second = release(SeededSource(11)), release(SeededSource(11))
    np.testing.assert_array_equal(first, second)
    assert not np.array_equal(first, release(SeededSource(12)))


def test_a_plan_for_a_given_scale_is_for_sensitivity_2_unless_told():
    # Written for surviving mutants of laplace_plan_for_scale's sensitivity (PATE's LNMax relies
    # on the default: one teacher moves one vote, an L1 change of 2).
    for mode in ("float", "secure"):
        plan = laplace_plan_for_scale(4.0, mode)
        assert plan.sensitivity == 2.0 and plan.epsilon_spent == pytest.approx(0.5, rel=1e-12)
        other = laplace_plan_for_scale(4.0, mode, sensitivity=1.0)
        assert other.sensitivity == 1.0 and other.epsilon_spent == pytest.approx(0.25, rel=1e-12)


@pytest.mark.parametrize("size", [2, 3, 8, 9, 10, 64, 100, 1024])
def test_rr_coins_use_the_finest_power_of_two_grid_the_bound_allows(size):
    plan = rr_plan(1.0, size)
    denominator = plan.denominator
    assert denominator & (denominator - 1) == 0  # a power of two
    assert size * denominator <= 2**62 < 2 * size * denominator


def test_rr_coins_beyond_ln_d_flip_with_weight_one():
    # Above epsilon = ln(D) no coarser coin fits: m = 1 and the plan spends exactly ln(D).
    plan = rr_plan(60.0, 10)
    assert plan.flip_weight == 1
    assert plan.epsilon_spent == pytest.approx(math.log(plan.denominator), rel=1e-15)
    assert plan.epsilon_spent < 60.0


@given(st.integers(1, 10**12), st.integers(1, 10**12))
@example(4, 1)  # exact squares: the root itself, not the float below it
@example(9, 16)
def test_the_secure_gaussian_root_never_exceeds_the_exact_root(numerator, denominator):
    value = Fraction(numerator, denominator)
    root = _sqrt_at_most(value)
    assert Fraction(root) ** 2 <= value < Fraction(np.nextafter(root, np.inf)) ** 2


@pytest.mark.parametrize(
    ("sigma", "match"),
    [
        (True, "sigma must be a number"),
        ("1", "sigma must be a number"),
        (-1.0, "finite number >= 0"),
        (float("inf"), "finite number >= 0"),
        (float("nan"), "finite number >= 0"),
    ],
)
def test_a_gaussian_plan_refuses_a_sigma_that_is_not_a_finite_non_negative_number(sigma, match):
    with pytest.raises(InvalidInputError, match=match):
        gaussian_plan(sigma)
