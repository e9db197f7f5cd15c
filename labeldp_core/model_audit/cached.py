"""The model audit as far as the cache holds it: read, never trained (read-only servers).

A classroom server (``LABELDP_READ_ONLY=1``) and the price-of-privacy screen show a trained
model's audit only if its three canary trainings were computed before; asking for one must
never start a training. :func:`cached_audit` runs :func:`~.audit.audit_model` against a view of
the cache that answers what it holds and refuses to compute.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from labeldp_core.cache import ResultCache
from labeldp_core.model_audit.audit import audit_model
from labeldp_core.model_audit.result import ModelAudit

__all__ = ["cached_audit"]


class _NotCachedError(Exception):
    """A canary training the cache does not hold (raised instead of training it)."""


class _CacheOnly:
    """A result cache that answers what it holds and computes nothing: a miss raises."""

    def __init__(self, cache: ResultCache) -> None:
        self._cache = cache

    def json_or_compute(
        self,
        kind: str,
        payload: Mapping[str, Any],
        compute: Any,
        *,
        required: Sequence[str],
        by: str | None = None,
    ) -> dict[str, Any]:
        """The stored JSON for ``(kind, payload)`` (computed by ``by``); never computed here."""
        found = self._cache.get_json(self._cache.key(kind, payload, by))
        if found is None or not found.keys() >= set(required):
            raise _NotCachedError(kind)
        return found


def cached_audit(
    mechanism: str, dataset: str, epsilon: float, *, cache: ResultCache, **options: Any
) -> ModelAudit | None:
    """:func:`~.audit.audit_model`'s answer if all its trainings are cached, else None.

    ``options`` are audit_model's (``canaries``, ``seed``, ``epochs``, ``settings``). Bad input
    raises as there; nothing is ever trained.
    """
    view: Any = _CacheOnly(cache)  # the one method of a ResultCache that audits call
    try:
        return audit_model(mechanism, dataset, epsilon, cache=view, **options)
    except _NotCachedError:
        return None
