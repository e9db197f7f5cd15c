"""The public side of DP prototypes: a public/private split and a frozen encoder's embeddings.

The training split is cut in two by the run's seed. The public part (images and labels) trains
the run's model; with its last linear layer removed the model is a frozen encoder, and the
embeddings of every training and test image are computed once and cached as ``.npz``. Nothing
here looks at the private part's labels, and the encoder never sees a private image in training.

Embeddings are centred on the mean embedding of the public part (a public statistic) and scaled
to unit length: cosine similarity, which the prototypes are compared with, only sees directions,
and centring spreads the directions of ReLU features, which would otherwise all point into the
same orthant.
"""

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

from labeldp_core.data.public_private import public_private_split
from labeldp_core.engine.context import RunContext

if TYPE_CHECKING:
    from torch import nn

__all__ = [
    "ENCODER_MODELS",
    "PublicEmbeddings",
    "embed",
    "encoder_payload",
    "normalise_rows",
    "public_embeddings",
    "public_private_indices",
    "split_rng",
]

#: Models with a hidden layer to take embeddings from (logistic regression has none).
ENCODER_MODELS = ("cnn", "mlp")
_EMBED_BATCH = 4096
_SPREAD_QUANTILE = 0.9


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (an all-zero row stays zero), as float64."""
    array = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(array, axis=-1, keepdims=True)
    return array / np.where(norms > 0, norms, 1.0)


def split_rng(seed: int, purpose: int) -> np.random.Generator:
    """A generator for the run's data choices, fixed by the seed and independent of epsilon."""
    return np.random.default_rng([seed, 0xD991, purpose])


def public_private_indices(
    n_train: int, public_fraction: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """The public and the private training indices of a run, fixed by its seed and share."""
    return public_private_split(n_train, public_fraction, split_rng(seed, 1))


def embed(model: "nn.Sequential", images: np.ndarray) -> np.ndarray:
    """The input of ``model``'s last layer for each image, as float32 ``(n, d)``."""
    import torch

    encoder = model[:-1]
    encoder.eval()
    parts = []
    with torch.inference_mode():
        for start in range(0, images.shape[0], _EMBED_BATCH):
            batch = torch.tensor(images[start : start + _EMBED_BATCH], dtype=torch.float32)
            parts.append(encoder(batch).reshape(batch.shape[0], -1).numpy())
    return np.concatenate(parts).astype(np.float32)


@dataclass(frozen=True)
class PublicEmbeddings:
    """Split indices into the training set, unit-length embeddings and the encoder's facts."""

    public_index: np.ndarray
    private_index: np.ndarray
    train: np.ndarray
    test: np.ndarray
    encoder_curve: np.ndarray

    @property
    def public(self) -> np.ndarray:
        """Embeddings of the public part (DPPL-Public's candidates)."""
        return self.train[self.public_index]

    @property
    def encoder_test_accuracy(self) -> float:
        """Test accuracy of the encoder's own classifier, trained on the public part only."""
        return float(self.encoder_curve[-1])

    def spread(self, public_labels: np.ndarray) -> float:
        """How far public embeddings lie from their class's mean (90% quantile).

        A public guess of how spread out the private classes are, for CoinPress's clipping.
        """
        public = self.public
        distances = np.empty(public.shape[0])
        for cls in np.unique(public_labels):
            members = public_labels == cls
            center = public[members].mean(axis=0)
            distances[members] = np.linalg.norm(public[members] - center, axis=1)
        return float(np.quantile(distances, _SPREAD_QUANTILE))


def encoder_payload(ctx: RunContext, public_fraction: float) -> dict[str, object]:
    """What the cached embeddings depend on: dataset, seed, encoder training, public share."""
    settings = ctx.train_settings
    return {
        "dataset": ctx.config.dataset,
        "seed": ctx.config.seed,
        "model": settings.model,
        "epochs": settings.epochs,
        "batch_size": settings.batch_size,
        "learning_rate": settings.learning_rate,
        "public_fraction": public_fraction,
    }


def public_embeddings(
    ctx: RunContext, public_fraction: float, *, start: float = 0.0, end: float = 1.0
) -> PublicEmbeddings:
    """Split, train the encoder on the public part, embed everything; cached per setting."""
    data = ctx.dataset

    def compute() -> dict[str, np.ndarray]:
        public, private = public_private_indices(data.n_train, public_fraction, ctx.config.seed)
        trained = ctx.train(
            data.y_train[public],
            images=data.x_train[public],
            start=start,
            end=end,
            message="training the public encoder on the public part",
        )
        train = embed(trained.model, data.x_train)
        test = embed(trained.model, data.x_test)
        center = train[public].mean(axis=0)
        return {
            "public_index": public,
            "private_index": private,
            "train": normalise_rows(train - center).astype(np.float32),
            "test": normalise_rows(test - center).astype(np.float32),
            "encoder_curve": np.asarray(trained.test_curve),
        }

    arrays = ctx.cache.arrays_or_compute(
        "dppl-embeddings",
        encoder_payload(ctx, public_fraction),
        compute,
        required=[f.name for f in fields(PublicEmbeddings)],
        by=__name__,
    )
    return PublicEmbeddings(**arrays)
