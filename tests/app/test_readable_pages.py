"""Every chart on every page is projector-ready."""

import json

import pytest
from app_helpers import _decoded, assert_no_errors, open_page, page_files

from labeldp_core.plots_base.readable import TICK_FONT


@pytest.mark.usefixtures("instant_training")
@pytest.mark.parametrize("page", page_files())
def test_every_chart_on_every_page_is_projector_ready(page):
    app = open_page(page)
    assert_no_errors(app)
    for element in app.get("plotly_chart"):
        layout = _decoded(json.loads(element.proto.spec))["layout"]
        assert layout["legend"]["orientation"] == "h", (page, element.proto.id)
        for name, axis in layout.items():
            if name[1:5] == "axis" and axis.get("type") == "log":
                assert axis["ticktext"][axis["tickvals"].index(1.0)] == "1", (page, name)
                assert axis["tickfont"] == TICK_FONT
