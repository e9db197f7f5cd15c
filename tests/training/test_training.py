import numpy as np
import pytest

from labeldp_core.data import load_dataset
from labeldp_core.training import (
    TrainSettings,
    predict_proba,
    predict_values,
    train_classifier,
    train_regressor,
)

CHANCE = 0.1


@pytest.mark.parametrize("model", ["cnn", "mlp", "logistic"])
def test_classifier_learns_digits_in_a_few_epochs(model):
    data = load_dataset("digits")
    settings = TrainSettings(model=model, epochs=6)
    outcome = train_classifier(
        data.x_train, data.y_train, data.x_test, data.y_test, 10, settings, seed=0
    )
    assert len(outcome.test_curve) == 6
    # Well above chance (0.1) and better than after the first epoch: learning happened.
    assert outcome.final > 0.7
    assert outcome.final > outcome.test_curve[0] or outcome.test_curve[0] > 0.9


def test_soft_targets_train_like_hard_ones():
    data = load_dataset("digits")
    one_hot = np.eye(10)[data.y_train]
    settings = TrainSettings(model="mlp", epochs=6)
    hard = train_classifier(data.x_train, data.y_train, data.x_test, data.y_test, 10, settings, 0)
    soft = train_classifier(data.x_train, one_hot, data.x_test, data.y_test, 10, settings, 0)
    # Cross-entropy on one-hot probabilities is the same loss: the same seed gives the same model.
    assert soft.final == pytest.approx(hard.final, abs=1e-6)
    probabilities = predict_proba(soft.model, data.x_test[:5], settings)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-6)


def test_training_is_reproducible_with_a_seed():
    data = load_dataset("digits")
    settings = TrainSettings(model="cnn", epochs=2)
    runs = [
        train_classifier(data.x_train, data.y_train, data.x_test, data.y_test, 10, settings, 3)
        for _ in range(2)
    ]
    assert runs[0].test_curve == runs[1].test_curve


def test_regressor_beats_predicting_the_mean():
    data = load_dataset("digits")
    settings = TrainSettings(model="mlp", epochs=8)
    values = data.y_train.astype(np.float64)
    outcome = train_regressor(
        data.x_train, values, data.x_test, data.y_test.astype(np.float64), settings, seed=0
    )
    variance = float(np.var(data.y_test))
    assert outcome.final < 0.5 * variance
    predictions = predict_values(outcome.model, data.x_test, settings)
    assert predictions.shape == (data.n_test,)
