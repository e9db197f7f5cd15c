"""PATE: teachers on disjoint shards, a noisy vote per query, a student on the answers."""

from pathlib import Path

import numpy as np

from labeldp_core.data import Dataset
from labeldp_core.data.splits import teacher_split
from labeldp_core.engine.spec import RunConfig
from labeldp_core.families.family import (
    Api,
    Audit,
    AuditCeiling,
    DemoGrid,
    Family,
    Mechanism,
    Page,
    ReleaseStep,
)
from labeldp_core.families.pate import audit, audit_ceiling, experiment
from labeldp_core.families.threat import LABEL_DP

#: The student's queries come from a public part of the training split, used without its labels.
PATE_THREAT = LABEL_DP.with_public(
    "the public part's images, which the teachers label for the student (its labels are never read)"
).with_narrower("the data-dependent ε is a diagnostic: it is computed from the private votes")

__all__ = ["FAMILY", "teacher_rows"]


def teacher_rows(config: RunConfig, data: Dataset) -> np.ndarray:
    """The teachers' private shards: every training row outside the student's public queries."""
    return np.concatenate(
        teacher_split(data.n_train, config.setting("teachers"), config.seed).shards
    )


FAMILY = Family(
    id="pate",
    title="PATE",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#332288",
            audit=Audit(
                audit.lnmax_case,
                variants=(audit.gnmax_case,),
                controls=(
                    audit.lnmax_sensitivity_one_control,
                    audit.lnmax_truncated_noise_control,
                ),
                powerful=(0, 1),
            ),
            diagnostics=(
                "details.epsilon_data_dependent",
                "details.teacher_accuracy",
                "details.true_labels",
            ),
            demo=DemoGrid(epsilons=(0.5, 1.0, 2.0, 4.0, 8.0, 16.0)),
            on_compare=True,
            threat_model=PATE_THREAT,
            protected_rows=teacher_rows,
            model_audit_ceiling=AuditCeiling(
                audit_ceiling.most_provable,
                "a training label reaches PATE's student only through one teacher's vote on each "
                "query, under Gaussian noise on every vote count",
            ),
            releases=(
                ReleaseStep(experiment.__name__, "noisy_argmax_by_plan", "vote-count noise"),
                ReleaseStep(experiment.__name__, "confident_gnmax_by_plan", "vote-count noise"),
            ),
        ),
    ),
    folder=Path(__file__).parent,
    order=50,
    page=Page(
        "pages/pate.py",
        "PATE",
        "school",
        bad_links={"aggregator": "magic"},
        kept_links={"teachers": "5", "teacher_epochs": "1"},
    ),
    mutation_targets=("labeldp_core/families/pate/release.py",),
    api=(
        Api(
            f"{__name__}.release",
            (
                "UNANSWERED",
                "confident_gnmax",
                "noisy_argmax",
                "noisy_vote_counts",
                "plurality",
                "top_two_gap",
                "vote_counts",
            ),
        ),
    ),
)
