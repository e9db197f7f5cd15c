"""Moving a warmed cache between machines: ``cache export`` and ``cache import``.

The workflow a teacher uses is "warm the day before, on another machine". Copying the cache
folder would hand the server a database anybody could have edited (a row naming any file, any
settings), so a cache travels as an archive of data instead: a zip holding ``manifest.json``
(format, package version, code fingerprint, one line per entry) and one member per entry,
``<key>.json`` or ``<key>.npz``. Import trusts none of it: sizes are checked before reading,
every entry must decode as JSON or pickle-free arrays, and a run result must pass the result
schema and sit under the very key its own config hashes to, so a file cannot put one point's
numbers under another's name. Entries that fail are counted and named, never stored.
"""

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from labeldp_core import __version__
from labeldp_core.cache import (
    KEY_PATTERN,
    MAX_VALUE_BYTES,
    CorruptEntryError,
    ResultCache,
    code_fingerprint,
)
from labeldp_core.errors import InvalidInputError, LabelDPError

__all__ = ["ARCHIVE_FORMAT", "TransferReport", "export_cache", "import_cache", "result_problem"]

#: The manifest's ``format``: what this module writes and reads.
ARCHIVE_FORMAT = "labeldp-cache/1"
#: The most entries an archive may list (a warmed Fashion-MNIST cache holds a few thousand).
MAX_ENTRIES = 200_000
#: The most bytes an archive may unpack to in all.
MAX_TOTAL_BYTES = 16 * 2**30
_MANIFEST = "manifest.json"
_MAX_MANIFEST_BYTES = 64 * 2**20
_SUFFIX = {"json": ".json", "arrays": ".npz"}


@dataclass
class TransferReport:
    """What an export or import did: entries moved, and entries refused with the reason."""

    moved: int = 0
    refused: list[str] = field(default_factory=list)

    def summary(self, verb: str) -> str:
        """One line for the command line."""
        text = f"{verb} {self.moved:,} entries"
        if self.refused:
            text += f"; refused {len(self.refused):,} (first: {self.refused[0]})"
        return text


def export_cache(cache: ResultCache, path: str | Path) -> TransferReport:
    """Write every readable entry of ``cache`` to the archive ``path`` (replaced if present)."""
    report, lines = TransferReport(), []
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_STORED) as archive:
        for key in cache.stored_keys():
            found = cache.entry(key)
            if found is None:
                report.refused.append(f"{key[:12]}: unreadable, left out")
                continue
            kind, body = found
            archive.writestr(key + _SUFFIX[kind], body)
            lines.append({"key": key, "kind": kind, "bytes": len(body)})
            report.moved += 1
        manifest = {"format": ARCHIVE_FORMAT, "version": __version__,
                    "code": code_fingerprint(), "entries": lines}  # fmt: skip
        archive.writestr(_MANIFEST, json.dumps(manifest))
    partial.replace(target)
    return report


def import_cache(cache: ResultCache, path: str | Path) -> TransferReport:
    """Store every valid entry of the archive ``path`` in ``cache``; refuse the rest by name.

    Raises:
        InvalidInputError: if ``path`` is not an archive of this format, was made by another
            version of the code (its keys would never be read here), or is over the caps.
    """
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise InvalidInputError(f"{path} is not a cache archive ({exc}); make one with "
                                "`python -m labeldp_core cache export FILE`") from None  # fmt: skip
    with archive:
        lines = _manifest_entries(archive, path)
        report = TransferReport()
        for line in lines:
            reason = _import_one(cache, archive, line)
            if reason:
                report.refused.append(f"{str(line.get('key'))[:12]}: {reason}")
            else:
                report.moved += 1
    return report


def _manifest_entries(archive: zipfile.ZipFile, path: str | Path) -> list[dict]:
    """The manifest's entry lines, after checking its format, version, code and sizes."""
    members = {info.filename: info for info in archive.infolist()}
    info = members.get(_MANIFEST)
    if info is None or info.file_size > _MAX_MANIFEST_BYTES:
        raise InvalidInputError(f"{path} has no readable {_MANIFEST}: not a cache archive")
    try:
        manifest = json.loads(archive.read(info))
    except (ValueError, RecursionError, zipfile.BadZipFile) as exc:
        raise InvalidInputError(f"{path}'s {_MANIFEST} is not JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != ARCHIVE_FORMAT:
        raise InvalidInputError(f"{path} is not a {ARCHIVE_FORMAT} archive")
    theirs = (manifest.get("version"), manifest.get("code"))
    if theirs != (__version__, code_fingerprint()):
        raise InvalidInputError(
            f"{path} was made by labeldp {theirs[0]} (code {theirs[1]}), this is "
            f"{__version__} (code {code_fingerprint()}): its keys would never be read here; "
            "export again from the same version of the code"
        )
    lines = manifest.get("entries")
    if not isinstance(lines, list) or len(lines) > MAX_ENTRIES:
        raise InvalidInputError(f"{path} lists no entries, or more than {MAX_ENTRIES:,}")
    if sum(info.file_size for info in members.values()) > MAX_TOTAL_BYTES:
        raise InvalidInputError(f"{path} unpacks to more than {MAX_TOTAL_BYTES / 2**30:g} GiB")
    return [line if isinstance(line, dict) else {} for line in lines]


def _import_one(cache: ResultCache, archive: zipfile.ZipFile, line: dict) -> str:
    """Store one entry; the reason it was refused, or "" if stored."""
    key, kind = line.get("key"), line.get("kind")
    if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key) or kind not in _SUFFIX:
        return "not a key and kind this code writes"
    try:
        info = archive.getinfo(key + _SUFFIX[kind])
    except KeyError:
        return "listed but not in the archive"
    if info.file_size > MAX_VALUE_BYTES:
        return f"over {MAX_VALUE_BYTES:,} bytes"
    try:
        body = archive.read(info)
        if kind == "json":
            problem = result_problem(cache, key, json.loads(body))
            if problem:
                return problem
        cache.put_entry(key, kind, body)
    except (CorruptEntryError, ValueError, RecursionError, zipfile.BadZipFile, OSError) as exc:
        return f"unreadable ({type(exc).__name__})"
    return ""


#: Fields only a run result has: a JSON entry with them is checked as one.
_RESULT_MARKERS = ("mechanism", "epsilon_spent")


def result_problem(cache: ResultCache, key: str, value: object) -> str:
    """Why a run result may not sit under ``key`` ("" if it may, or if it is no result)."""
    if not isinstance(value, dict) or not all(name in value for name in _RESULT_MARKERS):
        return ""
    from labeldp_core.experiments import RunResult, make_config

    try:
        result = RunResult.from_dict(value)
        config = make_config(result.mechanism, result.dataset, result.epsilon, result.seed,
                             result.epochs or None, dict(result.settings))  # fmt: skip
    except LabelDPError as exc:
        return f"not a valid result: {exc}"
    if cache.key("result", config.to_dict()) != key:
        return "a result stored under another point's key"
    return ""

