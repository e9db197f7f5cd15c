"""PATE: teachers on disjoint shards, a noisy vote per query, a student on the answers."""

from pathlib import Path

from labeldp_core.families.family import Audit, DemoGrid, Family, Mechanism, Page
from labeldp_core.families.pate import audit, experiment

__all__ = ["FAMILY"]

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
            ),
            demo=DemoGrid(epsilons=(0.5, 1.0, 2.0, 4.0, 8.0, 16.0)),
            on_compare=True,
        ),
    ),
    folder=Path(__file__).parent,
    page=Page(
        "pages/pate.py",
        "PATE",
        "school",
        bad_links={"aggregator": "magic"},
        kept_links={"teachers": "5", "teacher_epochs": "1"},
    ),
    mutation_targets=("labeldp_core/families/pate/release.py",),
)
