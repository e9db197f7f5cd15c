"""The most any canary design can prove of a model trained on Laplace vectors' argmax labels.

With ``post=argmax`` the model learns only the argmax of each noisy one-hot vector. Every
coordinate's noise is i.i.d., so that argmax is the true label with probability P (the closed
form :func:`~.release.argmax_accuracy`, or its discrete twin for secure noise) and each other
label with probability (1 - P)/(K - 1): it is exactly K-ary randomized response at
``ln((K - 1) P / (1 - P))``, below the ε of the vector it was computed from (the vector keeps
more than its argmax). The model is post-processing of those labels, so it is ε′-label-DP with
that ε′: a guarantee, not only a bound on a guess. At ε = 2 on ten classes P = 0.257 and the
argmax spends 1.14, so against the run's own claim of 1 its 2x control would show a canary little
more than the claim; the canary audit therefore tests the model against ε′ (0.566 at ε = 1), the
claim its training labels really make, and a doubled budget (1.14) shows above that
(:mod:`labeldp_core.model_audit.ceiling`). Soft or rounded targets keep more of the vector: no
ceiling below ε is declared for them.

ε′ is the log-odds of a numerical integral (:func:`~.release.argmax_accuracy`, accurate to about
1e-12 for this smooth integrand) or of the discrete noise's series (its tail below e^-40).
"""

import math

from labeldp_core.data import dataset_info
from labeldp_core.engine.spec import RunConfig
from labeldp_core.families.audit_claims import RandomizedResponseCeiling
from labeldp_core.families.laplace_labels.experiment import expected_argmax_accuracy
from labeldp_core.families.laplace_labels.release import ONE_HOT_SENSITIVITY
from labeldp_core.noise.noise_plans import laplace_plan

__all__ = ["ARGMAX_CEILING", "argmax_epsilon", "most_provable"]


def argmax_epsilon(accuracy: float, num_classes: int) -> float:
    """The ε of K-ary randomized response that keeps a label with probability ``accuracy``.

    ``ln((K - 1) P / (1 - P))``: the log-ratio of releasing a label under itself (P) and under
    any other label ((1 - P)/(K - 1)), and the log-odds of telling two candidates apart.

    >>> round(argmax_epsilon(0.9, 2), 3)
    2.197
    """
    return math.log((num_classes - 1) * accuracy / (1.0 - accuracy))


def most_provable(config: RunConfig, n_train: int) -> float | None:
    """The ε the argmax labels of a run of ``config`` spend, or None (soft or rounded targets).

    ``n_train`` is not needed: every label is released alone. None too where the discrete
    argmax's series is out of range (secure noise at a tiny ε) or the argmax is always right.
    """
    del n_train  # the declared signature; each label's release does not depend on the others
    if config.setting("post") != "argmax":
        return None
    plan = laplace_plan(ONE_HOT_SENSITIVITY, config.epsilon, config.setting("noise"))
    num_classes = dataset_info(config.dataset).num_classes
    accuracy = expected_argmax_accuracy(plan, num_classes)
    if accuracy is None or accuracy >= 1.0:  # out of the series' range, or no noise left to cap
        return None
    return argmax_epsilon(accuracy, num_classes)


#: The ceiling the family declares for ``laplace``, with the reason the audit's verdict gives.
ARGMAX_CEILING = RandomizedResponseCeiling(
    most_provable,
    "the model learns only each noisy vector's argmax, which is K-ary randomized response at a "
    "smaller epsilon than the vector's",
)
