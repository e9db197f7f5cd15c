"""Randomized response: each label kept with probability e^ε / (e^ε + K - 1), else uniform."""

from pathlib import Path

from labeldp_core.families.family import Api, Audit, Family, Mechanism, Page, ReleaseStep
from labeldp_core.families.randomized_response import audit, experiment

__all__ = ["FAMILY"]

FAMILY = Family(
    id="randomized_response",
    title="Randomized response",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#0072B2",
            releases_training_labels=True,
            audit=Audit(
                audit.rr_case,
                controls=(audit.rr_overspending_control,),
                tight=0.9,
                powerful=(0,),
            ),
            diagnostics=("flip_rate", "label_accuracy", "details.confusion"),
            on_compare=True,
            releases=(
                ReleaseStep(
                    experiment.__name__, "randomized_response_by_plan", "randomized response coins"
                ),
            ),
        ),
    ),
    folder=Path(__file__).parent,
    order=10,
    page=Page("pages/randomized_response.py", "Randomized response", "casino"),
    mutation_targets=("labeldp_core/families/randomized_response/experiment.py",),
    api=(
        Api(
            "labeldp_core.noise.randomized_response",  # shared with LP-2ST's first stage
            (
                "expected_flip_rate",
                "keep_probability",
                "randomized_response",
                "transition_matrix",
            ),
        ),
    ),
)
