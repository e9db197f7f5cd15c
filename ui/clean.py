"""The clean model's line of a page's charts: the one definition, for the sidebar's choices."""

from collections.abc import Sequence

from labeldp_core.choosing.clean_reference import CleanLine, clean_line
from labeldp_core.experiments import RunResult
from ui.controls import Controls
from ui.results import result_cache

__all__ = ["page_clean_line"]


def page_clean_line(controls: Controls, runs: Sequence[RunResult]) -> CleanLine:
    """The clean line of the sidebar's dataset, model and epochs.

    That is :func:`~labeldp_core.choosing.clean_reference.clean_line`'s; ``runs`` are the page's
    runs drawn beside it: their own clean models stand in (and the caption's words say which
    seeds) until every demo seed's clean model is cached.
    """
    return clean_line(controls.dataset, controls.model, controls.epochs_asked, result_cache(), runs)
