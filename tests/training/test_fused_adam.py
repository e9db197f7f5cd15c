"""FusedAdam: torch's fused Adam kernel called directly; parameters as torch's Adam leaves them."""

import pytest
import torch
from torch import nn
from torch.nn import functional

from labeldp_core.models import MODELS, build_model
from labeldp_core.training.fused_adam import FusedAdam
from labeldp_core.training.loop import adam
from tests.fresh_imports import DIGITS, imported_after
from tests.training.gradient_gaps import trained_with_gaps


def _trained(model_name: str, own: bool, steps: int = 40) -> list[torch.Tensor]:
    """A digits-shaped model after ``steps`` Adam steps on a fixed batch (dropout seeded)."""
    torch.manual_seed(0)
    model = build_model(model_name, (1, 8, 8), 10)
    layout = torch.channels_last if model_name.startswith("cnn") else torch.contiguous_format
    model = model.to(memory_format=layout)
    draw = torch.Generator().manual_seed(1)
    x = torch.randn(32, 1, 8, 8, generator=draw).contiguous(memory_format=layout)
    y = torch.randint(0, 10, (32,), generator=draw)
    if own:
        optimiser = FusedAdam(model.parameters(), 4e-3)
    else:
        optimiser = torch.optim.Adam(model.parameters(), lr=4e-3, fused=True)
    model.train()
    for _ in range(steps):
        optimiser.zero_grad(set_to_none=True)
        functional.cross_entropy(model(x), y).backward()
        optimiser.step()
    return [p.detach().clone() for p in model.parameters()]


@pytest.mark.parametrize("model_name", MODELS)
def test_every_model_trains_to_torchs_fused_adams_parameters_bit_for_bit(model_name):
    own, torchs = _trained(model_name, True), _trained(model_name, False)
    assert all(torch.equal(a, b) for a, b in zip(own, torchs, strict=True))
    assert not all(
        torch.equal(a, b) for a, b in zip(own, _trained(model_name, True, 39), strict=True)
    )


def test_a_parameter_without_a_gradient_is_left_as_torchs_adam_leaves_it():
    own = trained_with_gaps(lambda params: FusedAdam(params, 1e-2))
    torchs = trained_with_gaps(lambda params: torch.optim.Adam(params, lr=1e-2, fused=True))
    assert all(torch.equal(a, b) for a, b in zip(own, torchs, strict=True))


def test_the_loops_adam_is_the_direct_kernel_and_dp_sgd_keeps_torchs():
    model = nn.Linear(3, 2)
    assert isinstance(adam(model, 1e-3), FusedAdam)
    assert isinstance(adam(model, 1e-3, fused=False), torch.optim.Adam)
    with pytest.raises(ValueError, match="set_to_none"):
        FusedAdam(model.parameters(), 1e-3).zero_grad(set_to_none=False)


def test_training_imports_no_torch_dynamo():
    """torch.optim's first optimiser imports torch._dynamo (about 2 s); the loop's does not."""
    training = (
        "from labeldp_core.training import TrainSettings, train_classifier\n"
        "train_classifier(d.x_train[:64], d.y_train[:64], d.x_test[:8], d.y_test[:8], 10,\n"
        "                 TrainSettings(model='logistic', epochs=1, batch_size=32), seed=0)"
    )
    assert imported_after(f"{DIGITS}\n{training}", ["torch._dynamo"]) == []
