"""Demo mode (ui/demo.py): larger type, a lean sidebar, ε on the warmed grid, a guided tour."""

from pathlib import Path

from labeldp_core.experiments.demo import demo_configs, demo_epsilons, point_epsilons

ROOT = Path(__file__).resolve().parents[2]
RR_PAGE = "pages/randomized_response.py"


def test_warm_computes_every_value_the_demo_slider_stops_at():
    warmed = {(c.mechanism, c.epsilon) for c in demo_configs("digits") if c.seed == 0}
    for mechanism in ("rr", "rr-prior", "laplace", "dpsgd", "pate", "softmax-laplace"):
        stops = point_epsilons(mechanism, "digits")
        assert {(mechanism, e) for e in stops} <= warmed, mechanism
    assert point_epsilons("rr", "fashion-mnist") == demo_epsilons("rr")  # dense on digits only
