"""The speed measures of the training loop change nothing but speed.

The CNN pools before its ReLUs and flattens channels last; training wraps the datasets' arrays
instead of copying them; the allocator keeps freed memory mapped. Each is checked here for what
it must not change (outputs, gradients, the shared data) or for what it must achieve.
"""

import resource

import numpy as np
import pytest
import torch
from torch.nn import functional

from labeldp_core.data import load_dataset
from labeldp_core.models import build_model
from labeldp_core.training import TrainSettings, train_classifier
from labeldp_core.training.allocator import keep_freed_memory
from labeldp_core.training.loop import _as_input


def tutorial_order(model: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    """The same weights applied in the usual order: conv, ReLU, pool, twice, then the dense head."""
    first, _, _, second, _, _, _ = model[0]
    hidden = functional.max_pool2d(functional.relu(first(x)), 2, stride=1)
    hidden = functional.max_pool2d(functional.relu(second(hidden)), 2, stride=1)
    flat = hidden.permute(0, 2, 3, 1).reshape(x.shape[0], -1)  # Keras's (h, w, c) order
    return model[3](functional.relu(model[1](flat)))


@pytest.mark.parametrize("image_shape", [(1, 8, 8), (1, 28, 28)])
def test_cnn_pooling_before_relu_gives_the_same_outputs_and_gradients(image_shape):
    torch.manual_seed(0)
    model = build_model("cnn", image_shape, 10).to(memory_format=torch.channels_last)
    x = torch.randn(16, *image_shape)
    x[:4] = 0.0  # blank images: every pooling window ties, the case where orders could differ
    x[4:8, :, ::2] = 1.0  # stripes: exact ties between rows of a window
    x = x.contiguous(memory_format=torch.channels_last)
    weights = torch.randn(16, 10)

    gradients = []
    for forward in (model, lambda images: tutorial_order(model, images)):
        model.zero_grad()
        out = forward(x)
        (out * weights).sum().backward()
        gradients.append((out.detach(), [p.grad.clone() for p in model.parameters()]))
    (ours, our_grads), (reference, reference_grads) = gradients
    torch.testing.assert_close(ours, reference, rtol=1e-5, atol=1e-6)
    for mine, theirs in zip(our_grads, reference_grads, strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-4, atol=1e-6)


def test_training_wraps_the_shared_images_and_leaves_them_unchanged():
    data = load_dataset("digits")
    assert not data.x_train.flags.writeable
    before = data.x_train.copy()
    wrapped = _as_input(data.x_train, TrainSettings(model="cnn"))
    assert np.shares_memory(wrapped.numpy(), data.x_train)  # no copy of the split per run
    train_classifier(
        data.x_train, data.y_train, data.x_test, data.y_test, 10, TrainSettings("cnn", 1), 0
    )
    np.testing.assert_array_equal(data.x_train, before)
    # Other dtypes are converted, so a copy is unavoidable there.
    as_float64 = _as_input(data.x_test.astype(np.float64), TrainSettings(model="mlp"))
    assert as_float64.dtype == torch.float32


def test_training_steps_stop_page_faulting_once_freed_memory_is_kept():
    if not keep_freed_memory():
        pytest.skip("not glibc: the allocator setting does not apply")
    torch.manual_seed(0)
    model = build_model("cnn", (1, 28, 28), 10).to(memory_format=torch.channels_last)
    optimiser = torch.optim.Adam(model.parameters())
    images = torch.randn(256, 1, 28, 28).contiguous(memory_format=torch.channels_last)
    labels = torch.randint(0, 10, (256,))

    def steps(count: int) -> None:
        for _ in range(count):
            optimiser.zero_grad(set_to_none=True)
            functional.cross_entropy(model(images), labels).backward()
            optimiser.step()

    steps(5)  # the first steps map the memory the later ones reuse
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    steps(20)
    faults_per_step = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20
    # With glibc's defaults this machine measured 800 to 5,000 faults per step at batch 256.
    assert faults_per_step < 50
