"""The work directory of ``sssp-experiment``: scratch space for every table, and for the tables
longer than one time-boxed device call (Table 5.7 on the thesis's 8192^2 window: some 4 minutes
a block size on 2x H200) a journal of finished units, so that the same command goes on from them.

A unit is one block size M of the table, measured whole in one process: its rows are journaled
only when every step of it, the checks included, has finished, so a unit's times never mix two
processes. A process killed inside a unit loses that unit only; the next one deletes its scratch
(everything but the journal, its fingerprint and the windows cut from the grid, which are written
whole or not at all) and measures it again. The fingerprint (table, settings, the grid's SHA-256)
keeps one run's units out of another's: a directory journaled for other inputs is refused, never
reused and never deleted.

Why the directory is no declared output of its rule: snakemake deletes a job's outputs before it
runs it again, which would throw the journal away with the scratch.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import numpy as np

from ..bounded import load_json
from ..solvers.gerritsen2012.mst_journal import FINGERPRINT, JOURNAL, Journal, Stopped, file_sha256

RESUMABLE = frozenset({"table5_7"})
UNIT = 5  # the journal's "phase" of a unit record: a block size of a chapter-5 table
KEEP = ("window_",)  # cut from the grid once, written whole (experiments' window_zgrid)


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not a table value: {type(value).__name__}")


class Work:
    """``directory`` for one table's run. A resumable table journals its units there (see the
    module's text); any other table finds it empty (a stopped run's leftovers are removed)."""

    def __init__(self, directory, table: str, settings: dict, zgrid, *, should_stop=None,
                 log=print):
        self.directory = Path(directory)
        self.table, self.log, self.should_stop = table, log, should_stop
        self.resumable = table in RESUMABLE
        fingerprint = {"command": "sssp-experiment", "table": table,
                       "settings": json.loads(json.dumps(settings, default=_plain)),
                       "terrain": file_sha256(zgrid)}
        if not self.resumable:
            self._clear_own()
        self.journal = Journal(self.directory, fingerprint)
        self.started = time.time()

    def _clear_own(self) -> None:
        """A non-resumable table starts over: its own leftovers go, someone else's are refused
        (by the journal, which finds files and no fingerprint of this command)."""
        fp = self.directory / FINGERPRINT
        if fp.is_file():
            try:
                ours = load_json(fp).get("command") == "sssp-experiment"
            except ValueError:
                ours = False
            if ours:
                shutil.rmtree(self.directory)

    def units(self) -> dict:
        return self.journal.done(UNIT)

    def unit(self, key, measure) -> list[dict]:
        """The rows of unit ``key``: journaled by an earlier process, else ``measure()``'s, which
        are journaled before they are returned. Raises ``Stopped`` before a unit that would end
        past the deadline (the longest journaled unit is the estimate)."""
        done = self.units().get(key)
        if done is not None:
            self.log(f"{self.table}: {key}: measured by an earlier process "
                     f"({done['ms'] / 1e3:.0f} s), kept")
            return done["rows"]
        if not self.resumable:
            return measure()
        longest = max((r["ms"] / 1e3 for r in self.units().values()), default=0.0)
        if self.should_stop is not None and self.should_stop(longest):
            raise Stopped(f"{self.table}: stopped before {key} at the call's deadline "
                          f"({len(self.units())} unit(s) journaled in {self.directory})")
        self._tidy()
        t0 = time.perf_counter()
        rows = json.loads(json.dumps(measure(), default=_plain))
        self.journal.add(UNIT, key, (time.perf_counter() - t0) * 1e3, {}, rows=rows)
        return rows

    def _tidy(self) -> None:
        """The scratch of a unit cut off in an earlier process goes before the next unit."""
        for p in self.directory.iterdir():
            if p.name in (FINGERPRINT, JOURNAL) or p.name.startswith(KEEP):
                continue
            shutil.rmtree(p) if p.is_dir() else p.unlink()

    def record(self) -> dict:
        """For the table's provenance: this process's wall time and, for a resumable table,
        every process that measured a unit of it."""
        job = {"wall_s": round(time.time() - self.started, 4)}
        if self.resumable:
            calls = self.journal.calls()
            job.update(processes=len(calls), wall_s_all=round(sum(c["wall_s"] for c in calls), 4),
                       units=[{"unit": k, "seconds": round(r["ms"] / 1e3, 3), "process": r["call"]}
                              for k, r in self.units().items()])
        return job

    def finish(self) -> None:
        """The table is written: the scratch and the journal go (a window can be GBs)."""
        self.journal.stop()
        shutil.rmtree(self.directory, ignore_errors=True)
