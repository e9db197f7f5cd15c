"""RR-with-prior (RRTop-k) and its multi-stage LP-2ST (Ghazi et al. 2021, arXiv 2102.06062)."""

from pathlib import Path

from labeldp_core.families.family import Audit, Family, Mechanism, Page
from labeldp_core.families.rr_prior import audit, experiment, lp_2st

__all__ = ["FAMILY"]

FAMILY = Family(
    id="rr_prior",
    title="RR with prior and LP-2ST",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#D55E00",
            audit=Audit(
                audit.rr_prior_case,
                controls=(
                    audit.rr_prior_overspending_control,
                    audit.rr_prior_tutorial_control,
                ),
            ),
            on_compare=True,
        ),
        Mechanism(
            lp_2st.SPEC,
            "#009E73",
            on_compare=True,
        ),
    ),
    folder=Path(__file__).parent,
    page=Page("pages/rr_prior.py", "RR with prior", "target", bad_links={"clusters": "3"}),
    mutation_targets=(
        "labeldp_core/families/rr_prior/release.py",
        "labeldp_core/families/rr_prior/experiment.py",
        "labeldp_core/families/rr_prior/lp_2st.py",
    ),
)
