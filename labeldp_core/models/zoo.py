"""Model constructors by name, sized from the image shape and the number of outputs."""

from collections.abc import Callable

import torch
from torch import nn

from labeldp_core.errors import InvalidInputError

__all__ = [
    "MODELS",
    "ChannelsLastFlatten",
    "build_model",
    "cnn",
    "cnn_tanh",
    "logistic",
    "mlp",
    "mlp_tanh",
]


class ChannelsLastFlatten(nn.Module):
    """Flatten each example in (height, width, channel) order, as Keras's ``Flatten`` does.

    In channels_last memory this order is the one the numbers are already stored in, so the
    flatten is a view; ``nn.Flatten``'s (channel, height, width) order would copy the batch.
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(n, C, H, W)`` to ``(n, H * W * C)``."""
        return x.permute(0, 2, 3, 1).flatten(1)


def cnn(
    image_shape: tuple[int, int, int], outputs: int, activation: type[nn.Module] = nn.ReLU
) -> nn.Module:
    """The Label-DP MNIST tutorial's CNN, adapted to small images.

    On 28x28: Conv 16@8x8 stride 2 'same' -> MaxPool 2 stride 1 -> Conv 32@4x4 stride 2 ->
    MaxPool 2 stride 1 -> Dense 32 -> Dense K. On 8x8 digits the same stack with 3x3 kernels and a
    stride-1 first convolution, so the second convolution still sees a 7x7 map.

    Each ReLU comes after its max-pool rather than before it. Both are monotone, so the outputs
    and the gradients are the same either way, but the ReLU then runs in place on the smaller
    pooled map. With :class:`ChannelsLastFlatten` the median training step at batch 128 was
    9-16% shorter in interleaved timings on the 2-core machine (an ad-hoc script).
    """
    channels, side, _ = image_shape
    small = side < 16
    first_kernel, first_stride = (3, 1) if small else (8, 2)
    second_kernel = 3 if small else 4
    features = nn.Sequential(
        nn.Conv2d(channels, 16, first_kernel, stride=first_stride, padding=(first_kernel - 1) // 2),
        nn.MaxPool2d(2, stride=1),
        _activation(activation),
        nn.Conv2d(16, 32, second_kernel, stride=2),
        nn.MaxPool2d(2, stride=1),
        _activation(activation),
        ChannelsLastFlatten(),
    )
    with torch.no_grad():
        flat = features(torch.zeros(1, *image_shape)).shape[1]
    return nn.Sequential(features, nn.Linear(flat, 32), activation(), nn.Linear(32, outputs))


def _activation(kind: type[nn.Module]) -> nn.Module:
    """ReLU in place (it follows a max-pool whose output nothing else reads); others as they are."""
    return kind(inplace=True) if kind is nn.ReLU else kind()


def cnn_tanh(image_shape: tuple[int, int, int], outputs: int) -> nn.Module:
    """The same CNN with tanh, the tempered sigmoid of Papernot et al. 2021 (arXiv 2007.14191).

    With DP-SGD's clipped, noisy gradients, a bounded activation keeps the activations (and so
    the gradient norms) from exploding, so less signal is lost to clipping; with this CNN they
    report 86.1% on Fashion-MNIST at epsilon about 3. Tanh is monotone, so it commutes with the
    max-pools just as ReLU does.
    """
    return cnn(image_shape, outputs, nn.Tanh)


def mlp(image_shape: tuple[int, int, int], outputs: int) -> nn.Module:
    """The PATE tutorials' MLP: inputs -> 256 -> 64 -> K with ReLU and dropout 0.2."""
    inputs = image_shape[0] * image_shape[1] * image_shape[2]
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(inputs, 256),
        nn.ReLU(),
        nn.Dropout(0.2),
        nn.Linear(256, 64),
        nn.ReLU(),
        nn.Dropout(0.2),
        nn.Linear(64, outputs),
    )


def mlp_tanh(image_shape: tuple[int, int, int], outputs: int) -> nn.Module:
    """The MLP with tanh (tempered sigmoid) activations, for DP-SGD (see :func:`cnn_tanh`)."""
    layers = mlp(image_shape, outputs)
    return nn.Sequential(*(nn.Tanh() if isinstance(m, nn.ReLU) else m for m in layers))


def logistic(image_shape: tuple[int, int, int], outputs: int) -> nn.Module:
    """Multinomial logistic regression on the flattened pixels."""
    inputs = image_shape[0] * image_shape[1] * image_shape[2]
    return nn.Sequential(nn.Flatten(), nn.Linear(inputs, outputs))


def small_cnn(image_shape: tuple[int, int, int], outputs: int) -> nn.Module:
    """LabelDP-Pro's small CNN (Ghazi et al., ICLR 2024, Table 10(a)), with ReLU as there.

    Two 3x3 convolutions of 16 channels, each followed by 2x2 average pooling, then dense 16 and
    dense K. Kept small so that LabelDP-Pro's per-class gradients (K per public example) stay cheap.
    """
    features = nn.Sequential(
        nn.Conv2d(image_shape[0], 16, 3, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Conv2d(16, 16, 3, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Flatten(),
    )
    with torch.no_grad():
        flat = features(torch.zeros(1, *image_shape)).shape[1]
    return nn.Sequential(features, nn.Linear(flat, 16), nn.ReLU(), nn.Linear(16, outputs))


MODELS: dict[str, Callable[[tuple[int, int, int], int], nn.Module]] = {
    "cnn": cnn,
    "cnn-tanh": cnn_tanh,
    "mlp-tanh": mlp_tanh,
    "mlp": mlp,
    "logistic": logistic,
    "cnn-small": small_cnn,
}


def build_model(name: str, image_shape: tuple[int, int, int], outputs: int) -> nn.Module:
    """Build model ``name`` for images of ``image_shape`` with ``outputs`` outputs."""
    try:
        constructor = MODELS[name]
    except KeyError:
        known = ", ".join(MODELS)
        raise InvalidInputError(f"unknown model '{name}'; choose one of: {known}") from None
    return constructor(image_shape, outputs)
