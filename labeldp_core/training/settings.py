"""What a training needs and returns, without torch: importing these costs nothing.

The command line, the registry and a cached answer read these types; only a training imports
torch (:mod:`labeldp_core.training.loop`).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torch import nn

__all__ = ["ProgressFn", "TrainOutcome", "TrainSettings"]

#: Called after every epoch with (epochs done, epochs in all).
ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class TrainSettings:
    """How to train: the model by name and the optimiser's settings (Adam)."""

    model: str = "cnn"
    epochs: int = 10
    batch_size: int = 128
    learning_rate: float = 2e-3


@dataclass(frozen=True)
class TrainOutcome:
    """The trained model and its test score after every epoch (accuracy, or MSE for regression)."""

    model: "nn.Module"
    test_curve: tuple[float, ...]

    @property
    def final(self) -> float:
        """The test score after the last epoch."""
        return self.test_curve[-1]
