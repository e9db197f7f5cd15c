"""The replace-one pair's last step, checked numerically: two gradients in a plane.

The family README reduces one step of the label-changed DP-SGD release to
P = (1 - q) N(0, s^2 I) + q N(a, s^2 I) against Q = (1 - q) N(0, s^2 I) + q N(b, s^2 I) in the
plane spanned by the two clipped gradients a and b (|a|, |b| <= 1 in units of the clip), and
claims that the antipodal unit pair a = -b, |a| = 1 (the one-dimensional pair dp_accounting's
REPLACE_ONE composes) has the largest hockey-stick divergence H_alpha(P || Q) = int (p - alpha
q)_+ for every alpha >= 0. No theorem covering vectors was found, so this checks the claim on a
grid of sampling rates, noise scales, alphas, norms and angles by quadrature on the plane, and
checks that the integrator's antipodal value is dp_accounting's own for that pair.
"""

import itertools
import math

import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from dp_accounting.pld import privacy_loss_distribution

NORMS = (0.5, 1.0)
ANGLES = tuple(np.linspace(0.0, math.pi, 7))


class Plane:
    """Gaussian densities of scale ``s`` on a grid over +-(1 + 7 s), for the midpoint rule."""

    def __init__(self, s: float, points: int = 301) -> None:
        edge = 1 + 7 * s
        axis = np.linspace(-edge, edge, points)
        self.x, self.y = np.meshgrid(axis, axis, indexing="ij")
        self.s, self.area = s, (axis[1] - axis[0]) ** 2

    def density(self, centre: tuple[float, float]) -> np.ndarray:
        distance = (self.x - centre[0]) ** 2 + (self.y - centre[1]) ** 2
        return np.exp(-distance / (2 * self.s**2)) / (2 * math.pi * self.s**2)

    def mixtures(self, q: float, a, b) -> tuple[np.ndarray, np.ndarray]:
        """P and Q's densities: (1 - q) N(0) + q N(a), and the same with b."""
        base = (1 - q) * self.density((0.0, 0.0))
        return base + q * self.density(a), base + q * self.density(b)

    def hockey_stick(self, p: np.ndarray, r: np.ndarray, alpha: float) -> float:
        """H_alpha(P || Q) = int (p - alpha q)_+."""
        return float(np.maximum(p - alpha * r, 0.0).sum() * self.area)


@pytest.mark.parametrize(("q", "s"), [(0.05, 0.7), (0.05, 2.0), (0.5, 0.7), (0.5, 2.0)])
def test_no_pair_of_gradients_in_the_unit_disc_beats_the_antipodal_pair(q, s):
    plane, alphas = Plane(s), (0.5, 1.0, 2.0, 5.0)
    antipodal = plane.mixtures(q, (-1.0, 0.0), (1.0, 0.0))
    bound = {alpha: plane.hockey_stick(*antipodal, alpha) for alpha in alphas}
    for norm_a, norm_b, angle in itertools.product(NORMS, NORMS, ANGLES):
        b = (norm_b * math.cos(angle), norm_b * math.sin(angle))
        pair = plane.mixtures(q, (norm_a, 0.0), b)
        for alpha in alphas:
            value = plane.hockey_stick(*pair, alpha)
            assert value <= bound[alpha] + 1e-9, (q, s, alpha, norm_a, norm_b, angle)


@pytest.mark.parametrize(("q", "s", "epsilon"), [(0.05, 0.7, 0.5), (0.5, 2.0, 0.2)])
def test_the_integrators_antipodal_pair_is_dp_accountings_replace_one_pair(q, s, epsilon):
    pld = privacy_loss_distribution.from_gaussian_mechanism(
        s,
        sampling_prob=q,
        neighboring_relation=NeighboringRelation.REPLACE_ONE,
        value_discretization_interval=1e-4,
    )
    plane = Plane(s, points=601)
    ours = plane.hockey_stick(*plane.mixtures(q, (-1.0, 0.0), (1.0, 0.0)), math.exp(epsilon))
    assert ours == pytest.approx(pld.get_delta_for_epsilon(epsilon), rel=2e-3)
