"""Helpers of the DP prototypes page: the encoder choice and DP-SGD results to compare with."""

from collections.abc import Sequence

import numpy as np
import streamlit as st

from labeldp_core.engine.public_encoder import ENCODER_MODELS
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import RunConfig, RunResult, make_config
from labeldp_core.families.prototypes import FAMILY as PROTOTYPES
from ui.controls import Controls
from ui.results import stored_many

__all__ = ["DPPL_MECHANISMS", "DpsgdComparison", "dpsgd_comparison", "encoder_model", "unique"]

#: The DP prototypes' mechanisms, in their family's order: what the page compares.
DPPL_MECHANISMS = tuple(mechanism.id for mechanism in PROTOTYPES.mechanisms)


def encoder_model(controls: Controls) -> str:
    """The sidebar's model as the public encoder; a model without a hidden layer falls back."""
    if controls.model in ENCODER_MODELS:
        return controls.model
    st.info(
        f"The encoder needs a hidden layer to take embeddings from; '{controls.model}' has none, "
        f"so this page uses '{ENCODER_MODELS[0]}'."
    )
    return ENCODER_MODELS[0]


def unique(configs: Sequence[RunConfig]) -> list[RunConfig]:
    """``configs`` without repeats, in their first order."""
    return list(dict.fromkeys(configs))


class DpsgdComparison:
    """DP-SGD results already in the cache at the page's points, and what they were trained on."""

    def __init__(self, results: list[RunResult], note: str) -> None:
        self.results = results
        self.note = note

    def overall(self, spent: bool = False) -> list[tuple[float, float]]:
        """(epsilon, test accuracy) points; the epsilon spent instead of asked if ``spent``."""
        return [(r.epsilon_spent if spent else r.epsilon, r.score) for r in self.results]

    def minority(self, classes: Sequence[int], spent: bool = False) -> list[tuple[float, float]]:
        """(epsilon, mean accuracy over ``classes``) where DP-SGD recorded per-class accuracy."""
        return [
            (
                r.epsilon_spent if spent else r.epsilon,
                float(np.mean([r.details["per_class_accuracy"][c] for c in classes])),
            )
            for r in self.results
            if len(r.details.get("per_class_accuracy", ())) > max(classes, default=0)
        ]

    def per_class_at(self, epsilon: float) -> list[float] | None:
        """DP-SGD's per-class accuracy at ``epsilon``, if cached and recorded."""
        for result in self.results:
            if result.epsilon == epsilon and "per_class_accuracy" in result.details:
                return list(result.details["per_class_accuracy"])
        return None


def dpsgd_comparison(
    dataset: str,
    epsilons: Sequence[float],
    seed: int,
    epochs: int | None,
    model: str,
    imbalance: float,
) -> DpsgdComparison:
    """Look up (never compute) DP-SGD (``dpsgd``) at these points in the cache.

    Above imbalance 1 DP-SGD trains on the prototypes' own private set (same seed, same examples).
    """
    settings = {"model": model, "imbalance": imbalance}
    try:
        configs = [
            make_config("dpsgd", dataset, e, seed, epochs, settings) for e in sorted(set(epsilons))
        ]
    except LabelDPError as exc:
        return DpsgdComparison([], f"DP-SGD cannot be looked up here: {exc}")
    found, _ = stored_many(configs)
    if not found:
        command = (
            f"python -m labeldp_core sweep dpsgd --dataset {dataset} --epsilons "
            + " ".join(f"{e:g}" for e in sorted(set(epsilons)))
            + f" --seeds {seed}"
            + (f" --epochs {epochs}" if epochs else "")
            + f" --set model={model} --set imbalance={imbalance:g}"
        )
        return DpsgdComparison(
            [], f"No DP-SGD results for these settings in the cache yet; `{command}` adds them."
        )
    scope = found[0].details.get("guarantee_scope")
    return DpsgdComparison(
        found,
        f"DP-SGD points ({len(found)} cached) trained a {model} on "
        f"{found[0].details['training_set']}, with example-level add/remove DP-SGD accounting."
        + (f" What its ε covers: {scope}." if scope else ""),
    )
