"""The price of privacy on one screen: one ε cursor plays what ε protects and what it costs."""

import streamlit as st

from labeldp_core import plots
from labeldp_core.experiments import MECHANISMS
from labeldp_core.experiments.demo import DEMO_SEEDS
from labeldp_core.plots.price_report import PRICE_CAPTION, price_of_privacy_report
from labeldp_core.registry import ON_COMPARE, mechanism_title
from labeldp_core.services.price_of_privacy import PriceOfPrivacy, read_price_of_privacy
from ui.controls import Controls, current_controls
from ui.demo import demo_mode
from ui.export import chart, html_button
from ui.links import linked
from ui.results import reported_errors, result_cache

#: The mechanisms whose test accuracy the screen can draw: the classifiers.
CLASSIFIERS = [m for m, spec in MECHANISMS.items() if spec.task == "classification"]


@st.cache_data(show_spinner=False, ttl=60)
def _evidence(
    dataset: str, mechanisms: tuple[str, ...], seed: int, epochs: int | None, model: str
) -> PriceOfPrivacy:
    """What the cache holds for the screen (read only: nothing is ever computed here)."""
    return read_price_of_privacy(
        dataset, mechanisms, seed=seed, epochs=epochs, model=model, cache=result_cache()
    )


def _chosen() -> list[str]:
    """The mechanisms picked (the Compare page's by default), bound to the link."""
    return linked(
        st.multiselect,
        "Mechanisms",
        "mechanisms",
        CLASSIFIERS,
        labels=mechanism_title,
        default=[m for m in ON_COMPARE if m in CLASSIFIERS],
        help="Each one's test accuracy in the middle panel and its audits in the bottom one.",
    )


def _story(headline, evidence: PriceOfPrivacy, controls: Controls) -> None:
    """The animated figure, what it shows, and how to play it."""
    chart(
        headline,
        plots.price_of_privacy_figure,
        evidence.results,
        evidence.num_classes,
        evidence.audits,
        prior=evidence.prior,
        demo_text=demo_mode(),
        key="price_of_privacy",
    )
    headline.caption(PRICE_CAPTION)
    st.markdown(
        "Press **▶ Play**: in a minute ε grows from the smallest value computed to the largest. "
        "The bounds climb from blind guessing to certainty while the accuracies climb to the "
        "clean model's: the price of privacy is the gap at the ε you pick. Drag the slider to "
        "stop anywhere; every position is a computed point, nothing in between is guessed."
    )
    settings = {
        "dataset": controls.dataset,
        "model": controls.model,
        "epochs": controls.epochs_asked or "auto",
        "seeds": ", ".join(map(str, DEMO_SEEDS)),
        "audit seed": controls.seed,
        "mechanisms": ", ".join(evidence.results),
    }
    html_button(
        lambda: price_of_privacy_report(evidence, settings),
        f"price-of-privacy-{controls.dataset}.html",
        key="html",
    )
    st.caption("The report plays offline: open it in any browser, no server needed.")


def render() -> None:
    """Draw the page: the screen right under the title, the mechanisms picked below it."""
    controls = current_controls()
    st.title("The price of privacy")
    headline = st.container()  # the screen first, in view on a projector (drawn below)
    chosen = _chosen()
    with reported_errors():
        evidence = _evidence(
            controls.dataset, tuple(chosen), controls.seed, controls.epochs_asked, controls.model
        )
    if evidence.empty:
        headline.info(
            f"Nothing is cached for these mechanisms on {controls.dataset_name} yet, and this "
            "screen computes nothing: warm the cache first (the sidebar's warm panel, or "
            f"`python -m labeldp_core warm --dataset {controls.dataset}`), then come back."
        )
        return
    _story(headline, evidence, controls)


render()
