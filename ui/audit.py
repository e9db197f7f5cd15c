"""Audits for the privacy audit page: each case cached on its own, run under a progress bar."""

import streamlit as st

from labeldp_core.registry import mechanism_title
from labeldp_core.release_audit.engine import AuditResult
from labeldp_core.services.release_audits import audit_cases, stored_audit_case
from ui.results import READ_ONLY_NOTE, read_only, result_cache

__all__ = ["audit_with_progress", "case_title", "power_metric", "verdict"]


@st.cache_data(show_spinner=False, max_entries=1024)
def _cached_case(mechanism: str, epsilon: float, index: int, trials: int, seed: int) -> AuditResult:
    return stored_audit_case(mechanism, epsilon, index, trials, seed)


def audit_with_progress(
    mechanism: str, epsilon: float, trials: int, seed: int
) -> list[AuditResult]:
    """Every case of ``mechanism`` (then its control), each computed once and then remembered.

    A read-only server shows only cases already in the cache, and a note where any is missing.
    """
    cases = audit_cases(mechanism, epsilon)
    if read_only():
        found = [
            stored_audit_case(
                mechanism, epsilon, index, trials, seed, result_cache(), compute=False
            )
            for index in range(len(cases))
        ]
        if None in found:
            st.info(READ_ONLY_NOTE)
            st.stop()
        return found
    bar = st.progress(0.0, text="Auditing")
    results = []
    for index, case in enumerate(cases):
        bar.progress(
            index / len(cases),
            text=f"Auditing {case_title(case.name)} ({index + 1}/{len(cases)}): {trials:,} "
            "draws per neighbour to pick the event, as many again to bound it",
        )
        results.append(_cached_case(mechanism, epsilon, index, trials, seed))
    bar.empty()
    return results


def case_title(name: str) -> str:
    """A case's name as the page writes it: its mechanism's title for the id it starts with.

    >>> case_title("laplace (control: scale 1/ε, sensitivity 1)")
    'Laplace on one-hot labels (control: scale 1/ε, sensitivity 1)'
    """
    mechanism, _, rest = name.partition(" ")
    return f"{mechanism_title(mechanism)} {rest}".rstrip()


def verdict(result: AuditResult) -> str:
    """A coloured one-line verdict in Streamlit markdown."""
    if result.violates:
        return ":red[**violates its claim**]: the audit proves more leakage than claimed"
    if result.is_control:
        return ":orange[**not caught**]: too few trials or too small an ε to expose this control"
    return ":green[**consistent with its claim**]: no event leaks more than claimed"


def power_metric(result: AuditResult) -> tuple[str, str, str]:
    """(label, value, help) of the metric that says what the case shows beyond its verdict."""
    if result.violates:
        share = result.epsilon_lower_bound / result.claimed_epsilon
        return (
            "Claim refuted",
            f"leaks ≥ {share:.2f}× the claim",
            "The audit proves at least this multiple of the claimed ε: the claim is false.",
        )
    overspend = result.detectable_overspend
    value = "none" if overspend is None else f"above {overspend:.0%}"
    return (
        "Would catch an overspend",
        value,
        "A release spending this much more than it claims would have been refuted by these "
        "draws: the audit's power (claim ÷ bound − 1).",
    )
