"""DP-SGD, the example-level baseline: it protects each image and its label together."""

from pathlib import Path

import numpy as np

from labeldp_core.data import Dataset
from labeldp_core.engine.blocks.private_set import IMBALANCED_EPSILONS
from labeldp_core.engine.spec import RunConfig
from labeldp_core.families.dpsgd import audit, experiment
from labeldp_core.families.family import Audit, DemoGrid, Family, Mechanism, Page, ReleaseStep
from labeldp_core.families.threat import EXAMPLE_DP

__all__ = ["FAMILY", "trained_rows"]

#: On the DP prototypes' imbalanced set, the guarantee covers that subsample only.
DPSGD_THREAT = EXAMPLE_DP.with_narrower("with imbalance > 1: " + experiment.SUBSAMPLE_SCOPE)


def trained_rows(config: RunConfig, data: Dataset) -> np.ndarray:
    """The rows DP-SGD trains on: every row, or with imbalance > 1 the subsample (by label)."""
    return experiment.training_set(config, data).select(np.arange(data.n_train))


FAMILY = Family(
    id="dpsgd",
    title="DP-SGD baseline",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#999933",
            audit=Audit(
                audit.dpsgd_case,
                controls=(audit.dpsgd_clip_norm_control,),
                slow_at=(0.5,),
                powerful=(0,),
            ),
            demo=DemoGrid(guest=({"imbalance": 10.0}, IMBALANCED_EPSILONS)),
            on_compare=True,
            threat_model=DPSGD_THREAT,
            protected_rows=trained_rows,
            releases=(ReleaseStep("labeldp_core.training.dpsgd", "train_dpsgd_classifier"),),
        ),
    ),
    folder=Path(__file__).parent,
    order=60,
    page=Page("pages/dpsgd.py", "DP-SGD baseline", "calculate", bad_links={"clip": "-1"}),
    mutation_targets=(),
)
