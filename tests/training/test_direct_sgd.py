"""DirectSGD: torch's functional SGD called directly; parameters as torch's SGD leaves them."""

import pytest
import torch
from opacus.optimizers import DPOptimizer
from torch import nn
from torch.nn import functional

from labeldp_core.models import build_model
from labeldp_core.training.direct_sgd import DirectSGD
from tests.fresh_imports import DIGITS, imported_after
from tests.training.gradient_gaps import trained_with_gaps


def _trained(make, model_name: str = "cnn-tanh", steps: int = 40) -> list[torch.Tensor]:
    """A digits-shaped model after ``steps`` steps of ``make(params)`` on a fixed batch."""
    torch.manual_seed(0)
    model = build_model(model_name, (1, 8, 8), 10).to(memory_format=torch.channels_last)
    draw = torch.Generator().manual_seed(1)
    x = torch.randn(32, 1, 8, 8, generator=draw).contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (32,), generator=draw)
    optimiser = make(model.parameters())
    for _ in range(steps):
        optimiser.zero_grad(set_to_none=True)
        functional.cross_entropy(model(x), y).backward()
        optimiser.step()
    return [p.detach().clone() for p in model.parameters()]


def _equal(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("model_name", ["cnn-tanh", "cnn-small", "logistic"])
def test_every_model_trains_to_torchs_sgd_parameters_bit_for_bit(model_name, momentum):
    own = _trained(lambda p: DirectSGD(p, 0.05, momentum), model_name)
    torchs = _trained(lambda p: torch.optim.SGD(p, lr=0.05, momentum=momentum), model_name)
    assert _equal(own, torchs)
    fewer = _trained(lambda p: DirectSGD(p, 0.05, momentum), model_name, steps=39)
    assert not _equal(own, fewer)  # the comparison can fail: each step moves the parameters


def test_a_parameter_without_a_gradient_keeps_its_buffer_as_torchs_sgd_does():
    own = trained_with_gaps(lambda params: DirectSGD(params, 1e-2, 0.9))
    torchs = trained_with_gaps(lambda params: torch.optim.SGD(params, lr=1e-2, momentum=0.9))
    assert _equal(own, torchs)


def test_zeroing_instead_of_forgetting_keeps_a_zero_gradient_as_torch_does():
    layer = nn.Linear(3, 2)
    layer(torch.ones(1, 3)).sum().backward()
    DirectSGD(layer.parameters(), 0.1).zero_grad(set_to_none=False)
    assert layer.weight.grad is not None and not layer.weight.grad.any()
    with pytest.raises(ValueError, match="closure"):
        DirectSGD(layer.parameters(), 0.1).step(closure=lambda: 0.0)


def test_opacus_steps_it_as_it_steps_torchs_sgd():
    """DP-SGD's optimiser: the same noisy clipped step, whichever SGD Opacus wraps."""

    def run(inner) -> list[torch.Tensor]:
        torch.manual_seed(0)
        layer = nn.Linear(4, 3)
        optimiser = DPOptimizer(
            inner(layer.parameters()),
            noise_multiplier=1.0,
            max_grad_norm=0.5,
            expected_batch_size=8,
            generator=torch.Generator().manual_seed(2),
        )
        for _ in range(5):
            optimiser.zero_grad(set_to_none=True)
            for p in layer.parameters():  # per-example gradients, as Opacus's hooks leave them
                p.grad_sample = torch.randn(8, *p.shape, generator=torch.Generator().manual_seed(3))
            optimiser.step()
        return [p.detach().clone() for p in layer.parameters()]

    own = run(lambda params: DirectSGD(params, 0.1, 0.9))
    assert _equal(own, run(lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9)))


def test_a_dp_sgd_training_imports_no_torch_dynamo():
    """torch.optim's first optimiser imports torch._dynamo (1.3 to 2 s); DP-SGD's does not now."""
    training = (
        "from labeldp_core.training import TrainSettings\n"
        "from labeldp_core.training.dpsgd import DPSGDSettings, train_dpsgd_classifier\n"
        "train_dpsgd_classifier(d.x_train[:64], d.y_train[:64], d.x_test[:8], d.y_test[:8], 10,\n"
        "    TrainSettings(model='cnn-tanh', epochs=1, batch_size=16),\n"
        "    DPSGDSettings(noise_multiplier=1.0, clip=0.1, optimizer='sgd', momentum=0.9), 0)"
    )
    assert imported_after(f"{DIGITS}\n{training}", ["torch._dynamo"]) == []
