"""Replicates A and B of a run, the drift measured between them, and the run's commit (issue 53
item 3, ready for reference run 4: issue 55).

A run made twice keeps one ledger: each claim's row has the pooled value (``ours``) and, where
the run has replicates, each one's value, interval and verdict (``ours_a``, ``ours_a_low``,
``ours_a_high``, ``verdict_a``, the same for ``b``). The A-B drift of each kind of measurement
(CPU, GPU, transfer) is the run's ``drift.csv``: one row a measure (an anchor timed in both
replicates, or a claim's own replicated value), its ``kind``, the relative ``drift`` between A
and B (0.034: 3.4%), and where it has them, ``a``, ``b``, ``unit`` and ``n``. A run made before
either exists (run 3) has neither, and the page says so rather than leave a blank.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ..bounded import read_csv
from ..errors import InputError

REPLICATES = ("a", "b")
DRIFT_FILE = "drift.csv"
DRIFT_KINDS = ("CPU", "GPU", "transfer")
NOT_MEASURED = "not measured in this run"


def replicate_sides(row: dict) -> list[dict]:
    """Each replicate's side of a claim's row, as a row of its own (``name`` "A" or "B",
    ``ours``, ``ours_low``, ``ours_high``, ``unit``, ``verdict``), in A, B order; empty where the
    row has none."""
    return [{"name": name.upper(), "ours": row[f"ours_{name}"],
             "ours_low": row.get(f"ours_{name}_low", ""),
             "ours_high": row.get(f"ours_{name}_high", ""), "unit": row.get("unit", ""),
             "verdict": str(row.get(f"verdict_{name}") or "")}
            for name in REPLICATES if str(row.get(f"ours_{name}") or "").strip()]


def read_drift(run: Path) -> pd.DataFrame | None:
    """The run's A-B drift table, checked (a kind of the three, a finite drift of at least 0),
    or None where the run has none."""
    path = run / DRIFT_FILE
    if not path.is_file():
        return None
    df = read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in ("kind", "measure", "drift") if c not in df.columns]
    if missing:
        raise InputError(f"{path}: drift table lacks column(s) {', '.join(missing)}")
    for i, r in df.iterrows():
        where = f"{path}, line {i + 2}"
        if r["kind"] not in DRIFT_KINDS:
            raise InputError(f"{where}: kind {r['kind']!r} is not one of {', '.join(DRIFT_KINDS)}")
        try:
            drift = float(r["drift"])
        except ValueError:
            drift = math.nan
        if not (math.isfinite(drift) and drift >= 0):
            raise InputError(f"{where}: drift {r['drift']!r} is not a number of at least 0")
    return df


def drift_by_kind(df: pd.DataFrame | None) -> list[dict]:
    """Per kind of measurement, in CPU, GPU, transfer order: its measures (each with A, B and
    the drift as a percentage) and the largest drift, or ``NOT_MEASURED`` where the run has no
    measure of that kind."""
    out = []
    for kind in DRIFT_KINDS:
        mine = df[df["kind"] == kind] if df is not None else pd.DataFrame()
        rows = [{"measure": r["measure"], "a": _with_unit(r.get("a"), r.get("unit")),
                 "b": _with_unit(r.get("b"), r.get("unit")), "n": str(r.get("n") or ""),
                 "drift": f"{float(r['drift']):.1%}"} for r in mine.to_dict("records")]
        largest = (f"up to {max(float(d) for d in mine['drift']):.1%} over {len(rows)} "
                   f"measure{'s' if len(rows) != 1 else ''}") if rows else NOT_MEASURED
        out.append({"kind": kind, "rows": rows, "largest": largest})
    return out


def _with_unit(value, unit) -> str:
    value, unit = str(value or "").strip(), str(unit or "").strip()
    return f"{value} {unit}" if value and unit else value


def commit_line(record: dict | None) -> dict | None:
    """What the overview says of a run's commits: ``one`` (the single commit) where every job
    names the same one, else ``several`` (each commit with its jobs and dates): such a run is
    not from one commit, and the page says so."""
    if not record:
        return None
    commits = [c for c in record.get("commits") or [] if isinstance(c, dict) and c.get("commit")]
    if not commits:  # a run pieced together from calls: each call's commit
        calls = [c for c in record.get("calls") or [] if isinstance(c, dict) and c.get("commit")]
        commits = list({c["commit"]: {"commit": c["commit"], "jobs": None,
                                      "first": str(c.get("date", "")),
                                      "last": str(c.get("date", ""))} for c in calls}.values())
    if not commits:
        return None
    if len(commits) == 1:
        return {"one": commits[0]["commit"], "several": []}
    return {"one": None, "several": commits}
