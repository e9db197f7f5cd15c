from pathlib import Path

import numpy as np
import pytest

from labeldp_core.data import (
    DATASETS,
    dataset_info,
    is_available,
    load_dataset,
    loaders,
    training_size,
)
from labeldp_core.errors import DatasetUnavailableError, InvalidInputError


@pytest.mark.parametrize("name", ["digits", "mnist-5k"])
def test_bundled_datasets_have_the_documented_shape(name):
    data = load_dataset(name)
    info = DATASETS[name]
    assert data.n_train + data.n_test == info.size
    assert data.x_train.dtype == np.float32 and data.y_train.dtype == np.int64
    assert data.x_train.shape[1:] == (1, info.image_side, info.image_side)
    assert data.x_train.min() >= 0.0 and data.x_train.max() <= 1.0
    assert set(np.unique(data.y_train)) == set(range(info.num_classes))
    assert data.num_classes == info.num_classes


def test_split_is_fixed_and_stratified():
    first, second = loaders.load_digits(), loaders.load_digits()
    np.testing.assert_array_equal(first.y_test, second.y_test)
    np.testing.assert_array_equal(first.x_train, second.x_train)
    train_share = np.bincount(first.y_train) / first.n_train
    test_share = np.bincount(first.y_test) / first.n_test
    np.testing.assert_allclose(train_share, test_share, atol=0.01)


@pytest.mark.parametrize("name", list(DATASETS))
def test_every_bundled_dataset_says_its_split_is_public_and_fixed(name):
    # Issue 34: the bundled splits are not label-blind; the guarantee takes them as known.
    note = dataset_info(name).threat_note
    assert "public and fixed" in note and "not protected" in note
    assert ("stratified by label" in note) == (name in ("digits", "mnist-5k"))


def test_the_docs_say_the_bundled_splits_are_public_and_fixed():
    page = (Path(__file__).parents[2] / "docs" / "data.md").read_text()
    datasets = page.split("## Datasets", 1)[1].split("\n## ", 1)[0]
    assert "public and fixed" in datasets and "stratified by label" in datasets


def test_arrays_are_read_only_so_a_run_cannot_corrupt_the_shared_copy():
    data = load_dataset("digits")
    with pytest.raises(ValueError, match="read-only"):
        data.y_train[0] = 3


def test_unknown_dataset_lists_the_known_ones():
    with pytest.raises(InvalidInputError, match="digits, mnist-5k"):
        dataset_info("cifar")


def test_missing_dataset_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("LABELDP_DATA_DIR", str(tmp_path))
    monkeypatch.setitem(loaders.SYSTEM_DATA_DIRS, "FashionMNIST", tmp_path / "no-such-package")
    with pytest.raises(DatasetUnavailableError, match="make data") as caught:
        loaders.load_fashion_mnist()
    assert "--dataset digits" in str(caught.value)


def _write_idx(path: Path, array: np.ndarray) -> None:
    import gzip

    kind = 0x08  # unsigned byte
    header = bytes([0, 0, kind, array.ndim]) + b"".join(
        int(n).to_bytes(4, "big") for n in array.shape
    )
    with gzip.open(path, "wb") as handle:
        handle.write(header + array.astype(np.uint8).tobytes())


def _package_with_idx_files(folder: Path) -> Path:
    folder.mkdir()
    rng = np.random.default_rng(0)
    for prefix, n in (("train", 12), ("t10k", 5)):
        _write_idx(folder / f"{prefix}-images-idx3-ubyte.gz", rng.integers(0, 256, (n, 28, 28)))
        _write_idx(folder / f"{prefix}-labels-idx1-ubyte.gz", np.arange(n) % 10)
    return folder


def test_system_package_files_are_unpacked_where_torchvision_reads(tmp_path, monkeypatch):
    package = _package_with_idx_files(tmp_path / "package")
    monkeypatch.setenv("LABELDP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setitem(loaders.SYSTEM_DATA_DIRS, "FashionMNIST", package)
    data = loaders.load_fashion_mnist()
    assert (data.n_train, data.n_test) == (12, 5)
    assert data.x_train.shape == (12, 1, 28, 28) and data.x_train.dtype == np.float32
    np.testing.assert_array_equal(data.y_test, np.arange(5))
    assert data.class_names[0] == "T-shirt/top"


def test_a_data_folder_that_cannot_be_written_names_the_fix(tmp_path, monkeypatch):
    package = _package_with_idx_files(tmp_path / "package")
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where the data folder should be")  # unwritable even for root
    monkeypatch.setenv("LABELDP_DATA_DIR", str(blocker / "data"))
    monkeypatch.setitem(loaders.SYSTEM_DATA_DIRS, "FashionMNIST", package)
    with pytest.raises(DatasetUnavailableError, match="could not be unpacked") as caught:
        loaders.load_fashion_mnist()
    assert "LABELDP_DATA_DIR" in str(caught.value) and "--dataset digits" in str(caught.value)


def test_a_damaged_system_archive_is_reported_not_raised(tmp_path, monkeypatch):
    package = _package_with_idx_files(tmp_path / "package")
    archive = package / "train-images-idx3-ubyte.gz"
    archive.write_bytes(archive.read_bytes()[:40])  # truncated mid-stream
    monkeypatch.setenv("LABELDP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setitem(loaders.SYSTEM_DATA_DIRS, "FashionMNIST", package)
    with pytest.raises(DatasetUnavailableError, match="could not be unpacked"):
        loaders.load_fashion_mnist()


def test_a_download_waits_on_a_silent_network_for_a_bounded_time(monkeypatch, tmp_path):
    # torchvision opens its sockets with no timeout: a stalled network would hang the page and
    # the next visitor. Every socket of the download gets DOWNLOAD_TIMEOUT_S, and only there.
    import socket

    from torchvision import datasets

    seen = []

    class Recording:
        def __init__(self, root, train, download):
            seen.append((download, socket.getdefaulttimeout()))
            raise RuntimeError("Dataset not found.")

    monkeypatch.setattr(datasets, "MNIST", Recording)
    monkeypatch.setenv("LABELDP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LABELDP_OFFLINE", "0")
    with pytest.raises(DatasetUnavailableError, match="a download failed"):
        loaders.load_mnist()
    assert seen == [(True, loaders.DOWNLOAD_TIMEOUT_S)]
    assert socket.getdefaulttimeout() is None


@pytest.mark.parametrize("name", [n for n, info in DATASETS.items() if info.train_size])
def test_a_known_training_size_is_the_loaded_splits(name):
    # Checking a DP-SGD config reads the size from the registry instead of loading the data
    # (choose builds hundreds of configs and must answer in under a second).
    if not is_available(name):
        pytest.skip(f"{name} is not installed here")
    assert training_size(name) == DATASETS[name].train_size == load_dataset(name).n_train


def test_checking_a_dpsgd_config_loads_no_dataset(monkeypatch):
    from labeldp_core.data import registry
    from labeldp_core.experiments import make_config
    from labeldp_core.families.dpsgd import experiment as dpsgd
    from labeldp_core.families.labeldp_pro import experiment as labeldp_pro

    def refuse(name):
        raise AssertionError(f"loaded {name}")

    for module in (registry, dpsgd, labeldp_pro):  # wherever a check could load it from
        monkeypatch.setattr(module, "load_dataset", refuse, raising=False)
    for mechanism in ("dpsgd", "labeldp-pro"):
        assert make_config(mechanism, "digits", 1.0).mechanism == mechanism
    with pytest.raises(InvalidInputError, match="larger than the 1437 training examples"):
        make_config("dpsgd", "digits", 1.0, settings={"batch": 2000})
