"""The in-memory dataset every experiment works on: fixed train/test split, images and labels.

The split is public and fixed: made once (the datasets that ship without one are split here,
stratified by label, with :data:`SPLIT_SEED`), the same for every run and every seed, and taken
as known like the images. Label DP then protects each training label given the split; a
stratified split is computed from the labels, so it is not protected (issue 34, and
:attr:`~labeldp_core.data.registry.DatasetInfo.threat_note`, which the pages show). Your own
tables are split blind to the labels instead (:mod:`labeldp_core.data.tables`).
"""

from dataclasses import dataclass

import numpy as np

__all__ = ["SPLIT_SEED", "Dataset", "split_fixed"]

#: The train/test split never depends on the run's seed: every run is scored on the same test set.
SPLIT_SEED = 0


@dataclass(frozen=True)
class Dataset:
    """Images as float32 ``(N, 1, H, W)`` in [0, 1], labels as int64; split once, read-only."""

    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    class_names: tuple[str, ...]
    #: Class ``k``'s value as a number (regression): ``value_offset + k * value_step``.
    value_offset: float = 0.0
    value_step: float = 1.0

    def __post_init__(self) -> None:
        for array in (self.x_train, self.y_train, self.x_test, self.y_test):
            array.setflags(write=False)

    @property
    def num_classes(self) -> int:
        """K, the number of classes."""
        return len(self.class_names)

    @property
    def class_values(self) -> np.ndarray:
        """Each class's value as a number, for regression: 0..K-1 unless a table says otherwise."""
        return self.value_offset + self.value_step * np.arange(self.num_classes, dtype=np.float64)

    @property
    def image_shape(self) -> tuple[int, int, int]:
        """``(channels, height, width)`` of one image."""
        return tuple(self.x_train.shape[1:])

    @property
    def n_train(self) -> int:
        """Number of training examples."""
        return int(self.x_train.shape[0])

    @property
    def n_test(self) -> int:
        """Number of test examples."""
        return int(self.x_test.shape[0])


def split_fixed(
    name: str,
    images: np.ndarray,
    labels: np.ndarray,
    class_names: tuple[str, ...],
    test_fraction: float,
) -> Dataset:
    """Split a dataset that ships without a test split, stratified, with :data:`SPLIT_SEED`.

    The split is stratified by label, so it depends on the labels: it is public and fixed, and
    the guarantees hold given it (see the module's docstring).
    """
    from sklearn.model_selection import train_test_split  # here: only a load needs sklearn

    x_train, x_test, y_train, y_test = train_test_split(
        images, labels, test_size=test_fraction, random_state=SPLIT_SEED, stratify=labels
    )
    return Dataset(name, x_train, y_train, x_test, y_test, class_names)
