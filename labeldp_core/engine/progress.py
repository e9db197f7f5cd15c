"""Progress reporting: one callback type taking the finished fraction and a short message."""

from collections.abc import Callable

__all__ = ["Progress", "silent", "within"]

#: Called with the fraction done in [0, 1] and a short message for the user.
Progress = Callable[[float, str], None]


def silent(fraction: float, message: str) -> None:
    """A progress callback that reports nothing."""


def within(progress: Progress, start: float, end: float) -> Progress:
    """A callback for a sub-task that maps its own 0..1 onto ``start..end`` of ``progress``."""

    def report(fraction: float, message: str) -> None:
        progress(start + (end - start) * min(max(fraction, 0.0), 1.0), message)

    return report
