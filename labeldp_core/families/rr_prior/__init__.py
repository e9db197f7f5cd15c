"""RR-with-prior (RRTop-k) and its multi-stage LP-2ST (Ghazi et al. 2021, arXiv 2102.06062)."""

from pathlib import Path

import numpy as np

from labeldp_core.data import Dataset
from labeldp_core.engine.public_encoder import public_private_indices
from labeldp_core.engine.spec import RunConfig
from labeldp_core.families.family import Api, Audit, Family, Mechanism, Page, ReleaseStep
from labeldp_core.families.rr_prior import audit, experiment, lp_2st
from labeldp_core.families.threat import LABEL_DP

#: With the encoder prior, a public part's labels train the encoder and are not protected.
ENCODER_PRIOR = LABEL_DP.with_narrower(
    "with prior_features=encoder: the encoder's public part of the training set, whose labels "
    "are treated as public (ε covers the other labels)"
)

__all__ = ["FAMILY", "encoder_private_rows"]


def encoder_private_rows(config: RunConfig, data: Dataset) -> np.ndarray:
    """The rows outside the encoder's public part with ``prior_features=encoder``, else all."""
    if config.setting("prior") == "clusters" and config.setting("prior_features") == "encoder":
        fraction = experiment.ENCODER_PUBLIC_FRACTION
        return public_private_indices(data.n_train, fraction, config.seed)[1]
    return np.arange(data.n_train)


FAMILY = Family(
    id="rr_prior",
    title="RR with prior and LP-2ST",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#D55E00",
            releases_training_labels=True,
            audit=Audit(
                audit.rr_prior_case,
                controls=(
                    audit.rr_prior_overspending_control,
                    audit.rr_prior_tutorial_control,
                ),
                tight=0.9,
            ),
            diagnostics=("flip_rate", "details.confusion", "details.prior_true_mass_counts"),
            on_compare=True,
            threat_model=ENCODER_PRIOR,
            protected_rows=encoder_private_rows,
            releases=(
                ReleaseStep(
                    experiment.__name__, "noisy_label_counts_by_plan", "cluster histogram noise"
                ),
                ReleaseStep(experiment.__name__, "rr_with_prior_by_plan", "RR-with-prior coins"),
            ),
        ),
        Mechanism(
            lp_2st.SPEC,
            "#009E73",
            releases_training_labels=True,
            not_audited="its two stages are RR and RR-with-prior, each audited on its own",
            diagnostics=("flip_rate", "details.confusion", "details.prior_true_mass_counts"),
            on_compare=True,
            releases=(
                ReleaseStep(lp_2st.__name__, "randomized_response_by_plan", lp_2st.STAGE1_RR_DRAW),
                # With stage1_prior=clusters: half 1's histograms, then RR-with-prior on each half.
                ReleaseStep(
                    experiment.__name__, "noisy_label_counts_by_plan", lp_2st.STAGE1_HISTOGRAM_DRAW
                ),
                ReleaseStep(lp_2st.__name__, "rr_with_prior_by_plan", lp_2st.RR_PRIOR_DRAW),
            ),
        ),
    ),
    folder=Path(__file__).parent,
    order=20,
    page=Page("pages/rr_prior.py", "RR with prior", "target", bad_links={"clusters": "3"}),
    mutation_targets=(
        "labeldp_core/families/rr_prior/release.py",
        "labeldp_core/families/rr_prior/experiment.py",
        "labeldp_core/families/rr_prior/lp_2st.py",
    ),
    api=(
        Api(
            f"{__name__}.release",
            (
                "expected_keep_probability",
                "optimal_set_size",
                "output_probabilities",
                "rr_with_prior",
                "set_keep_probability",
            ),
        ),
    ),
)
