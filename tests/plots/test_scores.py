"""Test score vs ε of any registered mechanisms, and DP-SGD beside label DP."""

from labeldp_core import plots
from labeldp_core.engine.spec import RunResult


def test_units_are_written_on_the_comparison_chart():
    result = RunResult.from_dict(
        {
            "mechanism": "dpsgd",
            "dataset": "digits",
            "seed": 0,
            "epsilon": 1.0,
            "epsilon_spent": 0.99,
            "delta": 1e-5,
            "privacy_unit": "example",
            "n_train": 10,
            "n_test": 10,
            "num_classes": 10,
            "elapsed_s": 0.0,
            "cached": False,
            "epochs": 1,
            "settings": {},
            "details": {},
            "test_accuracy": 0.5,
        }
    )
    figure = plots.accuracy_by_privacy_unit({"DP-SGD: ε per example": [result]}, 0.9)
    notes = " ".join(a.text for a in figure.layout.annotations)
    assert "add/remove" in notes and "replace-one" in notes and "Not directly comparable" in notes
