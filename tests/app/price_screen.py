"""A price-of-privacy screen as a warmed digits cache shows it, stored in seconds.

Every mechanism of the screen at every ε it reads (:func:`screen_configs`), on the demo seeds,
with a test accuracy that climbs from chance to the clean model's at a pace of its own (they
meet at large ε, where their values crowd the cursor), each demo seed's clean model, and the
audit page's release audits (really computed, 200,000 draws) at ``AUDITED_EPSILONS``.
"""

import math
from pathlib import Path

from fake_results import fake_result, store_clean_models

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import MECHANISMS
from labeldp_core.experiments.demo import DEMO_SEEDS
from labeldp_core.experiments.runner import result_key
from labeldp_core.plots_base.common import LABEL_DP_RANGE
from labeldp_core.registry import ON_COMPARE
from labeldp_core.services.price_of_privacy import screen_configs
from labeldp_core.services.release_audits import APP_TRIALS, CASES, audit_cases, stored_audit_case

#: The ε at which each mechanism's accuracy is halfway from chance to clean: a pace per line.
HALFWAY = {
    "rr": 1.0,
    "rr-prior": 0.4,
    "lp-2st": 0.6,
    "laplace": 1.3,
    "alibi": 0.9,
    "pate": 0.3,
    "dpsgd": 2.5,
    "dppl-mean": 0.7,
}
#: Each demo seed's clean model: their mean, 0.975, is the screen's clean line and image prior.
CLEAN = {0: 0.97, 1: 0.975, 2: 0.98}
AUDITED_EPSILONS = (0.5, 1.0, 4.0)
SCREEN = tuple(m for m in ON_COMPARE if m in HALFWAY)


def _accuracy(mechanism: str, epsilon: float, seed: int) -> float:
    reached = 1 - math.exp(-math.log(2) * epsilon / HALFWAY[mechanism])
    return round(0.1 + (CLEAN[seed] - 0.1) * reached - 0.01 * seed, 6)


def screen_frame_epsilons(audited: tuple[str, ...]) -> tuple[float, ...]:
    """The ε of the animation's frames on the stored screen: every ε stored, in range."""
    stored = {
        config.epsilon
        for mechanism in SCREEN
        for config in screen_configs("digits", mechanism, DEMO_SEEDS, None, None)
    }
    stored |= set(AUDITED_EPSILONS) if any(m in CASES for m in audited) else set()
    low, high = LABEL_DP_RANGE
    return tuple(sorted(e for e in stored if low <= e <= high))


def store_price_screen(directory: Path, audited: tuple[str, ...] = ("rr", "laplace")) -> None:
    """Store the screen's runs (the sidebar's default model and epochs), ``audited``'s audits."""
    cache = ResultCache(directory)
    store_clean_models(cache, CLEAN)
    for mechanism in SCREEN:
        for config in screen_configs("digits", mechanism, DEMO_SEEDS, None, None):
            example = MECHANISMS[mechanism].privacy_unit == "example"
            run = fake_result(
                mechanism=mechanism,
                seed=config.seed,
                epsilon=config.epsilon,
                epsilon_spent=config.epsilon,
                delta=1e-5 if example else 0.0,
                privacy_unit=MECHANISMS[mechanism].privacy_unit,
                settings=dict(config.settings),
                epochs=config.epochs,
                test_accuracy=_accuracy(mechanism, config.epsilon, config.seed),
                baseline_test_accuracy=CLEAN[config.seed],
            )
            cache.put_json(result_key(cache, config), run.to_dict())
    for mechanism in (m for m in audited if m in CASES):
        for epsilon in AUDITED_EPSILONS:
            for index in range(len(audit_cases(mechanism, epsilon))):
                stored_audit_case(mechanism, epsilon, index, APP_TRIALS, 0, cache)
    cache.close()
