"""What the price-of-privacy screen reads: only what the cache holds, never a computation.

Runs come from the module's fast cache (no training), one audit case is computed once, and a
canary audit is stored with a stand-in training; then every computation is made to fail and the
screen's read must still find exactly those, and nothing on an empty cache.
"""

from dataclasses import replace

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.engine import context
from labeldp_core.experiments import run
from labeldp_core.experiments.demo import CLASS_EPSILONS, DEMO_EPSILONS, DEMO_SEEDS, demo_configs
from labeldp_core.model_audit import audit_model, training_run
from labeldp_core.services.price_of_privacy import MODEL, RELEASE, read_price_of_privacy
from labeldp_core.services.release_audits import APP_TRIALS, stored_audit_case
from tests.model_audit.stand_in import stored as scored_canaries

#: One class stop (seed 0 only) besides two grid epsilons with every seed.
CLASS_STOP = next(e for e in CLASS_EPSILONS if e not in DEMO_EPSILONS)
#: Each canary training stands in with 180 canaries scored for their planted label.
CANARY_RIGHT = 180


@pytest.fixture(scope="module")
def stored(fast_runs: ResultCache):
    """RR's runs at 0.5 and 1 (three seeds) and a class stop, an audit case, a canary audit."""
    grid = demo_configs("digits", ["rr"], DEMO_SEEDS, variants=False)
    configs = [c for c in grid if c.epsilon in (0.5, 1.0)]
    configs.append(replace(next(c for c in grid if c.seed == 0), epsilon=CLASS_STOP))
    runs = [run(c, fast_runs) for c in configs]
    audit = stored_audit_case("rr", 1.0, 0, APP_TRIALS, 0, fast_runs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            training_run, "_train", lambda _, drawn, *rest: scored_canaries(drawn, CANARY_RIGHT)
        )
        first = next(r for r in runs if r.epsilon == 1.0)
        canaries = audit_model(
            "rr", "digits", 1.0, epochs=first.epochs, settings=first.settings, cache=fast_runs
        )
    return runs, audit, canaries


@pytest.fixture
def nothing_computes(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("the screen computed something")

    monkeypatch.setattr(context.RunContext, "train", refuse)
    monkeypatch.setattr(training_run, "_train", refuse)
    monkeypatch.setattr("labeldp_core.services.release_audits.audit_case", refuse)


@pytest.mark.usefixtures("nothing_computes")
def test_the_screen_reads_every_cached_run_audit_and_canary_audit(stored, fast_runs):
    runs, audit, canaries = stored
    found = read_price_of_privacy("digits", ["rr", "laplace"], cache=fast_runs)

    def points(results):
        return sorted((r.epsilon, r.seed, r.epsilon_spent, r.test_accuracy) for r in results)

    assert points(found.results["rr"]) == points(runs)
    assert found.results["laplace"] == () and found.num_classes == 10 and not found.empty
    (release,) = [a for a in found.audits if a.source == RELEASE]
    assert (release.epsilon, release.lower_bound) == (1.0, audit.epsilon_lower_bound)
    assert release.claim == audit.claimed_epsilon and not audit.is_control
    (model,) = [a for a in found.audits if a.source == MODEL]
    assert (model.epsilon, model.lower_bound) == (1.0, canaries.audited.epsilon_lower_bound)
    assert model.claim == canaries.label_epsilon == 1.0


@pytest.mark.usefixtures("nothing_computes")
def test_an_empty_cache_gives_an_empty_screen_and_computes_nothing(tmp_path):
    found = read_price_of_privacy("digits", ["rr", "dpsgd"], cache=ResultCache(tmp_path / "c"))
    assert found.empty and found.audits == () and found.num_classes == 10


@pytest.mark.usefixtures("nothing_computes")
def test_an_audit_at_other_draws_or_seed_is_not_the_audit_pages_and_is_not_read(stored, fast_runs):
    found = read_price_of_privacy("digits", ["rr"], seed=1, cache=fast_runs)
    assert found.audits == ()  # both audits were stored for seed 0


def test_a_classifier_that_trains_no_network_shows_its_canary_audit(fast_runs, monkeypatch):
    (config,) = [
        c for c in demo_configs("digits", ["dppl-mean"], [0], variants=False) if c.epsilon == 1.0
    ]
    result = run(config, fast_runs)
    monkeypatch.setattr(
        training_run, "_train", lambda _, drawn, *rest: scored_canaries(drawn, CANARY_RIGHT)
    )
    canaries = audit_model(
        "dppl-mean", "digits", 1.0, epochs=result.epochs, settings=result.settings, cache=fast_runs
    )
    found = read_price_of_privacy("digits", ["dppl-mean"], cache=fast_runs)
    (model,) = [a for a in found.audits if a.source == MODEL]
    assert (model.epsilon, model.lower_bound) == (1.0, canaries.audited.epsilon_lower_bound)
    assert model.claim == canaries.label_epsilon == 2.0  # example-level (1, δ) read for a label
