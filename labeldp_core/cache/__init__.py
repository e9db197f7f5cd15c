"""The result cache: where results are kept (:mod:`.store`) and the keys they are kept under.

A key names what was computed and the code that computed it (:mod:`.fingerprint`, reading each
module as :mod:`.module_text` writes it). This package computes no entry, so no key names its
code: moving or editing it keeps every stored result (see :mod:`.fingerprint`). What moves or
counts entries one by one (``cache export``, ``cache stats``) reads their checks from the store.
"""

from labeldp_core.cache.store import (
    ALL_CODE,
    CacheKey,
    CorruptEntryError,
    ResultCache,
    code_fingerprint,
    default_dir,
)

__all__ = [
    "ALL_CODE",
    "CacheKey",
    "CorruptEntryError",
    "ResultCache",
    "code_fingerprint",
    "default_dir",
]
