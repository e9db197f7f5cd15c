"""The DP-SGD audit case: the project's own noisy step, with and without one example.

The step is the training loop's (:func:`~labeldp_core.training.dpsgd._wrap`, ``_dp_optimizer``,
``_noisy_step``: per-example clipping, Opacus's noise, division by the expected batch), run on a
model built so that one step yields many independent trials. The model is a linear layer without
bias from ``T`` inputs to 2 logits, and example ``t`` is ``10 e_t`` (one-hot input scaled past
the clipping norm): its gradient lives in column ``t`` of the weight only, so per-example
clipping clips each example alone, the clipped sum holds every example in its own column, and
the noise on each column is independent. One step on all ``T`` examples releases ``T`` draws of
"one example present" and one step on the empty batch ``T`` draws of "absent": each column is one
full-batch DP-SGD step on {x} vs {} (add/remove). The score of a column is the released gradient,
times the expected batch, projected on the example's clipped gradient direction: the
log-likelihood ratio of the two Gaussians up to a positive factor.

The noise multiplier is the one ``dp_accounting``'s RDP accountant (independent of the project's)
calibrates for (epsilon, 1e-5) in one full-batch step. The claim audited is a point of the
Gaussian mechanism's exact curve at that noise (tighter than the RDP figure), so that a step
with less noise than reported cannot hide in the accountant's slack.
"""

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from labeldp_core.accounting.gaussian_curve import gaussian_point
from labeldp_core.base.validation import check_epsilon
from labeldp_core.release_audit.engine import GAUSSIAN_TAIL, AuditCase

if TYPE_CHECKING:
    import dp_accounting

__all__ = [
    "AUDIT_DELTA",
    "TRIALS_PER_STEP",
    "dpsgd_case",
    "dpsgd_clip_norm_control",
    "dpsgd_noise_multiplier",
    "one_step_epsilon",
]

#: delta of the DP-SGD claim.
AUDIT_DELTA = 1e-5
#: Independent trials per step: the model's inputs (one column of the weight each).
TRIALS_PER_STEP = 1024
#: Scale of each example's one-hot input: its gradient norm (about 7) is well past the clip.
_INPUT_SCALE = 10.0


def _rdp_accountant() -> "dp_accounting.PrivacyAccountant":
    from dp_accounting import rdp  # here: a third of a second no other command needs

    return rdp.RdpAccountant()


def _full_batch_step(noise_multiplier: float) -> "dp_accounting.DpEvent":
    import dp_accounting

    return dp_accounting.PoissonSampledDpEvent(1.0, dp_accounting.GaussianDpEvent(noise_multiplier))


def one_step_epsilon(noise_multiplier: float, delta: float = AUDIT_DELTA) -> float:
    """Epsilon of one full-batch DP-SGD step (sample rate 1), ``dp_accounting``'s RDP accountant."""
    accountant = _rdp_accountant()
    accountant.compose(_full_batch_step(noise_multiplier))
    return float(accountant.get_epsilon(delta))


def dpsgd_noise_multiplier(epsilon: float, delta: float = AUDIT_DELTA) -> float:
    """The noise multiplier making one full-batch step (epsilon, delta)-DP (RDP accountant)."""
    import dp_accounting

    epsilon = check_epsilon(epsilon)
    return float(
        dp_accounting.calibrate_dp_mechanism(_rdp_accountant, _full_batch_step, epsilon, delta)
    )


def _project_steps(
    noise_multiplier: float, clip: float, present: bool, trials: int, seed: int
) -> np.ndarray:
    """``trials`` scores of the project's DP-SGD step, ``TRIALS_PER_STEP`` per step."""
    # Imported here: torch and Opacus take seconds to import, which other audits should not pay.
    import torch
    from torch import nn

    from labeldp_core.training import TrainSettings
    from labeldp_core.training.dpsgd import _dp_optimizer, _noisy_step, _wrap

    model = nn.Sequential(nn.Linear(TRIALS_PER_STEP, 2, bias=False))
    with torch.no_grad():
        model[0].weight.zero_()  # logits 0: every example's gradient points the same way
    private = _wrap(model, "ghost-bk", clip)
    settings = TrainSettings("logistic", batch_size=TRIALS_PER_STEP)
    generator = torch.Generator().manual_seed(seed)
    optimiser = _dp_optimizer(model, private, settings, noise_multiplier, clip, generator)
    optimiser.original_optimizer.step = lambda *args, **kwargs: None  # release, do not move
    images = torch.eye(TRIALS_PER_STEP) * _INPUT_SCALE
    labels = torch.zeros(TRIALS_PER_STEP, dtype=torch.long)
    if not present:
        images, labels = images[:0], labels[:0]
    # Label 0 at logits 0: each example's gradient is (-1/2, +1/2) times its input, so its
    # clipped gradient in its own column is clip * (-1, 1) / sqrt(2).
    direction = torch.tensor([-1.0, 1.0]) / math.sqrt(2.0)
    scores = []
    with warnings.catch_warnings():
        # Opacus's backward hooks fire on module outputs because the inputs need no gradient.
        warnings.filterwarnings("ignore", message="Full backward hook is firing")
        for _ in range(math.ceil(trials / TRIALS_PER_STEP)):
            _noisy_step(private, optimiser, images, labels)
            released = model[0].weight.grad * TRIALS_PER_STEP  # undo the expected-batch division
            scores.append((direction @ released).numpy() / clip)
    return np.concatenate(scores)[:trials].astype(np.float64)


def _dpsgd_case(name: str, epsilon: float, clip: float, forgets_clip: bool) -> AuditCase:
    sigma = dpsgd_noise_multiplier(epsilon)
    accounted = one_step_epsilon(sigma)
    # The exact curve of one full-batch step (sensitivity C, noise sigma C): mu = 1 / sigma.
    claimed, delta = gaussian_point(1.0 / sigma, GAUSSIAN_TAIL)
    # The control's slip: noise sigma instead of sigma * C, i.e. a multiplier of sigma / C.
    multiplier = sigma / clip if forgets_clip else sigma

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        seed = int(rng.integers(2**62))
        return _project_steps(multiplier, clip, which == 0, trials, seed)

    neighbours = (
        f"one full-batch step of the project's DP-SGD (clipping, Opacus's noise) with and "
        f"without one example (add/remove), C = {clip:g}, noise multiplier {sigma:.4g} "
        f"(accounted ({accounted:.3g}, {AUDIT_DELTA:g}) by RDP); claim: the Gaussian "
        "mechanism's exact curve at that noise"
    )
    return AuditCase(name, claimed, delta, neighbours, sample, forgets_clip)


def dpsgd_case(epsilon: float) -> AuditCase:
    """DP-SGD's noisy step, N(0, (sigma C)^2) on the clipped sum, sigma calibrated for epsilon."""
    return _dpsgd_case("dpsgd (noise step)", epsilon, clip=1.0, forgets_clip=False)


def dpsgd_clip_norm_control(epsilon: float) -> AuditCase:
    """Gradients clipped at C = 3 but noise sigma instead of sigma C: must be flagged."""
    return _dpsgd_case(
        "dpsgd (control: noise σ, forgets C = 3)", epsilon, clip=3.0, forgets_clip=True
    )
