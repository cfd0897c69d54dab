"""The work directory of a resumable I/O-efficient MST (``mst_io.io_mst`` with a fingerprint).

Table 3.8 on the whole 40 ft-size grid outlasts one time-boxed device call (10 minutes), so the
run is cut into units, each journaled once its side files are whole: a phase-1 block, a phase-2
level, a phase-3 chunk of output records. A later process with the same work directory and the
same inputs and settings (the fingerprint) skips the journaled units and goes on; each phase's
time is the sum of its units' recorded times, over every process.

Why a unit's record comes after its files: a record names work whose files are complete
(``BlockStore`` writes a temporary and renames it), so an interruption at any point leaves
either a journaled unit with all its files, or an unjournaled one whose files the next process
deletes (``Journal.tidy``) and redoes. The journal is one JSON line per record, appended with one
``write`` (O_APPEND), never buffered in the process: Ctrl-C, SIGTERM or SIGKILL lose nothing
journaled (the page cache outlives the process; only a power cut could, and a power cut ends
the machine's loan and its work directory anyway, so there is no fsync). A line cut short (a
full disk) ends the journal: it and what follows are dropped on reading.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import uuid
from pathlib import Path

from ... import atomic
from ...bounded import load_json
from ...errors import InputError

JOURNAL = "journal.jsonl"
FINGERPRINT = "fingerprint.json"
FORMAT = 1  # of the work directory: a process of another layout must not read it
RECORD = re.compile(r"^(def|red)_(\d+)_(\d+)_(\d+)\.npz$|^mst_(\d+)(?:_(\d+))?\.npz$")


class WorkDirMismatch(InputError):
    """The work directory holds another run's (or something else's) files."""


class Stopped(Exception):
    """Raised before a unit when the caller asked to stop (the call's deadline): everything
    finished so far is journaled; the same command with the same work directory goes on."""


def file_sha256(path) -> str:
    """The grid's identity. Not its mtime: a time-boxed call's unpacking touches files, and a
    grid converted again from the same data is still the same input."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


class Journal:
    """The records of one run's work directory; ``fingerprint=None`` for a run that is not meant
    to be resumed (a temporary directory): records kept in memory only."""

    def __init__(self, directory, fingerprint: dict | None):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / JOURNAL if fingerprint is not None else None
        self.records: list[dict] = []
        if self.path is not None:
            self._check(fingerprint)
            self.records = self._replay()
        self.call = uuid.uuid4().hex[:12]
        self._append({"kind": "start", "call": self.call, "t": time.time(), "pid": os.getpid()})

    def _check(self, fingerprint: dict) -> None:
        want = json.loads(json.dumps({"format": FORMAT, **fingerprint}, sort_keys=True))
        fp = self.directory / FINGERPRINT
        if fp.is_file():
            try:
                have = load_json(fp)
            except ValueError:
                have = None
            if have != want:
                diff = sorted(k for k in set(want) | set(have or {})
                              if (have or {}).get(k) != want.get(k))
                raise WorkDirMismatch(f"{self.directory} is the work directory of another run "
                                 f"(differs in: {', '.join(diff) or 'an unreadable fingerprint'}); "
                                 f"remove it to start over, or give another --work-dir")
            return
        if any(p.name != FINGERPRINT for p in self.directory.iterdir()):
            raise WorkDirMismatch(f"{self.directory} holds files but no {FINGERPRINT}: not a work "
                             f"directory of this command; give an empty or a new --work-dir")
        atomic.write_text(fp, json.dumps(want, indent=1, sort_keys=True) + "\n")

    def _replay(self) -> list[dict]:
        if not self.path.is_file():
            return []
        data = self.path.read_bytes()
        records, good = [], 0
        for line in data.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break
            try:
                records.append(json.loads(line))
            except ValueError:
                break
            good += len(line)
        if good < len(data):  # appends go on from a whole line
            with atomic.open_file(self.path, "r+b") as fh:
                fh.truncate(good)
        return records

    def _append(self, record: dict) -> None:
        self.records.append(record)
        if self.path is None:
            return
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        fd = atomic.open_nofollow(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            if os.write(fd, line) != len(line):
                raise OSError(f"{self.path}: short write (disk full?)")
        finally:
            os.close(fd)

    def add(self, phase: int, key, ms: float, io: dict, **data) -> None:
        self._append({"kind": "unit", "phase": phase, "key": key, "call": self.call,
                      "t": time.time(), "ms": float(ms), "io": io, **data})

    def stop(self) -> None:
        """This process's last record: the end of its share of the run's wall time."""
        self._append({"kind": "stop", "call": self.call, "t": time.time()})

    def done(self, phase: int) -> dict:
        """{key: record} of the phase's journaled units."""
        return {r["key"]: r for r in self.records if r["kind"] == "unit" and r["phase"] == phase}

    def phase_calls(self, phase: int) -> int:
        return len({r["call"] for r in self.done(phase).values()})

    def calls(self) -> list[dict]:
        """One entry per process, in order: its wall time from its start to its stop record (or
        its last record, where it was killed before writing one)."""
        out: dict[str, dict] = {}
        for r in self.records:
            c = out.setdefault(r["call"], {"call": r["call"], "start": r["t"], "end": r["t"]})
            c["end"] = max(c["end"], r["t"])
        for c in out.values():
            c["wall_s"] = c["end"] - c["start"]
        return list(out.values())

    def tidy(self, store_dir, expected: set[str]) -> int:
        """Delete what no journaled unit accounts for: half-written temporaries and the records of
        units cut off before their journal line. Returns how many files went."""
        gone = 0
        for p in Path(store_dir).iterdir():
            if p.name.endswith(".part") or (RECORD.match(p.name) and p.name not in expected):
                p.unlink(missing_ok=True)
                gone += 1
        return gone


def io_sum(records) -> dict:
    """The per-unit transfer counts added up."""
    total: dict = {}
    for r in records:
        for k, v in r["io"].items():
            total[k] = total.get(k, 0) + v
    return total
