"""Vector randomized response: the label's one-hot vector, each bit flipped w.p. 1/(1+e^(ε/2))."""

from pathlib import Path

from labeldp_core.families.family import Api, Audit, Family, Mechanism, Page, ReleaseStep
from labeldp_core.families.vector_rr import audit, experiment

__all__ = ["FAMILY"]

FAMILY = Family(
    id="vector_rr",
    title="Vector randomized response",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#EE3377",
            releases_training_labels=True,
            audit=Audit(audit.vector_case, controls=(audit.vector_per_bit_epsilon_control,)),
            on_compare=False,
            releases=(
                ReleaseStep(
                    experiment.__name__, "vector_randomized_response_by_plan", experiment.COINS
                ),
            ),
        ),
    ),
    folder=Path(__file__).parent,
    order=90,
    page=Page("pages/vector_rr.py", "Vector randomized response", "view_week"),
    mutation_targets=(
        "labeldp_core/families/vector_rr/release.py",
        "labeldp_core/families/vector_rr/experiment.py",
    ),
    api=(Api(f"{__name__}.release", ("vector_randomized_response",)),),
)
