"""Audits of the trained model, not only the release (issue 39).

Flipped-label canaries (Malek et al. 2021) and the label-inference gain (Wu et al. 2023).

Composes every registered family: a mechanism's runner trains on labels with canaries planted
(:class:`~.context.CanaryContext`), and the released classifier's scores on them (a trained
model's softmax, or the DP prototypes' cosine similarities) bound the label-level ε actually spent
from below (:mod:`.estimate`), beside the claim and two controls (:mod:`.audit`).
The label-inference gain is read from ordinary runs, beside its bound (:mod:`.inference`).
"""

from labeldp_core.model_audit.audit import (
    DOUBLED,
    TRAININGS,
    audit_model,
    audit_training,
    can_audit,
    demo_model_audits,
)
from labeldp_core.model_audit.cached import cached_audit
from labeldp_core.model_audit.canaries import MIN_CANARIES, Canaries, canary_count, draw_canaries
from labeldp_core.model_audit.ceiling import UntestableClaimError
from labeldp_core.model_audit.estimate import CONFIDENCE, accuracy_cap, score_guesses
from labeldp_core.model_audit.inference import (
    InferencePoint,
    inference_curve,
    inference_gain,
    inference_point,
    inference_points,
)
from labeldp_core.model_audit.result import CanaryEstimate, ModelAudit
from labeldp_core.model_audit.text import audit_lines

__all__ = [
    "CONFIDENCE",
    "DOUBLED",
    "MIN_CANARIES",
    "TRAININGS",
    "Canaries",
    "CanaryEstimate",
    "InferencePoint",
    "ModelAudit",
    "UntestableClaimError",
    "accuracy_cap",
    "audit_lines",
    "audit_model",
    "audit_training",
    "cached_audit",
    "can_audit",
    "canary_count",
    "demo_model_audits",
    "draw_canaries",
    "inference_curve",
    "inference_gain",
    "inference_point",
    "inference_points",
    "score_guesses",
]
