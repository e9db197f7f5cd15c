"""The height of a line of text on a chart, as a multiple of its font size.

Every helper that keeps room for text (titles and notes, end labels, stacked panels, bars laid
across, the names beside the audit's marks) measures a line by this one figure, so they agree.
"""

__all__ = ["LINE_HEIGHT"]

#: Plotly's distance between two lines of text, as a multiple of the font size.
LINE_HEIGHT = 1.3
