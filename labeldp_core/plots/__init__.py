"""Pure plotting functions: data in, a ``plotly.graph_objects.Figure`` out (no Streamlit).

One module per page; every figure says on its axes what it shows, so a screenshot can be read
without the page.
"""

from labeldp_core.plots.common import EPSILON_AXIS, LAYOUT, score_vs_epsilon
from labeldp_core.plots.pate import (
    agreement_histograms,
    epsilon_vs_queries,
    label_accuracy_by_agreement,
    student_accuracy_vs_epsilon,
    teacher_accuracy_strip,
)
from labeldp_core.plots.randomized_response import keep_flip_curve, label_heatmap

__all__ = [
    "EPSILON_AXIS",
    "LAYOUT",
    "agreement_histograms",
    "epsilon_vs_queries",
    "keep_flip_curve",
    "label_accuracy_by_agreement",
    "label_heatmap",
    "score_vs_epsilon",
    "student_accuracy_vs_epsilon",
    "teacher_accuracy_strip",
]
