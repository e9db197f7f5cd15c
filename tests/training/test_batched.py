"""The batched trainer: what it takes, and each point's model and random state as alone."""

import numpy as np
import pytest
import torch

from labeldp_core.data import load_dataset
from labeldp_core.training import TrainSettings, batched
from labeldp_core.training.joining import ClassifierJob
from labeldp_core.training.loop import train_alone


def _job(
    seed: int, model: str = "mlp", targets: np.ndarray | None = None, x_side: int = 8, **settings
) -> ClassifierJob:
    """A training on digits (its images cut to ``x_side`` pixels a side)."""
    data = load_dataset("digits")
    labels = data.y_train if targets is None else targets
    images = data.x_train[..., :x_side, :x_side]
    chosen = TrainSettings(model=model, epochs=settings.pop("epochs", 1), **settings)
    return ClassifierJob(images, labels, data.x_test, data.y_test, data.num_classes, chosen, seed)


def test_each_point_gets_its_own_runs_parameters_curve_and_random_state():
    jobs = [_job(seed) for seed in (0, 1, 5)]
    together = batched.train_together(jobs)
    for job, (outcome, state) in zip(jobs, together, strict=True):
        alone = train_alone(job)
        assert outcome.test_curve == alone.test_curve
        assert torch.equal(state, torch.get_rng_state())  # where the dropout draws left it
        for mine, theirs in zip(outcome.model.parameters(), alone.model.parameters(), strict=True):
            assert torch.equal(mine, theirs)


@pytest.mark.parametrize(
    ("why", "job"),
    [
        ("the CNN", _job(0, model="cnn")),
        ("soft labels", _job(0, targets=np.full((1437, 10), 0.1))),
        ("a product under 400 multiply-adds", _job(0, model="logistic", x_side=2, batch_size=9)),
    ],
)
def test_what_cannot_train_exactly_in_a_batch_is_refused(why: str, job: ClassifierJob):
    assert not batched.batchable(job), why


def test_the_digits_models_are_batchable_and_their_products_agree_here():
    for model in batched.MODELS:
        assert batched.batchable(_job(0, model=model))
    assert batched.kernels_agree(((64, 256), (256, 64), (64, 10)), 128, 3, 1)
    assert batched.kernels_agree(((64, 10),), 29, 3, 1)


def test_the_products_are_checked_again_on_another_thread_count():
    """BLAS may split a product otherwise on more threads: a verdict holds for its count only."""
    batched.kernels_agree.cache_clear()
    before = torch.get_num_threads()
    for threads in (1, 2, 1):
        assert batched.kernels_agree(((64, 10),), 29, 3, threads)
        assert torch.get_num_threads() == before
    assert batched.kernels_agree.cache_info().misses == 2


def test_a_product_on_the_naive_kernel_is_caught_by_the_check():
    """The check sees what :func:`batchable`'s 400 rule avoids (so the rule is needed)."""
    # 1 example x 64 inputs x 3 outputs = 192 multiply-adds: baddbmm's naive kernel, not BLAS.
    assert not batched.kernels_agree(((12, 256), (256, 64), (64, 3)), 1, 2, 1)


def test_asking_whether_a_job_is_batchable_leaves_torchs_generator_alone():
    before = torch.get_rng_state()
    batched.batchable(_job(0))
    assert torch.equal(torch.get_rng_state(), before)
