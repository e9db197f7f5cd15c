"""Where a chart's texts land when Plotly draws it in a real browser (Debian's Chromium).

Draws figures with the plotly.js that the plotly package ships (the major version Streamlit's
bundle uses) in a page of a given size, and returns the bounding box of each text: the title,
the axis titles, the tick labels, the legend and the annotations (subplot titles, notes).
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

#: Each text of a drawn chart: (kind, text, [left, top, right, bottom]) in px of the page.
_BOXES = """
async ([figure, width, height]) => {
  const div = document.getElementById('chart');
  div.style.width = width + 'px';
  div.style.height = height + 'px';
  Plotly.purge(div);
  await Plotly.newPlot(div, figure.data, figure.layout, {responsive: false});
  const kinds = {
    title: '.g-gtitle text',
    axis_title: 'g[class^="g-x"][class$="title"] text, g[class^="g-y"][class$="title"] text',
    tick: 'g[class^="x"][class$="tick"] text, g[class^="y"][class$="tick"] text',
    legend: '.legend .legendtext',
    annotation: '.annotation-text-g',
  };
  const seen = new Set();
  const boxes = [];
  for (const [kind, selector] of Object.entries(kinds)) {
    for (const node of div.querySelectorAll(selector)) {
      if (seen.has(node) || !node.textContent.trim()) continue;
      seen.add(node);
      const r = node.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      boxes.push([kind, node.textContent, [r.left, r.top, r.right, r.bottom]]);
    }
  }
  const legend = div.querySelector('.legend');
  if (legend) {
    const r = legend.getBoundingClientRect();
    if (r.width > 0) boxes.push(['legend_box', '', [r.left, r.top, r.right, r.bottom]]);
  }
  const frame = div.getBoundingClientRect();
  return {boxes, frame: [frame.left, frame.top, frame.right, frame.bottom]};
}
"""


class Text(NamedTuple):
    """One drawn text and its box (left, top, right, bottom) in px."""

    kind: str
    text: str
    box: tuple[float, float, float, float]


class Drawn(NamedTuple):
    """A drawn chart: its texts and the frame it was drawn in."""

    texts: list[Text]
    frame: tuple[float, float, float, float]

    def overlaps(self, slack: float = 1.0) -> list[tuple[Text, Text]]:
        """Pairs of texts whose boxes overlap by more than ``slack`` px each way.

        Tick labels are not compared with each other (an axis spaces its own), nor a legend
        entry with the legend's box.
        """
        found = []
        for i, a in enumerate(self.texts):
            for b in self.texts[i + 1 :]:
                if a.kind == b.kind == "tick" or {a.kind, b.kind} == {"legend", "legend_box"}:
                    continue
                if a.kind == "legend_box" and b.kind == "legend_box":
                    continue
                if _overlap(a.box, b.box) > slack:
                    found.append((a, b))
        return found

    def outside(self, slack: float = 1.0) -> list[Text]:
        """Texts cut by the chart's frame (drawn partly outside it)."""
        left, top, right, bottom = self.frame
        return [
            t
            for t in self.texts
            if t.box[0] < left - slack
            or t.box[1] < top - slack
            or t.box[2] > right + slack
            or t.box[3] > bottom + slack
        ]

    def of(self, kind: str, text: str | None = None) -> list[Text]:
        return [t for t in self.texts if t.kind == kind and (text is None or text in t.text)]


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The smaller of the horizontal and vertical overlaps of two boxes, in px (<= 0: none)."""
    return min(min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1]))


@contextmanager
def chart_drawer(tmp: Path, browser: Any) -> Iterator[Any]:
    """A function ``draw(figure, width, height) -> Drawn`` backed by one page of ``browser``."""
    (tmp / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
    page_file = tmp / "chart.html"
    page_file.write_text(
        '<html><head><meta charset="utf-8"><script src="plotly.min.js"></script></head>'
        '<body style="margin:0"><div id="chart"></div></body></html>',
        encoding="utf-8",
    )
    page = browser.new_page(viewport={"width": 1400, "height": 1400})
    page.goto(page_file.as_uri())

    def draw(figure: go.Figure, width: int = 820, height: int | None = None) -> Drawn:
        spec = json.loads(figure.to_json())
        tall = height or spec["layout"].get("height") or 450
        found = page.evaluate(_BOXES, [spec, width, tall])
        texts = [Text(kind, text, tuple(box)) for kind, text, box in found["boxes"]]
        return Drawn(texts, tuple(found["frame"]))

    try:
        yield draw
    finally:
        page.close()
