"""Every mechanism the canary audit takes notes a classifier it can read on the canaries.

``can_audit`` answers from the mechanism's declaration (a classifier, label or example level);
this runs each such mechanism's training under the canaries on digits with a quick recipe
(one epoch, a logistic model where the mechanism takes one) and reads its scores back.
"""

import numpy as np
import pytest

from labeldp_core.experiments import MECHANISMS
from labeldp_core.model_audit import audit_training, can_audit
from labeldp_core.registry import mechanism_entries

AUDITABLE = [mechanism for mechanism in MECHANISMS if can_audit(mechanism, 1.0)]
#: PATE's claim no canary design can test: the audit says why and trains nothing
#: (tests/model_audit/test_recipe.py); its canary training is read in test_released_model.py.
#: Laplace's argmax labels are ceiled too (families/laplace_labels/audit_ceiling.py), its soft
#: targets are not: its training is read with those.
UNCEILED = {"laplace": {"post": "soft"}}
CEILED = {m.id for m in mechanism_entries() if m.model_audit_ceiling is not None} - set(UNCEILED)
#: Canaries on digits' 1,437 training rows: the fewest the audit takes, so the runs stay small.
CANARIES = 100


def _quick(mechanism: str) -> dict:
    model = MECHANISMS[mechanism].all_settings().get("model")
    quick = {"model": "logistic"} if model is not None and "logistic" in model.choices else {}
    return quick | UNCEILED.get(mechanism, {})


def test_the_auditable_mechanisms_include_every_label_release_that_trains():
    assert {"rr", "rr-prior", "lp-2st", "laplace", "alibi", "vector-rr"} <= set(AUDITABLE)
    assert {"pate", "dpsgd", "labeldp-pro"} <= set(AUDITABLE)
    assert {"dppl-mean", "dppl-public", "dppl-topk"} <= set(AUDITABLE)  # their similarities


@pytest.mark.parametrize("mechanism", [m for m in AUDITABLE if m not in CEILED])
def test_its_training_under_the_canaries_is_read(mechanism, cache):
    found = audit_training(
        mechanism,
        "digits",
        1.0,
        0,  # the mechanism's own training (TRAININGS[0])
        cache=cache,
        canaries=CANARIES,
        epochs=1,
        settings=_quick(mechanism),
    )
    # The released classifier's scores on every canary, one per class (the attack reads them).
    scores = np.asarray(found["scores"])
    assert scores.shape == (CANARIES, 10) and np.all(np.isfinite(scores))
