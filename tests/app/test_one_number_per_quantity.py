"""One number per quantity: the tables show numbers without float noise, the same baseline."""

import math

from app_helpers import assert_no_errors, open_page

from labeldp_core.demo import DEMO_SEEDS, demo_configs
from labeldp_core.experiments import MECHANISMS, RunConfig, RunResult


def _noisy(config: RunConfig) -> RunResult:
    """A stored run whose numbers carry float noise: ε spent just under ε asked, thirds."""
    spec = MECHANISMS[config.mechanism]
    return RunResult(
        mechanism=config.mechanism,
        dataset=config.dataset,
        seed=config.seed,
        epsilon=config.epsilon,
        epsilon_spent=config.epsilon - 3e-15 * config.epsilon,  # 8 -> 7.999999999999997
        delta=0.0,
        privacy_unit=spec.privacy_unit,
        n_train=1437,
        n_test=360,
        num_classes=10,
        elapsed_s=0.0,
        cached=False,
        epochs=1,
        settings=dict(config.settings),
        details={},
        test_accuracy=0.7 + config.seed / 30,
        baseline_test_accuracy=0.9 + config.seed / 70,
    )


def _cells(table) -> list[float]:
    return [v for column in table.columns for v in table[column] if isinstance(v, float)]


def _shown_with_noise(value: float) -> bool:
    """Whether ``value`` needs more than 4 significant digits to be written (float noise)."""
    return value != 0 and not math.isclose(value, float(f"{value:.4g}"), rel_tol=0, abs_tol=0)


def test_compare_tables_show_four_significant_digits_and_never_spent_above_asked(cache):
    chosen = ["laplace", "rr"]
    for config in demo_configs("digits", chosen, DEMO_SEEDS, 1, "cnn", variants=False):
        cache.put_json(cache.key("result", config.to_dict()), _noisy(config).to_dict())
    app = open_page("pages/compare.py", epochs="1", mechanisms=chosen, epsilon="8.0")
    assert_no_errors(app)
    at_epsilon, numbers = app.dataframe[0].value, app.dataframe[-1].value
    for table in (at_epsilon, numbers):
        noisy = [v for v in _cells(table) if _shown_with_noise(v)]
        assert not noisy, noisy
    assert list(at_epsilon["ε spent"]) == [8.0, 8.0]
    spent = numbers["epsilon spent (max over seeds)"]
    assert (spent <= numbers["epsilon asked"]).all()
    assert set(numbers.loc[numbers["epsilon asked"] == 8.0, "epsilon spent (max over seeds)"]) == {
        8.0
    }
    assert set(numbers["mean"]) == {0.7333}


def test_a_spent_epsilon_is_shown_rounded_down_where_rounding_would_pass_the_asked_one():
    from labeldp_core.numbers import shown, shown_spent

    assert shown(7.999999999999997) == 8.0 and shown(0.73333333) == 0.7333
    assert shown_spent(7.999999999999997, 8.0) == 8.0
    asked = 0.123456789  # an ε found by bisection: 4 digits round it up, above itself
    assert shown_spent(asked, asked) == 0.1234 <= asked
    assert shown_spent(1.5, 1.0) == 1.5  # DPPL-Mean may spend above its ε asked: shown as is
