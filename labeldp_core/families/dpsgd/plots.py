"""Figures of the DP-SGD page.

The budget a longer run costs and two accountants on the same run. DP-SGD's accuracy next to
label-DP mechanisms (other families) is :func:`labeldp_core.plots.accuracy_by_privacy_unit`.
"""

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from labeldp_core.plots_base.common import LAYOUT, mark_epsilon_level, on_white

__all__ = ["accountant_comparison", "epsilon_vs_epochs"]


def epsilon_vs_epochs(
    epochs: Sequence[int],
    curves: Mapping[float, Sequence[float]],
    *,
    target_epsilon: float | None = None,
    chosen: float | None = None,
    planned_epochs: int | None = None,
    delta: float,
    accountant: str = "rdp",
    run_epsilons: tuple[Sequence[int], Sequence[float | None]] | None = None,
) -> go.Figure:
    """Epsilon spent after each epoch, one RDP line per noise multiplier, and the run's own line.

    Args:
        epochs: the x positions (epochs done).
        curves: RDP epsilon after each epoch, by noise multiplier sigma.
        target_epsilon: the budget chosen on the page, drawn as a dashed line.
        chosen: the sigma that the target implies, drawn thicker.
        planned_epochs: the run's length, drawn as a dashed vertical line.
        delta: the delta every curve is for (shown in the title).
        accountant: the accountant ``chosen`` was calibrated with. When it is not RDP, the RDP
            lines are labelled as the upper bounds they are: the chosen one ends above the target.
        run_epsilons: (epochs, epsilons) of the run as ``accountant`` computes them, drawn as the
            run's own line when ``accountant`` is not RDP; missing values are left out.
    """
    own = accountant.upper()
    bounds = accountant != "rdp"
    figure = go.Figure()
    for sigma, epsilons in sorted(curves.items()):
        is_chosen = chosen is not None and sigma == chosen
        name = f"σ = {sigma:.3g}"
        if is_chosen:
            name += f" (implied by ε under {own}): RDP bound" if bounds else " (implied by ε)"
        figure.add_scatter(
            x=list(epochs),
            y=list(epsilons),
            mode="lines+markers",
            name=name,
            line={
                "width": 4 if is_chosen and not bounds else 2,
                "dash": "solid" if is_chosen else "dot",
            },
            hovertemplate="after %{x} epochs: RDP ε = %{y:.3g}<extra>σ = " + f"{sigma:.3g}</extra>",
        )
    if bounds and run_epsilons is not None and chosen is not None:
        points = [(e, v) for e, v in zip(*run_epsilons, strict=True) if v is not None]
        figure.add_scatter(
            x=[e for e, _ in points],
            y=[v for _, v in points],
            mode="lines+markers",
            name=f"σ = {chosen:.3g}: this run, {own} (its accountant)",
            line={"width": 4},
            hovertemplate="after %{x} epochs: " + own + " ε = %{y:.3g}<extra>this run</extra>",
        )
    if target_epsilon is not None:
        mark_epsilon_level(figure, target_epsilon, f"target ε = {target_epsilon:g}")
    if planned_epochs is not None:
        figure.add_vline(
            x=planned_epochs,
            line_dash="dash",
            line_color="grey",
            annotation_text=f"this run: {planned_epochs} epoch{'s' * (planned_epochs != 1)}",
        )
    accounting = f"RDP upper bounds; this run by {own}" if bounds else "RDP accountant"
    on_white(figure).update_layout(
        title=f"Budget spent as training goes on ({accounting}, δ = {delta:g})",
        xaxis={"title": "epochs"},
        yaxis={"title": "ε spent (example-level)", "type": "log"},
        **LAYOUT,
    )
    return figure


def accountant_comparison(
    epochs: Sequence[int],
    by_accountant: Mapping[str, Sequence[float | None]],
    *,
    used: str,
    delta: float,
) -> go.Figure:
    """Epsilon of one run after each epoch as each accountant computes it (same noise, same steps).

    Missing values (an accountant that could not reach this delta) are left out.
    """
    names = {"rdp": "RDP (Rényi DP)", "prv": "PRV (numerical composition)"}
    figure = go.Figure()
    for accountant, epsilons in by_accountant.items():
        points = [(e, v) for e, v in zip(epochs, epsilons, strict=True) if v is not None]
        label = names.get(accountant, accountant)
        figure.add_scatter(
            x=[e for e, _ in points],
            y=[v for _, v in points],
            mode="lines+markers",
            name=label + (" (used for this run)" if accountant == used else ""),
            hovertemplate="after %{x} epochs: ε = %{y:.4g}<extra>" + label + "</extra>",
        )
    on_white(figure).update_layout(
        title=f"The same run, two accountants (δ = {delta:g})",
        xaxis={"title": "epochs"},
        yaxis={"title": "ε spent (example-level)", "rangemode": "tozero"},
        **LAYOUT,
    )
    return figure
