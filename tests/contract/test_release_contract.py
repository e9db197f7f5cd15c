"""What every mechanism's release actually received matches the epsilon its run reports.

A spy at each release boundary records the arguments the experiment handed to the release
function (the epsilon, noise scale or rho, the noise mode, how many labels); the epsilon those
arguments imply, by the mechanism's closed form, must be the run's ``epsilon_spent``. A bug in
the layer above the release (a budget doubled on its way down, a scale for the wrong
sensitivity, a forgotten noise mode) then turns this test red, even when the run's report is
consistent with itself. Every registered mechanism must have an entry: a new one cannot be
registered without being covered here.
"""

import dp_accounting
import numpy as np
import pytest
from dp_accounting import rdp
from release_spies import Call, only, spy

from labeldp_core.accounting import pate_epsilon, sequential_composition
from labeldp_core.accounting.zcdp import zcdp_to_approx_dp
from labeldp_core.data import load_dataset
from labeldp_core.engine import context as context_module
from labeldp_core.experiments import MECHANISMS, make_config, run
from labeldp_core.families.labeldp_pro import trainer as labeldp_pro_trainer
from labeldp_core.families.laplace_labels import alibi_experiment, label_prior, rr_bins_experiment
from labeldp_core.families.laplace_labels import experiment as laplace_experiment
from labeldp_core.families.laplace_labels import (
    regression_experiment as laplace_regression_experiment,
)
from labeldp_core.families.noisy_outputs import experiment as softmax_experiment
from labeldp_core.families.pate import experiment as pate_experiment
from labeldp_core.families.prototypes import experiment as dppl_experiment
from labeldp_core.families.randomized_response import experiment as rr_experiment
from labeldp_core.families.rr_prior import experiment as rr_prior_experiment
from labeldp_core.families.rr_prior import lp_2st as lp_2st_experiment
from labeldp_core.mechanisms import (
    ONE_HOT_SENSITIVITY,
    PROBABILITY_SENSITIVITY,
    alibi_posterior,
    rr_bins_epsilon,
)
from labeldp_core.noise.label_histogram import HISTOGRAM_SENSITIVITY
from labeldp_core.noise.noise_plans import (
    gaussian_plan,
    laplace_plan,
    laplace_plan_for_scale,
    rr_plan,
)
from labeldp_core.training import dpsgd as dpsgd_training
from labeldp_core.training import loop as training_loop

K = 10  # digits
N = 1437  # digits' training labels


def _mode(call: Call) -> str:
    return call.arguments.get("noise", "float")


def _after_priors(calls: list[Call], release: float) -> float:
    """The exact composition (rounded up) of the label histograms received and ``release``."""
    spent = []
    for call in only(calls, "noisy_label_counts"):
        assert call.arguments["labels"].size == N  # the histogram reads every label
        plan = laplace_plan(HISTOGRAM_SENSITIVITY, call.arguments["epsilon"], _mode(call))
        spent.append(plan.epsilon_spent)
    return sequential_composition([*spent, release])


def _rr(calls, result) -> float:
    (call,) = only(calls, "randomized_response")
    assert call.arguments["labels"].size == N and call.arguments["num_classes"] == K
    return rr_plan(call.arguments["epsilon"], K).epsilon_spent


def _rr_prior(calls, result) -> float:
    (call,) = only(calls, "rr_with_prior")
    assert call.arguments["labels"].size == N
    histograms = only(calls, "noisy_label_counts")
    settings = result.settings
    if settings["prior"] == "uniform":  # reads no label, so it costs nothing and gets nothing
        assert not histograms
    else:  # the prior's share of the budget is the one the settings ask for
        asked = settings["prior_epsilon"] or settings["prior_share"] * result.epsilon
        assert [h.arguments["epsilon"] for h in histograms] == [pytest.approx(asked)]
    return _after_priors(calls, rr_plan(call.arguments["epsilon"], K).epsilon_spent)


def _lp_2st(calls, result) -> float:
    (first,) = only(calls, "randomized_response")
    (second,) = only(calls, "rr_with_prior")
    # Parallel composition needs disjoint halves that together release every label once.
    assert first.arguments["labels"].size + second.arguments["labels"].size == N
    return max(
        rr_plan(first.arguments["epsilon"], K).epsilon_spent,
        rr_plan(second.arguments["epsilon"], K).epsilon_spent,
    )


def _laplace(calls, result) -> float:
    (call,) = only(calls, "laplace_one_hot")
    assert call.arguments["labels"].size == N and call.arguments["num_classes"] == K
    plan = laplace_plan(ONE_HOT_SENSITIVITY, call.arguments["epsilon"], _mode(call))
    return _after_priors(calls, plan.epsilon_spent)


def _laplace_regression(calls, result) -> float:
    (call,) = only(calls, "laplace_regression")
    low, high, values = (call.arguments[k] for k in ("low", "high", "values"))
    assert values.size == N and (low, high) == (0, K - 1)  # the sensitivity is the label range
    assert values.min() >= low and values.max() <= high
    return laplace_plan(high - low, call.arguments["epsilon"], _mode(call)).epsilon_spent


def _rr_bins(calls, result) -> float:
    (call,) = only(calls, "rr_on_bins")
    bins = call.arguments["bins"]
    assert call.arguments["values"].size == N
    return _after_priors(calls, rr_bins_epsilon(bins.num_bins, bins.epsilon))


def _softmax(calls, result) -> float:
    (call,) = only(calls, "laplace_outputs")
    assert np.allclose(call.arguments["probabilities"].sum(axis=1), 1.0)
    return laplace_plan(PROBABILITY_SENSITIVITY, call.arguments["epsilon"]).epsilon_spent


def _pate(calls, result) -> float:
    (call,) = only(calls, "noisy_argmax") + only(calls, "confident_gnmax")
    arguments = call.arguments
    mode = arguments["noise"]
    if call.name == "confident_gnmax":
        sigma, check = arguments["gaussian_sigma"], arguments["threshold_sigma"]
        kind = {
            "aggregator": "confident-gnmax",
            "threshold": arguments["threshold"],
            "threshold_sigma": gaussian_plan(check, mode).sigma,
        }
        noise = gaussian_plan(sigma, mode).sigma
    elif arguments["laplace_scale"] is not None:
        kind, noise = (
            {"aggregator": "lnmax"},
            laplace_plan_for_scale(arguments["laplace_scale"], mode).scale,
        )
    else:
        sigma = arguments["gaussian_sigma"]
        kind, noise = {"aggregator": "gnmax"}, gaussian_plan(sigma, mode).sigma
    return pate_epsilon(
        arguments["vote_counts"],
        result.delta,
        noise=noise,
        data_dependent=False,
        discrete=mode == "secure",
        **kind,
    )


def _dppl_mean(calls, result) -> float:
    (call,) = only(calls, "private_class_means")
    rho = call.returned.rho
    assert rho <= call.arguments["rho"]  # the parts never sum above what was handed down
    return zcdp_to_approx_dp(rho, result.delta)


def _dppl_public(calls, result) -> float:
    for utilities in only(calls, "class_utilities"):  # cached across epsilons once computed
        low, high = utilities.arguments["min_score"], utilities.arguments["max_score"]
        assert 0 <= low < high <= 2  # scores in [0, 1]: sensitivity 1
    (call,) = only(calls, "public_prototype_indices")
    return call.arguments["epsilon"]  # pure, parallel over classes


def _fake_dpsgd(
    x_train, y_train, x_test, y_test, num_classes, settings, privacy, seed, progress, noise
):
    from labeldp_core.accounting.dpsgd import sampling_schedule
    from labeldp_core.models import build_model

    rate, steps = sampling_schedule(x_train.shape[0], settings.batch_size, settings.epochs)
    model = build_model(settings.model, tuple(x_train.shape[1:]), num_classes).eval()
    return dpsgd_training.DPSGDOutcome(model, (0.5,), rate, steps, rate * x_train.shape[0], 0)


def _dpsgd(calls, result) -> float:
    (call,) = only(calls, "train_dpsgd_classifier")
    sigma = call.arguments["privacy"].noise_multiplier
    outcome = call.returned
    # dp_accounting's RDP accountant, independent of the project's adapter over Opacus.
    accountant = rdp.RdpAccountant()
    step = dp_accounting.PoissonSampledDpEvent(
        outcome.sample_rate, dp_accounting.GaussianDpEvent(sigma)
    )
    accountant.compose(step, outcome.steps)
    n = call.arguments["x_train"].shape[0]
    assert outcome.sample_rate == call.arguments["settings"].batch_size / n
    return pytest.approx(accountant.get_epsilon(result.delta), rel=1e-4)


def _fake_labeldp_pro(data, num_classes, settings, pro, seed, progress, noise):
    return _fake_dpsgd(*data, num_classes, settings, pro, seed, progress, noise)


def _labeldp_pro(calls, result) -> float:
    # DP-SGD's add/remove epsilon by dp_accounting's RDP, read for a label: twice it.
    (call,) = only(calls, "train_labeldp_pro")
    outcome = call.returned
    accountant = rdp.RdpAccountant()
    step = dp_accounting.PoissonSampledDpEvent(
        outcome.sample_rate, dp_accounting.GaussianDpEvent(call.arguments["pro"].noise_multiplier)
    )
    accountant.compose(step, outcome.steps)
    example_delta = result.details["example_level_delta"]
    return pytest.approx(2 * accountant.get_epsilon(example_delta), rel=1e-4)


#: Per mechanism: the release functions to spy on (module, name, stand-in or None) and the
#: epsilon that what they received implies.
RELEASES = {
    "rr": ([(rr_experiment, "randomized_response", None)], _rr),
    "rr-prior": (
        [
            (rr_prior_experiment, "noisy_label_counts", None),
            (rr_prior_experiment, "rr_with_prior", None),
        ],
        _rr_prior,
    ),
    "lp-2st": (
        [
            (lp_2st_experiment, "randomized_response", None),
            (lp_2st_experiment, "rr_with_prior", None),
        ],
        _lp_2st,
    ),
    "laplace": ([(laplace_experiment, "laplace_one_hot", None)], _laplace),
    "laplace-regression": (
        [(laplace_regression_experiment, "laplace_regression", None)],
        _laplace_regression,
    ),
    "rr-bins": (
        [(label_prior, "noisy_label_counts", None), (rr_bins_experiment, "rr_on_bins", None)],
        _rr_bins,
    ),
    "alibi": (
        [(label_prior, "noisy_label_counts", None), (alibi_experiment, "laplace_one_hot", None)],
        _laplace,
    ),
    "softmax-laplace": ([(softmax_experiment, "laplace_outputs", None)], _softmax),
    "pate": (
        [(pate_experiment, "noisy_argmax", None), (pate_experiment, "confident_gnmax", None)],
        _pate,
    ),
    "dpsgd": ([(dpsgd_training, "train_dpsgd_classifier", _fake_dpsgd)], _dpsgd),
    "labeldp-pro": (
        [(labeldp_pro_trainer, "train_labeldp_pro", _fake_labeldp_pro)],
        _labeldp_pro,
    ),
    "dppl-mean": ([(dppl_experiment, "private_class_means", None)], _dppl_mean),
    "dppl-public": (
        [
            (dppl_experiment, "class_utilities", None),
            (dppl_experiment, "public_prototype_indices", None),
        ],
        _dppl_public,
    ),
    "dppl-topk": (
        [
            (dppl_experiment, "class_utilities", None),
            (dppl_experiment, "public_prototype_indices", None),
        ],
        _dppl_public,
    ),
}

#: Settings that make each run exercise its whole release (histograms, every aggregator).
VARIANTS = {
    "rr-prior": [
        {},
        {"prior_epsilon": 0.3},
        {"prior": "uniform"},
        {"prior_features": "encoder", "model": "mlp"},
    ],
    "rr-bins": [{"prior": "histogram"}],
    "alibi": [{"prior": "histogram", "prior_share": 0.3}],
    "pate": [{"aggregator": a} for a in ("lnmax", "gnmax", "confident-gnmax")],
    "dppl-mean": [{"steps": 1}, {"steps": 3}],
}
SMALL = {"pate": {"teachers": 5, "queries": 40}, "rr-prior": {"clusters": 5}}
ENCODERS = ("dppl-mean", "dppl-public", "dppl-topk")


def test_every_registered_mechanism_has_its_release_spied_on():
    assert set(RELEASES) == set(MECHANISMS)


def _cases() -> list[tuple[str, dict, str]]:
    cases = []
    for mechanism in MECHANISMS:
        modes = ["float", "secure"] if "noise" in MECHANISMS[mechanism].settings else ["float"]
        for extra in VARIANTS.get(mechanism, [{}]):
            cases += [(mechanism, extra, mode) for mode in modes]
    return cases


@pytest.mark.parametrize(
    ("mechanism", "extra", "mode"), _cases(), ids=lambda v: str(v).replace(" ", "")
)
@pytest.mark.parametrize("epsilon", [0.7, 3.7])
def test_the_release_received_what_the_run_reports(
    fast_runs, monkeypatch, mechanism, extra, mode, epsilon
):
    calls: list[Call] = []
    spies, implied = RELEASES[mechanism]
    for module, name, fake in spies:
        spy(monkeypatch, module, name, calls, fake)
    settings = {"model": "mlp" if mechanism in ENCODERS else "logistic"}
    settings |= SMALL.get(mechanism, {}) | extra
    if mode == "secure":
        settings["noise"] = "secure"
    result = run(make_config(mechanism, "digits", epsilon, epochs=1, settings=settings), fast_runs)
    assert calls, f"no release function of {mechanism} was called"
    for call in calls:  # the noise mode asked for reached every release that takes one
        assert call.arguments.get("noise", mode) == mode, call.name
    assert result.epsilon_spent == implied(calls, result)
    assert result.epsilon_spent <= epsilon
    _check_reported_figures(mechanism, calls, result)


def _check_reported_figures(mechanism: str, calls: list[Call], result) -> None:
    """The run reports the trained model's score, its training-set size and, for a release of
    labels, the flip rate of exactly what was released (mutants that dropped them survived)."""
    score = result.test_accuracy if result.test_mse is None else result.test_mse
    assert score is not None and np.isfinite(score), result
    assert result.test_mse is not None or 0 <= result.test_accuracy <= 1
    assert isinstance(result.n_train, int) and 0 < result.n_train <= N
    if result.flip_rate is not None:  # a release of labels: its two shares of the truth add up
        assert 0 <= result.flip_rate <= 1
        assert result.flip_rate + result.label_accuracy == pytest.approx(1.0)
    if mechanism in ("rr", "rr-prior"):
        released = np.asarray(calls[-1].returned)  # rr-prior: after its histogram release
        flips = float(np.mean(released != load_dataset("digits").y_train))
        assert result.flip_rate == pytest.approx(flips)
        assert result.label_accuracy == pytest.approx(1 - flips)


def _targets_from_release(mechanism: str, calls: list[Call], result) -> list[np.ndarray]:
    """What each training of a run must have been given, computed from the release alone."""
    if mechanism in ("rr", "rr-prior", "laplace-regression", "rr-bins"):
        (release,) = calls
        return [np.asarray(release.returned)]
    if mechanism == "lp-2st":
        first, second = (np.asarray(c.returned) for c in calls)
        return [first, np.sort(np.concatenate([first, second]))]  # halves: compared as a multiset
    if mechanism == "laplace":
        return [np.asarray(calls[-1].returned).argmax(axis=1)]
    if mechanism == "alibi":
        plan = laplace_plan(ONE_HOT_SENSITIVITY, calls[-1].arguments["epsilon"])
        prior = np.asarray(result.details["prior"])
        noisy = np.asarray(calls[-1].returned)
        return [alibi_posterior(noisy, plan.epsilon_spent, prior, scale=plan.scale)]
    released = np.asarray(calls[-1].returned)  # pate: the answered queries' labels
    return [released[released >= 0]]


TRAINED_ON_RELEASE = {
    "rr": (rr_experiment, ["randomized_response"]),
    "rr-prior": (rr_prior_experiment, ["rr_with_prior"]),
    "lp-2st": (lp_2st_experiment, ["randomized_response", "rr_with_prior"]),
    "laplace": (laplace_experiment, ["laplace_one_hot"]),
    "alibi": (alibi_experiment, ["laplace_one_hot"]),
    "laplace-regression": (laplace_regression_experiment, ["laplace_regression"]),
    "rr-bins": (rr_bins_experiment, ["rr_on_bins"]),
    "pate": (pate_experiment, ["noisy_argmax"]),
}


@pytest.mark.parametrize("mechanism", list(TRAINED_ON_RELEASE))
def test_models_train_on_what_was_released_not_on_the_true_labels(
    fast_runs, monkeypatch, mechanism
):
    # The model is post-processing only if it sees nothing but the release: training on the
    # true labels (or on a mix) would release them through the model. The clean baseline, a
    # diagnostic, is the one training allowed to see them.
    module, names = TRAINED_ON_RELEASE[mechanism]
    calls: list[Call] = []
    for name in names:
        spy(monkeypatch, module, name, calls)
    trained = []
    fake = context_module.RunContext.train
    student = training_loop.train_classifier

    def recording(ctx, targets, **kwargs):
        if not kwargs.get("message", "").startswith("clean baseline"):
            trained.append(np.asarray(targets))
        return fake(ctx, targets, **kwargs)

    def recording_student(images, labels, *args, **kwargs):
        trained.append(np.asarray(labels))
        return student(images, labels, *args, **kwargs)

    monkeypatch.setattr(context_module.RunContext, "train", recording)
    monkeypatch.setattr(training_loop, "train_classifier", recording_student)
    settings = {"model": "logistic"}
    settings |= SMALL.get(mechanism, {}) | ({"aggregator": "lnmax"} if mechanism == "pate" else {})
    result = run(
        make_config(mechanism, "digits", 0.6, seed=4, epochs=1, settings=settings), fast_runs
    )
    expected = _targets_from_release(mechanism, calls, result)
    if mechanism == "lp-2st":
        trained = [trained[0], np.sort(trained[1])]
    if mechanism == "pate":
        trained = trained[:1]  # the student on the released labels; the second is the reference
        # student on the true labels, a diagnostic like the clean baseline
    assert len(trained) == len(expected)
    for got, want in zip(trained, expected, strict=True):
        np.testing.assert_allclose(got, want)
