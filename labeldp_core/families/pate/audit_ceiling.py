"""The most any canary design can prove of PATE's release: why its model audit has no teeth.

Changing one private label changes one teacher, which moves at most one vote on each of the Q
queries: each query's vote-count vector shifts by at most sqrt(2) in L2 (one class -1, another
+1). GNMax adds Gaussian noise of sigma to every count, so the Q noisy count vectors under the two
candidate labels of a canary are two Gaussians whose means are at most sqrt(2Q) apart, and no test
tells them apart with equal priors more often than Phi(sqrt(2Q) / (2 sigma)) (Neyman-Pearson for
a Gaussian shift). The released answers and the student trained on them are post-processing of
those counts, so every canary design (its input among the queries, the other teachers split,
anything) is held to that accuracy, and the canary audit's ε̂ stays below its log-odds but for the
audit's own error rate. Confident-GNMax's threshold check reads the top count with its own noise
sigma1, which that vote moves by at most 1: it adds Q / sigma1^2 to the squared distance.

The claim is the composition over every query, so one label, which touches each query by one
vote, shows far less than the claim: at Fashion-MNIST's recipe (300 queries) and ε = 2, sigma is
about 53 and the best design is right 59% of the time, a log-odds of 0.37.
"""

import math

from scipy import stats

from labeldp_core.engine.spec import RunConfig
from labeldp_core.families.pate.experiment import calibration

__all__ = ["best_guess_accuracy", "most_provable"]


def best_guess_accuracy(queries: int, sigma: float, threshold_sigma: float | None = None) -> float:
    """The best accuracy of telling a label's two candidates apart from Q noisy vote counts.

    >>> round(best_guess_accuracy(300, 52.64), 3)
    0.592
    """
    squared = 2 * queries / sigma**2
    if threshold_sigma is not None:
        squared += queries / threshold_sigma**2
    return float(stats.norm.cdf(math.sqrt(squared) / 2))


def most_provable(config: RunConfig, n_train: int) -> float | None:
    """The log-odds of :func:`best_guess_accuracy` for a run of ``config`` on ``n_train`` rows.

    None where the Gaussian bound does not apply: LNMax (Laplace noise) and secure noise (integer
    noise, whose test accuracy this bound does not cover).
    """
    aggregator = config.setting("aggregator")
    if aggregator == "lnmax" or config.setting("noise") == "secure":
        return None
    cal = calibration(config, n_train)
    threshold = None
    if aggregator == "confident-gnmax":
        threshold = config.setting("threshold_noise_ratio") * cal.noise
    accuracy = best_guess_accuracy(cal.queries, cal.noise, threshold)
    return math.log(accuracy / (1 - accuracy))
