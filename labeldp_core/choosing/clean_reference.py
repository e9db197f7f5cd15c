"""The clean baseline every page draws: one definition, so one number per dataset and model.

A page's "same model trained on the true labels" is the dataset's default training recipe (the
model chosen, the dataset's epochs, batch size and learning rate: the recipe of the label-DP
mechanisms that train a model) trained on every clean training label, averaged over the demo
seeds. Mechanisms with recipes of their own (PATE's smaller batches, an imbalanced DP-SGD run's
subset) record their own clean model in their runs; the pages draw this one, so that Randomized
response, LabelDP-Pro, PATE, Compare and Choose ε show the same number for the same quantity.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from labeldp_core.accounting.risk import Prior
from labeldp_core.base.numbers import in_words
from labeldp_core.cache import ResultCache
from labeldp_core.choosing.summary import clean_baseline
from labeldp_core.data.results_store import results_store
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.progress import silent
from labeldp_core.engine.spec import RunResult
from labeldp_core.experiments.demo import DEMO_SEEDS
from labeldp_core.experiments.runner import make_config

__all__ = ["REFERENCE_MECHANISM", "CleanLine", "clean_line", "clean_reference", "image_prior"]

#: The mechanism whose configuration names the default recipe (it adds no training setting).
REFERENCE_MECHANISM = "rr"


def clean_reference(
    dataset: str, model: str | None, epochs: int | None, cache: ResultCache
) -> float | None:
    """The clean model's test accuracy on ``dataset``, mean over :data:`DEMO_SEEDS`, or None.

    Read from the cache only (nothing trains here): None unless every demo seed's clean model
    is cached, so the number does not change with how many seeds happen to be. Classification
    only: the regression charts keep their runs' clean MSE.

    Args:
        dataset: the dataset id.
        model: the model id (``"cnn"``, ``"mlp"``...), or None for the dataset's default.
        epochs: the epochs asked, or None for the dataset's default.
        cache: the result cache (a table's own one is found from it).
    """
    store = results_store(cache, dataset)
    scores = []
    for seed in DEMO_SEEDS:
        settings = {} if model is None else {"model": model}
        config = make_config(REFERENCE_MECHANISM, dataset, 1.0, seed, epochs, settings)
        record = RunContext(config, "classification", store, silent).stored_baseline()
        if record is None:
            return None
        scores.append(float(record["score"]))
    return float(np.mean(scores))


@dataclass(frozen=True)
class CleanLine:
    """The clean line a chart draws and what it is, in words for the caption."""

    score: float | None
    words: str


def clean_line(
    dataset: str,
    model: str,
    epochs: int | None,
    cache: ResultCache,
    runs: Sequence[RunResult],
) -> CleanLine:
    """:func:`clean_reference`, or, while a demo seed's clean model is missing, that of ``runs``.

    The fallback is the mean over the seeds of ``runs`` of the clean model each records, and
    its words say which seeds, so that a page never passes a single seed off as the mean.
    """
    reference = clean_reference(dataset, model, epochs, cache)
    if reference is not None:
        return CleanLine(reference, f"the mean over seeds {in_words(DEMO_SEEDS)}")
    own = clean_baseline(runs, "test accuracy")
    if own is None:
        return CleanLine(None, "")
    seeds = sorted({r.seed for r in runs if r.baseline_test_accuracy is not None})
    return CleanLine(
        own,
        f"seed{'s' if len(seeds) > 1 else ''} {in_words(seeds)} only, until every demo "
        f"seed's clean model (seeds {in_words(DEMO_SEEDS)}) is computed",
    )


def image_prior(line: CleanLine) -> Prior | None:
    """The clean line read as what an attacker believes of one label before a release, or None.

    Under label DP the images are public: a model of the image alone names the true label as
    often as the clean model does on test images, so its accuracy stands in for the prior π
    (:mod:`labeldp_core.accounting.risk`) of the attacker label DP assumes.
    """
    if line.score is None:
        return None
    return Prior(line.score, f"the clean model's test accuracy, {line.words}")
