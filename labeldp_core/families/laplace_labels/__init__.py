"""Laplace on labels (one-hot and regression), ALIBI's soft labels and RR-on-bins for regression."""

from pathlib import Path

from labeldp_core.families.family import Api, Audit, DemoGrid, Family, Mechanism, Page, ReleaseStep
from labeldp_core.families.laplace_labels import (
    alibi_experiment,
    audit,
    audit_ceiling,
    experiment,
    label_prior,
    regression_experiment,
    release,
    rr_bins_experiment,
)

__all__ = ["FAMILY"]

FAMILY = Family(
    id="laplace_labels",
    title="Laplace on labels, ALIBI and RR-on-bins",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#CC79A7",
            releases_training_labels=True,
            audit=Audit(
                audit.laplace_case,
                controls=(audit.laplace_sensitivity_one_control,),
                tight=0.9,
                powerful=(0,),
            ),
            diagnostics=("flip_rate", "details.argmax_accuracy"),
            demo=DemoGrid(variants=({"post": "soft"}, {"post": "round"})),
            on_compare=True,
            model_audit_ceiling=audit_ceiling.ARGMAX_CEILING,
            releases=(
                ReleaseStep(experiment.__name__, "laplace_one_hot_by_plan", "one-hot noise"),
            ),
        ),
        Mechanism(
            regression_experiment.SPEC,
            "#E69F00",
            audit=Audit(
                audit.laplace_regression_case,
                controls=(audit.laplace_regression_sensitivity_one_control,),
                tight=0.9,
            ),
            diagnostics=("details.label_mse",),
            releases=(
                ReleaseStep(
                    regression_experiment.__name__, "laplace_regression_by_plan", "label noise"
                ),
            ),
        ),
        Mechanism(
            rr_bins_experiment.SPEC,
            "#56B4E9",
            audit=Audit(audit.rr_bins_case, tight=0.9),
            diagnostics=("details.label_mse", "details.expected_label_mse"),
            releases=(
                ReleaseStep(
                    label_prior.__name__, "noisy_label_counts_by_plan", "label histogram noise"
                ),
                ReleaseStep(rr_bins_experiment.__name__, "rr_on_bins_by_plan", "RR-on-bins coins"),
            ),
        ),
        Mechanism(
            alibi_experiment.SPEC,
            "#882255",
            releases_training_labels=True,
            audit=Audit(audit.alibi_case, tight=0.9),
            diagnostics=("flip_rate", "details.posterior_argmax_accuracy"),
            on_compare=True,
            releases=(
                ReleaseStep(
                    label_prior.__name__, "noisy_label_counts_by_plan", "label histogram noise"
                ),
                ReleaseStep(alibi_experiment.__name__, "laplace_one_hot_by_plan", "one-hot noise"),
            ),
        ),
    ),
    folder=Path(__file__).parent,
    order=30,
    page=Page(
        "pages/laplace_labels.py", "Laplace on labels", "label", bad_links={"prior": "median"}
    ),
    mutation_targets=(
        "labeldp_core/families/laplace_labels/experiment.py",
        "labeldp_core/families/laplace_labels/regression_experiment.py",
        "labeldp_core/families/laplace_labels/rr_bins_experiment.py",
        "labeldp_core/families/laplace_labels/alibi_experiment.py",
        "labeldp_core/families/laplace_labels/label_prior.py",
    ),
    api=(
        Api(f"{__name__}.alibi_release", ("alibi_posterior",)),
        Api(release.__name__, release.PUBLIC),
        Api(
            f"{__name__}.rr_bins_release",
            (
                "RRBins",
                "best_constant_mse",
                "expected_squared_error",
                "optimal_bins",
                "rr_bins_epsilon",
                "rr_on_bins",
            ),
        ),
    ),
)
