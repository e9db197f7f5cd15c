"""DP-SGD, the example-level baseline: it protects each image and its label together."""

from pathlib import Path

from labeldp_core.engine.private_set import IMBALANCED_EPSILONS
from labeldp_core.families.dpsgd import audit, experiment
from labeldp_core.families.family import Audit, DemoGrid, Family, Mechanism, Page, ReleaseStep
from labeldp_core.families.threat import EXAMPLE_DP

__all__ = ["FAMILY"]

#: On the DP prototypes' imbalanced set, the guarantee covers that subsample only.
DPSGD_THREAT = EXAMPLE_DP.with_narrower("with imbalance > 1: " + experiment.SUBSAMPLE_SCOPE)

FAMILY = Family(
    id="dpsgd",
    title="DP-SGD baseline",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#999933",
            audit=Audit(audit.dpsgd_case, controls=(audit.dpsgd_clip_norm_control,)),
            demo=DemoGrid(guest=({"imbalance": 10.0}, IMBALANCED_EPSILONS)),
            on_compare=True,
            threat_model=DPSGD_THREAT,
            releases=(ReleaseStep("labeldp_core.training.dpsgd", "train_dpsgd_classifier"),),
        ),
    ),
    folder=Path(__file__).parent,
    page=Page("pages/dpsgd.py", "DP-SGD baseline", "calculate", bad_links={"clip": "-1"}),
    mutation_targets=(),
)
