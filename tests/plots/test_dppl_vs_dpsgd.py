"""The DP prototypes' accuracy figures, with DP-SGD (another family) beside them."""

from fake_results import fake_result

from labeldp_core import plots
from labeldp_core.registry import MECHANISM_COLOURS


def _result(mechanism, epsilon, spent, imbalance, accuracy):
    return fake_result(
        mechanism=mechanism,
        epsilon=epsilon,
        epsilon_spent=spent,
        privacy_unit="example",
        num_classes=2,
        settings={"imbalance": imbalance},
        test_accuracy=accuracy,
        details={
            "minority_accuracy": accuracy / 2,
            "per_class_accuracy": [accuracy, 0.0],
            "class_counts": [8, 2],
            "minority_classes": [1],
        },
    )


def test_accuracy_curves_group_by_mechanism_and_imbalance_and_can_use_epsilon_spent():
    results = [
        _result("dppl-mean", 0.1, 0.48, 1.0, 0.5),
        _result("dppl-mean", 1.0, 5.3, 1.0, 0.7),
        _result("dppl-public", 0.1, 0.1, 1.0, 0.4),
        _result("dppl-public", 0.1, 0.1, 10.0, 0.3),
    ]
    figure = plots.dppl_accuracy_curves(results, dpsgd={"DP-SGD": [(1.0, 0.2)]})
    assert [len(t.x) for t in figure.data] == [2, 1, 1, 1]
    assert list(figure.data[0].x) == [0.1, 1.0] and list(figure.data[0].y) == [0.5, 0.7]
    spent = plots.dppl_accuracy_curves(results, spent=True, minority=True)
    assert list(spent.data[0].x) == [0.48, 5.3] and list(spent.data[0].y) == [0.25, 0.35]
    per_class = plots.per_class_accuracy_curves(results[:2], ["a", "b"])
    assert [t.name for t in per_class.data] == ["a (n=8)", "★ b (n=2)"]


def test_each_mechanism_is_drawn_in_its_familys_colour_dp_sgd_beside_the_prototypes():
    results = [_result("dppl-mean", 1.0, 1.0, 1.0, 0.5), _result("dppl-topk", 1.0, 1.0, 1.0, 0.6)]
    curves = plots.dppl_accuracy_curves(results, dpsgd={"DP-SGD": [(1.0, 0.2)]})
    assert [t.line.color for t in curves.data] == [
        MECHANISM_COLOURS["dppl-mean"],
        MECHANISM_COLOURS["dppl-topk"],
        MECHANISM_COLOURS["dpsgd"],
    ]
    bars = plots.per_class_accuracy_bars([0.9, 0.1], [0.9, 0.5], [8, 2], ["a", "b"], [1], [0.8, 0])
    assert bars.data[-1].marker.color == MECHANISM_COLOURS["dpsgd"]
    minority = plots.per_class_accuracy_curves(results[:1], ["a", "b"], dpsgd_minority=[(1.0, 0)])
    assert minority.data[-1].line.color == MECHANISM_COLOURS["dpsgd"]
