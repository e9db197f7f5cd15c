"""Pure plotting functions: data in, a ``plotly.graph_objects.Figure`` out (no Streamlit).

One module per page; every figure says on its axes what it shows, so a screenshot can be read
without the page.
"""

from labeldp_core.plots.attack import (
    ATTACKS,
    attack_bars,
    guess_bound,
    guess_bound_figure,
    neighbour_outputs_figure,
    tally_figure,
)
from labeldp_core.plots.audit import (
    audit_figure,
)
from labeldp_core.plots.common import (
    EPSILON_AXIS,
    LAYOUT,
    figure_table,
    mark_epsilon,
    score_vs_epsilon,
)
from labeldp_core.plots.compare import (
    UNIT_DASH,
    clean_baseline,
    comparison_figure,
    summary_at,
    summary_rows,
)
from labeldp_core.plots.dppl import (
    dppl_accuracy_curves,
    per_class_accuracy_bars,
    per_class_accuracy_curves,
    prototype_mosaic,
)
from labeldp_core.plots.dpsgd import (
    accountant_comparison,
    accuracy_by_privacy_unit,
    epsilon_vs_epochs,
)
from labeldp_core.plots.laplace_labels import (
    expected_label_mse_figure,
    mse_vs_epsilon,
    noisy_vectors_figure,
    power_law_slope,
    rr_bins_figure,
)
from labeldp_core.plots.laplace_noise import (
    discrete_laplace_figure,
    laplace_density_figure,
    tail_probability_figure,
)
from labeldp_core.plots.noisy_outputs import (
    cluster_metrics_vs_epsilon,
    output_projection,
)
from labeldp_core.plots.papers import lesson_figure, papers_figure
from labeldp_core.plots.pate import (
    agreement_histograms,
    epsilon_vs_queries,
    label_accuracy_by_agreement,
    student_accuracy_vs_epsilon,
    teacher_accuracy_strip,
)
from labeldp_core.plots.randomized_response import (
    keep_flip_curve,
    label_heatmap,
)
from labeldp_core.plots.readable import projector_ready
from labeldp_core.plots.rr_prior import (
    flip_rate_comparison,
    prior_mass_histogram,
    set_size_histogram,
)
from labeldp_core.plots.tables import label_histogram

__all__ = [
    "ATTACKS",
    "EPSILON_AXIS",
    "LAYOUT",
    "UNIT_DASH",
    "accountant_comparison",
    "accuracy_by_privacy_unit",
    "agreement_histograms",
    "attack_bars",
    "audit_figure",
    "clean_baseline",
    "cluster_metrics_vs_epsilon",
    "comparison_figure",
    "discrete_laplace_figure",
    "dppl_accuracy_curves",
    "epsilon_vs_epochs",
    "epsilon_vs_queries",
    "expected_label_mse_figure",
    "figure_table",
    "flip_rate_comparison",
    "guess_bound",
    "guess_bound_figure",
    "keep_flip_curve",
    "label_accuracy_by_agreement",
    "label_heatmap",
    "label_histogram",
    "laplace_density_figure",
    "lesson_figure",
    "mark_epsilon",
    "mse_vs_epsilon",
    "neighbour_outputs_figure",
    "noisy_vectors_figure",
    "output_projection",
    "papers_figure",
    "per_class_accuracy_bars",
    "per_class_accuracy_curves",
    "power_law_slope",
    "prior_mass_histogram",
    "projector_ready",
    "prototype_mosaic",
    "rr_bins_figure",
    "score_vs_epsilon",
    "set_size_histogram",
    "student_accuracy_vs_epsilon",
    "summary_at",
    "summary_rows",
    "tail_probability_figure",
    "tally_figure",
    "teacher_accuracy_strip",
]
