"""The batched trainer: what it takes, and each point's model and random state as alone."""

from dataclasses import replace

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


def _each_as_alone(jobs: list[ClassifierJob], together: list[batched.Trained]) -> None:
    """Each job's model, curve and random state trained together are its own run's."""
    for job, (outcome, state) in zip(jobs, together, strict=True):
        alone = train_alone(job)
        assert outcome.test_curve == alone.test_curve
        assert torch.equal(state, torch.get_rng_state())  # where the dropout draws left it
        for mine, theirs in zip(outcome.model.parameters(), alone.model.parameters(), strict=True):
            assert torch.equal(mine, theirs)


def test_each_point_gets_its_own_runs_parameters_curve_and_random_state():
    jobs = [_job(seed) for seed in (0, 1, 5)]
    _each_as_alone(jobs, batched.train_together(jobs))


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
    """The check sees what :func:`batchable`'s 400 rule avoids: that layer runs point by point."""
    # 1 example x 64 inputs x 3 outputs = 192 multiply-adds: baddbmm's naive kernel, not BLAS.
    assert batched.layer_plan(((12, 256), (256, 64), (64, 3)), 1, 2, 1)[-1] is False


@pytest.fixture
def ten_outputs_differ(monkeypatch):
    """Every 10-output layer's batched products differ from its own, as MKL's do on AVX2."""
    original = batched._layer_agrees
    monkeypatch.setattr(
        batched, "_layer_agrees", lambda size, *rest: size[1] != 10 and original(size, *rest)
    )
    for check in (batched.layer_plan, batched.kernels_agree):
        check.cache_clear()
    yield
    for check in (batched.layer_plan, batched.kernels_agree):
        check.cache_clear()


@pytest.mark.usefixtures("ten_outputs_differ")
@pytest.mark.parametrize("model", ["mlp", "logistic"])
def test_a_layer_whose_batched_products_differ_runs_point_by_point_inside_the_group(
    monkeypatch, model
):
    # Before, one such layer sent the whole group to train one point at a time.
    steps = []
    original = batched.train_step
    monkeypatch.setattr(batched, "train_step", lambda *args: steps.append(1) or original(*args))
    first = _job(0, model=model)
    jobs = [first, replace(first, seed=3)]  # one set of images: one group
    assert batched.layer_plan(((64, 10),), 128, 2, torch.get_num_threads()) == (False,)
    together = batched.train_together(jobs)
    assert len(steps) == 12  # one epoch of 1,437 examples in batches of 128, the two together
    _each_as_alone(jobs, together)


def test_asking_whether_a_job_is_batchable_leaves_torchs_generator_alone():
    before = torch.get_rng_state()
    batched.batchable(_job(0))
    assert torch.equal(torch.get_rng_state(), before)


def test_checking_a_layer_plan_leaves_torchs_generator_alone():
    # A batch size first met inside a training is checked there, between its dropout draws.
    batched.layer_plan.cache_clear()
    before = torch.get_rng_state()
    batched.layer_plan(((64, 32), (32, 10)), 17, 2, 1)
    assert torch.equal(torch.get_rng_state(), before)
