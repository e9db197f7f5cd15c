"""The threat-model card: declared by each family, derived into every run's JSON."""

import json

import pytest

from labeldp_core.experiments import make_config, run
from labeldp_core.families.threat import EXAMPLE_DP, LABEL_DP, OUTPUT_DP
from labeldp_core.registry import mechanism_entries, registered, threat_card

#: Digits' default rate 4e-3 was picked on its labels, and a card using it says so (issue 52):
#: these runs set the common rate, to read the family's card alone.
UNTUNED = {"learning_rate": 2e-3}

UNIT_CARDS = {"label": LABEL_DP, "example": EXAMPLE_DP, "output": OUTPUT_DP}


def test_every_mechanism_has_its_units_card_or_a_narrower_one_of_it():
    for entry in mechanism_entries():
        standard = UNIT_CARDS[entry.spec.privacy_unit]
        assert entry.threat.protects == standard.protects, entry.id
        assert set(standard.not_protected) <= set(entry.threat.not_protected), entry.id
        assert set(standard.narrower) <= set(entry.threat.narrower), entry.id


@pytest.mark.parametrize("mechanism", ["dpsgd", "dppl-mean", "dppl-public", "dppl-topk"])
def test_the_imbalanced_subsample_narrows_the_example_level_guarantees(mechanism):
    (entry,) = [m for m in mechanism_entries() if m.id == mechanism]
    assert any("imbalance" in scope for scope in entry.threat.narrower)


def test_the_noise_mode_says_whether_the_seed_undoes_the_protection():
    float_card = LABEL_DP.card("float")
    secure_card = LABEL_DP.card("secure")
    assert "teaching run" in float_card["adversary"] and "os.urandom" in secure_card["adversary"]
    assert "teaching run" not in secure_card["adversary"]
    assert LABEL_DP.card()["adversary"] == LABEL_DP.adversary + "."


def test_a_runs_card_follows_its_noise_setting():
    float_card = threat_card(make_config("rr", "digits", 1.0, 0, 1, UNTUNED | {"noise": "float"}))
    secure_card = threat_card(make_config("rr", "digits", 1.0, 0, 1, UNTUNED | {"noise": "secure"}))
    assert float_card == LABEL_DP.card("float") and secure_card == LABEL_DP.card("secure")


def test_the_run_json_carries_the_card_of_the_families_declaration(cache):
    config = make_config("rr", "digits", 1.0, 0, 1, UNTUNED | {"model": "logistic"})
    computed = run(config, cache)
    again = run(config, cache)
    assert computed.to_dict()["threat_model"] == LABEL_DP.card("float")
    assert again.cached and again.threat_model == computed.threat_model


def test_a_family_that_declares_no_card_gets_its_units(toy_family):
    with registered(toy_family):
        card = threat_card(make_config("toy-coin", "digits", 1.0, 0, 1, UNTUNED))
    assert card == LABEL_DP.card("float", 0.0, "seeded")  # its noise is a seeded sampler


def _run_json(cache, mechanism: str, **settings) -> dict:
    """The JSON a run returns, as the command line prints it."""
    config = make_config(mechanism, "digits", 1.0, 0, 1, {"model": "logistic"} | settings)
    return json.loads(json.dumps(run(config, cache).to_dict()))


def test_a_run_with_delta_says_its_delta_where_it_says_the_factor(fast_runs):
    # Issue 49, item 6: LabelDP-Pro (delta > 0) read "at most a factor e^ε" with no delta.
    for mechanism in ("labeldp-pro", "pate"):
        data = _run_json(fast_runs, mechanism)
        assert data["delta"] > 0
        assert f"plus δ = {data['delta']:.3g}" in data["threat_model"]["protects"], mechanism
    pure = _run_json(fast_runs, "rr")
    assert pure["delta"] == 0 and "δ" not in pure["threat_model"]["protects"]
    assert "at most a factor e^ε" in pure["threat_model"]["protects"]


@pytest.mark.parametrize("mechanism", ["rr", "vector-rr", "labeldp-pro", "dpsgd"])
def test_a_secure_card_says_what_os_urandom_does_as_the_details_do(fast_runs, mechanism):
    # os.urandom draws RR's coins itself, but only seeds DP-SGD's and LabelDP-Pro's generators:
    # the card says which, as details.random_draws does, never "every random bit" for a seed.
    data = _run_json(fast_runs, mechanism, noise="secure")
    adversary = data["threat_model"]["adversary"]
    sources = " ".join(data["details"]["random_draws"].values())
    if "seeds a fresh" in sources:
        assert "os.urandom seeds the generators" in adversary
        assert "every random bit" not in adversary and "floating point" in adversary
    else:
        assert "comes from os.urandom" in adversary
