"""PATE speed: vectorised aggregation vs a per-query loop; training 250 teachers on fashion-mnist.

Run: ``.venv/bin/python bench/pate_speed.py`` (``--quick`` skips the 250-teacher run).
Prints, measured side by side in one run:
- noisy-max aggregation of 250 teachers x 10,000 queries: ``vote_counts`` (one narrow pass per
  class) plus one noisy argmax over the whole (queries, K) array, against a loop that counts and
  answers one query at a time (target >= 10x); the counting alone against one ``bincount`` over
  query*K + vote; and the data-dependent accounting of the same votes;
- teacher training strategies on 10 teachers: MLP vs CNN (time, accuracy), one vs two torch
  threads (the project trains teachers on one thread);
- digits' default teachers (PATE's run at its defaults) trained together as one batched model
  against one after another, in alternated rounds, CPU seconds and their votes compared;
- wall time and peak resident memory of training 250 teachers on fashion-mnist and computing
  their votes on the public part with the default settings, in a fresh process with an empty
  cache (target: 3 minutes, < 4 GiB).
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.accounting import calibrate_noise, pate_epsilon
from labeldp_core.data import is_available, load_dataset
from labeldp_core.data.splits import teacher_split
from labeldp_core.experiments import make_config
from labeldp_core.families.pate.experiment import epochs_for
from labeldp_core.mechanisms import noisy_argmax, vote_counts
from labeldp_core.training import TrainSettings, ensemble_members, fit_classifier
from labeldp_core.training.ensemble import ensemble_votes

ROOT = Path(__file__).resolve().parents[1]
TEACHERS, QUERIES, CLASSES = 250, 10_000, 10

#: Runs in a fresh process, so its peak resident memory is the teachers' alone.
TEACHER_RUN = """
import sys, time
sys.path.insert(0, {root!r})
from labeldp_core.cache import ResultCache
from labeldp_core.data import load_dataset
from labeldp_core.data.splits import teacher_split
from labeldp_core.experiments import make_config
from labeldp_core.engine.context import RunContext
from labeldp_core.families.pate.experiment import teacher_votes
from labeldp_core.engine.progress import silent

config = make_config("pate", {dataset!r}, 1.0, settings={{"teachers": {teachers}}})
data = load_dataset(config.dataset)
split = teacher_split(data.n_train, {teachers}, config.seed)
ctx = RunContext(config, "classification", ResultCache({cache!r}), silent)
start = time.perf_counter()
votes = teacher_votes(ctx, split)
elapsed = time.perf_counter() - start
truth = data.y_train[split.public]
accuracy = (votes == truth[None, :]).mean(axis=1)
counts = (votes[:, :, None] == range(data.num_classes)).sum(axis=0)
print(elapsed, accuracy.mean(), accuracy.min(), accuracy.max(), (counts.argmax(1) == truth).mean())
"""


def per_query_loop(votes: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """The textbook aggregation: count and answer one query at a time."""
    labels = np.empty(votes.shape[1], dtype=np.int64)
    for query in range(votes.shape[1]):
        counts = np.bincount(votes[:, query], minlength=CLASSES).astype(float)
        labels[query] = np.argmax(counts + rng.normal(0.0, sigma, CLASSES))
    return labels


def vectorised(votes: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    return noisy_argmax(vote_counts(votes, CLASSES), rng, gaussian_sigma=sigma)


def one_bincount(votes: np.ndarray) -> np.ndarray:
    """The other vectorised count: one bincount over the flat cell query*K + vote."""
    cells = np.arange(votes.shape[1], dtype=np.intp) * CLASSES + votes
    return np.bincount(cells.ravel(), minlength=votes.shape[1] * CLASSES).reshape(-1, CLASSES)


def best_of(repeats: int, function, *args) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def aggregation() -> None:
    rng = np.random.default_rng(0)
    # Teachers that mostly agree on a per-query favourite class, as trained teachers do.
    favourite = rng.integers(0, CLASSES, QUERIES)
    noise = rng.integers(0, CLASSES, (TEACHERS, QUERIES))
    votes = np.where(rng.random((TEACHERS, QUERIES)) < 0.7, favourite, noise).astype(np.int16)
    sigma = 40.0
    fast = best_of(5, vectorised, votes, sigma, np.random.default_rng(1))
    slow = best_of(2, per_query_loop, votes, sigma, np.random.default_rng(1))
    print(f"aggregation, {TEACHERS} teachers x {QUERIES:,} queries (GNMax, sigma {sigma:g}):")
    print(f"  vectorised (vote_counts + noisy argmax):    {1000 * fast:8.1f} ms")
    print(f"  per-query loop:                           {1000 * slow:8.1f} ms")
    print(f"  speedup: {slow / fast:.1f}x (target >= 10x)")
    assert np.array_equal(one_bincount(votes), vote_counts(votes, CLASSES))
    narrow = best_of(5, vote_counts, votes, CLASSES)
    wide = best_of(5, one_bincount, votes)
    print(
        f"  counting alone: vote_counts {1000 * narrow:.1f} ms, "
        f"one bincount {1000 * wide:.1f} ms ({wide / narrow:.1f}x)"
    )
    counts = vote_counts(votes, CLASSES)
    start = time.perf_counter()
    dependent = pate_epsilon(counts, 1e-5, aggregator="gnmax", noise=sigma)
    independent = pate_epsilon(counts, 1e-5, aggregator="gnmax", noise=sigma, data_dependent=False)
    took = time.perf_counter() - start
    print(
        f"  accounting of the same votes: data-independent eps {independent:.2f}, "
        f"data-dependent eps {dependent:.2f}, both in {1000 * took:.0f} ms"
    )
    noise = calibrate_noise(2.0, 1000, 1e-5, aggregator="gnmax")
    print(f"  calibration: sigma {noise:.1f} votes gives eps 2 over 1,000 queries")


def strategies(dataset: str) -> None:
    """Ten teachers of the default shard size: MLP vs CNN, one vs two threads."""
    data = load_dataset(dataset)
    split = teacher_split(data.n_train, TEACHERS, 0)
    shards, public = split.shards[:10], data.x_train[split.public]
    truth = data.y_train[split.public]
    config = make_config("pate", dataset, 1.0)
    batch = config.setting("batch_size")
    epochs = epochs_for(shards[0].size, batch, config.setting("teacher_epochs"))
    print(
        f"teacher strategies, 10 teachers of {shards[0].size} examples, {epochs} epochs, "
        f"batch {batch}:"
    )
    results = {}
    for model in ("mlp", "cnn"):
        settings = TrainSettings(model, epochs, batch)
        start = time.perf_counter()
        votes = ensemble_votes(data.x_train, data.y_train, shards, public, 10, settings, 0)
        results[model] = time.perf_counter() - start
        accuracy = (votes == truth[None, :]).mean()
        print(
            f"  {model} on one thread:  {results[model] / 10:6.2f} s per teacher, "
            f"mean accuracy {accuracy:.3f}"
        )
    settings = TrainSettings("mlp", epochs, batch)
    torch.set_num_threads(2)
    start = time.perf_counter()
    for index, shard in enumerate(shards):
        fit_classifier(data.x_train[shard], data.y_train[shard], 10, settings, index)
    two = time.perf_counter() - start
    print(
        f"  mlp on two threads: {two / 10:6.2f} s per teacher (training only); one thread is "
        f"{two / results['mlp']:.1f}x faster on this machine right now"
    )


def _digits_votes(one_by_one: bool) -> tuple[float, np.ndarray]:
    """CPU seconds and votes of digits' default teachers (seed 0), together or one by one."""
    data = load_dataset("digits")
    config = make_config("pate", "digits", 1.0)
    split = teacher_split(data.n_train, config.setting("teachers"), config.seed)
    batch = config.setting("batch_size")
    settings = TrainSettings(
        config.setting("teacher_model"),
        epochs_for(split.shard_sizes[0], batch, config.setting("teacher_epochs")),
        batch,
        config.setting("learning_rate"),
    )
    group, ensemble_members._GROUP = (
        ensemble_members._GROUP,
        1 if one_by_one else ensemble_members._GROUP,
    )
    try:
        start = time.process_time()
        votes = ensemble_votes(
            data.x_train, data.y_train, split.shards, data.x_train[split.public], 10, settings, 0
        )
        return time.process_time() - start, votes
    finally:
        ensemble_members._GROUP = group


def together(rounds: int = 3) -> None:
    """Digits' default teachers trained together against one by one, rounds alternated."""
    _digits_votes(False)  # the first training in a process pays torch's lazy set-up
    alone, joint = [], []
    for _ in range(rounds):
        seconds, votes_alone = _digits_votes(True)
        alone.append(seconds)
        seconds, votes_joint = _digits_votes(False)
        joint.append(seconds)
        assert np.array_equal(votes_alone, votes_joint), "teachers together voted otherwise"
    ratios = sorted(a / j for a, j in zip(alone, joint, strict=True))
    print(f"digits' default teachers, {rounds} alternated rounds (CPU s, median):")
    print(f"  one after another: {np.median(alone):6.2f} s")
    print(f"  together:          {np.median(joint):6.2f} s (the same votes)")
    print(f"  ratio one-by-one / together: median {ratios[len(ratios) // 2]:.2f}x")


def full_run(dataset: str) -> None:
    with tempfile.TemporaryDirectory() as cache:
        code = TEACHER_RUN.format(root=str(ROOT), dataset=dataset, teachers=TEACHERS, cache=cache)
        start = time.perf_counter()
        output = subprocess.run(
            [sys.executable, "-c", code],
            check=True,
            capture_output=True,
            text=True,
            env=dict(os.environ, LABELDP_CACHE_DIR=cache),
        ).stdout.split()
        wall = time.perf_counter() - start
    elapsed, mean, low, high, plurality = (float(x) for x in output)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    print(f"{TEACHERS} teachers on {dataset}, default settings, fresh process and cache:")
    print(
        f"  training + votes: {elapsed:.1f} s ({wall:.1f} s with start-up and data loading; "
        f"target 180 s)"
    )
    print(f"  peak resident memory: {peak:.2f} GiB (target < 4 GiB)")
    print(
        f"  teacher accuracy on the public part: mean {mean:.3f} (min {low:.3f}, max "
        f"{high:.3f}); plurality of all teachers {plurality:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 250-teacher run")
    args = parser.parse_args()
    dataset = "fashion-mnist" if is_available("fashion-mnist") else "mnist-5k"
    aggregation()
    together()
    strategies(dataset)
    if not args.quick:
        full_run(dataset)


if __name__ == "__main__":
    main()
