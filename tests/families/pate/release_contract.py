"""PATE: the data-independent epsilon of the aggregator's noise, from the plans used."""

import numpy as np
from release_spies import only

from labeldp_core.accounting import pate_epsilon
from labeldp_core.noise.noise_plans import GaussianPlan


def _pate(calls, result) -> float:
    (call,) = only(calls, "noisy_argmax_by_plan") + only(calls, "confident_gnmax_by_plan")
    arguments = call.arguments
    if call.name == "confident_gnmax_by_plan":
        answers, check = arguments["answers"], arguments["check"]
        kind = {
            "aggregator": "confident-gnmax",
            "threshold": arguments["threshold"],
            "threshold_sigma": check.sigma,
        }
        plan = answers
    else:
        plan = arguments["plan"]
        lnmax = not isinstance(plan, GaussianPlan)
        kind = {"aggregator": "lnmax" if lnmax else "gnmax"}
    noise = plan.sigma if isinstance(plan, GaussianPlan) else plan.scale
    assert kind["aggregator"] == result.settings["aggregator"]
    return pate_epsilon(
        arguments["vote_counts"],
        result.delta,
        noise=noise,
        data_dependent=False,
        discrete=plan.secure,
        **kind,
    )


def _student_targets(calls, result, trained) -> list[tuple]:
    released = np.asarray(calls[-1].returned)  # the answered queries' labels
    # The student on the released labels; the second training is the reference student on
    # the true labels, a diagnostic like the clean baseline.
    return list(zip(trained[:1], [released[released >= 0]], strict=True))


def _threshold_check(mechanism: str, settings: dict, mode: str) -> set[str]:
    """Confident-GNMax's threshold check, and secure argmax ties, draw from the source too."""
    extra = {"argmax tie-breaks"} if mode == "secure" else set()
    if settings.get("aggregator") == "confident-gnmax":
        extra.add("threshold-check noise")
    return extra


IMPLIED = {"pate": _pate}
VARIANTS = {
    "pate": [{"aggregator": a} for a in ("lnmax", "gnmax", "confident-gnmax")]
    + [{"aggregator": "gnmax", "features": "patches"}]
}
SMALL = {"pate": {"teachers": 5, "queries": 40, "aggregator": "lnmax"}}
DRAW_VARIANTS = {"pate": [{"aggregator": "gnmax"}, {"aggregator": "confident-gnmax"}]}
EXTRA_DRAWS = _threshold_check
TARGETS = {"pate": _student_targets}
