"""Datasets: the registry, loaders reading local files first, and fixed splits."""

from labeldp_core.data.dataset import Dataset
from labeldp_core.data.registry import (
    DATASETS,
    DatasetInfo,
    dataset_info,
    is_available,
    load_dataset,
    training_size,
)

__all__ = [
    "DATASETS",
    "Dataset",
    "DatasetInfo",
    "dataset_info",
    "is_available",
    "load_dataset",
    "training_size",
]
