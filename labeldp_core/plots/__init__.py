"""Pure plotting functions: data in, a ``plotly.graph_objects.Figure`` out (no Streamlit).

One module per page; every figure says on its axes what it shows, so a screenshot can be read
without the page.
"""

from labeldp_core.plots.common import EPSILON_AXIS, LAYOUT, score_vs_epsilon
from labeldp_core.plots.randomized_response import keep_flip_curve, label_heatmap
from labeldp_core.plots.rr_prior import (
    flip_rate_comparison,
    prior_mass_histogram,
    set_size_histogram,
)

__all__ = [
    "EPSILON_AXIS",
    "LAYOUT",
    "flip_rate_comparison",
    "keep_flip_curve",
    "label_heatmap",
    "prior_mass_histogram",
    "score_vs_epsilon",
    "set_size_histogram",
]
