"""DP-SGD's noise modes: float replays from the seed, secure draws batches and noise unpredictably.

In float mode the Poisson batches and the Gaussian noise come from torch generators seeded by the
run's seed, so whoever knows the seed replays a run bit for bit. In secure mode both generators
get their whole state from os.urandom. Each private draw is checked on its own: with batch = n
every step takes every example (no sampling left), so only the noise can tell two runs apart;
the batch sizes of a run tell its Poisson draws apart. The model's initialisation stays seeded.
"""

import numpy as np
import pytest
import torch
from scipy import stats

from labeldp_core.data import load_dataset
from labeldp_core.training import TrainSettings
from labeldp_core.training import dpsgd as dpsgd_training
from labeldp_core.training.dpsgd import DPSGDSettings, secure_torch_generator

pytestmark = pytest.mark.filterwarnings("ignore:Full backward hook is firing")

DIGITS = load_dataset("digits")
#: Mersenne Twister's state: 624 words of 32 bits.
MT_WORDS = 624
#: The loop's own step and model builder, wrapped afresh by each run below.
REAL_STEP, REAL_BUILD = dpsgd_training._noisy_step, dpsgd_training.build_model


def _train(monkeypatch, noise: str, n: int, batch: int, seed: int = 7) -> dict:
    """One epoch of DP-SGD on ``n`` digits: its batch sizes, initial and final weights."""
    sizes, initial = [], []

    def counting_step(private, optimiser, images, labels):
        sizes.append(images.shape[0])
        return REAL_STEP(private, optimiser, images, labels)

    def recording_build(*args):
        model = REAL_BUILD(*args)
        initial.append(torch.cat([p.detach().clone().flatten() for p in model.parameters()]))
        return model

    monkeypatch.setattr(dpsgd_training, "_noisy_step", counting_step)
    monkeypatch.setattr(dpsgd_training, "build_model", recording_build)
    settings = TrainSettings("logistic", epochs=1, batch_size=batch, learning_rate=0.05)
    outcome = dpsgd_training.train_dpsgd_classifier(
        DIGITS.x_train[:n],
        DIGITS.y_train[:n],
        DIGITS.x_test[:50],
        DIGITS.y_test[:50],
        10,
        settings,
        DPSGDSettings(noise_multiplier=1.0, clip=1.0),
        seed=seed,
        noise=noise,
    )
    final = torch.cat([p.detach().flatten() for p in outcome.model.parameters()])
    return {"sizes": sizes, "initial": initial[0], "final": final}


def test_float_runs_replay_bit_for_bit_from_the_seed(monkeypatch):
    first, again = (_train(monkeypatch, "float", 300, 50) for _ in range(2))
    assert first["sizes"] == again["sizes"]
    assert torch.equal(first["final"], again["final"])


def test_secure_poisson_batches_are_not_replayed_from_the_seed(monkeypatch):
    n, batch = 600, 100
    runs = [_train(monkeypatch, mode, n, batch) for mode in ("float", "secure", "secure")]
    steps = len(runs[0]["sizes"])
    # Two independent runs draw the same batch sizes on every step with probability
    # prod over steps of sum_k P(Binomial(n, q) = k)^2, and a secure run draws the float run's
    # sizes with probability at most (max_k P(k))^steps: both far below a false alarm.
    pmf = stats.binom.pmf(np.arange(n + 1), n, batch / n)
    assert steps == 6 and float(np.sum(pmf**2)) ** steps < 1e-7 and pmf.max() ** steps < 1e-7
    assert runs[1]["sizes"] != runs[2]["sizes"]
    # Neither secure run is the float run of its seed: the seeded sampler was not used.
    assert runs[1]["sizes"] != runs[0]["sizes"] and runs[2]["sizes"] != runs[0]["sizes"]


def test_secure_noise_is_not_replayed_and_the_initial_model_stays_seeded(monkeypatch):
    n = 200  # batch = n: sample rate 1, every step takes every example, no sampling left
    floats = [_train(monkeypatch, "float", n, n) for _ in range(2)]
    secures = [_train(monkeypatch, "secure", n, n) for _ in range(2)]
    assert all(run["sizes"] == [n] for run in floats + secures)
    assert torch.equal(floats[0]["final"], floats[1]["final"])  # the noise replays from the seed
    assert not torch.equal(secures[0]["final"], secures[1]["final"])  # continuous noise
    assert not torch.equal(secures[0]["final"], floats[0]["final"])
    # The initial weights read no data: seeded in both modes (random_draws says so).
    assert all(torch.equal(run["initial"], floats[0]["initial"]) for run in floats + secures)


def _seeded_state_words(seed: int) -> np.ndarray:
    """The Mersenne Twister state that ``manual_seed(seed)`` sets (its 32-bit initialisation)."""
    words = [seed & 0xFFFFFFFF]
    for i in range(1, MT_WORDS):
        words.append((1812433253 * (words[-1] ^ (words[-1] >> 30)) + i) & 0xFFFFFFFF)
    return np.array(words, dtype=np.uint32)


def test_a_secure_generator_takes_its_whole_state_from_the_entropy_given():
    # torch's manual_seed keeps 32 bits of a seed (2^32 candidates to replay); the secure
    # generator writes all 624 words of the state. Handing it the words that manual_seed(1234)
    # sets must give that generator's draws exactly: the words land where the draws read them.
    asked = []

    def entropy(count: int) -> bytes:
        asked.append(count)
        return _seeded_state_words(1234).tobytes()

    generator = secure_torch_generator(entropy)
    assert asked == [4 * MT_WORDS]
    reference = torch.Generator().manual_seed(1234)
    assert torch.equal(torch.rand(1000, generator=generator), torch.rand(1000, generator=reference))
    assert torch.equal(
        torch.normal(0.0, 1.0, (1000,), generator=generator),
        torch.normal(0.0, 1.0, (1000,), generator=reference),
    )
    # From os.urandom: two generators draw differently (equal with probability 2^-32000).
    first, second = secure_torch_generator(), secure_torch_generator()
    assert not torch.equal(torch.rand(1000, generator=first), torch.rand(1000, generator=second))
