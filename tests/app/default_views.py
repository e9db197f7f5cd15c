"""Each page of the navigation opened at its defaults, once per process, for the tours that read it.

``tests/app/test_warm_coverage.py`` checks which results a page opened with no link asks for;
``tests/app/test_readable_pages.py`` checks every chart it draws. Both opened every page the
same way (no link, an empty cache of its own, models trained by ``instant_training``), each run
about a second of CPU and the DP-SGD page's several. One run per page now serves both: it is
made as either test made it, with what it asked for recorded beside it. The modules that read
these runs (those two, ``test_app.py``'s sidebar and glossary checks, the papers page's tests on
an empty cache) share an xdist group, so one worker runs them all and opens each page once.
"""

from dataclasses import dataclass
from pathlib import Path

import pytest
from app_helpers import opened_once
from streamlit.testing.v1 import AppTest

from labeldp_core.experiments import RunConfig
from labeldp_core.experiments.road import Road
from tests.conftest import instant_models
from ui import audit as audit_ui
from ui import results

__all__ = ["GROUP", "DefaultView", "default_view"]

#: The xdist group of the modules that read these runs.
GROUP = "default-views"


@dataclass(frozen=True)
class DefaultView:
    """A page's run at its defaults and every result it asked for.

    Attributes:
        app: the run, read only (no widget of it is moved).
        asked: the configs whose stored result the page read (``results.stored``) or whose
            point it planned to compute (``Road.plan``; a look that computes nothing, as the
            slider's stops, is not counted), in the order asked.
        audits: the release audits it read or computed (``ui.audit.stored_audit_case``'s
            arguments), in the order asked.
    """

    app: AppTest
    asked: tuple[RunConfig, ...]
    audits: tuple[tuple, ...]


_VIEWS: dict[str, DefaultView] = {}


def default_view(page: str, directory: Path) -> DefaultView:
    """``page`` opened with no link on an empty cache in ``directory``, the first time it is asked.

    Later asks in this process get the same run. Its models train as under
    ``instant_training``.
    """
    if page not in _VIEWS:
        _VIEWS[page] = _opened(page, directory)
    return _VIEWS[page]


def _opened(page: str, directory: Path) -> DefaultView:
    asked: list[RunConfig] = []
    audits: list[tuple] = []
    original, planned, audit_case = results.stored, Road.plan, audit_ui.stored_audit_case

    def spy(config):
        asked.append(config)
        return original(config)

    def plan(road, config, computes=True):  # the page's own point (result_for)
        if computes:  # not a look that computes nothing (the slider's stops: Road.stored)
            asked.append(config)
        return planned(road, config, computes)

    def audit(*point):
        audits.append(point)
        return audit_case(*point)

    with pytest.MonkeyPatch.context() as patch:
        instant_models(patch)
        patch.setattr(results, "stored", spy)
        patch.setattr(Road, "plan", plan)
        patch.setattr(audit_ui, "stored_audit_case", audit)
        app = opened_once(directory, page)
    return DefaultView(app, tuple(asked), tuple(audits))
