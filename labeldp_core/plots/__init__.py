"""Pure plotting functions: data in, a ``plotly.graph_objects.Figure`` out (no Streamlit).

Every figure says on its axes what it shows, so a screenshot can be read without the page. Each
family's figures live in its folder (``labeldp_core/families/<family>/plots.py``), drawn with the
plotting base below the families (:mod:`labeldp_core.plots_base`: layout, readable type, colours);
the figures that draw several families' mechanisms (Compare, score vs ε, the audit, the attacks,
the papers, DP-SGD beside a label-DP family) live here, above the registry, whose table of every
mechanism's colour they style their series by. This package serves them all by name, each
loaded on first use (PEP 562).
"""

from importlib import import_module
from types import ModuleType
from typing import Any

#: The module that defines each shared figure function and constant served here.
_HOMES: dict[str, str] = {
    "ATTACKS": "labeldp_core.plots.attack",
    "EPSILON_AXIS": "labeldp_core.plots_base.common",
    "LAYOUT": "labeldp_core.plots_base.common",
    "UNITS_NOTE": "labeldp_core.plots.scores",
    "UNIT_DASH": "labeldp_core.plots.compare",
    "accuracy_by_privacy_unit": "labeldp_core.plots.scores",
    "attack_bars": "labeldp_core.plots.attack",
    "audit_figure": "labeldp_core.plots.audit",
    "clean_baseline": "labeldp_core.plots.compare",
    "comparison_figure": "labeldp_core.plots.compare",
    "discrete_laplace_figure": "labeldp_core.plots.laplace_noise",
    "dppl_accuracy_curves": "labeldp_core.plots.dppl_vs_dpsgd",
    "figure_table": "labeldp_core.plots_base.common",
    "flip_rate_comparison": "labeldp_core.plots.flip_rates",
    "guess_bound": "labeldp_core.plots.attack",
    "guess_bound_figure": "labeldp_core.plots.attack",
    "inference_gain_figure": "labeldp_core.plots.inference",
    "label_histogram": "labeldp_core.plots.tables",
    "laplace_density_figure": "labeldp_core.plots.laplace_noise",
    "lesson_figure": "labeldp_core.plots.papers",
    "mark_epsilon": "labeldp_core.plots_base.common",
    "neighbour_outputs_figure": "labeldp_core.plots.attack",
    "papers_figure": "labeldp_core.plots.papers",
    "per_class_accuracy_bars": "labeldp_core.plots.dppl_vs_dpsgd",
    "per_class_accuracy_curves": "labeldp_core.plots.dppl_vs_dpsgd",
    "price_of_privacy_figure": "labeldp_core.plots.price_of_privacy",
    "projector_ready": "labeldp_core.plots_base.readable",
    "score_vs_epsilon": "labeldp_core.plots.scores",
    "summary_at": "labeldp_core.plots.compare",
    "summary_rows": "labeldp_core.plots.compare",
    "tail_probability_figure": "labeldp_core.plots.laplace_noise",
    "tally_figure": "labeldp_core.plots.attack",
}

__all__ = sorted(_HOMES)


def _family_plots() -> list[ModuleType]:
    """The ``plots`` module of every registered family that has one."""
    from labeldp_core.registry import FAMILIES

    found = []
    for family in FAMILIES:
        if (family.folder / "plots.py").is_file():
            found.append(import_module(f"{family.package}.plots"))
    return found


def __getattr__(name: str) -> Any:
    """A figure function or constant, imported from its module on first use."""
    if name in _HOMES:
        return getattr(import_module(_HOMES[name]), name)
    for module in _family_plots():
        if name in getattr(module, "__all__", ()):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The names served here, for completion and ``dir()``."""
    families = [name for module in _family_plots() for name in getattr(module, "__all__", ())]
    return sorted({*__all__, *families})
