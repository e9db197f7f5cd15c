"""ALIBI (Malek et al. 2021): Laplace on one-hot labels, then Bayesian inference to soft labels.

Privacy unit: one training label, replace-one neighbours. The release is :func:`laplace_one_hot` at
scale b = 2/ε; turning each noisy vector into a posterior over classes uses only that vector and a
prior, so it is post-processing and costs nothing (a prior estimated from the private labels
costs its own budget, which the experiment accounts for).

With noise density ∏_j exp(-|o_j - e_k,j| / b) / (2b) for class k, the sum over coordinates other
than k is the same for every k, so

    log P(k | o) = log prior_k + (|o_k| - |o_k - 1|) / b + constant,

normalised with a log-sum-exp so that no vector underflows, however small b is.

Secure noise: the released vector is then an integer vector with discrete Laplace noise,
P(o | k) = prod_j c a^|o_j - e_k,j| with a = e^(-1/b) and c = (1 - a)/(1 + a). The constant c^K
is the same for every class and a^|x| = exp(-|x|/b) is the continuous kernel, so the posterior
is the same formula with b the exact (rational) scale used: pass ``epsilon = 2/b``, which
:func:`~labeldp_core.noise.secure_noise.guaranteed_epsilon` gives. For an integer o_k the
term |o_k| - |o_k - 1| is +1 if o_k >= 1 and -1 otherwise, so the posterior only depends on which
coordinates reached 1.
"""

import numpy as np

from labeldp_core.base.validation import check_real_array
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.laplace_labels.release import ONE_HOT_SENSITIVITY
from labeldp_core.noise.laplace import laplace_scale

__all__ = ["alibi_posterior"]


def alibi_posterior(
    noisy: np.ndarray,
    epsilon: float,
    prior: np.ndarray | None = None,
    *,
    scale: float | None = None,
) -> np.ndarray:
    """The exact posterior over classes of each noisy one-hot vector (soft labels).

    Args:
        noisy: ``(n, K)`` vectors released by ``laplace_one_hot`` at ``epsilon``.
        epsilon: the budget the vectors were released with (it fixes the noise scale 2/ε).
        prior: class probabilities ``(K,)`` shared by all rows, or ``(n, K)`` per row; uniform if
            omitted. Zero entries rule a class out.
        scale: the noise scale b the vectors were drawn with, if known exactly (a noise plan's
            ``scale``); it then replaces 2/ε.

    Returns:
        ``(n, K)`` posterior probabilities; every row sums to one.
    """
    noisy = check_real_array(noisy, "noisy vectors")
    if noisy.ndim != 2 or noisy.shape[0] == 0 or noisy.shape[1] < 2:
        raise InvalidInputError(f"expected noisy vectors of shape (n, K >= 2), got {noisy.shape}")
    if not np.all(np.isfinite(noisy)):
        raise InvalidInputError("noisy vectors must be finite numbers")
    scale = laplace_scale(ONE_HOT_SENSITIVITY, epsilon) if scale is None else scale
    log_likelihood = (np.abs(noisy) - np.abs(noisy - 1.0)) / scale
    log_posterior = log_likelihood + _log_prior(prior, noisy.shape)
    log_posterior -= log_posterior.max(axis=1, keepdims=True)
    posterior = np.exp(log_posterior)
    return posterior / posterior.sum(axis=1, keepdims=True)


def _log_prior(prior: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    if prior is None:
        return np.zeros(shape[1])
    array = check_real_array(prior, "the prior")
    if array.shape not in ((shape[1],), shape):
        raise InvalidInputError(
            f"the prior must have shape ({shape[1]},) or {shape}, got {array.shape}"
        )
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise InvalidInputError("the prior must be finite and non-negative")
    totals = array.sum(axis=-1, keepdims=True)
    if np.any(totals <= 0):
        raise InvalidInputError("every prior row needs some positive mass")
    with np.errstate(divide="ignore"):
        return np.log(array / totals)
