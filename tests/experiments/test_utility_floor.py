"""No classifier sits at chance unseen: every one learns on digits at its demo grid's largest ε.

The mechanisms are read from the registry (every mechanism that trains a classifier), so a new
one is held to the floor without a line here. Each runs with its family's defaults for digits,
exactly as `run MECHANISM --dataset digits --epsilon E` and the pages run it, on seed 0.

Cost: the runs share one result cache, so the clean model trains once. Measured one at a time
on the 2-core machine at load 7 to 10 (other jobs beside it, one torch thread): nine of the ten
take 1.5 to 20 s each (PATE's 19 s the longest); LabelDP-Pro, 240 steps each with a projection
of 20 FISTA steps over 100 images' per-class gradients, took 140 to 310 s. The whole file took
117 s of CPU (410 s of wall time at load 10 to 15; LabelDP-Pro 161 s of it, PATE 86 s). That
one parameter is the suite's cost of asking whether LabelDP-Pro learns at all (with the paper's
small CNN; digits' recipe now trains logistic regression for 10 epochs, 30 to 50 s a run at
load 6 to 9).
The last test sets LabelDP-Pro beside DP-SGD at eps 1 and 8 (issue 51): two more runs of each,
the eps 8 ones shared with the floor's.
"""

from collections.abc import Iterator

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import make_config, run
from labeldp_core.experiments.demo import demo_epsilons
from labeldp_core.registry import mechanism_entries

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

#: Every mechanism that trains a classifier, as its family declares it.
CLASSIFIERS = [
    m.id for m in mechanism_entries() if m.spec.trains_model and m.spec.task == "classification"
]
#: The floor: chance on digits is 0.10 and its clean model reaches about 0.975, so 0.80 says
#: that the mechanism learns at a generous budget. No family's recipe needs the issue's weaker
#: alternative (clean - 0.15) on digits: measured on seed 0, DP-SGD 0.858 is the lowest of the
#: ten (LabelDP-Pro 0.850 with the paper's small CNN, 0.925 with digits' logistic regression),
#: RR 0.978 the highest.
FLOOR = 0.80


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ResultCache]:
    store = ResultCache(tmp_path_factory.mktemp("utility-floor"))
    yield store
    store.close()


def test_the_floor_covers_every_classifier_family() -> None:
    # Deriving the set must not silently drop the mechanisms the floor was written for.
    assert {"rr", "rr-prior", "lp-2st", "pate", "dpsgd", "labeldp-pro"} <= set(CLASSIFIERS)


@pytest.mark.parametrize("mechanism", CLASSIFIERS)
def test_every_classifier_learns_on_digits_at_its_largest_demo_epsilon(
    shared_cache: ResultCache, mechanism: str
) -> None:
    epsilon = max(demo_epsilons(mechanism))
    result = run(make_config(mechanism, "digits", epsilon, seed=0), shared_cache)
    assert result.epsilon_spent <= epsilon
    assert result.test_accuracy >= FLOOR, (
        f"{mechanism} at eps {epsilon}: test accuracy {result.test_accuracy:.3f} < {FLOOR} "
        f"(clean {result.baseline_test_accuracy:.3f})"
    )


#: How far below DP-SGD's seed-0 figure LabelDP-Pro's seed 0 may land and still count as level
#: with it: twice the standard deviation of the difference of two single-seed runs, from seeds
#: 0-2 on digits at eps 1, where the spread is widest (LabelDP-Pro 0.725 / 0.767 / 0.794, sd
#: 0.035, mean 0.762; DP-SGD 0.661 / 0.681 / 0.706, sd 0.023, mean 0.683): 2 x 0.042. At eps 8
#: the means are 0.920 and 0.858.
LEVEL_TOLERANCE = 0.085


@pytest.mark.parametrize("epsilon", [1.0, 8.0])
def test_labeldp_pro_is_level_with_dpsgd_on_digits(shared_cache: ResultCache, epsilon: float):
    # Issue 51: at eps 1 LabelDP-Pro sat at chance on digits (0.103; the paper's small CNN
    # drowns in the noise a label-level eps of 1 needs there, sigma 22.6) where DP-SGD reaches
    # 0.661. Seed 0 of each, their families' defaults, as the pages run them.
    pro, dpsgd = (
        run(make_config(mechanism, "digits", epsilon, seed=0), shared_cache)
        for mechanism in ("labeldp-pro", "dpsgd")
    )
    assert pro.epsilon_spent <= epsilon
    assert pro.test_accuracy >= dpsgd.test_accuracy - LEVEL_TOLERANCE, (
        f"LabelDP-Pro {pro.test_accuracy:.3f} against DP-SGD {dpsgd.test_accuracy:.3f} at eps "
        f"{epsilon}"
    )
