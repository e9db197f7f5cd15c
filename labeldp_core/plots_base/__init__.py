"""The base every figure is drawn with: layout, readable type, colours, end labels.

Below the families: a family's figures (``labeldp_core/families/<family>/plots.py``) and the
figures that compose every family (:mod:`labeldp_core.plots`) are drawn with these helpers.
"""
