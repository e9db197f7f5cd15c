"""The model audit's own training recipe per dataset: a model that memorises its canaries.

A run's recipe is chosen for test accuracy; an audit needs the opposite, a model that learns each
canary's label from that canary alone. On Fashion-MNIST the run's recipe (the CNN, 5 epochs)
proves 0.28 on its non-private control, so no claim of 1 can be tested; the MLP over 60 epochs
proves 5.11 there with 1,000 crafted canaries (500 of 500 guesses right: the most they can prove
at 95%) and catches the 2x control at claims 1 and 2 (docs/audit.md, with how it was chosen).
The recipe is chosen on the auditor's own canaries, never on the private labels' test accuracy.
A model or epochs the user asks for replace it, and a mechanism whose own recipe sets its epochs
keeps that recipe.
"""

from collections.abc import Mapping
from types import MappingProxyType

from labeldp_core.experiments import mechanism_spec

__all__ = ["AUDIT_RECIPES", "audit_recipe", "describe_recipe"]

#: Per dataset, the audit's default model and epochs (datasets not listed: the run's recipe).
AUDIT_RECIPES: Mapping[str, tuple[str, int]] = MappingProxyType({"fashion-mnist": ("mlp", 60)})


def audit_recipe(
    mechanism: str,
    dataset: str,
    epochs: int | None,
    settings: Mapping[str, object] | None,
) -> tuple[int | None, Mapping[str, object] | None]:
    """``epochs`` and ``settings`` with the audit's recipe for ``dataset`` filling what is unset.

    A dataset without an audit recipe keeps the run's own (None stays None), and so does a
    mechanism whose own recipe sets its epochs there (DP-SGD, LabelDP-Pro: their noise is
    calibrated over the recipe's steps); settings that are no mapping are left for
    :func:`~labeldp_core.experiments.make_config` to refuse.
    """
    recipe = mechanism_spec(mechanism).recipe
    own_epochs = recipe is not None and "epochs" in recipe(dataset)
    if dataset not in AUDIT_RECIPES or own_epochs or not isinstance(settings, Mapping | None):
        return epochs, settings
    model, recipe_epochs = AUDIT_RECIPES[dataset]
    return recipe_epochs if epochs is None else epochs, {"model": model, **(settings or {})}


def describe_recipe(dataset: str, model: str | None, epochs: int) -> str:
    """How the audit's model is named in its report, saying when it is the audit's recipe."""
    trained = f"model {model}, {epochs} epochs" if model else f"{epochs} epochs"
    if AUDIT_RECIPES.get(dataset) == (model, epochs):
        return f"{trained} (the audit's recipe for {dataset})"
    return trained
