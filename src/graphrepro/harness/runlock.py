"""A run's environment as a pip requirements file (`graphrepro lock-from-run`): every
distribution its provenance record names, pinned to the version it recorded, with the sha256 of
the files pip may install wherever one is known.

Hashes come from the project's pip-compile locks (every file the index offered for that version)
for a pin they hold at the same version, else from `pip download --no-deps` of the pin for the
record's Python, through this machine's pip configuration (its index, find-links and cache).
pip checks hashes all or nothing (one hashed line turns on hash-checking for every line), so a
file with any pin that has no hash carries the known hashes as comments and says which pins lack
one and why; a file whose every pin is hashed is checked by pip as it installs."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ..bounded import BadFile, load_json
from ..errors import InputError
from .provenance import canonical_name

# the project itself is installed from the commit a record names, not from an index
UNPINNED = {"graphrepro"}
DEFAULT_LOCKS = ("requirements.lock", "requirements-gpu.lock")
_DOWNLOAD_TIMEOUT_S = 900  # one wheel; cupy's is 70 MB
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")
_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+!_-]*")
_HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    hashes: tuple[str, ...] = ()
    why_unhashed: str | None = None


def recorded_packages(path) -> tuple[dict[str, str], dict]:
    """{canonical name: version} of the provenance record ``path`` (a run's ``provenance.json``
    or one run table's ``.provenance.json``), and the record."""
    record = load_json(path)
    packages = record.get("packages") if isinstance(record, dict) else None
    if not isinstance(packages, dict) or not packages:
        raise BadFile(f"{path}: no \"packages\" in it; give a provenance.json or a run table's "
                      ".provenance.json")
    out = {}
    for name, version in packages.items():
        # each becomes a line pip reads: nothing but a name and a version (no option, no newline)
        if not _NAME.fullmatch(name):
            raise BadFile(f"{path}: \"packages\": {name!r} is not a distribution's name")
        if isinstance(version, str) and " | " in version:  # wholerun's merged record
            raise BadFile(f"{path}: \"packages\": {name} was {version} in different tables of "
                          "this run; lock one table's own .provenance.json instead")
        if not isinstance(version, str) or not _VERSION.fullmatch(version):
            raise BadFile(f"{path}: \"packages\": {name} has no single version ({version!r})")
        out[canonical_name(name)] = version
    return dict(sorted(out.items())), record


def lock_hashes(paths) -> dict[tuple[str, str], tuple[str, ...]]:
    """{(canonical name, version): sha256 hashes} of pip-compile ``--generate-hashes`` locks."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in paths:
        key = None
        for line in Path(path).read_text().splitlines():
            pin = _PIN.match(line)
            if pin:
                key = (canonical_name(pin[1]), pin[2])
                found.setdefault(key, [])
            elif not line.startswith((" ", "\t")):
                key = None  # a comment or blank line ends a pin's block
            if key:
                found[key] += [h for h in _HASH.findall(line) if h not in found[key]]
    return {k: tuple(v) for k, v in found.items() if v}


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def downloaded_hashes(name: str, version: str, python: str | None) -> tuple[tuple[str, ...], str | None]:
    """The sha256 of the file ``pip download --no-deps name==version`` fetches for Python
    ``python`` (major.minor of the record) on this platform, or no hash and why."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
           "--disable-pip-version-check", f"{name}=={version}"]
    minor = ".".join((python or "").split(".")[:2])
    if minor and minor != f"{sys.version_info.major}.{sys.version_info.minor}":
        cmd += ["--only-binary=:all:", "--python-version", minor]  # pip's rule for another Python
    with tempfile.TemporaryDirectory(prefix="graphrepro-lock-") as tmp:
        try:
            done = subprocess.run([*cmd, "--dest", tmp], capture_output=True, text=True,
                                  timeout=_DOWNLOAD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return (), f"pip download took over {_DOWNLOAD_TIMEOUT_S} s"
        files = sorted(Path(tmp).iterdir())
        if done.returncode or not files:
            errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
            return (), "pip download: " + (errors[-1][7:] if errors else f"exit {done.returncode}")
        return tuple(_sha256(f) for f in files), None


def pins(packages: dict[str, str], locks: dict, python: str | None, download=downloaded_hashes) -> list[Pin]:
    """Each pinnable package with its hashes: the locks' where they pin the same version, else
    ``download``'s (None: no download, the pin is left without a hash)."""
    out = []
    for name, version in packages.items():
        if name in UNPINNED:
            continue
        if (name, version) in locks:
            out.append(Pin(name, version, locks[name, version]))
        elif download is None:
            out.append(Pin(name, version, (), "not in the locks at this version (--no-download)"))
        else:
            hashes, why = download(name, version, python)
            out.append(Pin(name, version, hashes, why))
    return out


def _describe(record: dict, source: str) -> list[str]:
    what = [record.get("run_name") or "a run", str(record.get("date") or "undated")]
    machine = ", ".join(str(record[k]) for k in ("gpu", "cpu") if record.get(k))
    lines = [f"The environment of {what[0]} ({what[1]}; Python {record.get('python') or '?'}"
             + (f"; {machine}" if machine else "") + f"), as {source} records it."]
    if record.get("packages_complete"):
        lines.append("The record names every distribution installed where it ran: all are pinned.")
    else:
        lines.append(f"The record names only these {len(record['packages'])} packages (records "
                     "before issue 56's round 4 did): the rest of that environment was not "
                     "recorded and cannot be pinned to what it used.")
    return lines


def render(record: dict, source: str, found: list[Pin],
           hash_sources: list[str]) -> str:
    """The requirements file: a header saying what the record held and which pins lack a hash,
    then one pin a line (sorted by name), hashed where pip can check every line."""
    unhashed = [p for p in found if not p.hashes]
    commit = record.get("commit") or "?"
    head = [f"Made by `python -m graphrepro lock-from-run {source}`.", *_describe(record, source)]
    head.append("Hashes from " + (", ".join(hash_sources) + " (every file of that version), else "
                                  if hash_sources else "")
                + f"`pip download --no-deps` for Python {record.get('python') or '?'} on "
                f"{sysconfig.get_platform()} (that one file).")
    if unhashed:
        head.append(f"{len(unhashed)} of {len(found)} pins have no hash, so no line carries an "
                    "active --hash (pip checks all lines or none); the known ones follow their "
                    "pins as comments. Without a hash:")
        head += [f"  {p.name}=={p.version}: {p.why_unhashed}" for p in unhashed]
    else:
        head.append(f"Every one of the {len(found)} pins is hashed: pip checks each file.")
    head.append("Install: pip install --no-deps -r THIS_FILE, then graphrepro itself (never "
                f"pinned here) from a checkout of the record's commit ({commit}; of several, "
                "the last): "
                + ("pip install --no-deps -e ." if record.get("packages_complete") else
                   "pip install -e ., which adds the unrecorded rest at its newest within "
                   "pyproject.toml's bounds") + ".")
    lines = [f"# {part}" for line in head
             for part in textwrap.wrap(line, 94, subsequent_indent="    " if line[:2] == "  " else "")]
    for p in found:
        if not unhashed:
            lines.append(f"{p.name}=={p.version} \\")
            lines += [f"    --hash=sha256:{h}" + (" \\" if i < len(p.hashes) - 1 else "")
                      for i, h in enumerate(p.hashes)]
        else:
            lines.append(f"{p.name}=={p.version}")
            lines += [f"    # sha256:{h}" for h in p.hashes]
    return "\n".join(lines) + "\n"


def lock_from_run(source, locks=None, download=downloaded_hashes) -> str:
    """The requirements file of the provenance record ``source``; ``locks``: pip-compile locks
    to take hashes from (default: those of DEFAULT_LOCKS in the working directory)."""
    packages, record = recorded_packages(source)
    if locks is None:
        locks = [name for name in DEFAULT_LOCKS if Path(name).is_file()]
    for lock in locks:
        if not Path(lock).is_file():
            raise InputError(f"--lock {lock}: no such file")
    found = pins(packages, lock_hashes(locks), record.get("python"), download)
    return render(record, str(source), found, [str(x) for x in locks])
