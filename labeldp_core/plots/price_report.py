"""The price-of-privacy screen as a standalone HTML page: its frames play offline, no server.

It sits above the figure it draws (:mod:`labeldp_core.plots.price_of_privacy`) and the report
page it fills (:func:`labeldp_core.services.reports.html_report`).
"""

from collections.abc import Mapping
from typing import Any

from labeldp_core.plots.price_of_privacy import frame_epsilons, price_of_privacy_figure
from labeldp_core.services.price_of_privacy import PriceOfPrivacy
from labeldp_core.services.reports import html_report

__all__ = ["PRICE_CAPTION", "price_of_privacy_report"]

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


def price_of_privacy_report(evidence: PriceOfPrivacy, settings: Mapping[str, Any]) -> str:
    """The price-of-privacy screen as a standalone page: its frames play offline, no server.

    ``evidence`` is what :func:`labeldp_core.services.price_of_privacy.read_price_of_privacy` read
    from the cache; the report shows only that.
    """
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


def _priors_sentence(evidence: PriceOfPrivacy) -> str:
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
