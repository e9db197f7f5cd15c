"""Sample figures of every chart the issue named, with numbers like the pages' own."""

from dataclasses import replace

import numpy as np
import plotly.graph_objects as go
from fake_results import fake_result

from labeldp_core import plots
from labeldp_core.engine.spec import RunResult
from labeldp_core.experiments import MECHANISMS
from labeldp_core.release_audit.engine import AuditResult

_BASE = fake_result(test_accuracy=0.5, baseline_test_accuracy=0.9)


def runs(mechanism: str, epsilons=(0.1, 0.5, 1.0, 4.0), seeds=(0, 1, 2)) -> list[RunResult]:
    """Results of ``mechanism`` at ``epsilons`` over ``seeds``, accuracy rising with epsilon."""
    unit = MECHANISMS[mechanism].privacy_unit
    delta = 1e-5 if unit == "example" else 0.0
    return [
        replace(
            _BASE,
            mechanism=mechanism,
            privacy_unit=unit,
            seed=seed,
            epsilon=eps,
            epsilon_spent=eps,
            delta=delta,
            test_accuracy=0.3 + 0.1 * np.log1p(eps) + 0.01 * seed,
        )
        for eps in epsilons
        for seed in seeds
    ]


def laplace_vectors() -> go.Figure:
    rng = np.random.default_rng(0)
    panels = {
        name: rng.random((5, 10))
        for name in (
            "noisy vector",
            "argmax",
            "clamp + renormalise",
            "clamp + round",
            "ALIBI posterior",
        )
    }
    panels["noisy vector"] = rng.normal(0, 3, (5, 10))
    return plots.noisy_vectors_figure([3, 9, 1, 3, 1], panels, [str(i) for i in range(10)])


def pate_agreement() -> go.Figure:
    rng = np.random.default_rng(0)
    top = rng.integers(30, 250, 400)
    return plots.agreement_histograms(top, rng.integers(0, 200, 400), 250)


def dpsgd_units() -> go.Figure:
    series = {
        "DP-SGD: ε per example (add/remove), δ = 1e-05": runs("dpsgd"),
        "Randomized response: ε per label (replace-one)": runs("rr"),
        "RR with prior: ε per label (replace-one)": runs("rr-prior"),
    }
    return plots.accuracy_by_privacy_unit(series, 0.95, chance=0.1, marked_epsilon=1.0)


def audit() -> go.Figure:
    rows = [
        AuditResult("laplace", 1.0, 0.0, 0.97, 0.95, 100_000, "d", "e", 0.1, 0.2, False),
        AuditResult(
            "laplace (control: scale 1/ε, sensitivity 1)",
            1.0,
            0.0,
            1.96,
            0.95,
            100_000,
            "d",
            "e",
            0.1,
            0.2,
            True,
        ),
    ]
    return plots.audit_figure(rows, ceiling=2.5)


def papers() -> go.Figure:
    ghazi = "Ghazi, Golowich. Deep learning with label DP. NeurIPS 2021"
    tramer = "Tramer, Boneh. DP learning needs better features. ICLR 2021"
    papernot = "Papernot, Thakurta. Tempered sigmoid activations. AAAI 2021"
    published = (
        ("ghazi2021-lp1st-eps1", "LP-1ST", "ResNet18", ghazi, 1),
        ("ghazi2021-lp2st-eps1", "LP-2ST", "ResNet18", ghazi, 1),
        ("papernot2021-tanh-cnn-eps3", "DP-SGD", "end-to-end CNN (tanh)", papernot, 3),
        ("tramer2021-cnn-eps3", "DP-SGD", "end-to-end CNN (tanh)", tramer, 3),
        ("tramer2021-scatternet-eps3", "DP-SGD", "ScatterNet + CNN", tramer, 3),
    )
    rows = [
        {
            "id": name,
            "method": method,
            "model": model,
            "paper": paper,
            "epsilon": eps,
            "theirs": 0.8 + 0.02 * i,
            "ours": 0.7,
            "ours_min": 0.65,
            "ours_max": 0.75,
            "title": name,
        }
        for i, (name, method, model, paper, eps) in enumerate(published)
    ]
    return plots.papers_figure(rows)


def compare() -> go.Figure:
    chosen = ("rr", "rr-prior", "lp-2st", "laplace", "alibi", "pate", "dpsgd", "dppl-mean")
    series = {MECHANISMS[m].title: runs(m) if m != "lp-2st" else [] for m in chosen}
    units = {MECHANISMS[m].title: MECHANISMS[m].privacy_unit for m in chosen}
    return plots.comparison_figure(series, units, 0.95, "test accuracy", marked_epsilon=1.0)


#: The charts issue 36 names, by what a test calls them.
NAMED = {
    "laplace_vectors": laplace_vectors,
    "pate_agreement": pate_agreement,
    "dpsgd_units": dpsgd_units,
    "audit": audit,
    "papers": papers,
    "compare": compare,
}


def teacher_strip() -> go.Figure:
    accuracies = np.random.default_rng(0).uniform(0.6, 0.8, 250)
    return plots.teacher_accuracy_strip(accuracies, 0.912, chance=0.1)


def label_mse() -> go.Figure:
    return plots.expected_label_mse_figure(np.full(10, 0.1), 1.0)


def rr_bins() -> go.Figure:
    from labeldp_core.mechanisms import optimal_bins

    return plots.rr_bins_figure(optimal_bins(np.arange(10.0), np.full(10, 0.1), 1.0))


def prior_mass() -> go.Figure:
    return plots.prior_mass_histogram([5, 10, 20, 40, 25], np.linspace(0, 1, 6))


def set_size() -> go.Figure:
    return plots.set_size_histogram([10, 30, 20, 5, 1, 0, 0, 0, 0, 4])


#: Charts the pages put in one of two columns (about 400 px wide at 1280x800).
IN_COLUMNS = {
    "pate_agreement": pate_agreement,
    "teacher_strip": teacher_strip,
    "label_mse": label_mse,
    "rr_bins": rr_bins,
    "prior_mass": prior_mass,
    "set_size": set_size,
}
