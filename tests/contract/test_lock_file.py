"""requirements.lock: every runtime requirement pinned inside its floor, every pin hashed."""

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def _floors() -> dict[str, Requirement]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    wanted = (line.split("#")[0].strip() for line in lines)
    return {canonicalize_name(r.name): r for r in map(Requirement, filter(None, wanted))}


def _pins() -> dict[str, tuple[Version, list[str]]]:
    """Each pinned package's version and sha256 hashes, read from the lock file."""
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    pins = {}
    for block in re.split(r"\n(?=\S)", text):
        found = re.match(r"([A-Za-z0-9._-]+)==(\S+)", block)
        if found:
            hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
            pins[canonicalize_name(found[1])] = (Version(found[2]), hashes)
    return pins


def test_every_requirement_is_pinned_inside_its_floor_with_hashes():
    pins = _pins()
    for name, requirement in _floors().items():
        assert name in pins, f"{name} is not in requirements.lock: run `make lock`"
        version, _ = pins[name]
        assert requirement.specifier.contains(version, prereleases=True), (name, version)
    assert all(hashes for _, hashes in pins.values()), [n for n, (_, h) in pins.items() if not h]
    assert pins["torch"][0] >= Version("2.6")  # CVE-2025-32434


def test_the_lock_names_no_index_of_this_machine():
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    assert "file://" not in text and "--find-links" not in text and "/opt/" not in text
