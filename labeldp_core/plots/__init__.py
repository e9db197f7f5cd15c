"""Pure plotting functions: data in, a ``plotly.graph_objects.Figure`` out (no Streamlit).

Every figure says on its axes what it shows, so a screenshot can be read without the page. The
shared helpers (:mod:`~labeldp_core.plots.common`, :mod:`~labeldp_core.plots.colours`,
:mod:`~labeldp_core.plots.readable`) and the figures that compose every mechanism (Compare, the
audit, the attacks, the papers) live here; each family's figures live in its folder
(``labeldp_core/families/<family>/plots.py``). This package serves them all by name, each loaded
on first use (PEP 562): a family's plots import the shared helpers from here.
"""

from importlib import import_module
from typing import Any

#: The module that defines each figure function and constant served here.
_HOMES: dict[str, str] = {
    "ATTACKS": "labeldp_core.plots.attack",
    "EPSILON_AXIS": "labeldp_core.plots.common",
    "LAYOUT": "labeldp_core.plots.common",
    "UNIT_DASH": "labeldp_core.plots.compare",
    "accountant_comparison": "labeldp_core.families.dpsgd.plots",
    "accuracy_by_privacy_unit": "labeldp_core.families.dpsgd.plots",
    "agreement_histograms": "labeldp_core.families.pate.plots",
    "attack_bars": "labeldp_core.plots.attack",
    "audit_figure": "labeldp_core.plots.audit",
    "clean_baseline": "labeldp_core.plots.compare",
    "cluster_metrics_vs_epsilon": "labeldp_core.families.noisy_outputs.plots",
    "comparison_figure": "labeldp_core.plots.compare",
    "discrete_laplace_figure": "labeldp_core.plots.laplace_noise",
    "dppl_accuracy_curves": "labeldp_core.families.prototypes.plots",
    "epsilon_vs_epochs": "labeldp_core.families.dpsgd.plots",
    "epsilon_vs_queries": "labeldp_core.families.pate.plots",
    "expected_label_mse_figure": "labeldp_core.families.laplace_labels.plots",
    "figure_table": "labeldp_core.plots.common",
    "flip_rate_comparison": "labeldp_core.families.rr_prior.plots",
    "guess_bound": "labeldp_core.plots.attack",
    "guess_bound_figure": "labeldp_core.plots.attack",
    "keep_flip_curve": "labeldp_core.families.randomized_response.plots",
    "label_accuracy_by_agreement": "labeldp_core.families.pate.plots",
    "label_heatmap": "labeldp_core.families.randomized_response.plots",
    "label_histogram": "labeldp_core.plots.tables",
    "laplace_density_figure": "labeldp_core.plots.laplace_noise",
    "lesson_figure": "labeldp_core.plots.papers",
    "mark_epsilon": "labeldp_core.plots.common",
    "mse_vs_epsilon": "labeldp_core.families.laplace_labels.plots",
    "neighbour_outputs_figure": "labeldp_core.plots.attack",
    "noisy_vectors_figure": "labeldp_core.families.laplace_labels.plots",
    "output_projection": "labeldp_core.families.noisy_outputs.plots",
    "papers_figure": "labeldp_core.plots.papers",
    "per_class_accuracy_bars": "labeldp_core.families.prototypes.plots",
    "per_class_accuracy_curves": "labeldp_core.families.prototypes.plots",
    "power_law_slope": "labeldp_core.families.laplace_labels.plots",
    "prior_mass_histogram": "labeldp_core.families.rr_prior.plots",
    "projector_ready": "labeldp_core.plots.readable",
    "prototype_mosaic": "labeldp_core.families.prototypes.plots",
    "rr_bins_figure": "labeldp_core.families.laplace_labels.plots",
    "score_vs_epsilon": "labeldp_core.plots.common",
    "set_size_histogram": "labeldp_core.families.rr_prior.plots",
    "student_accuracy_vs_epsilon": "labeldp_core.families.pate.plots",
    "summary_at": "labeldp_core.plots.compare",
    "summary_rows": "labeldp_core.plots.compare",
    "tail_probability_figure": "labeldp_core.plots.laplace_noise",
    "tally_figure": "labeldp_core.plots.attack",
    "teacher_accuracy_strip": "labeldp_core.families.pate.plots",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """A figure function or constant, imported from its module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_HOMES[name]), name)


def __dir__() -> list[str]:
    """The names served here, for completion and ``dir()``."""
    return __all__
