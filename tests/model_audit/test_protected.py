"""Canaries go only where the mechanism protects labels: never the test set, never a public part.

The public parts are recomputed here with the functions the runs split by (the encoder's split,
PATE's teacher split, the DP prototypes' split), and the canaries are the ones ``audit_model``
actually hands to training.
"""

import numpy as np
import pytest

from labeldp_core.data import load_dataset
from labeldp_core.data.splits import teacher_split
from labeldp_core.engine.public_encoder import public_private_indices
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config
from labeldp_core.families.rr_prior.experiment import ENCODER_PUBLIC_FRACTION
from labeldp_core.model_audit import audit, audit_model
from labeldp_core.model_audit.canaries import canary_count, draw_canaries
from labeldp_core.model_audit.protected import protected_rows
from tests.model_audit.stand_in import stored

PATE = {"teachers": 5, "queries": 40, "model": "logistic"}
#: PATE with LNMax: Gaussian GNMax's audit stops before training (no canary design can test it:
#: model_audit.ceiling), and the split under test is the same whatever the aggregator.
PATE_AUDITED = PATE | {"aggregator": "lnmax"}
ENCODER = {"prior_features": "encoder", "model": "mlp"}


def _encoder_public(config, n_train):
    return public_private_indices(n_train, ENCODER_PUBLIC_FRACTION, config.seed)[0]


def _pate_public(config, n_train):
    return teacher_split(n_train, config.setting("teachers"), config.seed).public


def _dppl_public(config, n_train):
    return public_private_indices(n_train, config.setting("public_fraction"), config.seed)[0]


#: Each mechanism with a public part, its settings and its public part as its run computes it.
PUBLIC_PARTS = [
    ("rr-prior", ENCODER, _encoder_public),
    ("pate", PATE, _pate_public),
    ("dppl-mean", {}, _dppl_public),
    ("dppl-public", {}, _dppl_public),
    ("dppl-topk", {}, _dppl_public),
]
#: The same, as the audit trains them (PATE with LNMax, which a canary audit can test).
AUDITED_PARTS = [(m, PATE_AUDITED if m == "pate" else s, p) for m, s, p in PUBLIC_PARTS]


@pytest.mark.parametrize(("mechanism", "settings", "public"), PUBLIC_PARTS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_protected_rows_leave_out_the_public_part_and_keep_the_rest(
    mechanism, settings, public, seed
):
    config = make_config(mechanism, "digits", 1.0, seed, 1, settings)
    data = load_dataset("digits")
    rows = protected_rows(config, data)
    left_out = public(config, data.n_train)
    assert np.intersect1d(rows, left_out).size == 0
    assert rows.min() >= 0 and rows.max() < data.n_train
    if not mechanism.startswith("dppl"):  # DPPL also subsamples its private part to balance it
        assert rows.size + left_out.size == data.n_train
    canaries = draw_canaries(data.y_train, data.num_classes, canary_count(rows.size), seed, rows)
    assert np.all(np.isin(canaries.index, rows))


def test_a_mechanism_without_a_public_part_protects_every_row():
    data = load_dataset("digits")
    for mechanism, settings in [("rr", {}), ("rr-prior", {}), ("dpsgd", {}), ("lp-2st", {})]:
        config = make_config(mechanism, "digits", 1.0, 0, 1, settings)
        assert np.array_equal(protected_rows(config, data), np.arange(data.n_train))


def _canaries_handed_to_training(monkeypatch, mechanism, settings, seed=0):
    handed = []

    def spy(config, canaries, role, cache, draw, progress):
        handed.append((config, canaries))
        return stored(canaries, right=60)

    monkeypatch.setattr(audit, "canary_training", spy)
    audit_model(mechanism, "digits", 1.0, seed=seed, epochs=1, settings=settings)
    return handed


@pytest.mark.parametrize(("mechanism", "settings", "public"), AUDITED_PARTS)
@pytest.mark.parametrize("seed", [0, 3])
def test_the_audit_plants_no_canary_in_the_public_part_or_the_test_set(
    mechanism, settings, public, seed, monkeypatch
):
    data = load_dataset("digits")
    handed = _canaries_handed_to_training(monkeypatch, mechanism, settings, seed)
    assert len(handed) == 3  # the mechanism and both controls get the very same canaries
    for config, canaries in handed:
        assert canaries is handed[0][1]
        left_out = public(config, data.n_train)
        assert np.intersect1d(canaries.index, left_out).size == 0
        # Rows of the training split (the test set is another array, never indexed here) ...
        assert canaries.index.max() < data.n_train
        # ... and their true labels are the training split's.
        assert np.array_equal(canaries.true, data.y_train[canaries.index])
    # The default count follows the protected rows, not the whole split.
    protected = protected_rows(handed[0][0], data).size
    if not mechanism.startswith("dppl"):  # DPPL subsamples its private part to balance it
        assert protected == data.n_train - public(handed[0][0], data.n_train).size
    assert len(handed[0][1]) == canary_count(protected)


def test_a_subsample_drawn_by_label_is_refused_before_training(monkeypatch):
    monkeypatch.setattr(audit, "canary_training", lambda *args: pytest.fail("trained"))
    with pytest.raises(InvalidInputError, match="imbalance 1"):
        audit_model("dpsgd", "digits", 1.0, epochs=1, settings={"imbalance": 10.0})
