"""How long a point takes: measured compute times kept per setting, for estimates before a run.

Every computed point records its ``elapsed_s`` under its config without epsilon and seed (the same
mechanism, dataset, epochs and settings take about as long at any epsilon). A page reads the
estimate before offering to compute a missing point: "about 20 s" on the button, or no click at
all when the point takes under two seconds.
"""

import statistics
from collections.abc import Sequence

from labeldp_core.cache import ResultCache
from labeldp_core.data.results_store import results_store
from labeldp_core.engine.spec import RunConfig

__all__ = [
    "QUICK_S",
    "estimate_seconds",
    "median_seconds",
    "record_seconds",
    "spoken_duration",
    "timing_key",
]

#: Up to this estimate a page computes a missing point without asking.
QUICK_S = 2.0
#: The most recent measurements kept per setting (their median is the estimate).
_KEPT = 9


def timing_key(cache: ResultCache, config: RunConfig) -> str:
    """The key under which the seconds of points like ``config`` (any epsilon and seed) are kept."""
    fields = config.to_dict()
    fields.pop("epsilon")
    fields.pop("seed")
    return cache.key("timing", fields, by=__name__)


def record_seconds(cache: ResultCache, config: RunConfig, seconds: float) -> None:
    """Remember that computing ``config`` took ``seconds`` (kept with the last few)."""
    key = timing_key(cache, config)
    past = (cache.get_json(key) or {}).get("seconds", [])
    cache.put_json(key, {"seconds": [*past, round(float(seconds), 3)][-_KEPT:]})


def estimate_seconds(cache: ResultCache, configs: Sequence[RunConfig]) -> float | None:
    """Seconds to compute every config in ``configs``, from the measurements of their settings.

    None if one of them has a setting never computed here (the estimate would be a guess).
    """
    total = 0.0
    for config in configs:
        seconds = median_seconds(results_store(cache, config.dataset), config)
        if seconds is None:
            return None
        total += seconds
    return total


def median_seconds(store: ResultCache, config: RunConfig) -> float | None:
    """The median of the seconds recorded for points like ``config`` in ``store``, or None.

    ``store`` keeps ``config``'s dataset, as :func:`record_seconds` was handed it.
    """
    found = store.get_json(timing_key(store, config))  # the same key in every store
    if not found or not found.get("seconds"):
        return None
    return statistics.median(found["seconds"])


def spoken_duration(seconds: float | None) -> str:
    """An estimate as a person says it: 'under a second', 'about 20 s', 'about 3 min'.

    >>> spoken_duration(0.4), spoken_duration(19.6), spoken_duration(185), spoken_duration(None)
    ('under a second', 'about 20 s', 'about 3 min', 'time unknown: not all have run here yet')
    """
    if seconds is None:
        return "time unknown: not all have run here yet"
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {seconds:.2g} s" if seconds < 10 else f"about {round(seconds, -1):.0f} s"
    return f"about {round(seconds / 60):.0f} min"
