"""Runs whose test accuracy is known in closed form, for tests of choosing ε."""

import math
from dataclasses import replace

from labeldp_core.cache import ResultCache
from labeldp_core.engine.spec import RunResult
from labeldp_core.experiments.demo import demo_configs
from labeldp_core.experiments.runner import result_key

#: The demo grid's epsilons (what `warm` computes for rr and dpsgd).
GRID = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def _accuracy(mechanism: str, epsilon: float, seed: int) -> float:
    """Linear on log2 ε, so the line between any two points is the curve itself."""
    slope = 0.1 if mechanism == "rr" else 0.05
    return 0.5 + slope * math.log2(epsilon) + 0.01 * (seed - 1)


class FakeRuns:
    """A cache of runs that follow _accuracy; ``run`` counts what it computes.

    It holds the demo grid's runs (but those ``absent``) unless ``cold``: then only what it ran.
    """

    def __init__(self, absent=(), cold=False):
        self.stored, self.computed, self.absent = {}, [], set(absent)
        self.cold = cold

    def result(self, config) -> RunResult:
        unit = "example" if config.mechanism == "dpsgd" else "label"
        return RunResult(
            mechanism=config.mechanism,
            dataset=config.dataset,
            seed=config.seed,
            epsilon=config.epsilon,
            epsilon_spent=config.epsilon,
            delta=0.0,
            privacy_unit=unit,
            n_train=10,
            n_test=5,
            num_classes=10,
            elapsed_s=0.0,
            cached=True,
            epochs=1,
            settings={},
            details={},
            test_accuracy=_accuracy(config.mechanism, config.epsilon, config.seed),
            baseline_test_accuracy=0.8 if config.mechanism.startswith("dppl") else 0.95,
        )

    def lookup(self, config, cache=None):
        key = (config.mechanism, config.epsilon, config.seed)
        if key in self.stored:
            return self.stored[key]
        if self.cold or key in self.absent or config.epsilon not in GRID:
            return None
        return self.result(config)

    def store(self, config, cache: ResultCache) -> RunResult:
        """Put ``config``'s run in a real cache, where ``lookup`` finds it; count it computed."""
        result = replace(self.result(config), settings=dict(config.settings), epochs=config.epochs)
        cache.put_json(result_key(cache, config), result.to_dict())
        return result

    def run(self, config, cache=None):
        self.computed.append(config)
        self.stored[(config.mechanism, config.epsilon, config.seed)] = self.result(config)
        return self.stored[(config.mechanism, config.epsilon, config.seed)]


def store_grid(cache: ResultCache, mechanisms=("rr",)) -> FakeRuns:
    """Store the demo grid's runs of ``mechanisms`` in ``cache``, as `warm` would."""
    fake = FakeRuns()
    for config in demo_configs("digits", list(mechanisms), variants=False):
        fake.store(config, cache)
    return fake
