"""Training on released bit vectors: one sigmoid output per class, binary cross-entropy per bit.

Zhao et al. (ICLR 2025) train a single network with a sigmoid last layer to approximate
E[b_k | x] for every bit k. Binary cross-entropy is a proper scoring rule, so each sigmoid output
estimates its bit's conditional mean, q + (p - q) P(y = k | x); since p > q the argmax over k of
the outputs (equivalently, of the logits) is the argmax of the class probabilities.

Each output is read through a fixed offset, the logit of a bit's mean when the classes are
equally likely, q + (p - q)/K: an untrained model then starts at the bits' base rate instead of
1/2. The offset depends on ε and K only (public), and is the same for every class, so the argmax
is unchanged. On digits it made the slow start of the sigmoid outputs go away (ε = 4, seed 1:
test accuracy 0.789 without it, 0.936 with it; see the family's README).

The loop is the project's in-memory one (:mod:`labeldp_core.training.loop`) with this loss; only
the released bits reach it, so the model is post-processing of the release.
"""

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from labeldp_core.engine.context import RunContext
from labeldp_core.engine.progress import within
from labeldp_core.families.vector_rr.release import bit_flip_probability
from labeldp_core.training import TrainOutcome

if TYPE_CHECKING:
    import torch

__all__ = ["BitLoss", "train_on_bits"]


@dataclass(frozen=True)
class BitLoss:
    """Binary cross-entropy of every bit, summed over the K bits and averaged over the batch.

    Summed over bits (not averaged) so that each bit's gradient does not shrink as K grows.

    Attributes:
        offset: added to every logit before the sigmoid (the same for all classes).
    """

    offset: float

    @classmethod
    def at(cls, epsilon: float, num_classes: int) -> "BitLoss":
        """The loss whose untrained outputs sit at the bits' base rate q + (p - q)/K."""
        flip = bit_flip_probability(epsilon)
        mean = flip + (1.0 - 2.0 * flip) / num_classes
        return cls(math.log(mean) - math.log1p(-mean))

    def __call__(self, logits: "torch.Tensor", bits: "torch.Tensor") -> "torch.Tensor":
        """The mean over the batch of the summed per-bit losses."""
        from torch.nn import functional

        per_bit = functional.binary_cross_entropy_with_logits(
            logits + self.offset, bits, reduction="none"
        )
        return per_bit.sum(dim=1).mean()


def train_on_bits(
    ctx: RunContext, bits: np.ndarray, *, message: str = "training on released bit vectors"
) -> TrainOutcome:
    """Train the run's model on released ``bits`` ``(n, K)``; its test accuracy after each epoch.

    The prediction is the argmax of the K outputs. The trained model is the one the run's
    label-inference attack looks at, as for every mechanism that trains on its release.
    """
    import torch

    from labeldp_core.training import loop

    data, settings = ctx.dataset, ctx.train_settings
    report = within(ctx.progress, 0.0, 1.0)
    test_inputs = loop._as_input(data.x_test, settings)
    test_labels = torch.tensor(data.y_test)

    def accuracy(model: "torch.nn.Module") -> float:
        predicted = loop._outputs(model, test_inputs).argmax(dim=1)
        return float((predicted == test_labels).to(torch.float32).mean())

    def on_epoch(done: int, total: int) -> None:
        report(done / total, f"{message}: epoch {done}/{total}")

    targets = torch.tensor(np.asarray(bits, dtype=np.float32))
    outcome = loop._fit(
        data.x_train,
        targets,
        data.num_classes,
        BitLoss.at(ctx.config.epsilon, data.num_classes),
        accuracy,
        settings,
        ctx.config.seed,
        on_epoch,
    )
    ctx.note_attack_model(outcome.model)
    return outcome
