"""Every run's reported epsilon, end to end: never above the ask, and what its report says.

Training is skipped (``fast_runs``: every model keeps its initial weights): these tests are about
the accounting and the release, so every mechanism runs in milliseconds at dozens of epsilons.
"""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeldp_core.cache import ResultCache
from labeldp_core.engine import context as context_module
from labeldp_core.engine.diagnostics import DIAGNOSTICS_NOTE, lookup_path
from labeldp_core.experiments import MECHANISMS, make_config, run
from labeldp_core.families.family import ReleaseStep
from labeldp_core.registry import mechanism_entries

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

#: The label- and output-level mechanisms: pure epsilon (PATE: the (epsilon, delta) it calibrates).
UNITS = ("label", "output")
PURE = [m for m, spec in MECHANISMS.items() if spec.privacy_unit in UNITS]
SECURE = [m for m, spec in MECHANISMS.items() if "noise" in spec.settings]
#: Epsilons of a 0.05 grid where sensitivity / (sensitivity / epsilon) is above epsilon.
OVERSPENT = [e for e in (round(0.05 * i, 2) for i in range(1, 200)) if 2.0 / (2.0 / e) > e]
#: LabelDP-Pro's denoiser, lighter: one projection step on 10 public examples (the defaults: 20
#: on 100). The denoiser post-processes each noisy step, so the epsilon spent is the same to the
#: last bit (test_a_lighter_denoiser_spends_what_the_default_one_spends); the trainer still runs
#: every step. With the defaults its grid took 26 s.
LIGHT_DENOISER = {"projection_steps": 1, "public_batch": 10}
SMALL = {
    "pate": {"teachers": 5, "queries": 40},
    "rr-prior": {"clusters": 5},
    "labeldp-pro": LIGHT_DENOISER,
}


def _run(cache: ResultCache, mechanism: str, epsilon: float, **extra):
    model = "mlp" if mechanism.startswith("dppl") else "logistic"  # an encoder needs a hidden layer
    settings = {"model": model} | SMALL.get(mechanism, {}) | extra
    return run(make_config(mechanism, "digits", epsilon, epochs=1, settings=settings), cache)


@pytest.mark.parametrize("mechanism", PURE)
def test_no_run_spends_more_than_asked_on_the_grid_where_floats_overspent(fast_runs, mechanism):
    for epsilon in OVERSPENT:
        result = _run(fast_runs, mechanism, epsilon)
        assert result.epsilon_spent <= epsilon, (mechanism, epsilon, result.epsilon_spent)


def test_a_lighter_denoiser_spends_what_the_default_one_spends(fast_runs):
    # The grids run LabelDP-Pro with LIGHT_DENOISER: its epsilon and delta must be those of a
    # run with the default denoiser, or the grids would check another run than the app's.
    spec = MECHANISMS["labeldp-pro"].settings
    defaults = {name: spec[name].default for name in LIGHT_DENOISER}
    light = _run(fast_runs, "labeldp-pro", OVERSPENT[-1])
    default = _run(fast_runs, "labeldp-pro", OVERSPENT[-1], **defaults)
    assert light.details["denoiser"] != default.details["denoiser"]
    assert (light.epsilon_spent, light.delta) == (default.epsilon_spent, default.delta)


@pytest.mark.parametrize("mechanism", PURE)
@settings(max_examples=12)
@given(epsilon=st.floats(min_value=0.05, max_value=30.0))
def test_no_run_spends_more_than_asked_at_any_epsilon(fast_runs, mechanism, epsilon):
    assert _run(fast_runs, mechanism, epsilon).epsilon_spent <= epsilon


@pytest.mark.parametrize("mechanism", SECURE)
def test_secure_runs_draw_nothing_from_the_seeded_generator(fast_runs, monkeypatch, mechanism):
    # The run's seeded generator is the only seeded source a release could use; in secure mode
    # its state must not move, and two runs with one seed must release different things.
    generators = []

    def rng(ctx):
        generators.append(np.random.default_rng([ctx.config.seed, 0x1ABE1]))
        return generators[-1]

    monkeypatch.setattr(context_module.RunContext, "rng", property(rng))
    histogram = mechanism in ("alibi", "rr-bins")
    extra = {"noise": "secure"} | ({"prior": "histogram"} if histogram else {})
    first = _run(fast_runs, mechanism, 0.5, **extra)
    untouched = np.random.default_rng([0, 0x1ABE1]).bit_generator.state
    assert all(g.bit_generator.state == untouched for g in generators), mechanism
    sources = first.details["random_draws"]
    released = [step for step, source in sources.items() if "os.urandom" in source]
    assert released and first.details["noise_source"].startswith("os.urandom")


def secure_releases() -> dict[str, tuple[ReleaseStep, ...]]:
    """Each mechanism with a noise setting, and its declared release steps that draw noise.

    Derived from the families' declarations (issue 49: a hand-kept table had dropped vector RR).
    """
    return {
        entry.id: steps
        for entry in mechanism_entries()
        if "noise" in entry.spec.settings
        and (steps := tuple(step for step in entry.releases if step.draws))
    }


#: Settings with which a run reaches a release step that draws from the private labels.
SECURE_EXTRA = {"alibi": {"prior": "histogram"}, "rr-bins": {"prior": "histogram"}}


@pytest.mark.parametrize("mechanism", list(secure_releases()))
def test_two_secure_runs_with_one_seed_release_different_labels(
    tmp_path, fast_runs, monkeypatch, mechanism
):
    released: list[list[np.ndarray]] = [[], []]
    run_index = [0]
    for step in secure_releases()[mechanism]:
        module = importlib.import_module(step.module)
        real = getattr(module, step.function)

        def recording(*args, _real=real, **kwargs):
            out = _real(*args, **kwargs)
            released[run_index[0]].append(np.asarray(out[0] if isinstance(out, tuple) else out))
            return out

        monkeypatch.setattr(module, step.function, recording)
    for i in range(2):
        run_index[0] = i
        extra = SECURE_EXTRA.get(mechanism, {})
        _run(ResultCache(tmp_path / str(i)), mechanism, 1.0, noise="secure", **extra)
    first, second = released
    assert first and len(first) == len(second), mechanism
    assert any(not np.array_equal(a, b) for a, b in zip(first, second, strict=True)), mechanism


@pytest.mark.parametrize("mechanism", list(MECHANISMS))
def test_every_mechanism_takes_noise_secure(mechanism):
    # A mechanism that only had seeded noise was replayed by whoever knew the printed seed.
    assert "noise" in MECHANISMS[mechanism].settings
    secure = make_config(mechanism, "digits", 1.0, settings={"noise": "secure"})
    assert secure.setting("noise") == "secure"
    assert make_config(mechanism, "digits", 1.0).setting("noise") == "float"


def named_diagnostics() -> dict[str, tuple[str, ...]]:
    """Figures read from the private labels without privacy, by mechanism, as each declares
    (``Mechanism.diagnostics``; the review found these shown without a warning)."""
    return {m.id: m.diagnostics for m in mechanism_entries() if m.diagnostics}


@pytest.mark.parametrize("mechanism", list(named_diagnostics()))
def test_statistics_of_private_labels_are_marked_as_diagnostics(fast_runs, mechanism):
    data = _run(fast_runs, mechanism, 1.0).to_dict()
    marker = data["diagnostics"]
    assert marker["private"] is False and marker["note"] == DIAGNOSTICS_NOTE
    assert set(named_diagnostics()[mechanism]) <= set(marker["keys"])
    assert all(lookup_path(data, path)[0] for path in marker["keys"])
    # What the guarantee covers is never listed as a diagnostic.
    assert not {"epsilon_spent", "details.released", "details.noisy_counts"} & set(marker["keys"])
