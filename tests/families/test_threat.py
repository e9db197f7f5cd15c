"""The threat-model card: declared by each family, derived into every run's JSON."""

import pytest

from labeldp_core.experiments import make_config, run
from labeldp_core.families.threat import EXAMPLE_DP, LABEL_DP, OUTPUT_DP
from labeldp_core.registry import mechanism_entries, registered, threat_card

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
    float_card = threat_card(make_config("rr", "digits", 1.0, 0, 1, {"noise": "float"}))
    secure_card = threat_card(make_config("rr", "digits", 1.0, 0, 1, {"noise": "secure"}))
    assert float_card == LABEL_DP.card("float") and secure_card == LABEL_DP.card("secure")


def test_the_run_json_carries_the_card_of_the_families_declaration(cache):
    config = make_config("rr", "digits", 1.0, 0, 1, {"model": "logistic"})
    computed = run(config, cache)
    again = run(config, cache)
    assert computed.to_dict()["threat_model"] == LABEL_DP.card("float")
    assert again.cached and again.threat_model == computed.threat_model


def test_a_family_that_declares_no_card_gets_its_units(toy_family):
    with registered(toy_family):
        card = threat_card(make_config("toy-coin", "digits", 1.0, 0, 1))
    assert card == LABEL_DP.card()
