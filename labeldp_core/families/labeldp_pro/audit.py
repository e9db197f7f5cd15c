"""The LabelDP-Pro audit case: the trainer's own noisy step and denoiser on neighbouring labels.

As DP-SGD's audit (:mod:`labeldp_core.families.dpsgd.audit`), the model is a linear layer without
bias from ``T`` inputs to 2 logits, and example ``t`` is ``10 e_t``: its gradient lives in
column ``t`` of the weight only, so one full-batch step of
:func:`~labeldp_core.families.labeldp_pro.trainer.noisy_gradient` on all ``T`` examples gives
``T`` independent trials. The neighbours are every label 0 against every label 1 (replace-one,
per column). The denoiser then runs on each column: the hull of that example's clipped per-class
gradients (features only, ``C d`` and ``-C d`` with ``d = (-1, 1) / sqrt 2``) by the same
:func:`~labeldp_core.families.labeldp_pro.projection.project_onto_hull`, its weights smoothed
towards uniform with ``SMOOTHING`` as the trainer's. The score is the step, times the batch,
along ``d``.

The noise multiplier makes one full-batch step exactly (epsilon, 1e-5)-DP for a changed label (the
Gaussian mechanism's exact curve at sensitivity 2C and noise sigma C, mu = 2 / sigma: less noise
than the runner's group-privacy accounting would add, so the audit is the harder test), and the
claim audited is a point of that curve. The control feeds the projection the true
labels' (noise-free) gradient instead of the noisy one: it must be caught.
"""

import math

import numpy as np

from labeldp_core.accounting.gaussian_curve import gaussian_delta, gaussian_point
from labeldp_core.base.validation import check_epsilon
from labeldp_core.release_audit.engine import GAUSSIAN_TAIL, AuditCase

__all__ = [
    "AUDIT_DELTA",
    "SMOOTHING",
    "exact_noise_multiplier",
    "labeldp_pro_case",
    "labeldp_pro_true_label_control",
]

AUDIT_DELTA = 1e-5
SMOOTHING = 0.75
#: Independent trials per step (inputs of the linear model), and the inputs' scale.
_TRIALS_PER_STEP = 1024
_INPUT_SCALE = 10.0
_PROJECTION_STEPS = 20


def _denoised_scores(released, clean, clip: float, leaks: bool):
    """Each column's step along d after the per-column projection (of ``clean`` if ``leaks``)."""
    import torch

    from labeldp_core.families.labeldp_pro.projection import project_onto_hull, smooth_weights

    direction = torch.tensor([-1.0, 1.0]) / math.sqrt(2.0)
    hull = torch.stack([direction * clip, -direction * clip], dim=1)  # 2 x 2, one per column

    def forward(weights):
        return weights @ hull.T

    def adjoint(vector):
        return vector @ hull

    target = (clean if leaks else released).T  # (T, 2): one problem per column
    _, weights = project_onto_hull(target, (forward, adjoint), 2, _PROJECTION_STEPS)
    step = forward(smooth_weights(weights, SMOOTHING))
    return (step @ direction).numpy() / clip


def _steps(sigma: float, clip: float, label: int, trials: int, seed: int, leaks: bool):
    """``trials`` scores of the trainer's step on all-``label`` examples, one per column."""
    import torch
    from torch import nn

    from labeldp_core.families.labeldp_pro.trainer import noisy_gradient

    model = nn.Sequential(nn.Linear(_TRIALS_PER_STEP, 2, bias=False))
    with torch.no_grad():
        model[0].weight.zero_()
    generator = torch.Generator().manual_seed(seed)
    images = torch.eye(_TRIALS_PER_STEP) * _INPUT_SCALE
    labels = torch.full((_TRIALS_PER_STEP,), label, dtype=torch.long)
    batch = _TRIALS_PER_STEP
    clean = noisy_gradient(model, images, labels, clip, 0.0, batch, generator)
    clean = clean.reshape(2, batch) * batch  # undo the expected-batch division
    scores = []
    for _ in range(math.ceil(trials / batch)):
        released = noisy_gradient(model, images, labels, clip, sigma * clip, batch, generator)
        scores.append(_denoised_scores(released.reshape(2, batch) * batch, clean, clip, leaks))
    return np.concatenate(scores)[:trials].astype(np.float64)


def exact_noise_multiplier(epsilon: float, delta: float = AUDIT_DELTA) -> float:
    """The sigma making one step (sensitivity 2C, noise sigma C) exactly (epsilon, delta)-DP."""
    from scipy.optimize import brentq  # here: a quarter second no other command needs

    epsilon = check_epsilon(epsilon)
    log_mu = brentq(lambda x: gaussian_delta(epsilon, math.exp(x)) - delta, -20.0, 10.0)
    return 2.0 / math.exp(log_mu)


def _case(name: str, epsilon: float, leaks: bool) -> AuditCase:
    sigma = exact_noise_multiplier(epsilon)
    claimed, delta = gaussian_point(2.0 / sigma, GAUSSIAN_TAIL)

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        return _steps(sigma, 1.0, which, trials, int(rng.integers(2**62)), leaks)

    neighbours = (
        f"one full-batch LabelDP-Pro step (clipping at C = 1, noise multiplier {sigma:.4g}, "
        f"projection smoothed {SMOOTHING:g}) with every label 0 vs 1 (replace-one, one trial per "
        "column); claim: the Gaussian mechanism's exact curve at sensitivity 2C"
    )
    return AuditCase(name, claimed, delta, neighbours, sample, leaks)


def labeldp_pro_case(epsilon: float) -> AuditCase:
    """LabelDP-Pro's step: the noisy clipped gradient, then the label-free projection."""
    return _case("labeldp-pro (noisy step + projection)", epsilon, leaks=False)


def labeldp_pro_true_label_control(epsilon: float) -> AuditCase:
    """The projection fed the true labels' noise-free gradient: must be flagged."""
    return _case("labeldp-pro (control: projects the true labels' gradient)", epsilon, leaks=True)
