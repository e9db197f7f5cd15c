"""DP prototypes (Wahdany et al. 2024, arXiv 2406.08039): DPPL-Mean, DPPL-Public and Top-K."""

from pathlib import Path

import numpy as np

from labeldp_core.data import Dataset, load_dataset
from labeldp_core.engine.blocks.private_set import IMBALANCED_EPSILONS, imbalanced_private_set
from labeldp_core.engine.public_encoder import public_private_indices
from labeldp_core.engine.spec import RunConfig
from labeldp_core.families.family import Api, Audit, DemoGrid, Family, Mechanism, Page, ReleaseStep
from labeldp_core.families.prototypes import audit, experiment
from labeldp_core.families.threat import EXAMPLE_DP

#: A public part trains the encoder and holds the public prototypes; the guarantee covers the
#: private subsample (cut by class at every imbalance).
DPPL_THREAT = EXAMPLE_DP.with_public(
    "the public part of the training split (images and labels), which trains the encoder"
).with_narrower(experiment.SUBSAMPLE_SCOPE)

__all__ = ["FAMILY", "private_rows"]


def private_rows(config: RunConfig, data: Dataset) -> np.ndarray:
    """The imbalanced private set outside the public part (the encoder's and the candidates').

    Cut by class at every imbalance (1: every class at the smallest one's size), from the labels
    as loaded, as the runs draw it: labels changed in ``data`` (canaries) never move it.
    """
    _, pool = public_private_indices(data.n_train, config.setting("public_fraction"), config.seed)
    ratio, seed = config.setting("imbalance"), config.seed
    labels = load_dataset(config.dataset).y_train
    return imbalanced_private_set(pool, labels, data.num_classes, ratio, seed)[0]


DPPL_GRID = DemoGrid(epsilons=IMBALANCED_EPSILONS, variants=({"imbalance": 10.0},))
#: The public-prototype mechanisms' releases: the utilities' range, then the chosen prototypes.
PUBLIC_RELEASES = (
    ReleaseStep(experiment.__name__, "class_utilities"),
    ReleaseStep(experiment.__name__, "public_prototype_indices"),
)

FAMILY = Family(
    id="prototypes",
    title="DP prototypes",
    mechanisms=(
        Mechanism(
            experiment.MEAN_SPEC,
            "#AA4499",
            audit=Audit(
                audit.dppl_mean_case,
                controls=(audit.dppl_mean_old_calibration_control,),
                powerful=(0,),
            ),
            demo=DPPL_GRID,
            threat_model=DPPL_THREAT,
            protected_rows=private_rows,
            on_compare=True,
            releases=(ReleaseStep(experiment.__name__, "private_class_means"),),
        ),
        Mechanism(
            experiment.PUBLIC_SPEC,
            "#44AA99",
            audit=Audit(
                audit.dppl_public_case,
                controls=(audit.dppl_public_replace_one_control,),
                slow_at=(2.0,),
                powerful=(0,),
            ),
            demo=DPPL_GRID,
            threat_model=DPPL_THREAT,
            protected_rows=private_rows,
            releases=PUBLIC_RELEASES,
        ),
        Mechanism(
            experiment.TOPK_SPEC,
            "#661100",
            audit=Audit(
                audit.dppl_topk_case,
                variants=(audit.dppl_topk_order_case,),
                controls=(audit.dppl_topk_utility_order_control,),
                powerful=(0,),  # its order case has no power of its own: its control has
            ),
            demo=DPPL_GRID,
            threat_model=DPPL_THREAT,
            protected_rows=private_rows,
            releases=PUBLIC_RELEASES,
        ),
    ),
    folder=Path(__file__).parent,
    order=80,
    page=Page(
        "pages/dppl.py",
        "DP prototypes",
        "hub",
        bad_links={"dppl_mechanism": "magic", "dppl_imbalance": "7"},
    ),
    mutation_targets=("labeldp_core/families/prototypes/exponential.py",),
    api=(
        Api(f"{__name__}.coinpress", ("CoinPressTrace", "coinpress_mean")),
        Api(
            f"{__name__}.exponential",
            (
                "exponential_mechanism",
                "exponential_probabilities",
                "exponential_topk",
            ),
        ),
        Api(
            f"{__name__}.release",
            (
                "class_utilities",
                "nearest_prototype",
                "private_class_means",
                "public_prototype_indices",
            ),
        ),
    ),
)
