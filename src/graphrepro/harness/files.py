"""The workflow's intermediate files, checked where a step reads them.

A step killed half-way, a full disk or a hand edit can leave a run table cut mid-row, an empty
sources record or a truncated graph cache. Read as they are they give NaNs in a table, a
traceback, or worse an index out of bounds. Every reader here checks the whole file first and
refuses a bad one with an error that names it and says how to get a good one. The file is also
marked out of date (its modification time set to 1970), so snakemake's default mtime trigger
reruns the rule that makes it on the next run; a file no rule makes is left for the user to
delete.
"""

from __future__ import annotations

import csv
import io
import json
import re
import time
from pathlib import Path

from .. import atomic
from ..bounded import CSV_MAX_BYTES, JSON_MAX_BYTES, check_size, nested_too_deep, read_csv
from ..errors import DamagedFile, InputError, damaged  # noqa: F401  (re-exported)

# --- CSV tables -------------------------------------------------------------------------------

def check_csv(path, required=()) -> list[str]:
    """A table written whole: not empty, a header, every row as wide as the header, the last
    row ended by a newline (what pandas' writer always writes); returns the header."""
    path = Path(path)
    try:
        data = check_size(path, CSV_MAX_BYTES, "table").read_bytes()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    if not data.strip():
        raise damaged(path, "empty")
    if not data.endswith(b"\n"):
        raise damaged(path, "the last row is cut off (no final newline)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise damaged(path, f"not UTF-8 text (byte {e.start})") from None
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(rows)
        for number, row in enumerate(rows, start=2):
            if len(row) != len(header):
                raise damaged(path, f"line {number} has {len(row)} fields, the header "
                                    f"{len(header)}")
    except csv.Error as e:
        raise damaged(path, f"not a CSV table ({e})") from None
    missing = [c for c in required if c not in header]
    if missing:
        raise damaged(path, f"no column {', '.join(missing)}")
    return header


RUN_COLUMNS = ("graph", "solver", "source", "status")
RUN_OK_COLUMNS = ("trial", "solve_ms")


def read_run_table(path, labels=None):
    """A run table (``runs/<graph>/<run id>.csv``), checked: every row has its graph, solver,
    source and status, and every "ok" row its trial and time. With ``labels`` (the sources
    record's), also every row the run writes: each source, and trials 0..T-1 of each (a table
    cut at a row boundary is still short). Where its provenance record names its job, the rows
    carry it (``job_id``, ``anchors``: see job_columns)."""
    import pandas as pd

    check_csv(path, RUN_COLUMNS)
    df = read_csv(path)
    if df.empty:
        raise damaged(path, "a header and no rows")
    for col in RUN_COLUMNS:
        if df[col].isna().any():
            raise damaged(path, f"row {int(df[col].isna().idxmax()) + 2} has no {col}")
    ok = df["status"] == "ok"
    for col in RUN_OK_COLUMNS:
        if ok.any() and (col not in df or df.loc[ok, col].isna().any()):
            raise damaged(path, f"an 'ok' row has no {col}")
    if ok.any() and not pd.api.types.is_numeric_dtype(df["solve_ms"]):
        raise damaged(path, "solve_ms holds something that is not a number")
    _check_measures(path, df)
    if labels is not None:
        want, have = {int(x) for x in labels}, {int(x) for x in df["source"]}
        if have != want:
            raise damaged(path, f"rows for {len(have & want)} of the {len(want)} sources"
                          + (" and for sources not drawn" if have - want else ""))
        if ok.any():
            trials = df[ok].groupby("source")["trial"].apply(lambda t: sorted(int(x) for x in t))
            full = list(range(max(len(t) for t in trials)))
            # a source a peer hung on (issue 33) has one row saying so ("hung", or "not run"
            # once it gave up) and no trials
            stopped = set(df.loc[~ok, "source"].astype(int))
            if any(t != full for t in trials) or len(trials) != len(want - stopped):
                raise damaged(path, f"not every source has trials 0..{len(full) - 1}")
    for col, value in job_columns(path).items():
        df[col] = value
    return df


def job_columns(table) -> dict:
    """Which job timed a table and how fast its machine was, from its provenance record:
    ``job_id`` names the job ("2026-11-28T14:30:01 card 0000:07:00 job 1a2b3c4d"; a table merged
    from shards joins its shards' with " + ", so an interleaved group's tables, sharded alike,
    still name one job) and ``anchors`` holds each of those jobs' anchor records (JSON, a list of
    {"job": ..., "anchors": ...}: harness/anchors.py). {} where the record predates job ids."""
    from .shards import job_records

    record = read_provenance(table) or {}
    jobs = [r for r in job_records(record) if isinstance((r.get("job") or {}).get("id"), str)]
    if not jobs:
        return {}
    # named by the job's start, the same in every table it wrote (a record's date is when that
    # table's record was written)
    names = [" ".join(p for p in (_utc(r["job"].get("start_unix")) or str(r.get("date", ""))[:19],
                                  f"card {r['pci_bus_id']}" if r.get("pci_bus_id") else "",
                                  f"job {r['job']['id'][:8]}") if p) for r in jobs]
    anchors = [{"job": name, "anchors": r.get("anchors")} for name, r in zip(names, jobs)
               if isinstance(r.get("anchors"), dict)]
    return {"job_id": " + ".join(names), "anchors": json.dumps(anchors, sort_keys=True)}


def _utc(unix) -> str:
    if not isinstance(unix, (int, float)):
        return ""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(unix))


# Counts a run records: whole numbers, never below 0 (a timing is any finite number >= 0).
COUNT_COLUMNS = ("source", "trial", "device_bytes", "iterations", "kernel_launches",
                 "host_round_trips", "grid_syncs", "resident_blocks", "resident_threads",
                 "vertices_expanded", "arcs_relaxed", "atomics", "improving_atomics",
                 "redundant_relaxations", "redundant_expansions", "switch_arcs", "far_passes",
                 "near_far_rounds")


def _check_measures(path, df) -> None:
    """Every time (``*_ms``) finite and >= 0 and every count a whole number >= 0, else the
    first bad cell's line: a table handed to retabulate must not put ``inf`` or ``-1500`` into
    a published comparison."""
    import numpy as np
    import pandas as pd

    for col in df.columns:
        is_time = str(col).endswith("_ms")
        if not is_time and col not in COUNT_COLUMNS:
            continue
        given = df[col].notna()
        values = pd.to_numeric(df[col], errors="coerce")
        with np.errstate(invalid="ignore"):
            bad = given & ~(np.isfinite(values) & (values >= 0))
            if not is_time:
                bad |= given & np.isfinite(values) & (values != np.floor(values))
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            kind = "a time (finite, >= 0)" if is_time else "a count (a whole number >= 0)"
            raise InputError(f"{path}:{row + 2}: {col} {df[col].iloc[row]} is not {kind}; "
                             "refused (no table of ours holds it)")


# --- sources records -----------------------------------------------------------------------------

_DIGEST = re.compile(r"^[0-9a-f]{32}$")


def read_record(path, what: str) -> dict:
    """A JSON object a step wrote whole (``what`` names it in the error)."""
    path = Path(path)
    try:
        text = check_size(path, JSON_MAX_BYTES, "record").read_text()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise damaged(path, "not UTF-8 text") from None
    if not text.strip():
        raise damaged(path, "empty")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise damaged(path, f"not valid JSON (line {e.lineno}: {e.msg})") from None
    except RecursionError:
        raise damaged(path, "not a record (nested past any record of ours)") from None
    if nested_too_deep(record):
        raise damaged(path, "not a record (nested past any record of ours)")
    if not isinstance(record, dict):
        raise damaged(path, f"not {what} (a JSON object)")
    return record


def read_provenance(run_table) -> dict | None:
    """The provenance record beside a run or benchmark table, or None where it left none."""
    path = Path(run_table).with_suffix(".provenance.json")
    return read_record(path, "a provenance record") if path.is_file() else None


def write_provenance(table, record: dict) -> Path:
    """Write ``record`` as the provenance record beside a run or benchmark table (atomically)."""
    path = Path(table).with_suffix(".provenance.json")
    atomic.write_text(path, json.dumps(record, indent=1) + "\n")
    return path


def read_sources(path, num_vertices: int | None = None, graph=None, graph_digest=None) -> dict:
    """A sources record (``sources/<graph>.json``): the graph's name, its sources (internal ids,
    in range when ``num_vertices`` is given) and one reference digest per source. With ``graph``,
    the record must have been drawn on that graph: its digest where the record has one (records
    before it name the graph only), else its name; ``graph_digest``, where the caller has it (a
    GPU worker keeps it with the graph), spares computing it again."""
    path = Path(path)
    record = read_record(path, "a sources record")
    sources, digests = record.get("sources"), record.get("digests")
    if not isinstance(record.get("graph"), str):
        raise damaged(path, "no graph name")
    if not isinstance(sources, list) or not sources or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in sources):
        raise damaged(path, "sources must be a non-empty list of vertex ids")
    if not isinstance(digests, list) or len(digests) != len(sources) or not all(
            isinstance(d, str) and _DIGEST.match(d) for d in digests):
        raise damaged(path, "digests must be one 32-hex-digit digest per source")
    if not isinstance(record.get("stats", {}), dict):
        raise damaged(path, "stats must be an object")
    if num_vertices is not None and max(sources) >= num_vertices:
        raise damaged(path, f"source {max(sources)} is not a vertex of a graph of "
                            f"{num_vertices} vertices (drawn for another graph?)")
    if graph is not None:
        _check_drawn_on(record, graph, path, graph_digest)
    return record


def _check_drawn_on(record: dict, graph, path: Path, known_digest=None) -> None:
    # Not damage: a good record of another graph. Its digests would fail the first pass and
    # blame the solver, so it is refused before anything is timed.
    from ..verify import graph_digest

    if "graph_digest" in record:
        if record["graph_digest"] != (known_digest or graph_digest(graph)):
            raise InputError(f"{path}: these sources were drawn on another graph than "
                             f"{graph.name or 'this one'} (its digest differs); draw them with "
                             f"`python -m graphrepro sources` on this graph")
    elif record["graph"] != graph.name:
        raise InputError(f"{path}: these sources were drawn on graph {record['graph']!r}, not "
                         f"{graph.name!r} (give --name if it is the same graph renamed)")
