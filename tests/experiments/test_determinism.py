"""A result is a function of its key: one point alone or beside another training, byte for byte.

Each point is computed twice, in two empty caches (so its clean baseline and its artefacts are
trained twice too): once with the machine to itself, once while a second process trains the
digits CNN without pause. The JSON must be the same text apart from the fields that say how long
it took or whether it came from the cache.
"""

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from labeldp_core.base.threads import THREADS_ENV
from labeldp_core.cache import ResultCache
from labeldp_core.experiments import make_config, run

ROOT = Path(__file__).resolve().parents[2]
#: The fields of a run's JSON that say when or how it was obtained, not what it computed.
TIMING_FIELDS = ("elapsed_s", "cached")
#: The points, each as cheap as its config allows: the digits CNN on two epochs (the issue's
#: point), and one epoch of DP-SGD, of LabelDP-Pro and of DPPL-Mean's public encoder (whose
#: ``details.spread`` differed between two runs of one commit).
POINTS = {
    "digits CNN, 2 epochs": ("rr", 2),
    "DP-SGD": ("dpsgd", 1),
    "LabelDP-Pro": ("labeldp-pro", 1),
    "DPPL-Mean": ("dppl-mean", 1),
}
#: A second training that never stops: the digits CNN, epoch after epoch, until killed.
KEEP_TRAINING = """
import sys
from labeldp_core.data import load_dataset
from labeldp_core.training import TrainSettings, train_classifier
data = load_dataset("digits")
def said(done, total):
    print("training", flush=True)
train_classifier(data.x_train, data.y_train, data.x_test, data.y_test, data.num_classes,
                 TrainSettings(model="cnn", epochs=1000), seed=1, progress=said)
"""


@contextmanager
def another_training(scratch: Path) -> Iterator[None]:
    """A second process training the digits CNN for as long as the block runs."""
    env = {k: v for k, v in os.environ.items() if k != THREADS_ENV}
    env |= {"TMPDIR": str(scratch), "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", KEEP_TRAINING], stdout=subprocess.PIPE, env=env, text=True, cwd=ROOT
    )
    try:
        assert process.stdout.readline().strip() == "training"  # its first epoch is done
        yield
    finally:
        process.kill()
        process.communicate(timeout=60)


def _computed(cache_dir: Path) -> dict[str, str]:
    """Every point's JSON text without its timing fields, computed into an empty cache."""
    cache = ResultCache(cache_dir)
    texts = {}
    try:
        for name, (mechanism, epochs) in POINTS.items():
            result = run(make_config(mechanism, "digits", 1.0, seed=3, epochs=epochs), cache)
            assert not result.cached
            found = {k: v for k, v in result.to_dict().items() if k not in TIMING_FIELDS}
            texts[name] = json.dumps(found, sort_keys=True)
    finally:
        cache.close()
    return texts


@pytest.fixture(scope="module")
def alone_and_beside(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """The points computed alone, then again beside a second training (no thread count set)."""
    scratch = tmp_path_factory.mktemp("determinism")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(THREADS_ENV, raising=False)
        patch.setattr(tempfile, "tempdir", str(scratch))  # no other trainer on the machine counts
        alone = _computed(scratch / "alone")
        with another_training(scratch):
            beside = _computed(scratch / "beside")
    return alone, beside


@pytest.mark.parametrize("point", list(POINTS))
def test_a_point_beside_another_training_is_byte_identical_to_the_point_alone(
    point: str, alone_and_beside: tuple[dict, dict]
):
    alone, beside = alone_and_beside
    assert beside[point] == alone[point]
