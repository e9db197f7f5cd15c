"""LabelDP-Pro (Ghazi et al., ICLR 2024): DP-SGD on the labels, denoised by projection."""

from pathlib import Path

from labeldp_core.families.family import Api, Audit, Family, Mechanism, Page, ReleaseStep
from labeldp_core.families.labeldp_pro import audit, experiment

__all__ = ["FAMILY"]

FAMILY = Family(
    id="labeldp_pro",
    title="LabelDP-Pro",
    mechanisms=(
        Mechanism(
            experiment.SPEC,
            "#DDCC77",
            audit=Audit(
                audit.labeldp_pro_case,
                controls=(audit.labeldp_pro_true_label_control,),
                slow_at=(0.5,),
            ),
            releases=(ReleaseStep(f"{__name__}.trainer", "train_labeldp_pro"),),
        ),
    ),
    folder=Path(__file__).parent,
    order=70,
    page=Page("pages/labeldp_pro.py", "LabelDP-Pro", "compress", bad_links={"smoothing": "2"}),
    mutation_targets=(),
    api=(Api(f"{__name__}.trainer", ("train_labeldp_pro",)),),
)
