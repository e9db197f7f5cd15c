"""Every chart on every page is projector-ready.

Each page's run at its defaults is the one tests/app/test_warm_coverage.py reads
(``default_views``: opened once for both, models trained as under ``instant_training``).
"""

import json

import pytest
from app_helpers import _decoded, assert_no_errors, page_files
from default_views import GROUP, default_view

from labeldp_core.plots_base.readable import TICK_FONT

pytestmark = pytest.mark.xdist_group(GROUP)


@pytest.mark.parametrize("page", page_files())
def test_every_chart_on_every_page_is_projector_ready(page, tmp_path):
    app = default_view(page, tmp_path / "cache").app
    assert_no_errors(app)
    for element in app.get("plotly_chart"):
        layout = _decoded(json.loads(element.proto.spec))["layout"]
        assert layout["legend"]["orientation"] == "h", (page, element.proto.id)
        for name, axis in layout.items():
            if name[1:5] == "axis" and axis.get("type") == "log":
                assert axis["ticktext"][axis["tickvals"].index(1.0)] == "1", (page, name)
                assert axis["tickfont"] == TICK_FONT
