"""A claim whose 2x control the audit's guesses cannot expect to catch is refused (issue 54).

Laplace with ``post=argmax`` trains on the noisy vectors' argmax, which is K-ary randomized
response at a smaller ε than the vectors' (labeldp_core/families/laplace_labels/audit_ceiling.py):
at twice a claim of 1 it spends 1.14, and 500 guesses right as often as that allows prove about
0.97. On Fashion-MNIST the audit trained three models and said "no verdict: the 2x budget control
was not caught" (its 2x control proved 0.26); it now says why before training anything.
"""

import json

import numpy as np
import pytest

from labeldp_core.__main__ import main
from labeldp_core.cache import ResultCache
from labeldp_core.families.laplace_labels.release import laplace_one_hot, post_process
from labeldp_core.model_audit import UntestableClaimError, audit_model, draw_canaries, training_run
from labeldp_core.model_audit.ceiling import expected_bound
from labeldp_core.model_audit.estimate import score_guesses
from labeldp_core.model_audit.guesses import guess
from tests.model_audit.stand_in import stored

ARGS = ["audit", "laplace", "--model", "--dataset", "fashion-mnist", "--epsilon", "1"]


def test_laplace_argmax_says_its_2x_control_cannot_be_caught_and_trains_nothing(
    capsys, monkeypatch
):
    monkeypatch.setattr(training_run, "_train", lambda *args: pytest.fail("trained"))
    assert main([*ARGS, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["trained"] is False and report["guesses"] == 500
    assert report["most_provable"]["2x budget"] == pytest.approx(1.1374, abs=1e-3)
    assert report["expected_provable"] == pytest.approx(0.966, abs=1e-3)
    assert report["verdict"].startswith("this audit cannot test this claim: the model learns")
    assert "500 guesses right as often as that allows prove about 0.966" in report["verdict"]
    assert main(ARGS) == 0
    assert capsys.readouterr().out.strip().endswith(report["verdict"])


def test_more_canaries_can_catch_it_so_the_audit_then_trains(monkeypatch, tmp_path):
    # 30,000 canaries: 15,000 guesses at 75.7% would prove about 1.11, above the claim of 1.
    monkeypatch.setattr(training_run, "_train", lambda _, drawn, *rest: stored(drawn, 7_500))
    audit = audit_model(
        "laplace", "fashion-mnist", 1.0, canaries=30_000, cache=ResultCache(tmp_path)
    )
    assert audit.canaries == 30_000


def test_soft_targets_keep_more_than_the_argmax_so_nothing_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(training_run, "_train", lambda _, drawn, *rest: stored(drawn, 260))
    audit = audit_model(
        "laplace", "fashion-mnist", 1.0, settings={"post": "soft"}, cache=ResultCache(tmp_path)
    )
    assert audit.audited.trials == 500


def test_a_model_that_memorises_the_released_argmax_proves_no_more_than_expected():
    # The audit's own guesses on the released labels themselves (the best any model can do),
    # over 40 seeded draws of 1,000 canaries at ε = 2, guessing on the 340 or so whose argmax is
    # one of the two candidates (the best share for this release: the others are ties).
    labels = np.random.default_rng(5).integers(0, 10, 60_000)
    bounds = []
    for seed in range(40):
        canaries = draw_canaries(labels, 10, 1000, seed)
        noisy = laplace_one_hot(canaries.planted, 2.0, 10, np.random.default_rng([seed, 54]))
        released = np.eye(10)[post_process(noisy, "argmax")]
        made = guess(released, canaries.planted, canaries.decoy, 0.34)
        bounds.append(score_guesses(made.correct, made.made).epsilon_lower_bound)
    # Its median stays below what 340 guesses at the ceiling's accuracy expect, and far below 1.
    assert np.median(bounds) <= expected_bound(1.1374, 340) < 1.0


def test_the_ceiling_refuses_only_what_its_guesses_cannot_expect_to_catch(monkeypatch, tmp_path):
    monkeypatch.setattr(training_run, "_train", lambda *args: pytest.fail("trained"))
    with pytest.raises(UntestableClaimError, match=r"prove about 3\.44, not above the 4"):
        audit_model("laplace", "fashion-mnist", 4.0, cache=ResultCache(tmp_path))
    assert expected_bound(0.0, 500) == 0.0
    assert expected_bound(2.0, 500) > 1.7
