"""The app reports a damaged stored result as not stored."""

import pytest

from labeldp_core.experiments import make_config
from labeldp_core.experiments.runner import result_key
from tests.test_cache_hardening import DAMAGED_RESULTS
from ui import results


@pytest.mark.parametrize("blob", DAMAGED_RESULTS, ids=lambda blob: repr(blob[:16]))
def test_the_app_reports_a_damaged_result_as_not_stored(blob):
    config = make_config("rr", "digits", 1.0, epochs=1)
    key = result_key(results.result_cache(), config)
    results.result_cache()._store.set(key, blob)
    assert results.stored(config) is None
    assert key not in results.result_cache()
