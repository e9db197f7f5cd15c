"""LabelDP-Pro's row of the bad-input matrix: its trainer, on a tiny valid call.

Read by ``tests/contract/test_mechanism_inputs.py`` (:func:`family_rows`), with the vocabulary of
``tests/contract/bad_values.py``.
"""

import numpy as np

from labeldp_core import mechanisms
from labeldp_core.families.labeldp_pro.trainer import ProSettings
from labeldp_core.training.settings import TrainSettings
from tests.contract.bad_values import (
    LABELS,
    NAN,
    POINTS,
    Bad,
    Row,
    labels,
    num_classes,
)

#: LabelDP-Pro's valid call: four 1x2x2 images, a logistic model, two steps.
PRO_IMAGES = np.linspace(0.0, 1.0, 16).reshape(4, 1, 2, 2)
PRO_TRAINING = TrainSettings(model="logistic", epochs=1, batch_size=2, learning_rate=0.1)
PRO_SETTINGS = ProSettings(noise_multiplier=1.0, clip=1.0, public_batch=2, projection_steps=2)


def _pro_data(images=PRO_IMAGES, labels=LABELS, test=PRO_IMAGES[:3]) -> tuple:
    """LabelDP-Pro's data: training images and labels, test images and labels (0, 1, 2)."""
    return (images, labels, test, np.arange(len(test)) % 3)


PRO_DATA = _pro_data()

ROWS = [
    Row(
        mechanisms.train_labeldp_pro,
        {
            "data": PRO_DATA,
            "num_classes": 3,
            "settings": PRO_TRAINING,
            "pro": PRO_SETTINGS,
            "seed": 0,
        },
        bad=[
            *num_classes(),
            *[Bad("data", _pro_data(labels=b.value), b.match, b.label) for b in labels()],
            Bad("data", _pro_data(images=PRO_IMAGES[:3]), "rows but 4 labels", "rows-mismatch"),
            Bad("data", _pro_data(images=PRO_IMAGES * NAN), "must be finite", "nan-images"),
            Bad("data", _pro_data(images=[["a", "b"]] * 4), "must hold real numbers", "strings"),
            Bad("data", _pro_data(images=POINTS), "(n, channels, height, width)", "flat"),
            Bad("data", _pro_data(test=np.zeros((3, 1, 3, 3))), "same shape per image", "shapes"),
            Bad("data", "digits", "data must be (training images", "str"),
            Bad("settings", "logistic", "settings must be a TrainSettings", "str-settings"),
            Bad("pro", {"clip": 1.0}, "pro must be a ProSettings", "dict-pro"),
            Bad("pro", ProSettings(0.0, 1.0), "noise_multiplier must be greater than 0", "sigma"),
            Bad("pro", ProSettings(1.0, -1.0), "clip", "negative-clip"),
            Bad("noise", "quantum", "noise must be one of", "unknown-noise"),
            Bad("seed", -1, "seed must be a whole number", "negative-seed"),
        ],
    ),
]
