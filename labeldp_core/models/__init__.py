"""The small models every mechanism trains: a CNN, an MLP and logistic regression."""

from labeldp_core.models.zoo import MODELS, build_model

__all__ = ["MODELS", "build_model"]
