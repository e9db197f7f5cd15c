"""The class round's per-item figure: each item's share of right answers beside the bound."""

from collections.abc import Sequence

import plotly.graph_objects as go

from labeldp_core.classroom.round import ItemTally
from labeldp_core.plots_base.common import LAYOUT, mark_bound, on_white

__all__ = ["item_tally_figure"]


def item_tally_figure(items: Sequence[ItemTally], bound: float) -> go.Figure:
    """Per item, the share of the class that guessed right (95% Clopper-Pearson) and the bound.

    One item is one release, so its share sits near 1 when the release kept the label and the
    class answered it, near 0 when it flipped: the bound holds for the average over items.
    """
    answered = [item for item in items if item.answers]
    rates = [item.rate for item in answered]
    intervals = [item.interval() for item in answered]
    figure = go.Figure()
    figure.add_scatter(
        x=[item.number for item in answered],
        y=rates,
        mode="markers",
        marker={"size": 11},
        name="share of the class right",
        customdata=[item.answers for item in answered],
        hovertemplate="item %{x}: %{y:.0%} of %{customdata} answers right<extra></extra>",
        error_y={
            "type": "data",
            "symmetric": False,
            "array": [high - rate for rate, (_, high) in zip(rates, intervals, strict=True)],
            "arrayminus": [rate - low for rate, (low, _) in zip(rates, intervals, strict=True)],
        },
    )
    mark_bound(figure, bound, f"bound on average over items: {bound:.3f}")
    on_white(figure).update_layout(
        title="Each item: the share of the class that guessed it right",
        showlegend=False,
        xaxis={"title": "item", "dtick": 1},
        yaxis={"title": "share guessed right", "range": [0, 1.05]},
        **LAYOUT,
    )
    return figure
