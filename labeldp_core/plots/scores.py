"""Test score vs epsilon of any registered mechanisms, each in its family's colour.

Above the registry: a figure here may draw every family's mechanisms, so it styles them by the
registry's table (:data:`~labeldp_core.registry.MECHANISM_STYLES`). The drawing is
:func:`~labeldp_core.plots_base.common.score_curves`, which a family's own figure calls with its
family's table.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from labeldp_core.engine.spec import RunResult
from labeldp_core.plots_base.common import LAYOUT, score_curves
from labeldp_core.registry import MECHANISM_STYLES

__all__ = ["UNITS_NOTE", "accuracy_by_privacy_unit", "score_vs_epsilon"]

#: The warning every chart that puts DP-SGD next to label DP carries on its face.
UNITS_NOTE = (
    "Different privacy units: DP-SGD's ε covers a whole example (image + label, add/remove); "
    "label DP's ε covers only a label (replace-one). Not directly comparable."
)


def score_vs_epsilon(
    series: Mapping[str, Sequence[RunResult]], baseline: float | None = None, **options: Any
) -> go.Figure:
    """Mean test score vs epsilon per named series, each in its mechanism's registered style.

    :func:`~labeldp_core.plots_base.common.score_curves` with every registered mechanism's style:
    a series of any family is drawn in its colour and dash. ``options`` are that function's
    keyword arguments (``metric``, ``chance``, ``marked_epsilon``, ``at_spent``, ``mechanisms``).
    """
    return score_curves(series, MECHANISM_STYLES, baseline, **options)


def accuracy_by_privacy_unit(
    series: Mapping[str, Sequence[RunResult]],
    baseline: float | None = None,
    *,
    chance: float | None = None,
    marked_epsilon: float | None = None,
) -> go.Figure:
    """Test accuracy vs epsilon of mechanisms with different privacy units, the units on the chart.

    DP-SGD (example-level) beside label-DP mechanisms of other families. Legend names should
    carry each series' unit (``score_vs_epsilon`` draws them); this adds a boxed note that the
    epsilons measure different things.
    """
    figure = score_vs_epsilon(series, baseline, chance=chance, marked_epsilon=marked_epsilon)
    figure.add_annotation(
        text=UNITS_NOTE,
        xref="paper",
        yref="paper",
        x=0,
        y=1.02,
        xanchor="left",
        yanchor="bottom",
        showarrow=False,
        align="left",
        bgcolor="rgba(255, 243, 205, 0.9)",
        bordercolor="#d4a017",
        borderwidth=1,
        font={"size": 12},
    )
    # projector_ready stacks the note above the chosen ε's label and the title above both.
    figure.update_layout(
        title="Test accuracy vs ε: example-level DP-SGD and label-level DP",
        margin={**LAYOUT["margin"], "t": 140},
    )
    return figure
