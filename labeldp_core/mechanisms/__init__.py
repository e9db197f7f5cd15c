"""Label-DP mechanisms: pure NumPy release functions and their closed-form facts.

The shared noise (Laplace, discrete Laplace, label histograms) is listed below. Every other
name is a family's: the registry derives them from each registered family's declaration
(:attr:`labeldp_core.families.family.Family.api`, see :func:`labeldp_core.registry.release_api`)
and this package serves each from its module on first use (PEP 562), so a new family's release
functions appear here, and in the bad-input matrix of ``tests/contract``, without an edit; the
import paths ``labeldp_core.mechanisms.<name>`` stay as they were.
"""

from importlib import import_module
from typing import Any

#: The shared noise's names (no family declares them), each with its module.
_SHARED: dict[str, str] = {
    "discrete_laplace_noise": "labeldp_core.noise.discrete_laplace",
    "discrete_laplace_parameter": "labeldp_core.noise.discrete_laplace",
    "discrete_laplace_pmf": "labeldp_core.noise.discrete_laplace",
    "discrete_laplace_variance": "labeldp_core.noise.discrete_laplace",
    "HISTOGRAM_SENSITIVITY": "labeldp_core.noise.label_histogram",
    "label_counts": "labeldp_core.noise.label_histogram",
    "noisy_label_counts": "labeldp_core.noise.label_histogram",
    "prior_from_counts": "labeldp_core.noise.label_histogram",
    "epsilon_for_noise": "labeldp_core.noise.laplace",
    "laplace_cdf": "labeldp_core.noise.laplace",
    "laplace_density": "labeldp_core.noise.laplace",
    "laplace_epsilon": "labeldp_core.noise.laplace",
    "laplace_scale": "labeldp_core.noise.laplace",
    "laplace_variance": "labeldp_core.noise.laplace",
    "tail_probability": "labeldp_core.noise.laplace",
}


def _family_names() -> dict[str, str]:
    """Each registered family's release name, with the module that defines it."""
    from labeldp_core.registry import release_api

    return release_api()


def __getattr__(name: str) -> Any:
    """A family's release function or constant, imported from its module on first use.

    ``__all__`` is derived too: the shared names and every registered family's.
    """
    if name == "__all__":
        return sorted({*_SHARED, *_family_names()})
    home = _SHARED.get(name) or _family_names().get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)


def __dir__() -> list[str]:
    """The names served here, for completion and ``dir()``."""
    return sorted({*globals(), *_SHARED, *_family_names()})
