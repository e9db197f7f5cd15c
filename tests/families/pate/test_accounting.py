"""PATE accounting against reference values computed here, independently, from the papers.

Every reference below is a scalar re-derivation with ``math``/``scipy.stats`` (no code shared
with the library), written next to the statement it comes from:

- [P18] Papernot, Song, Mironov, Raghunathan, Talwar, Erlingsson, "Scalable Private Learning
  with PATE", ICLR 2018 (arXiv 1802.08908): Proposition 7 (q of GNMax), Proposition 8
  (data-independent RDP lambda/sigma^2), Theorem 6 (data-dependent RDP), Proposition 10 (mu1, mu2),
  Section 4.1 (threshold check: Gaussian on the top count, sensitivity 1).
- [P17] Papernot, Abadi, Erlingsson, Goodfellow, Talwar, "Semi-supervised Knowledge Transfer for
  Deep Learning from Private Training Data", ICLR 2017 (arXiv 1610.05755): LNMax with
  Lap(1/gamma) is (2 gamma)-DP per query, Lemma 4 (q of LNMax), Theorem 3 (data-dependent bound).
- [BS16] Bun and Steinke 2016: epsilon-DP implies (epsilon^2/2)-zCDP.
- [B20] Balle et al. 2020, Theorem 21 / Canonne, Kamath, Steinke 2020, Proposition 12: the
  RDP -> (epsilon, delta) conversion, checked against Google's dp_accounting too.
"""

import math

import dp_accounting
import numpy as np
import pytest
from scipy import stats

from labeldp_core.accounting import ORDERS, epsilon_from_rdp
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.pate import accounting as pate_accounting
from labeldp_core.families.pate.accounting import (
    calibrate_noise,
    data_independent_epsilon,
    epsilon_as_queries_grow,
    pate_epsilon,
    pate_rdp,
)
from tests.fresh_imports import imported_after

DELTA = 1e-5
SOME_ORDERS = np.array([1.5, 2.0, 5.0, 10.0, 20.0, 50.0])
#: Strong agreement (230 of 250 teachers), moderate agreement, and a near tie.
VOTES = np.array(
    [
        [230, 15, 5, 0, 0, 0, 0, 0, 0, 0],
        [150, 60, 20, 10, 10, 0, 0, 0, 0, 0],
        [101, 99, 50, 0, 0, 0, 0, 0, 0, 0],
    ],
    dtype=float,
)


# --- Scalar references, straight from the papers -------------------------------------------------


def ref_q_gnmax(counts, sigma):
    """[P18] Prop. 7: q <= sum_{i != i*} Pr[N(0, 2 sigma^2) >= n_i* - n_i], capped at 1 - 1/K."""
    top = int(np.argmax(counts))
    q = sum(
        0.5 * math.erfc((counts[top] - c) / (2 * sigma)) for i, c in enumerate(counts) if i != top
    )
    return min(q, 1 - 1 / len(counts))


def ref_q_lnmax(counts, b):
    """[P17] Lemma 4 with gamma = 1/b: q <= sum_{i != i*} (2 + gamma gap) / (4 exp(gamma gap))."""
    top = int(np.argmax(counts))
    q = sum(
        (2 + (counts[top] - c) / b) / (4 * math.exp((counts[top] - c) / b))
        for i, c in enumerate(counts)
        if i != top
    )
    return min(q, 1 - 1 / len(counts))


def ref_rdp_theorem6(q, sigma, order):
    """[P18] Thm. 6 with Prop. 10's mu2 = sigma sqrt(log 1/q), mu1 = mu2 + 1, eps_i = mu_i/sigma^2.

    Falls back to Prop. 8's lambda/sigma^2 where the theorem's conditions do not hold.
    """
    independent = order / sigma**2
    mu2 = sigma * math.sqrt(math.log(1 / q))
    mu1 = mu2 + 1
    eps1, eps2 = mu1 / sigma**2, mu2 / sigma**2
    limit = math.exp((mu2 - 1) * eps2) / ((mu1 / (mu1 - 1)) * (mu2 / (mu2 - 1))) ** mu2
    if not (mu2 > 1 and q * math.exp(eps2) < 1 and q <= limit and order < mu1):
        return independent
    a = (1 - q) / (1 - (q * math.exp(eps2)) ** ((mu2 - 1) / mu2))
    b = math.exp(eps1) / q ** (1 / (mu1 - 1))
    bound = math.log((1 - q) * a ** (order - 1) + q * b ** (order - 1)) / (order - 1)
    return min(independent, bound)


def ref_rdp_theorem3(q, eps, order):
    """[P17] Thm. 3 (moments alpha(l) at l = order - 1, divided by l), else [BS16] and pure DP."""
    independent = min(eps, order * eps**2 / 2)
    if not q < 1 / (math.exp(eps) + 1):
        return independent
    l = order - 1  # noqa: E741 (the paper's name)
    moment = math.log((1 - q) * ((1 - q) / (1 - math.exp(eps) * q)) ** l + q * math.exp(eps * l))
    return min(independent, moment / l)


def ref_conversion(rdp, order, delta):
    """[B20]: epsilon = rdp + log((alpha-1)/alpha) - (log delta + log alpha) / (alpha - 1)."""
    return rdp + math.log((order - 1) / order) - (math.log(delta) + math.log(order)) / (order - 1)


# --- Per-query bounds ----------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [20.0, 40.0, 100.0])
def test_gnmax_data_dependent_rdp_matches_theorem_6(sigma):
    rdp = pate_rdp(VOTES, aggregator="gnmax", noise=sigma, orders=SOME_ORDERS)
    for row, counts in zip(rdp, VOTES, strict=True):
        q = ref_q_gnmax(counts, sigma)
        expected = [ref_rdp_theorem6(q, sigma, order) for order in SOME_ORDERS]
        np.testing.assert_allclose(row, expected, rtol=1e-9, atol=1e-12)


def test_theorem_6_applies_where_teachers_agree_and_not_on_a_near_tie():
    sigma = 40.0
    rdp = pate_rdp(VOTES, aggregator="gnmax", noise=sigma, orders=SOME_ORDERS)
    independent = SOME_ORDERS / sigma**2
    assert np.all(rdp[0] < 0.2 * independent)  # 230 of 250 agree: a fraction of the cost
    np.testing.assert_allclose(rdp[2], independent, rtol=1e-12)  # 101 vs 99: no discount


def test_gnmax_data_independent_rdp_is_proposition_8():
    rdp = pate_rdp(VOTES, aggregator="gnmax", noise=40.0, data_dependent=False, orders=SOME_ORDERS)
    np.testing.assert_allclose(rdp, np.tile(SOME_ORDERS / 1600.0, (3, 1)), rtol=1e-15)


@pytest.mark.parametrize("b", [5.0, 20.0, 50.0])
def test_lnmax_data_dependent_rdp_matches_2017_theorem_3(b):
    rdp = pate_rdp(VOTES, aggregator="lnmax", noise=b, orders=SOME_ORDERS)
    for row, counts in zip(rdp, VOTES, strict=True):
        q = ref_q_lnmax(counts, b)
        expected = [ref_rdp_theorem3(q, 2 / b, order) for order in SOME_ORDERS]
        np.testing.assert_allclose(row, expected, rtol=1e-9, atol=1e-12)


def test_lnmax_data_independent_is_pure_dp_at_2_over_b():
    b = 20.0
    rdp = pate_rdp(VOTES, aggregator="lnmax", noise=b, data_dependent=False, orders=SOME_ORDERS)
    expected = np.minimum(0.1, SOME_ORDERS * 0.1**2 / 2)  # [P17] 2 gamma = 2/b, [BS16]
    np.testing.assert_allclose(rdp, np.tile(expected, (3, 1)), rtol=1e-15)
    # Basic composition of pure DP: Q queries cost at most Q * 2/b, with delta = 0 even.
    assert pate_epsilon(VOTES[:1], DELTA, aggregator="lnmax", noise=b, data_dependent=False) <= 0.1
    assert pate_epsilon(VOTES, DELTA, aggregator="lnmax", noise=b, data_dependent=False) <= 0.3


@pytest.mark.parametrize("threshold", [100.0, 200.0, 240.0])
def test_confident_gnmax_pays_the_threshold_check_and_answered_gnmax(threshold):
    sigma1, sigma2 = 150.0, 40.0
    answered = np.array([True, False, True])
    rdp = pate_rdp(
        VOTES,
        aggregator="confident-gnmax",
        noise=sigma2,
        threshold=threshold,
        threshold_sigma=sigma1,
        answered=answered,
        orders=SOME_ORDERS,
    )
    for row, counts, was_answered in zip(rdp, VOTES, answered, strict=True):
        # [P18] Sec. 4.1: Pr[answered] = Pr[max + N(0, sigma1^2) >= T]; the check's outcome is
        # binary, q is its less likely side, and its RDP is that of GNMax at sqrt(2) sigma1.
        answer = stats.norm.sf(threshold - counts.max(), scale=sigma1)
        q_check = min(answer, 1 - answer)
        check = [ref_rdp_theorem6(q_check, math.sqrt(2) * sigma1, o) for o in SOME_ORDERS]
        step2 = [ref_rdp_theorem6(ref_q_gnmax(counts, sigma2), sigma2, o) for o in SOME_ORDERS]
        expected = np.add(check, step2) if was_answered else np.asarray(check)
        np.testing.assert_allclose(row, expected, rtol=1e-9, atol=1e-12)


# --- Conversion and totals -----------------------------------------------------------------------


def test_conversion_matches_the_formula_and_is_tighter_than_mironov():
    rdp = np.array([0.5, 1.0, 3.0])
    orders = np.array([2.0, 20.0, 64.0])
    epsilon, order = epsilon_from_rdp(rdp, DELTA, orders)
    expected = [ref_conversion(r, a, DELTA) for r, a in zip(rdp, orders, strict=True)]
    assert epsilon == pytest.approx(min(expected), rel=1e-12)
    assert order == orders[int(np.argmin(expected))]
    mironov = min(r + math.log(1 / DELTA) / (a - 1) for r, a in zip(rdp, orders, strict=True))
    assert epsilon < mironov


@pytest.mark.parametrize(("sigma", "queries"), [(40.0, 300), (100.0, 1000), (10.0, 5)])
def test_gnmax_data_independent_epsilon_matches_dp_accounting(sigma, queries):
    # GNMax's data-independent RDP alpha/sigma^2 is the Gaussian mechanism's alpha/(2 z^2) at
    # noise multiplier z = sigma / sqrt(2); dp_accounting composes and converts independently.
    accountant = dp_accounting.rdp.RdpAccountant(orders=list(ORDERS))
    event = dp_accounting.GaussianDpEvent(sigma / math.sqrt(2))
    accountant.compose(dp_accounting.SelfComposedDpEvent(event, queries))
    ours = data_independent_epsilon(queries, DELTA, aggregator="gnmax", noise=sigma)
    assert ours == pytest.approx(accountant.get_epsilon(DELTA), rel=1e-9)


def test_confident_gnmax_data_independent_matches_dp_accounting():
    sigma1, sigma2, queries = 150.0, 40.0, 500
    accountant = dp_accounting.rdp.RdpAccountant(orders=list(ORDERS))
    per_query = dp_accounting.ComposedDpEvent(
        [dp_accounting.GaussianDpEvent(sigma1), dp_accounting.GaussianDpEvent(sigma2 / 2**0.5)]
    )
    accountant.compose(dp_accounting.SelfComposedDpEvent(per_query, queries))
    ours = data_independent_epsilon(
        queries, DELTA, aggregator="confident-gnmax", noise=sigma2, threshold_sigma=sigma1
    )
    assert ours == pytest.approx(accountant.get_epsilon(DELTA), rel=1e-9)
    votes = np.tile(VOTES, (200, 1))[:queries]
    assert pate_epsilon(
        votes,
        DELTA,
        aggregator="confident-gnmax",
        noise=sigma2,
        threshold=200,
        threshold_sigma=sigma1,
        data_dependent=False,
    ) == pytest.approx(ours, rel=1e-12)


def random_votes(rng, queries, teachers=100, classes=10):
    # Teachers agree to a varying degree: each query has its own class probabilities.
    probabilities = rng.dirichlet(np.full(classes, rng.uniform(0.05, 2.0)), size=queries)
    return np.stack([rng.multinomial(teachers, p) for p in probabilities]).astype(float)


CASES = [
    ("lnmax", 10.0, {}),
    ("gnmax", 25.0, {}),
    ("confident-gnmax", 25.0, {"threshold": 70.0, "threshold_sigma": 50.0}),
]


@pytest.mark.parametrize(("aggregator", "noise", "extra"), CASES)
def test_data_dependent_never_exceeds_data_independent(aggregator, noise, extra):
    rng = np.random.default_rng(3)
    for _ in range(20):
        votes = random_votes(rng, int(rng.integers(1, 200)))
        answered = rng.random(votes.shape[0]) < 0.5 if extra else None
        kwargs = {"aggregator": aggregator, "noise": noise, "answered": answered, **extra}
        dependent = pate_epsilon(votes, DELTA, **kwargs)
        independent = pate_epsilon(votes, DELTA, data_dependent=False, **kwargs)
        assert dependent <= independent * (1 + 1e-12)
    # ... and it is much smaller when all 100 teachers agree and the noise is well below 100.
    unanimous = np.zeros((100, 10))
    unanimous[:, 0] = 100
    kwargs = {"aggregator": aggregator, "noise": 10.0, **extra}
    assert pate_epsilon(unanimous, DELTA, **kwargs) < 0.5 * pate_epsilon(
        unanimous, DELTA, data_dependent=False, **kwargs
    )


@pytest.mark.parametrize(("aggregator", "noise", "extra"), CASES)
@pytest.mark.parametrize("data_dependent", [True, False])
def test_epsilon_grows_with_the_number_of_queries(aggregator, noise, extra, data_dependent):
    votes = random_votes(np.random.default_rng(5), 300)
    kwargs = {"aggregator": aggregator, "noise": noise, "data_dependent": data_dependent, **extra}
    checkpoints = [1, 2, 5, 10, 50, 100, 200, 300]
    curve = epsilon_as_queries_grow(votes, DELTA, checkpoints, **kwargs)
    assert np.all(np.diff(curve) > 0)
    assert curve[-1] == pytest.approx(pate_epsilon(votes, DELTA, **kwargs), rel=1e-12)
    assert curve[3] == pytest.approx(pate_epsilon(votes[:10], DELTA, **kwargs), rel=1e-12)


@pytest.mark.parametrize("aggregator", ["lnmax", "gnmax", "confident-gnmax"])
def test_data_independent_epsilon_falls_as_noise_grows(aggregator):
    noises = np.geomspace(1, 1000, 25)
    epsilons = [
        data_independent_epsilon(
            200,
            DELTA,
            aggregator=aggregator,
            noise=n,
            threshold_sigma=2 * n if aggregator == "confident-gnmax" else None,
        )
        for n in noises
    ]
    assert np.all(np.diff(epsilons) < 0)


def test_fewer_answered_queries_cost_less():
    votes = random_votes(np.random.default_rng(7), 100)
    kwargs = {
        "aggregator": "confident-gnmax",
        "noise": 20.0,
        "threshold": 60.0,
        "threshold_sigma": 40.0,
    }
    everything = pate_epsilon(votes, DELTA, **kwargs)
    assert pate_epsilon(votes, DELTA, answered=np.ones(100, bool), **kwargs) == everything
    half = pate_epsilon(votes, DELTA, answered=np.arange(100) < 50, **kwargs)
    nothing = pate_epsilon(votes, DELTA, answered=np.zeros(100, bool), **kwargs)
    assert nothing < half < everything


@pytest.mark.parametrize("aggregator", ["lnmax", "gnmax", "confident-gnmax"])
@pytest.mark.parametrize(("epsilon", "queries"), [(0.5, 100), (1.0, 500), (8.0, 20)])
def test_calibration_meets_the_target_from_below(aggregator, epsilon, queries):
    ratio = 3.0
    noise = calibrate_noise(
        epsilon, queries, DELTA, aggregator=aggregator, threshold_noise_ratio=ratio
    )
    sigma1 = ratio * noise if aggregator == "confident-gnmax" else None

    def spent(n):
        return data_independent_epsilon(
            queries,
            DELTA,
            aggregator=aggregator,
            noise=n,
            threshold_sigma=None if sigma1 is None else ratio * n,
        )

    assert spent(noise) <= epsilon
    assert spent(noise) == pytest.approx(epsilon, rel=1e-6)
    assert spent(noise * 0.999) > epsilon


def test_calibrated_gnmax_noise_is_close_to_the_closed_form():
    # With Mironov's conversion, minimising Q a / s^2 + log(1/delta) / (a - 1) gives
    # eps = Q/s^2 + 2 sqrt(Q log(1/delta)) / s; the [B20] conversion is a little tighter,
    # so the calibrated sigma is a little smaller than this closed form's.
    queries, epsilon = 500, 2.0
    log_inv = math.log(1 / DELTA)
    # Solve eps = Q/s^2 + 2 sqrt(Q log_inv)/s for s: a quadratic in 1/s.
    inv = (
        -2 * math.sqrt(queries * log_inv) + math.sqrt(4 * queries * log_inv + 4 * queries * epsilon)
    ) / (2 * queries)
    sigma = calibrate_noise(epsilon, queries, DELTA, aggregator="gnmax")
    assert 0.85 / inv < sigma < 1 / inv


# --- Bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"aggregator": "median"}, "aggregator must be one of"),
        ({"noise": 0.0}, "greater than 0"),
        ({"noise": float("nan")}, "finite"),
        ({"threshold": 100.0}, "confident-gnmax only"),
        ({"aggregator": "confident-gnmax"}, "needs threshold"),
        ({"aggregator": "confident-gnmax", "threshold": 1.0, "threshold_sigma": -1.0}, "greater"),
        (
            {
                "aggregator": "confident-gnmax",
                "threshold": 1.0,
                "threshold_sigma": 1.0,
                "answered": np.ones(2, bool),
            },
            "one entry per query",
        ),
        ({"vote_counts": np.ones(5)}, "queries, K"),
        ({"vote_counts": -np.ones((2, 3))}, "non-negative"),
        ({"vote_counts": np.full((2, 3), np.inf)}, "finite"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.5}, "delta"),
    ],
)
def test_bad_input_names_the_problem(kwargs, match):
    arguments = {"vote_counts": VOTES, "delta": DELTA, "aggregator": "gnmax", "noise": 10.0}
    with pytest.raises(InvalidInputError, match=match):
        pate_epsilon(**(arguments | kwargs))


def test_unreachable_epsilon_and_bad_checkpoints_are_explained(monkeypatch):
    monkeypatch.setattr(pate_accounting, "_NOISE_RANGE", (1e-3, 10.0))
    with pytest.raises(InvalidInputError, match="needs noise above 10 votes"):
        calibrate_noise(0.1, 1000, DELTA, aggregator="gnmax")
    with pytest.raises(InvalidInputError, match="checkpoints"):
        epsilon_as_queries_grow(VOTES, DELTA, [0, 4], aggregator="gnmax", noise=10.0)


def test_the_promised_import_path_serves_the_familys_accounting():
    # docs/interfaces.md promises labeldp_core.accounting.pate_epsilon; PATE's accounting moved
    # into its family (issue 55), and the shared accounting must not import a family to serve it.
    from labeldp_core import accounting

    assert accounting.pate_epsilon is pate_epsilon
    for name in ("AGGREGATORS", "calibrate_noise", "data_independent_epsilon", "pate_rdp"):
        assert name in accounting.__all__
        assert getattr(accounting, name) is getattr(pate_accounting, name)
    with pytest.raises(AttributeError, match="no attribute 'pate_bounds'"):
        _ = accounting.pate_bounds
    assert imported_after("import labeldp_core.accounting", ["labeldp_core.families"]) == []
