"""The persistent result store: diskcache underneath, JSON or ``.npz`` bytes on disk, never pickle.

diskcache pickles values by default, and unpickling runs code, so a writable cache folder would be
a code-execution hole (CVE-2025-69872). :class:`DataOnlyDisk` stores and returns bytes only and
refuses any pickled row it finds. Keys are sha256 digests of canonical JSON of what was computed,
the package version and the fingerprint of the code that computes that entry (its family's and the
shared code it imports: :mod:`labeldp_core.cache.fingerprint`), so a code change never serves a
stale number and leaves the entries it cannot change readable. Every entry keeps that JSON text beside
it (its *identity*, in diskcache's ``tag`` column), so an entry moved elsewhere says what it is
and its key can be recomputed from it (:func:`identity_of`). An entry that cannot be read is
dropped and recomputed.
"""

import hashlib
import io
import json
import math
import os
import re
import sqlite3
import time
import warnings
import zipfile
import zlib
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any, NoReturn

import diskcache
import numpy as np

from labeldp_core import __version__
from labeldp_core.base.threads import thread_key_fields
from labeldp_core.cache.fingerprint import (
    EVERY_FAMILY,
    joined,
    unit_code,
    unit_fingerprint,
    unit_of_code,
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

_JSON_TAG = b"J"
_NPZ_TAG = b"N"
#: Every key :meth:`ResultCache.key` makes: a sha256 digest in hex.
KEY_PATTERN = re.compile(r"[0-9a-f]{64}")
#: The two kinds of entry, by the tag their bytes start with.
_ENTRY_TYPES = {_JSON_TAG: "json", _NPZ_TAG: "arrays"}
#: The project's folder, which holds the package (``labeldp_core/cache/store.py``) and ``cache/``.
_PROJECT_DIR = Path(__file__).resolve().parents[2]
#: All the code whose entries a cache holds (every family's, the audits'): a Dask worker and its
#: client, or an archive and the cache it is imported into, must run the same.
ALL_CODE = joined(EVERY_FAMILY, "labeldp_core.services.release_audits", "labeldp_core.model_audit.training_run")


class CorruptEntryError(Exception):
    """A cache row that is not one of our data-only encodings."""


class DataOnlyDisk(diskcache.Disk):
    """A diskcache ``Disk`` that keeps ``str`` keys and ``bytes`` values and never unpickles."""

    def put(self, key: Any) -> tuple[Any, bool]:
        """Store ``str`` keys raw; anything else would be pickled, so it is refused.

        A :class:`CacheKey` is stored as the plain text it is (diskcache pickles any key whose
        type is not exactly ``str``).
        """
        if not isinstance(key, str):
            raise TypeError(f"cache keys must be str, got {type(key).__name__}")
        return super().put(str(key))

    def get(self, key: Any, raw: bool) -> Any:
        """Return a stored key; a key that was pickled is never loaded."""
        if not raw:
            raise CorruptEntryError("pickled cache key refused")
        return super().get(key, raw)

    def store(self, value: Any, read: bool, key: Any = diskcache.core.UNKNOWN) -> Any:
        """Store ``bytes`` only (small in SQLite, large in a file)."""
        if not isinstance(value, bytes) or read:
            raise TypeError(f"cache values must be bytes, got {type(value).__name__}")
        return super().store(value, read, key=key)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        """Return stored bytes; a pickled row, or a file not the cache's own, is refused."""
        if mode not in (diskcache.core.MODE_RAW, diskcache.core.MODE_BINARY):
            raise CorruptEntryError(f"cache row of mode {mode} refused (only bytes are allowed)")
        if filename is not None:
            path = self._own_file(filename)
            if path is None or path.stat().st_size > MAX_VALUE_BYTES:
                raise CorruptEntryError(
                    f"cache row names a file that is not a value of its own: {filename!r}"
                )
        return super().fetch(mode, filename, value, read)

    def remove(self, file_path: str) -> None:
        """Delete a value file, only if it is one of the cache's own (a row may lie)."""
        if self._own_file(file_path) is not None:
            super().remove(file_path)

    def _own_file(self, filename: str) -> Path | None:
        """The value file ``filename`` names if the cache could have written it, else None.

        That is a regular file (not a link) inside the cache folder, at the two-level path
        diskcache gives its value files.
        """
        root = Path(self._directory).resolve()
        path = root / filename
        if not _VALUE_FILE.fullmatch(filename) or path.is_symlink() or not path.is_file():
            return None
        return path if path.resolve().parent.parent.parent == root else None


#: diskcache's value files: two levels of two hex digits, then a hex name with a .val suffix.
_VALUE_FILE = re.compile(r"[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{28}\.val")
#: The largest value file read back (the biggest arrays stored are well under it).
MAX_VALUE_BYTES = 2**30


def default_dir() -> Path:
    """``$LABELDP_CACHE_DIR`` if set, else the project's ``cache/`` folder."""
    configured = os.environ.get("LABELDP_CACHE_DIR")
    return Path(configured) if configured else _PROJECT_DIR / "cache"


def code_fingerprint() -> str:
    """The fingerprint of :data:`ALL_CODE`: equal in two processes that compute alike."""
    return unit_fingerprint(ALL_CODE)


def _canonical(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)


class CacheKey(str):
    """A key :meth:`ResultCache.key` made: the sha256 hex digest of ``identity``, which it keeps.

    ``identity`` is the canonical JSON ``{"kind", "payload", "version", "code"}`` the key hashes;
    the put methods store it beside the value.
    """

    identity: str

    def __new__(cls, identity: str) -> "CacheKey":
        """The key of ``identity``: its sha256 digest in hex."""
        key = super().__new__(cls, hashlib.sha256(identity.encode()).hexdigest())
        key.identity = identity
        return key

    def __reduce__(self) -> tuple[type, tuple[str]]:
        # Copies and pickles rebuild the key from its identity (str's own way would hash the
        # digest again).
        return CacheKey, (self.identity,)


#: The longest identity read (a key's payload is a config: well under a kilobyte).
MAX_IDENTITY_CHARS = 64 * 2**10
_IDENTITY_FIELDS = {"kind", "payload", "version", "code"}


def identity_of(key: str, identity: object) -> dict[str, Any]:
    """What the entry under ``key`` is: its ``identity`` read, once checked to be the key's.

    Returns:
        ``{"kind", "payload", "version", "code"}``: the text ``identity`` holds, which this
        code's :meth:`ResultCache.key` hashes to ``key`` (so the entry can only be read by code
        asking for that kind and payload).

    Raises:
        CorruptEntryError: if ``identity`` is missing, does not hash to ``key``, is not a key's
            identity, or names other code than this checkout's for its entry.
    """
    fields = identity_fields(key, identity)
    if not is_stored_by_this_code(fields):
        raise CorruptEntryError(
            f"its identity names other code (labeldp {fields['version']}, code "
            f"{fields['code']}), whose keys are never read here"
        )
    return fields


def identity_fields(key: str, identity: object) -> dict[str, Any]:
    """``identity`` read, once checked to be the text ``key`` hashes (whatever code wrote it).

    Raises:
        CorruptEntryError: if ``identity`` is missing, does not hash to ``key`` or is not a
            key's identity.
    """
    if identity is None:
        raise CorruptEntryError("it has no identity (the kind and payload its key hashes)")
    if (
        not isinstance(identity, str)
        or len(identity) > MAX_IDENTITY_CHARS
        or not identity.isascii()
        or hashlib.sha256(identity.encode()).hexdigest() != key
    ):
        raise CorruptEntryError("its identity does not hash to its key")
    try:
        fields = json.loads(identity, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        fields = None
    if (
        not isinstance(fields, dict)
        or fields.keys() != _IDENTITY_FIELDS
        or not isinstance(fields["kind"], str)
    ):
        raise CorruptEntryError("its identity is not a cache key's")
    return fields


def is_stored_by_this_code(fields: Mapping[str, Any]) -> bool:
    """Whether an identity's version and code are this checkout's for its unit (else: stale)."""
    code = fields["code"]
    if fields["version"] != __version__:
        return False
    unit = unit_of_code(code)
    try:
        return unit is not None and unit_code(unit) == code
    except ValueError:  # a unit naming code this checkout does not have
        return False


def _encode_json(value: Mapping[str, Any]) -> bytes:
    return _JSON_TAG + json.dumps(value, allow_nan=False).encode()


def _encode_arrays(arrays: Mapping[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return _NPZ_TAG + buffer.getvalue()


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"non-finite number {name} (values are stored with allow_nan=False)")


def _decode_json(body: bytes) -> dict[str, Any]:
    value = json.loads(body, parse_constant=_refuse_constant)
    if not isinstance(value, dict):
        raise CorruptEntryError(f"cache value is a JSON {type(value).__name__}, not an object")
    return value


def _check_archive_size(body: bytes) -> None:
    """Refuse an archive whose members would unpack (or whose arrays claim) over the cap.

    Read before any array is: a zip bomb or an ``.npy`` header claiming terabytes would
    otherwise exhaust the memory of the page that reads it.
    """
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        members = archive.infolist()
        if sum(info.file_size for info in members) > MAX_VALUE_BYTES:
            raise CorruptEntryError("cache archive unpacks to more than the size cap")
        for info in members:
            with archive.open(info) as member:
                major, _ = np.lib.format.read_magic(member)
                read = (
                    np.lib.format.read_array_header_1_0
                    if major == 1
                    else (np.lib.format.read_array_header_2_0)
                )
                shape, _, dtype = read(member)
            if math.prod(shape) * dtype.itemsize > MAX_VALUE_BYTES:
                raise CorruptEntryError(f"cache array {info.filename!r} claims shape {shape}")


def _decode_arrays(body: bytes) -> dict[str, np.ndarray]:
    _check_archive_size(body)
    loaded = np.load(io.BytesIO(body), allow_pickle=False)
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise CorruptEntryError(f"cache value is a {type(loaded).__name__}, not an .npz archive")
    with loaded as archive:
        arrays = {name: archive[name] for name in archive.files}
    if not all(isinstance(array, np.ndarray) for array in arrays.values()):
        raise CorruptEntryError("cache value holds a member that is not an array")
    return arrays


#: What reading damaged bytes can raise: bad JSON, text or array headers (ValueError), a truncated
#: or foreign file (EOFError, OSError), a broken archive (zipfile, zlib, an unknown compression
#: method), absurdly nested JSON, NumPy's own TypeError/KeyError on malformed members, and
#: MemoryError from a value that claims more than it holds.
_DAMAGE = (
    ValueError,
    TypeError,
    KeyError,
    EOFError,
    OSError,
    RecursionError,
    NotImplementedError,
    MemoryError,
    zipfile.BadZipFile,
    zlib.error,
)


def check_entry(key: str, kind: str, body: bytes) -> bytes:
    """The tag of a well-formed entry: ``key`` a sha256 digest, ``body`` decoding as ``kind``.

    Raises:
        CorruptEntryError: if ``key`` is not a sha256 digest, ``kind`` is unknown or ``body``
            does not decode as that kind (no pickle, sizes capped).
    """
    tag = {name: tag for tag, name in _ENTRY_TYPES.items()}.get(kind)
    if tag is None or not KEY_PATTERN.fullmatch(str(key)):
        raise CorruptEntryError(f"not a cache entry: key {str(key)[:70]!r}, kind {kind!r}")
    _decode(tag + body, tag)
    return tag


def _decode(blob: bytes, tag: bytes) -> dict[str, Any]:
    """The JSON object or the named arrays in ``blob``; CorruptEntryError for anything else."""
    if blob[:1] != tag:
        raise CorruptEntryError(f"cache value tagged {blob[:1]!r}, expected {tag!r}")
    body = blob[1:]
    try:
        return _decode_json(body) if tag == _JSON_TAG else _decode_arrays(body)
    except _DAMAGE as exc:
        raise CorruptEntryError(f"unreadable cache value: {type(exc).__name__}: {exc}") from exc


class ResultCache:
    """Results and artefacts on disk, shared safely between processes (SQLite underneath).

    Args:
        directory: where to keep the cache; :func:`default_dir` if omitted. Created owner-only
            if it does not exist; an existing folder's permissions are left as they are.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_dir()
        try:  # only a folder made here is made owner-only; an existing (shared?) one keeps its mode
            self.directory.mkdir(parents=True)
        except FileExistsError:
            pass
        else:
            self.directory.chmod(0o700)
        try:
            self._store = self._open()
        except sqlite3.DatabaseError:
            # A damaged database file is set aside (not deleted: it may be worth a look) and the
            # cache starts empty; every result is recomputed on demand.
            database = self.directory / diskcache.core.DBNAME
            database.replace(database.with_name(f"{database.name}.corrupt-{time.time_ns()}"))
            warnings.warn(
                f"cache database {database} was unreadable; set aside, starting empty", stacklevel=2
            )
            self._store = self._open()

    def _open(self) -> diskcache.Cache:
        # Every setting is given here, none read from the database's Settings table: a cache
        # folder from elsewhere could set anything there (an unknown eviction policy broke
        # every page).
        settings = diskcache.DEFAULT_SETTINGS | {"size_limit": 2**34}
        return diskcache.Cache(str(self.directory), disk=DataOnlyDisk, **settings)

    def key(self, kind: str, payload: Mapping[str, Any], by: str | None = None) -> CacheKey:
        """The sha256 key of ``payload`` of a given ``kind`` under this code version.

        It keeps the text it hashes (``.identity``), which the put methods store with the value.
        A thread count other than 1 is added to the payload (see
        :mod:`labeldp_core.base.threads`).

        Args:
            kind: what the entry is (``result``, ``baseline``, ...).
            payload: what it was computed from.
            by: the unit of code that computes it (:mod:`labeldp_core.cache.fingerprint`): the name
                of the module that computes it (its ``__name__``), a family's unit, or units
                joined. By default every family, for a payload that names no mechanism.

        Raises:
            ValueError: if ``payload`` names a mechanism and ``by`` is left out: its unit is its
                family's, which the registry above keeps (a run result's key is
                :func:`labeldp_core.experiments.runner.result_key`), so the caller names it.
        """
        if by is None:
            if "mechanism" in payload:
                raise ValueError(
                    "name the code unit of an entry of a mechanism (by=...): its family's is "
                    "labeldp_core.registry.result_unit(mechanism)"
                )
            by = EVERY_FAMILY
        return self.key_under(kind, payload, by)

    def key_under(self, kind: str, payload: Mapping[str, Any], unit: str) -> CacheKey:
        """:meth:`key` with the unit of code handed down by the caller, who knows it.

        The runner names a result's family's unit, which the registry keeps, so a key on the
        road to a stored result looks nothing up.
        """
        fields = {"kind": kind, "payload": {**payload, **thread_key_fields()}}
        return CacheKey(_canonical(fields | {"version": __version__, "code": unit_code(unit)}))

    def _get(self, key: str, tag: bytes) -> Any:
        try:
            blob = self._store.get(key)
            return None if blob is None else _decode(blob, tag)
        except (CorruptEntryError, OSError, sqlite3.DatabaseError):
            self.discard(key)
            return None

    def discard(self, key: str) -> None:
        """Drop the entry under ``key`` (if any), so the next request recomputes it."""
        self._store.delete(key)

    def get_json(self, key: str) -> dict[str, Any] | None:
        """The JSON object stored under ``key``, or None if absent or unreadable."""
        return self._get(key, _JSON_TAG)

    def get_arrays(self, key: str) -> dict[str, np.ndarray] | None:
        """The arrays stored under ``key``, or None if absent or unreadable."""
        return self._get(key, _NPZ_TAG)

    def put_json(self, key: str, value: Mapping[str, Any]) -> None:
        """Store a JSON object (finite numbers only), with the key's identity if it has one."""
        self._store.set(key, _encode_json(value), tag=getattr(key, "identity", None))

    def put_arrays(self, key: str, arrays: Mapping[str, np.ndarray]) -> None:
        """Store named arrays as a compressed ``.npz`` (no object arrays), as :meth:`put_json`."""
        self._store.set(key, _encode_arrays(arrays), tag=getattr(key, "identity", None))

    def _or_compute(
        self,
        kind: str,
        payload: Mapping[str, Any],
        compute: Callable[[], dict[str, Any]],
        required: Collection[str],
        get: Callable[[str], dict[str, Any] | None],
        put: Callable[[str, dict[str, Any]], None],
        by: str | None = None,
    ) -> dict[str, Any]:
        key = self.key(kind, payload, by)
        found = get(key)
        if found is None or not found.keys() >= set(required):
            found = compute()
            put(key, found)
        return found

    def json_or_compute(
        self,
        kind: str,
        payload: Mapping[str, Any],
        compute: Callable[[], dict[str, Any]],
        *,
        required: Collection[str],
        by: str | None = None,
    ) -> dict[str, Any]:
        """Return the stored JSON for ``(kind, payload)`` or compute, store and return it.

        A stored object without every key in ``required`` (the keys the caller reads) counts as
        damaged: it is recomputed and replaced rather than failing the caller with a KeyError.
        ``by`` names the code that computes it, as for :meth:`key`.
        """
        get, put = self.get_json, self.put_json
        return self._or_compute(kind, payload, compute, required, get, put, by)

    def arrays_or_compute(
        self,
        kind: str,
        payload: Mapping[str, Any],
        compute: Callable[[], dict[str, np.ndarray]],
        *,
        required: Collection[str],
        by: str | None = None,
    ) -> dict[str, np.ndarray]:
        """Return the stored arrays for ``(kind, payload)`` or compute, store and return them.

        Stored arrays without every name in ``required`` are recomputed, as for JSON.
        """
        get, put = self.get_arrays, self.put_arrays
        return self._or_compute(kind, payload, compute, required, get, put, by)

    def identities(self) -> list[tuple[str, str | None]]:
        """``(key, identity)`` of every entry, its value left unread (None: no identity).

        Read from diskcache's table itself: its public calls read every value too.
        """
        rows = self._store._sql("SELECT key, tag FROM Cache WHERE raw = 1").fetchall()
        return [(k, t if isinstance(t, str) else None) for k, t in rows if isinstance(k, str)]

    def stored_keys(self) -> list[str]:
        """Every key stored, of any kind."""
        return [key for key in self._store.iterkeys() if isinstance(key, str)]

    def entry(self, key: str) -> tuple[str, bytes, str | None] | None:
        """``(type, bytes, identity)`` of the entry under ``key``, checked readable.

        ``type`` is ``"json"`` (bytes: the object's text) or ``"arrays"`` (``.npz`` bytes);
        ``identity`` is the text its key hashes, None if it was stored under a bare ``str`` (it
        is not checked here: see :func:`identity_of`). None if absent or damaged (a damaged entry
        is dropped, as on every read).
        """
        try:
            blob, identity = self._store.get(key, tag=True)
            if blob is None:
                return None
            _decode(blob, blob[:1] if blob[:1] in _ENTRY_TYPES else _JSON_TAG)
        except (CorruptEntryError, OSError, sqlite3.DatabaseError):
            self.discard(key)
            return None
        return _ENTRY_TYPES[blob[:1]], blob[1:], identity if isinstance(identity, str) else None

    def put_entry(self, key: str, kind: str, body: bytes, identity: str) -> None:
        """Store ``body`` (a JSON object's text, or ``.npz`` bytes) and its ``identity``, checked.

        ``body`` must read back, and ``identity`` be the text ``key`` hashes under this code.

        Raises:
            CorruptEntryError: as :func:`check_entry` and :func:`identity_of`.
        """
        identity_of(key, identity)
        self._store.set(key, check_entry(key, kind, body) + body, tag=identity)

    def __contains__(self, key: str) -> bool:
        return key in self._store

    def __len__(self) -> int:
        return len(self._store)

    def close(self) -> None:
        """Close the database connection of this process."""
        self._store.close()
