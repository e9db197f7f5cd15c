import numpy as np
import pytest
from release_spies import Call, spy

from labeldp_core.data import load_dataset
from labeldp_core.experiments import make_config, run
from labeldp_core.families.vector_rr import experiment, fit
from labeldp_core.families.vector_rr.release import bit_flip_probability
from labeldp_core.registry import MECHANISM_COLOURS, family_of
from labeldp_core.services.release_audits import audit_mechanism
from labeldp_core.training import loop

DIGITS = load_dataset("digits")


@pytest.mark.parametrize("mode", ["float", "secure"])
def test_a_run_reports_the_coins_it_released_with_and_trains_only_on_the_bits(
    cache, monkeypatch, mode
):
    calls: list[Call] = []
    spy(monkeypatch, experiment, "vector_randomized_response_by_plan", calls)
    trained = []
    real_fit = loop._fit

    def recording(x_train, targets, outputs, loss_fn, *args, **kwargs):
        trained.append((loss_fn, np.asarray(targets)))
        return real_fit(x_train, targets, outputs, loss_fn, *args, **kwargs)

    monkeypatch.setattr(loop, "_fit", recording)
    settings = {"model": "logistic", "noise": mode}
    result = run(
        make_config("vector-rr", "digits", 1.0, seed=3, epochs=2, settings=settings), cache
    )
    (call,) = calls
    bits = np.asarray(call.returned)
    # The model saw the released bits and nothing else; the other training is the clean
    # baseline (a diagnostic, on the true labels, with the usual cross-entropy).
    on_bits = [targets for loss, targets in trained if isinstance(loss, fit.BitLoss)]
    assert len(on_bits) == 1 and np.array_equal(on_bits[0], bits)
    (baseline,) = [targets for loss, targets in trained if not isinstance(loss, fit.BitLoss)]
    assert np.array_equal(baseline, DIGITS.y_train)
    assert result.epsilon_spent == 2 * call.arguments["plan"].epsilon_spent <= 1.0
    assert result.epsilon_spent == pytest.approx(1.0, rel=1e-12)
    assert result.flip_rate is None and result.label_accuracy is None  # no label is released
    details = result.details
    one_hot = np.eye(10, dtype=np.uint8)[DIGITS.y_train]
    assert details["bit_flip_rate"] == pytest.approx(np.mean(bits != one_hot))
    assert details["true_bit_kept"] == pytest.approx(np.mean(bits[one_hot == 1]))
    assert details["other_bits_set"] == pytest.approx(np.mean(bits[one_hot == 0]))
    assert details["ones_per_vector"] == pytest.approx(bits.sum(axis=1).mean())
    flip = bit_flip_probability(1.0)
    sd = np.sqrt(flip * (1 - flip) / bits.size)
    assert abs(details["bit_flip_rate"] - flip) < 5 * sd
    assert details["bit_flip_probability"] == flip
    assert {"details.bit_flip_rate", "details.true_bit_kept"} <= set(result.diagnostics["keys"])
    assert "replace-one" in details["composition"]
    assert 0 <= result.test_accuracy <= 1 and len(details["test_curve"]) == 2


def test_a_trained_model_beats_chance_by_far_at_a_large_epsilon(cache):
    config = make_config("vector-rr", "digits", 8.0, seed=0, epochs=10, settings={"model": "mlp"})
    result = run(config, cache)
    # 360 test images, 10 classes: chance is 0.1 with sd 0.016; a working learner is far above.
    assert result.test_accuracy > 0.5


def test_the_audit_passes_the_mechanism_and_catches_the_per_bit_control():
    honest, control = audit_mechanism("vector-rr", 1.0, trials=200_000, seed=0, alpha=1e-3)
    assert not honest.violates and control.violates
    # The score b_0 - b_1 finds the tight event: most of the claim is proved.
    assert 0.9 <= honest.epsilon_lower_bound <= 1.0
    assert control.epsilon_lower_bound > 1.5


def test_the_family_is_registered_with_its_own_colour():
    assert family_of("vector-rr").id == "vector_rr"
    colours = list(MECHANISM_COLOURS.values())
    assert colours.count(MECHANISM_COLOURS["vector-rr"]) == 1


def test_the_loss_starts_at_the_bits_base_rate_and_keeps_the_argmax():
    import torch

    loss = fit.BitLoss.at(1.0, 10)
    flip = bit_flip_probability(1.0)
    base = flip + (1 - 2 * flip) / 10
    assert torch.sigmoid(torch.tensor(loss.offset)).item() == pytest.approx(base, rel=1e-6)
    # An untrained model (logits 0) is at the minimum for bits of the base rate: zero gradient.
    logits = torch.zeros(1, 10, requires_grad=True)
    loss(logits, torch.full((1, 10), base)).backward()
    assert torch.abs(logits.grad).max().item() < 1e-6
    # The offset is the same for every class, so it moves no argmax.
    scores = torch.tensor([[0.1, 2.0, -1.0]])
    assert (scores + loss.offset).argmax().item() == scores.argmax().item()
    # Summed over the bits: K bits of the same loss weigh K times one.
    one = fit.BitLoss(0.0)(torch.zeros(1, 1), torch.ones(1, 1))
    assert one.item() == pytest.approx(np.log(2))
    assert fit.BitLoss(0.0)(torch.zeros(1, 4), torch.ones(1, 4)).item() == pytest.approx(
        4 * np.log(2)
    )
