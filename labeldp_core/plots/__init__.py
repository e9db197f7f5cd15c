"""Pure plotting functions: data in, a ``plotly.graph_objects.Figure`` out (no Streamlit).

One module per page; every figure says on its axes what it shows, so a screenshot can be read
without the page.
"""

from labeldp_core.plots.common import EPSILON_AXIS, LAYOUT, mark_epsilon, score_vs_epsilon
from labeldp_core.plots.randomized_response import keep_flip_curve, label_heatmap

__all__ = [
    "EPSILON_AXIS",
    "LAYOUT",
    "keep_flip_curve",
    "label_heatmap",
    "mark_epsilon",
    "score_vs_epsilon",
]
