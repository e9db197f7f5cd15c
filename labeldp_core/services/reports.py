"""Tables and standalone HTML reports of results (no server needed to open them)."""

import html
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import plotly.graph_objects as go

from labeldp_core import __version__
from labeldp_core.engine.diagnostics import diagnostics_sentence
from labeldp_core.engine.spec import RunResult
from labeldp_core.plots_base.readable import projector_ready

__all__ = [
    "PRIVACY_UNITS",
    "html_report",
    "result_rows",
    "tables_report",
]

#: What each privacy unit protects, in the words the app and the reports use.
PRIVACY_UNITS = {
    "label": "one training label (replace-one neighbours)",
    "example": "one whole training example (add/remove neighbours)",
    "output": "one released output vector (local DP)",
}


def result_rows(results: Sequence[RunResult]) -> list[dict[str, Any]]:
    """One flat row per result: identity, the accounting, and the scores, for tables and CSV."""
    rows = []
    for result in results:
        row: dict[str, Any] = {
            "mechanism": result.mechanism,
            "dataset": result.dataset,
            "seed": result.seed,
            "epsilon": result.epsilon,
            "epsilon_spent": result.epsilon_spent,
            "delta": result.delta,
            "privacy_unit": result.privacy_unit,
        }
        if result.test_accuracy is not None:
            row |= {
                "test_accuracy": result.test_accuracy,
                "baseline_test_accuracy": result.baseline_test_accuracy,
            }
        if result.test_mse is not None:
            row |= {"test_mse": result.test_mse, "baseline_test_mse": result.baseline_test_mse}
        if result.flip_rate is not None:
            row["flip_rate"] = result.flip_rate
        rows.append(row)
    return rows


def _diagnostic_paths(results: Sequence[RunResult]) -> list[str]:
    """The diagnostics of the results that a report's table shows (top-level figures)."""
    shown = {"flip_rate", "baseline_test_accuracy", "baseline_test_mse", "test_accuracy"}
    return [
        path for r in results if r.diagnostics for path in r.diagnostics["keys"] if path in shown
    ]


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<p>No results.</p>"
    columns = list(dict.fromkeys(key for row in rows for key in row))

    def cell(value: Any) -> str:
        text = f"{value:.4g}" if isinstance(value, float) else str(value)
        return f"<td>{html.escape(text)}</td>"

    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(cell(row.get(c, "")) for c in columns) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_report(
    title: str,
    figures: Sequence[tuple[go.Figure, str]],
    results: Sequence[RunResult],
    settings: Mapping[str, Any],
    intro: str = "",
) -> str:
    """A self-contained HTML page of figures, settings and the epsilon accounting.

    plotly.js is inlined once, so the file opens offline; every result's epsilon is listed with
    the neighbouring relation it holds for. A figure with frames keeps them, with its slider and
    play button: it plays in the browser when asked, not on opening.
    """
    parts = []
    for index, (figure, caption) in enumerate(figures):
        plot = projector_ready(figure).to_html(
            full_html=False, include_plotlyjs=index == 0, auto_play=False
        )
        parts.append(f"<figure>{plot}<figcaption>{html.escape(caption)}</figcaption></figure>")
    units = sorted({r.privacy_unit for r in results})
    unit_text = "".join(
        f"<li><b>{html.escape(u)}</b>: epsilon protects {html.escape(PRIVACY_UNITS.get(u, u))}</li>"
        for u in units
    )
    settings_rows = "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
        for k, v in settings.items()
    )
    body = f"""{"".join(parts)}
<h2>Settings</h2><table>{settings_rows}</table>
<h2>Privacy accounting</h2>
<p>epsilon_spent and delta are what the accounting computed for each run, not the budget asked
for. Numbers for different privacy units are not directly comparable:</p><ul>{unit_text}</ul>
{_table(result_rows(results))}
<p>{html.escape(diagnostics_sentence(_diagnostic_paths(results)))}</p>
{_threat_cards(results)}"""
    style = "figcaption { color: #555; margin-bottom: 2em; }"
    return _page(title, intro, body, width_px=1100, font_em=0.9, style=style)


def _threat_cards(results: Sequence[RunResult]) -> str:
    """What each mechanism's epsilon protects, from the cards its results carry (one each)."""
    cards = {r.mechanism: r.threat_model for r in results if r.threat_model}
    if not cards:
        return ""
    items = []
    for mechanism, card in cards.items():
        lines = [f"<b>Protects</b>: {html.escape(str(card['protects']))}"]
        for key, name in (
            ("assumed_public", "Assumed public"),
            ("not_protected", "Not protected"),
            ("narrower", "Narrower"),
        ):
            if card.get(key):
                lines.append(f"<b>{name}</b>: " + "; ".join(html.escape(v) for v in card[key]))
        lines.append(f"<b>The adversary</b>: {html.escape(str(card['adversary']))}")
        body = "<br>".join(lines)
        items.append(f"<li><code>{html.escape(mechanism)}</code><br>{body}</li>")
    return f"<h2>What each epsilon protects</h2><ul>{''.join(items)}</ul>"


def tables_report(title: str, intro: str, tables: Mapping[str, list[dict[str, Any]]]) -> str:
    """A self-contained HTML page of titled tables (no script at all)."""
    sections = "".join(
        f"<h2>{html.escape(name)}</h2>{_table(rows)}" for name, rows in tables.items()
    )
    return _page(title, intro, sections, width_px=1300, font_em=0.85)


def _page(title: str, intro: str, body: str, width_px: int, font_em: float, style: str = "") -> str:
    """The reports' one HTML frame: head, title, intro, ``body``, and the version that made it.

    ``body`` and ``style`` are HTML and CSS already escaped; ``title`` and ``intro`` are text.
    """
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: sans-serif; max-width: {width_px}px; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: {font_em}em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }}
{style}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{html.escape(intro)}</p>
{body}
<p><small>labeldp explorer {html.escape(__version__)}, {made}</small></p>
</body></html>
"""
