"""The result cache: where results are kept (:mod:`.store`) and the keys they are kept under.

A key names what was computed and the code that computed it (:mod:`.fingerprint`, reading each
module as :mod:`.module_text` writes it). This package computes no entry, so no key names its
code: moving or editing it keeps every stored result (see :mod:`.fingerprint`).
"""

from labeldp_core.cache.store import (
    ALL_CODE,
    KEY_PATTERN,
    MAX_VALUE_BYTES,
    CacheKey,
    CorruptEntryError,
    DataOnlyDisk,
    ResultCache,
    check_entry,
    code_fingerprint,
    default_dir,
    identity_fields,
    identity_of,
    is_stored_by_this_code,
)

__all__ = [
    "ALL_CODE",
    "KEY_PATTERN",
    "MAX_VALUE_BYTES",
    "CacheKey",
    "CorruptEntryError",
    "DataOnlyDisk",
    "ResultCache",
    "check_entry",
    "code_fingerprint",
    "default_dir",
    "identity_fields",
    "identity_of",
    "is_stored_by_this_code",
]
