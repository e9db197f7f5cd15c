"""Laplace noise on softmax outputs: local DP per output vector, scale 2/ε."""

from pathlib import Path

from labeldp_core.families.family import Api, Audit, DemoGrid, Family, Mechanism, Page, ReleaseStep
from labeldp_core.families.noisy_outputs import audit, experiment

__all__ = ["FAMILY"]

FAMILY = Family(
    id="noisy_outputs",
    title="Laplace on model outputs (local DP)",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#117733",
            audit=Audit(
                audit.softmax_laplace_case,
                controls=(audit.softmax_sensitivity_one_control,),
                tight=0.85,  # its event has p = 1/16: a wider interval
            ),
            diagnostics=("test_accuracy", "details.argmax_agreement"),
            demo=DemoGrid(epsilons=(0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)),
            # Its noise touches the model's outputs, not the labels: no label-touching draws.
            releases=(ReleaseStep(experiment.__name__, "laplace_outputs_by_plan"),),
        ),
    ),
    folder=Path(__file__).parent,
    order=40,
    page=Page(
        "pages/noisy_outputs.py",
        "Noisy model outputs (local DP)",
        "output",
        bad_links={"output_p": "2"},
    ),
    mutation_targets=(
        "labeldp_core/families/noisy_outputs/release.py",
        "labeldp_core/families/noisy_outputs/experiment.py",
    ),
    api=(
        Api(
            f"{__name__}.release",
            (
                "PROBABILITY_SENSITIVITY",
                "actual_epsilon",
                "epsilon_for_output_noise",
                "laplace_outputs",
            ),
        ),
    ),
)
