"""The in-memory dataset every experiment works on: fixed train/test split, images and labels.

The split is public and fixed: made once (the datasets that ship without one are split here,
stratified by label, with :data:`SPLIT_SEED`), the same for every run and every seed, and taken
as known like the images. Label DP then protects each training label given the split; a
stratified split is computed from the labels, so it is not protected (issue 34, and
:attr:`~labeldp_core.data.registry.DatasetInfo.threat_note`, which the pages show). Your own
tables are split blind to the labels instead (:mod:`labeldp_core.data.tables`).
"""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["FROZEN_SPLITS", "SPLIT_SEED", "Dataset", "frozen_split_file", "split_fixed"]

#: The train/test split never depends on the run's seed: every run is scored on the same test set.
SPLIT_SEED = 0
#: The bundled datasets' splits as scikit-learn's ``train_test_split`` made them (stratified,
#: :data:`SPLIT_SEED`; ``tests/data/test_frozen_splits.py`` checks them against it), kept in
#: ``frozen_splits/``: a load needs no scikit-learn (importing it took 1.4 to 1.9 s of CPU in
#: every process that loaded digits), and an upgrade of scikit-learn cannot move a split under
#: stored results. Each file's SHA-256 is written here, in the code that result keys
#: fingerprint, so that a changed split changes the keys of what was computed on it.
FROZEN_SPLITS: dict[str, str] = {
    "digits": "5f44a58a51a59a881d47c5337d15b29604254b404769b651b1e22e51e04d8f31",
    "mnist-5k": "748876e3f750074fd98394c12b97f0ece812449cf7781fb9d38347b27a9f4796",
}


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
    split = _frozen_split(name, labels, test_fraction)
    train, test = split if split is not None else stratified_split(labels, test_fraction)
    return Dataset(name, images[train], labels[train], images[test], labels[test], class_names)


def stratified_split(labels: np.ndarray, test_fraction: float) -> tuple[np.ndarray, np.ndarray]:
    """The training and test rows, in scikit-learn's order: its stratified split with the seed."""
    from sklearn.model_selection import train_test_split  # here: only a fresh split needs it

    rows = np.arange(len(labels))
    return tuple(
        train_test_split(rows, test_size=test_fraction, random_state=SPLIT_SEED, stratify=labels)
    )


def frozen_split_file(name: str) -> Path:
    """Where dataset ``name``'s frozen split is kept (:data:`FROZEN_SPLITS`)."""
    return Path(__file__).with_name("frozen_splits") / f"{name}.json"


def _frozen_split(
    name: str, labels: np.ndarray, test_fraction: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """``name``'s frozen rows, or None if none was frozen for these labels and this fraction.

    Raises:
        ValueError: if the file's bytes are not those whose SHA-256 :data:`FROZEN_SPLITS` holds.
    """
    if name not in FROZEN_SPLITS:
        return None
    data = frozen_split_file(name).read_bytes()
    if hashlib.sha256(data).hexdigest() != FROZEN_SPLITS[name]:
        raise ValueError(
            f"{frozen_split_file(name)} is not the split its digest names: restore it from the "
            "repository (tests/data/test_frozen_splits.py says how to write it anew)"
        )
    frozen = json.loads(data)
    same_labels = frozen["labels_sha256"] == hashlib.sha256(labels.tobytes()).hexdigest()
    if not same_labels or frozen["test_fraction"] != test_fraction:
        return None
    return np.asarray(frozen["train"], dtype=np.int64), np.asarray(frozen["test"], dtype=np.int64)
