"""What a cache holds for this code: per family, the entries it can read and the stale ones.

An entry's key names the code that computed it (:mod:`labeldp_core.cache.fingerprint`); after an
edit, the entries of the code that changed are *stale*: never read again, they only take space. The
statistics count, per family, the entries this checkout reads and the stale ones
(``cache stats``); :func:`prune_stale` removes the stale ones and nothing else (``cache prune
--stale``). Entries without a readable identity (stored under a bare key) are counted apart and
kept: nothing says which code made them.
"""

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from labeldp_core.cache.fingerprint import unit_family, unit_of_code
from labeldp_core.cache.store import (
    CorruptEntryError,
    ResultCache,
    identity_fields,
    is_stored_by_this_code,
)

__all__ = ["CacheStats", "cache_stats", "prune_stale"]

#: Where the entries of shared code (a clean baseline, a timing) are counted.
SHARED = "shared"


@dataclass
class CacheStats:
    """Counts of a cache's entries: readable and stale by family, and those without an identity.

    Attributes:
        readable: entries this checkout reads, by family (or ``shared``).
        stale: entries computed by other code, by family (or ``shared``).
        unidentified: entries whose identity is missing or unreadable.
    """

    readable: Counter = field(default_factory=Counter)
    stale: Counter = field(default_factory=Counter)
    unidentified: int = 0

    def lines(self, families: list[str]) -> list[str]:
        """A table of ``families`` (then ``shared``) with both counts, and a total line."""
        rows = [*families, *sorted((set(self.readable) | set(self.stale)) - set(families))]
        width = max(len(name) for name in [*rows, "family"])
        table = [f"{'family':<{width}}  readable  stale"]
        table += [f"{n:<{width}}  {self.readable[n]:>8}  {self.stale[n]:>5}" for n in rows]
        readable, stale = sum(self.readable.values()), sum(self.stale.values())
        total = f"in all: {readable} readable by this code, {stale} stale"
        if stale:
            total += " (`cache prune --stale` removes them)"
        if self.unidentified:
            total += f"; {self.unidentified} without an identity, kept"
        return [*table, total]


def _family(fields: dict[str, Any]) -> str:
    """The family whose code an entry's identity names (``shared`` for shared code)."""
    unit = unit_of_code(fields["code"])
    if unit is not None:
        return unit_family(unit)
    # A key of code before the per-family fingerprints: its payload's mechanism, if any.
    from labeldp_core.registry import family_of

    payload = fields["payload"]
    try:
        return family_of(str(payload.get("mechanism"))).id if isinstance(payload, dict) else SHARED
    except KeyError:
        return SHARED


def _classified(cache: ResultCache) -> tuple[CacheStats, list[str]]:
    """The statistics of ``cache`` and the keys of its stale entries."""
    stats, stale = CacheStats(), []
    for key, identity in cache.identities():
        try:
            fields = identity_fields(key, identity)
        except CorruptEntryError:
            stats.unidentified += 1
            continue
        if is_stored_by_this_code(fields):
            stats.readable[_family(fields)] += 1
        else:
            stats.stale[_family(fields)] += 1
            stale.append(key)
    return stats, stale


def cache_stats(cache: ResultCache) -> CacheStats:
    """Per family, how many of ``cache``'s entries this code reads and how many are stale."""
    return _classified(cache)[0]


def prune_stale(cache: ResultCache) -> int:
    """Remove the stale entries of ``cache`` (nothing else); how many were removed."""
    stale = _classified(cache)[1]
    for key in stale:
        cache.discard(key)
    return len(stale)
