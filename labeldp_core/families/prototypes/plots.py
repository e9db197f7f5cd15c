"""Figures of the DP prototypes page: the chosen prototypes, and the mechanisms' names.

Its accuracy figures draw DP-SGD (another family) beside the DP prototypes, so they are
:mod:`labeldp_core.plots.dppl_vs_dpsgd`.
"""

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from labeldp_core.plots_base.common import LAYOUT, on_white

__all__ = ["MECHANISM_NAMES", "prototype_mosaic"]

#: How the page and its figures name each mechanism they show.
MECHANISM_NAMES = {
    "dppl-mean": "DPPL-Mean",
    "dppl-public": "DPPL-Public",
    "dppl-topk": "DPPL-Public Top-K",
    "dpsgd": "DP-SGD",
}


def prototype_mosaic(
    images: np.ndarray, class_names: Sequence[str], column_titles: Sequence[str]
) -> go.Figure:
    """A grid of grey images: a row per class, a column per prototype slot.

    Args:
        images: ``(classes, columns, H, W)`` pixel values in [0, 1].
        class_names: row labels.
        column_titles: a title per column (e.g. "DP set", "best 1").
    """
    rows, columns, height, width = images.shape
    gap = 2
    mosaic = np.full((rows * (height + gap), columns * (width + gap)), np.nan)
    for r in range(rows):
        for c in range(columns):
            top, left = r * (height + gap), c * (width + gap)
            mosaic[top : top + height, left : left + width] = images[r, c]
    heatmap = go.Heatmap(
        z=mosaic, colorscale="greys", zmin=0, zmax=1, showscale=False, hoverinfo="skip"
    )
    figure = go.Figure(heatmap)
    on_white(figure).update_layout(
        title="Prototypes per class: public images",
        xaxis={
            "tickvals": [c * (width + gap) + width / 2 for c in range(columns)],
            "ticktext": list(column_titles),
            "showgrid": False,
        },
        yaxis={
            "tickvals": [r * (height + gap) + height / 2 for r in range(rows)],
            "ticktext": list(class_names),
            "autorange": "reversed",
            "showgrid": False,
            "scaleanchor": "x",
        },
        height=max(300, 60 * rows),
        **LAYOUT,
    )
    return figure
