"""Pure plotting functions: data in, a ``plotly.graph_objects.Figure`` out (no Streamlit).

One module per page; every figure says on its axes what it shows, so a screenshot can be read
without the page.
"""

from labeldp_core.plots.common import EPSILON_AXIS, LAYOUT, score_vs_epsilon
from labeldp_core.plots.dppl import (
    dppl_accuracy_curves,
    per_class_accuracy_bars,
    per_class_accuracy_curves,
    prototype_mosaic,
)
from labeldp_core.plots.randomized_response import keep_flip_curve, label_heatmap

__all__ = [
    "EPSILON_AXIS",
    "LAYOUT",
    "dppl_accuracy_curves",
    "keep_flip_curve",
    "label_heatmap",
    "per_class_accuracy_bars",
    "per_class_accuracy_curves",
    "prototype_mosaic",
    "score_vs_epsilon",
]
