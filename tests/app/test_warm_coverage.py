"""`warm` fills exactly what the pages show first, first: every result a page reads when it opens
with its default controls is among a warm's pages' points, and each on the first demo seed among
the first points it computes (its first views: every line of every page), so after a half of
one no page waits for a line; the other seeds (the bands) follow the slider's stops. (The slider
only checks which of its stops are cached, `results.is_stored`: a stop not cached yet is no stop,
nothing waits for it.)

Each page's run at its defaults is the one tests/app/test_readable_pages.py reads
(``default_views``: opened once for both, with what it asked for recorded).
"""

import functools

import pytest
from app_helpers import assert_no_errors, page_files
from default_views import GROUP, default_view

from labeldp_core.experiments.demo import DEMO_SEEDS
from labeldp_core.services.release_audits import app_audit_points
from labeldp_core.services.warm import PAGES, warm_tasks

pytestmark = pytest.mark.xdist_group(GROUP)

#: Pages whose first view needs no stored run result at all (the papers page looks its rows up
#: through `reproduce`, whose runs `warm` adds: tests/services/test_reproduce.py; "Your data" adds
#: tables; "Choose ε" reads every mechanism's whole demo grid with `lookup`, never computing:
#: tests/choosing/; so does the price of privacy, class stops too:
#: tests/services/test_price_of_privacy.py).
NO_RESULTS = {
    "pages/laplace_noise.py",
    "pages/audit.py",
    "pages/papers.py",
    "pages/your_data.py",
    "pages/choose_epsilon.py",
    "pages/play.py",
    "pages/price_of_privacy.py",
}


@functools.cache
def _planned() -> tuple[frozenset, frozenset]:
    """What warm computes first on digits, and its pages' points: planned once per process."""
    tasks = [task for task in warm_tasks("digits") if task.config is not None]
    pages = frozenset(task.config for task in tasks if task.phase == PAGES)
    return frozenset(task.config for task in tasks if task.first_view), pages


@pytest.mark.parametrize("page", page_files())
def test_a_page_opened_with_defaults_only_asks_for_demo_points(page, tmp_path):
    view = default_view(page, tmp_path / "cache")
    assert_no_errors(view.app)
    first, pages = _planned()
    outside = {(c.mechanism, c.epsilon, c.seed, c.settings) for c in view.asked if c not in pages}
    assert not outside, outside
    late = {
        (c.mechanism, c.epsilon, c.settings)
        for c in view.asked
        if c.seed == DEMO_SEEDS[0] and c not in first
    }
    assert not late, f"lines drawn after the first views: {late}"
    assert view.asked or page in NO_RESULTS


def test_the_audit_page_opened_with_defaults_only_asks_for_warmed_audits(tmp_path):
    view = default_view("pages/audit.py", tmp_path / "cache")
    assert_no_errors(view.app)
    assert view.audits and set(view.audits) <= set(app_audit_points())
