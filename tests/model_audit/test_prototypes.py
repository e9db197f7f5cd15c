"""The DP prototypes' canary audit: it reads the released prototypes' cosine similarities.

DPPL trains no network: a test image gets the class whose released prototype is nearest in
cosine similarity, so the audit reads those similarities on the canaries (the runner notes them),
and its control without privacy is the same prototypes computed without noise from the planted
labels. A canary moves its planted class's mean by about 1/n of its embedding, so on the default
settings nothing is caught (no verdict); on a tiny private set (public part 50%, imbalance 30,
half the rows canaries) the noise-free means are caught, which they could not be if the planted
labels were ignored (the guesses would then be fair coins).
"""

import math

import numpy as np
import pytest

from labeldp_core.data import load_dataset
from labeldp_core.engine.public_encoder import public_embeddings, public_private_indices
from labeldp_core.experiments import make_config, mechanism_spec
from labeldp_core.families.prototypes import private_rows
from labeldp_core.model_audit import audit, audit_model
from labeldp_core.model_audit.canaries import draw_canaries
from labeldp_core.model_audit.context import CanaryContext
from labeldp_core.model_audit.protected import check_rows_kept, protected_rows
from tests.model_audit.stand_in import stored

DPPL = ("dppl-mean", "dppl-public", "dppl-topk")
#: A private set small enough that one canary moves its planted class's mean visibly.
TINY = {"public_fraction": 0.5, "imbalance": 30.0}


@pytest.mark.parametrize("mechanism", DPPL)
def test_a_dppl_audit_runs_on_digits_and_stays_within_its_label_claim(mechanism, cache):
    found = audit_model(mechanism, "digits", 1.0, cache=cache)
    assert found.privacy_unit == "example" and found.label_epsilon == 2.0
    for estimate in (found.audited, *found.controls):
        assert estimate.trials == math.ceil(found.canaries * found.guess_share)
    assert not found.violates
    # The verdict says what the controls allow; never a "consistent" without them caught.
    assert found.controls_caught or found.verdict.startswith(
        ("no verdict", "this audit cannot test this claim")
    )


def test_on_a_tiny_private_set_the_noise_free_means_are_caught(cache):
    rows = protected_rows(make_config("dppl-mean", "digits", 1.0, 0, None, TINY), _digits())
    found = audit_model(
        "dppl-mean", "digits", 0.05, cache=cache, settings=TINY, canaries=rows.size // 2
    )
    control = found.controls[0]
    assert control.role == "non-private" and control.caught
    assert control.epsilon_lower_bound > found.label_epsilon
    assert not found.violates


def _digits():
    return load_dataset("digits")


@pytest.mark.parametrize("imbalance", [1.0, 10.0])
def test_the_private_subsample_is_drawn_from_the_labels_as_loaded(imbalance):
    data = _digits()
    config = make_config("dppl-mean", "digits", 1.0, 0, None, {"imbalance": imbalance})
    rows = protected_rows(config, data)
    public, _ = public_private_indices(data.n_train, config.setting("public_fraction"), 0)
    canaries = draw_canaries(data.y_train, data.num_classes, rows.size // 2, 0, rows)
    assert np.intersect1d(canaries.index, public).size == 0
    check_rows_kept(config, data, canaries, rows)  # planting moves no row: not refused
    # Cut by class even at imbalance 1 (every class at the smallest one's size): by label.
    counts, pool = np.bincount(data.y_train[rows]), np.bincount(data.y_train[_pool(config)])
    assert counts.max() == pool.min() and (imbalance > 1 or counts.min() == pool.min())


def _pool(config):
    return public_private_indices(_digits().n_train, config.setting("public_fraction"), 0)[1]


def _run(mechanism, settings, cache):
    data = _digits()
    config = make_config(mechanism, "digits", 1.0, 0, None, settings)
    canaries = draw_canaries(data.y_train, data.num_classes, 150, 0, private_rows(config, data))
    ctx = CanaryContext(config, "classification", cache, lambda *_: None, canaries=canaries)
    outcome = mechanism_spec(mechanism).runner(config, ctx)
    emb = public_embeddings(ctx, config.setting("public_fraction"))  # cached by the run
    return ctx, canaries, outcome, emb, private_rows(config, data)


#: The embeddings are stored as float32; the family renormalises them in float64.
FLOAT32 = 1e-5


def _cosines(embeddings, prototypes):
    unit = prototypes / np.linalg.norm(prototypes, axis=1, keepdims=True)
    return embeddings @ unit.T


def test_the_clean_scores_are_cosines_to_the_means_of_the_planted_labels(cache):
    ctx, canaries, _, emb, rows = _run("dppl-mean", {}, cache)
    planted = canaries.plant(_digits().y_train)[rows]
    means = np.stack([emb.train[rows][planted == c].mean(axis=0) for c in range(10)])
    expected = _cosines(emb.train[canaries.index], means)
    np.testing.assert_allclose(ctx.canary_probabilities(clean=True), expected, atol=FLOAT32)
    true_means = np.stack(
        [emb.train[rows][_digits().y_train[rows] == c].mean(axis=0) for c in range(10)]
    )
    assert not np.allclose(expected, _cosines(emb.train[canaries.index], true_means), atol=1e-4)
    released = ctx.canary_probabilities()
    assert released.shape == expected.shape and not np.allclose(released, expected, atol=FLOAT32)


@pytest.mark.parametrize("mechanism", ["dppl-public", "dppl-topk"])
def test_the_released_scores_are_cosines_to_the_released_prototypes(mechanism, cache):
    ctx, canaries, outcome, emb, _ = _run(mechanism, {}, cache)
    picked = np.asarray(outcome.details["prototype_train_indices"])  # (K, k) training rows
    prototypes = emb.train[picked].mean(axis=1)
    expected = _cosines(emb.train[canaries.index], prototypes)
    np.testing.assert_allclose(ctx.canary_probabilities(), expected, atol=FLOAT32)


def test_the_audit_hands_every_dppl_training_the_same_canaries_in_protected_rows(monkeypatch):
    handed = []

    def spy(config, canaries, role, cache, draw, progress):
        handed.append((config, canaries, role))
        return stored(canaries, 60, 1e-5)

    monkeypatch.setattr(audit, "canary_training", spy)
    found = audit_model("dppl-mean", "digits", 1.0, settings={"imbalance": 10.0})
    data = _digits()
    rows = protected_rows(handed[0][0], data)
    assert [role for *_, role in handed] == ["mechanism", "non-private", "mechanism"]
    assert all(canaries is handed[0][1] for _, canaries, _ in handed)
    assert np.all(np.isin(handed[0][1].index, rows))
    assert found.label_delta == pytest.approx((1 + np.e) * 1e-5)
