"""Moving a warmed cache between machines: ``cache export`` and ``cache import``.

The workflow a teacher uses is "warm the day before, on another machine". Copying the cache
folder would hand the server a database anybody could have edited (a row naming any file, any
settings), so a cache travels as an archive of data instead: a zip holding ``manifest.json``
(format, package version, code fingerprint, one line per entry with its key, type and
*identity*: the kind and payload its key hashes) and one member per entry, ``<key>.json`` or
``<key>.npz``. Only the kinds in :data:`TRAVELS` travel: what is displayed (run results, clean
baselines, timings, the clean PATE student's score, rr-prior's k* per example). What a mechanism
reads while releasing, whose label-independence or disjointness the privacy proof assumes, and
audit verdicts (:data:`STAYS`) never do: they are recomputed where they are used.

Import trusts none of it: sizes are checked before reading; every key is recomputed from its
identity (sha256 of the identity, of this code's version), so an entry cannot say it is one
kind while sitting under another kind's key; an entry computed by other code than this
checkout's for its unit (an archive made before an upgrade) is left out and counted as stale,
so an upgrade that changed one family still brings every other family's points; the kind must
be one that travels, stored as that kind is; every entry must decode as JSON or pickle-free
arrays holding what its readers read; and a run result must pass the result schema and sit
under the very key its own config hashes to, so a file cannot put one point's numbers under
another's name. Entries that fail are counted and
named, never stored. Nothing proves an entry that travels *true*: a result, a baseline or a
timing is taken as the claim of the machine that computed it (none is read by a release).
"""

import io
import json
import math
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from labeldp_core import __version__
from labeldp_core.cache.fingerprint import unit_of_code
from labeldp_core.cache.store import (
    KEY_PATTERN,
    MAX_VALUE_BYTES,
    CorruptEntryError,
    ResultCache,
    check_entry,
    code_fingerprint,
    identity_fields,
    identity_of,
    is_stored_by_this_code,
)
from labeldp_core.errors import InvalidInputError, LabelDPError

__all__ = [
    "ARCHIVE_FORMAT",
    "STAYS",
    "TRAVELS",
    "TransferReport",
    "checked_kind",
    "export_cache",
    "import_cache",
    "result_problem",
]

#: The manifest's ``format``: what this module writes and reads (1 had no identities).
ARCHIVE_FORMAT = "labeldp-cache/2"
#: The kinds that travel: each one's type, and the fields (or arrays) its readers read (JSON
#: fields: a finite number, or a list of them if named in _LISTS).
TRAVELS: dict[str, tuple[str, tuple[str, ...]]] = {
    "result": ("json", ()),  # checked by result_problem
    "baseline": ("json", ("score", "curve")),
    "pate-student-clean": ("json", ("score",)),
    "timing": ("json", ("seconds",)),
    "rr-prior-set-sizes": ("arrays", ("set_sizes", "examples")),
}
_LISTS = frozenset({"curve", "seconds"})
_RECOMPUTED = "never imported, recomputed where it is used"
#: The kinds that never travel, and why.
STAYS = {
    "image-clusters": f"{_RECOMPUTED}: rr-prior's privacy proof assumes the clusters read no label",
    "patch-features": f"{_RECOMPUTED}: rr-prior's privacy proof assumes its patch features "
    "read no label",
    "labeldp-pro-patch-inputs": f"{_RECOMPUTED}: LabelDP-Pro's privacy proof assumes its "
    "patch features read no label",
    "dppl-embeddings": f"{_RECOMPUTED}: the privacy proofs assume the encoder saw the public "
    "part only, and the split is what they cover",
    "dppl-utilities": f"{_RECOMPUTED}: the exponential mechanism's proof assumes utilities "
    "computed from the private set itself, and exact utilities are not private",
    "pate-votes": f"{_RECOMPUTED}: PATE's proof assumes votes of teachers on disjoint parts, "
    "and raw votes are not private",
    "clean-softmax": f"{_RECOMPUTED}: softmax-laplace releases these outputs (plus noise), and "
    "clean outputs are not private",
    "audit": "never imported, an audit verdict is computed where it is shown (`make warm` on "
    "this machine computes the audit page's cases in seconds)",
    "model-audit-canaries": "never imported, a canary audit's guesses are computed where they "
    "are shown: each is a training on labels with canaries planted (audit --model)",
}
#: The most entries an archive may list (a warmed Fashion-MNIST cache holds a few thousand).
MAX_ENTRIES = 200_000
#: The most bytes an archive may unpack to in all.
MAX_TOTAL_BYTES = 16 * 2**30
_MANIFEST = "manifest.json"
_MAX_MANIFEST_BYTES = 64 * 2**20
_SUFFIX = {"json": ".json", "arrays": ".npz"}
#: The most refused entries the command line names one by one.
_NAMED = 20


@dataclass
class TransferReport:
    """What an export or import did.

    ``moved`` entries written or stored; ``refused`` entries named with the reason (unreadable,
    or failing a check); ``left_out`` (export) the entries that do not travel, counted by kind;
    ``stale`` (import) the entries computed by other code than this checkout's for their unit,
    which this code would never read.
    """

    moved: int = 0
    refused: list[str] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)
    stale: int = 0

    def summary(self, verb: str) -> str:
        """A line for the command line, then one line per refused entry (the first few)."""
        text = f"{verb} {self.moved:,} entries"
        if self.left_out:
            counts = ", ".join(f"{kind} {count:,}" for kind, count in sorted(self.left_out.items()))
            text += (
                f"; left out {sum(self.left_out.values()):,} ({counts}): they do not "
                "travel, and are recomputed where they are used"
            )
        if self.stale:
            text += (
                f"; left out {self.stale:,} computed by other code (stale here: this code "
                "would never read them, and recomputes them where they are used)"
            )
        if self.refused:
            text += f"; refused {len(self.refused):,}:"
            text += "".join(f"\n  {line}" for line in self.refused[:_NAMED])
            if len(self.refused) > _NAMED:
                text += f"\n  and {len(self.refused) - _NAMED:,} more"
        return text


def export_cache(cache: ResultCache, path: str | Path) -> TransferReport:
    """Write every readable entry of ``cache`` of a kind that travels to the archive ``path``.

    The archive is replaced if present. Entries of a kind that does not travel, and entries
    without an identity of this code (stored under a bare key, or by other code), are left out
    and counted.
    """
    report, lines = TransferReport(), []
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_STORED) as archive:
        for key in cache.stored_keys():
            found = cache.entry(key)
            if found is None:
                report.refused.append(f"{key[:12]}: unreadable, left out")
                continue
            kind, body, identity = found
            try:
                what = identity_of(key, identity)["kind"]
            except CorruptEntryError:
                what = "without an identity"
            if what not in TRAVELS:
                report.left_out[what] = report.left_out.get(what, 0) + 1
                continue
            archive.writestr(key + _SUFFIX[kind], body)
            lines.append({"key": key, "type": kind, "bytes": len(body), "identity": identity})
            report.moved += 1
        manifest = {
            "format": ARCHIVE_FORMAT,
            "version": __version__,
            "code": code_fingerprint(),
            "entries": lines,
        }
        archive.writestr(_MANIFEST, json.dumps(manifest))
    partial.replace(target)
    return report


def import_cache(cache: ResultCache, path: str | Path) -> TransferReport:
    """Store every valid entry of the archive ``path`` in ``cache``; refuse the rest by name.

    An archive made by other code (before an upgrade, or after) is read entry by entry: what
    this checkout computes alike is stored, the rest counted as stale.

    Raises:
        InvalidInputError: if ``path`` is not an archive of this format, or is over the caps.
    """
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise InvalidInputError(
            f"{path} is not a cache archive ({exc}); make one with "
            "`python -m labeldp_core cache export FILE`"
        ) from None
    with archive:
        lines = _manifest_entries(archive, path)
        report = TransferReport()
        for line in lines:
            try:
                reason = _import_one(cache, archive, line)
            except _StaleEntryError:
                report.stale += 1
                continue
            if reason:
                report.refused.append(f"{str(line.get('key'))[:12]}{reason}")
            else:
                report.moved += 1
    return report


def _manifest_entries(archive: zipfile.ZipFile, path: str | Path) -> list[dict]:
    """The manifest's entry lines, after checking its format and sizes."""
    members = {info.filename: info for info in archive.infolist()}
    info = members.get(_MANIFEST)
    if info is None or info.file_size > _MAX_MANIFEST_BYTES:
        raise InvalidInputError(f"{path} has no readable {_MANIFEST}: not a cache archive")
    try:
        manifest = json.loads(archive.read(info))
    except (ValueError, RecursionError, zipfile.BadZipFile) as exc:
        raise InvalidInputError(f"{path}'s {_MANIFEST} is not JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != ARCHIVE_FORMAT:
        raise InvalidInputError(
            f"{path} is not a {ARCHIVE_FORMAT} archive; make one with "
            "`python -m labeldp_core cache export FILE`"
        )
    lines = manifest.get("entries")
    if not isinstance(lines, list) or len(lines) > MAX_ENTRIES:
        raise InvalidInputError(f"{path} lists no entries, or more than {MAX_ENTRIES:,}")
    if sum(info.file_size for info in members.values()) > MAX_TOTAL_BYTES:
        raise InvalidInputError(f"{path} unpacks to more than {MAX_TOTAL_BYTES / 2**30:g} GiB")
    return [line if isinstance(line, dict) else {} for line in lines]


def _import_one(cache: ResultCache, archive: zipfile.ZipFile, line: dict) -> str:
    """Store one entry; why it was refused (": reason", or " (kind): reason"), or "" if stored.

    Raises:
        _StaleEntryError: if the entry's identity is well formed but names other code for its
            unit than this checkout's.
    """
    key, kind, identity = line.get("key"), line.get("type"), line.get("identity")
    if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key) or kind not in _SUFFIX:
        return ": not a key and type this code writes"
    try:
        what = identity_of(key, identity)["kind"]
    except CorruptEntryError as exc:
        if _computed_by_other_code(key, identity):
            raise _StaleEntryError(key) from None
        return f": {exc}"
    reason = _travel_problem(what, kind)
    if reason:
        return f" ({what}): {reason}"
    try:
        info = archive.getinfo(key + _SUFFIX[kind])
    except KeyError:
        return f" ({what}): listed but not in the archive"
    if info.file_size > MAX_VALUE_BYTES:
        return f" ({what}): over {MAX_VALUE_BYTES:,} bytes"
    try:
        body = archive.read(info)
        checked_kind(cache, key, kind, body, identity)
        cache.put_entry(key, kind, body, identity)
    except _RefusedError as exc:
        return f" ({what}): {exc}"
    except (CorruptEntryError, ValueError, RecursionError, zipfile.BadZipFile, OSError) as exc:
        return f" ({what}): unreadable ({type(exc).__name__})"
    return ""


def _computed_by_other_code(key: str, identity: object) -> bool:
    """Whether a refused identity is stale here rather than malformed.

    True when it hashes to ``key`` and names a unit's code, only not this checkout's.
    """
    try:
        fields = identity_fields(key, identity)
    except CorruptEntryError:
        return False
    return not is_stored_by_this_code(fields) and unit_of_code(fields["code"]) is not None


def _travel_problem(kind: str, type_: str) -> str:
    """Why an entry of ``kind`` stored as ``type_`` may not travel ("" if it may)."""
    if kind in STAYS:
        return STAYS[kind]
    if kind not in TRAVELS:
        return "not a kind that travels"
    expected = TRAVELS[kind][0]
    if expected != type_:
        return f"stored as {type_}, a {kind} is {'JSON' if expected == 'json' else expected}"
    return ""


class _StaleEntryError(Exception):
    """An entry computed by other code for its unit: never read here, so left out, not refused."""


class _RefusedError(CorruptEntryError):
    """An entry that reads but does not hold what its kind holds."""


def checked_kind(cache: ResultCache, key: str, kind: str, body: bytes, identity: object) -> str:
    """The kind of the entry ``(key, kind, body, identity)``, checked as far as data can be.

    ``identity`` must be the text ``key`` hashes, of this code (:func:`identity_of`); ``body``
    must decode as ``kind`` (``"json"`` or ``"arrays"``, no pickle, sizes capped); a ``result``
    must be a run result that passes :func:`result_problem`; an entry of a kind in
    :data:`TRAVELS` must hold the fields (or arrays) its readers read, JSON fields as finite
    numbers or lists of them. The kinds not listed there are not looked into: nothing but
    recomputing them could prove them (:data:`STAYS`).

    Raises:
        CorruptEntryError: naming the problem (a ``ValueError`` or ``RecursionError`` for JSON
            that does not parse).
    """
    what = identity_of(key, identity)["kind"]
    check_entry(key, kind, body)
    if what not in TRAVELS or TRAVELS[what][0] != kind:
        return what
    needed = TRAVELS[what][1]
    if kind == "arrays":
        with np.load(io.BytesIO(body), allow_pickle=False) as arrays:
            missing = [name for name in needed if name not in arrays.files]
        if missing:
            raise _RefusedError(f"it holds no {missing[0]}")
        return what
    value = json.loads(body)
    if what == "result":
        if not all(name in value for name in _RESULT_MARKERS):
            raise _RefusedError(f"not a valid result: it has no {' or '.join(_RESULT_MARKERS)}")
        problem = result_problem(cache, key, value)
        if problem:
            raise _RefusedError(problem)
    for name in needed:
        found, many = value.get(name), name in _LISTS
        if not (isinstance(found, list) if many else _finite(found)) or (
            many and not all(_finite(item) for item in found)
        ):
            raise _RefusedError(f"its {name} is not {'a list of numbers' if many else 'a number'}")
    return what


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


#: Fields only a run result has: a JSON entry with them is checked as one.
_RESULT_MARKERS = ("mechanism", "epsilon_spent")


def result_problem(cache: ResultCache, key: str, value: object) -> str:
    """Why a run result may not sit under ``key`` ("" if it may, or if it is no result)."""
    if not isinstance(value, dict) or not all(name in value for name in _RESULT_MARKERS):
        return ""
    from labeldp_core.experiments import RunResult, make_config
    from labeldp_core.experiments.runner import result_key

    try:
        result = RunResult.from_dict(value)
        config = make_config(
            result.mechanism,
            result.dataset,
            result.epsilon,
            result.seed,
            result.epochs or None,
            dict(result.settings),
        )
    except LabelDPError as exc:
        return f"not a valid result: {exc}"
    if result_key(cache, config) != key:
        return "a result stored under another point's key"
    return ""
