"""Tables and standalone HTML reports of results (no server needed to open them)."""

import html
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go

from labeldp_core import __version__
from labeldp_core.engine.diagnostics import diagnostics_sentence
from labeldp_core.engine.spec import RunResult
from labeldp_core.plotting.readable import projector_ready

if TYPE_CHECKING:  # the screen reads the audits, whose import is slow: only when it is made
    from labeldp_core.services.price_of_privacy import PriceOfPrivacy

__all__ = [
    "PRICE_CAPTION",
    "PRIVACY_UNITS",
    "html_report",
    "price_of_privacy_report",
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
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }}
figcaption {{ color: #555; margin-bottom: 2em; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{html.escape(intro)}</p>
{"".join(parts)}
<h2>Settings</h2><table>{settings_rows}</table>
<h2>Privacy accounting</h2>
<p>epsilon_spent and delta are what the accounting computed for each run, not the budget asked
for. Numbers for different privacy units are not directly comparable:</p><ul>{unit_text}</ul>
{_table(result_rows(results))}
<p>{html.escape(diagnostics_sentence(_diagnostic_paths(results)))}</p>
{_threat_cards(results)}
<p><small>labeldp explorer {html.escape(__version__)}, {made}</small></p>
</body></html>
"""


#: What the price-of-privacy figure shows, under it in the report (and on its page).
PRICE_CAPTION = (
    "One ε cursor, three panels. Top: what anyone who sees the release can learn about one "
    "training label at most, and from where the guess starts: from the image's prior π (the "
    "images are public; the clean model's test accuracy stands in for π), at most "
    "πe^ε/(πe^ε + 1 − π), and from the uniform prior π = 1/K of an attacker who never sees the "
    "image, at most e^ε/(e^ε + K − 1); and the share of labels randomized response flips, "
    "(K − 1)/(e^ε + K − 1): closed forms, exact at every ε. Middle: "
    "each mechanism's test accuracy at the ε its accounting spent, the mean over the seeds "
    "computed there, the band from the lowest to the highest seed; dashed lines protect a whole "
    "example (add/remove), solid "
    "ones one label (replace-one). Bottom: the ε the privacy audit proved (95% lower bound) for "
    "the release (diamonds) and, with canaries, for the trained model (squares), under the "
    "claim. Play moves the cursor through every ε computed, and only those."
)


def price_of_privacy_report(evidence: "PriceOfPrivacy", settings: Mapping[str, Any]) -> str:
    """The price-of-privacy screen as a standalone page: its frames play offline, no server.

    ``evidence`` is what :func:`labeldp_core.services.price_of_privacy.read_price_of_privacy` read
    from the cache; the report shows only that.
    """
    from labeldp_core.plots.price_of_privacy import frame_epsilons, price_of_privacy_figure

    figure = price_of_privacy_figure(
        evidence.results, evidence.num_classes, evidence.audits, prior=evidence.prior
    )
    results = [r for rows in evidence.results.values() for r in rows]
    frames = ", ".join(f"{e:g}" for e in frame_epsilons(evidence.results, evidence.audits))
    audits = "; ".join(
        f"{a.mechanism} at ε = {a.epsilon:g}: ε ≥ {a.lower_bound:.3g} ({a.source}, {a.case}; "
        f"claim {a.claim:.3g}, δ = {a.delta:g})"
        for a in evidence.audits
    )
    intro = f"Frames at ε = {frames}: every ε computed, nothing in between. " + (
        f"Audited lower bounds (95%): {audits}. " if audits else "No audit was cached. "
    )
    intro += _priors_sentence(evidence)
    title = f"The price of privacy on {evidence.dataset}"
    return html_report(title, [(figure, PRICE_CAPTION)], results, settings, intro)


def _priors_sentence(evidence: "PriceOfPrivacy") -> str:
    """Where the guesses of one label start: the image's prior if known, the uniform one named."""
    uniform = (
        f"the uniform prior π = 1/K = {1 / evidence.num_classes:.0%} of an attacker who never "
        "sees the image"
    )
    if evidence.prior is None:
        return (
            f"The guess of one label starts from {uniform}; the image is public, so a real "
            "attacker starts from what the image says (usually far above 1/K) and ends higher."
        )
    return (
        f"The guesses of one label start from the image's prior π = "
        f"{evidence.prior.probability:.0%} ({evidence.prior.source}), the attacker label DP "
        f"assumes, and from {uniform}."
    )


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
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: sans-serif; max-width: 1300px; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{html.escape(intro)}</p>
{sections}
<p><small>labeldp explorer {html.escape(__version__)}, {made}</small></p>
</body></html>
"""
