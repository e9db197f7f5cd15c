"""The model audit's own training recipe per dataset: a model that memorises its canaries.

A run's recipe is chosen for test accuracy; an audit needs the opposite, a model that learns each
canary's label from that canary alone. On Fashion-MNIST the run's recipe (the CNN, 5 epochs)
proves 0.28 on its non-private control, so no claim of 1 can be tested; the MLP over 60 epochs
at Adam learning rate 7e-4 proves 5.11 there with 1,000 crafted canaries (500 of 500 guesses
right: the most they can prove at 95%) and catches the 2x control of RR, RR with prior, ALIBI
and vector RR at claims 1 and 2, on canaries other than those the rate was chosen on
(docs/audit.md, with how it was chosen). The recipe is chosen on the auditor's own canaries,
never on the private labels' test accuracy.
A model, epochs or learning rate the user asks for replace the recipe's, and a mechanism whose
own recipe sets its epochs keeps that recipe.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from labeldp_core.experiments import make_config, mechanism_spec
from labeldp_core.model_audit.result import ModelAudit

__all__ = ["AUDIT_RECIPES", "AuditRecipe", "audit_recipe", "describe_recipe", "training_words"]


@dataclass(frozen=True)
class AuditRecipe:
    """The audit's training on one dataset: the model, its epochs and Adam's learning rate.

    ``learning_rate`` None keeps the run's own rate (the dataset's default), so the configs and
    cache keys are those of a recipe of model and epochs alone. It is the rate of the model
    trained on the labels: the DP prototypes, which train none (their encoder learns the public
    part), keep their own.
    """

    model: str
    epochs: int
    learning_rate: float | None = None

    def settings(self, mechanism: str) -> dict[str, object]:
        """The run settings this recipe fills in for ``mechanism`` (the user's go over them)."""
        rate = self.learning_rate is not None and mechanism_spec(mechanism).trains_model
        return {"model": self.model} | ({"learning_rate": self.learning_rate} if rate else {})


#: Per dataset, the audit's default training (datasets not listed: the run's recipe). At the
#: dataset's own rate (3e-3 at batch 256) the MLP memorises ALIBI's soft targets and vector RR's
#: bits too little to catch their 2x controls at a claim of 1; at 7e-4 it does (docs/audit.md).
AUDIT_RECIPES: Mapping[str, AuditRecipe] = MappingProxyType(
    {"fashion-mnist": AuditRecipe("mlp", 60, 7e-4)}
)


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
    own_epochs = mechanism_spec(mechanism).recipe_sets_epochs(dataset)
    if dataset not in AUDIT_RECIPES or own_epochs or not isinstance(settings, Mapping | None):
        return epochs, settings
    recipe = AUDIT_RECIPES[dataset]
    filled = recipe.settings(mechanism) | dict(settings or {})
    return recipe.epochs if epochs is None else epochs, filled


def training_words(audit: ModelAudit) -> str:
    """The audit's trained model in a few words: "model mlp, 60 epochs" (or its epochs alone)."""
    return (
        f"model {audit.model}, {audit.epochs} epochs" if audit.model else f"{audit.epochs} epochs"
    )


def describe_recipe(audit: ModelAudit) -> str:
    """How the audit's model is named in its report, saying when it is the audit's recipe.

    Where the dataset has a recipe, a learning rate other than the one it trains with is named.
    """
    trained = training_words(audit)
    recipe = AUDIT_RECIPES.get(audit.dataset)
    if recipe is None:
        return trained
    if audit.learning_rate not in (None, _recipe_rate(audit)):
        return f"{trained}, learning rate {audit.learning_rate:g}"
    if (recipe.model, recipe.epochs) == (audit.model, audit.epochs):
        return f"{trained} (the audit's recipe for {audit.dataset})"
    return trained


def _recipe_rate(audit: ModelAudit) -> object:
    """The learning rate ``audit``'s mechanism trains with under its dataset's audit recipe."""
    epochs, settings = audit_recipe(audit.mechanism, audit.dataset, None, None)
    config = make_config(
        audit.mechanism, audit.dataset, audit.claimed_epsilon, audit.seed, epochs, settings
    )
    return dict(config.settings).get("learning_rate")
