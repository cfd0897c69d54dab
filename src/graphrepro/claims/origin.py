"""Where a ledger row comes from: the run, the launch path, the sources and trials behind it.

Written here once for every document, from what the evidence says it used (``Evidence.data``
names each graph, "g: real ...; h: stand-in ...") and the run tables' provenance columns
(``run``, ``launch_path``, added by ``report.tables.load_runs``), so no evidence function has to
say it again.
"""

from __future__ import annotations

import re

import pandas as pd

from .runs import OLD_LAUNCH_PATH

DAY = re.compile(r"\d{4}-\d{2}-\d{2}")

COLUMNS = ("run", "launch_path", "sources", "trials")
# How the ledger names each launch path: a run's record says graphrepro.launch, says nothing
# (numba's own launches, superseded), or there is no record (unknown).
PATHS = {"graphrepro.launch": "graphrepro.launch",
         OLD_LAUNCH_PATH: "numba's launches (before graphrepro.launch)", "": "unknown (no record)"}


def graphs_named(data: str, known) -> list[str]:
    """The graphs a ``data`` string names, in its order."""
    # a part may name a setting after its graph ("dense_4096 4 e/t chunked: ...")
    names = [part.split(":", 1)[0].strip().split(" ")[0] for part in str(data or "").split(";")]
    return [n for n in dict.fromkeys(names) if n in set(known)]


def where_from(evidence, runs: pd.DataFrame, benchmarks: dict | None = None) -> dict:
    """The four columns of one claim's row (empty strings where nothing was measured)."""
    out = dict.fromkeys(COLUMNS, "")
    frames = []
    if isinstance(runs, pd.DataFrame) and len(runs) and "graph" in runs:
        used = graphs_named(getattr(evidence, "data", ""), runs["graph"].unique())
        if used:
            frames.append(runs[runs["graph"].isin(used)])
    if not frames:  # a target that reads benchmark tables: the tables it read
        frames = [b for b in (benchmarks or {}).values()
                  if isinstance(b, pd.DataFrame) and len(b) and _same_data(b, evidence)]
    if not frames:
        return out
    return describe(pd.concat(frames, ignore_index=True))


def describe(rows: pd.DataFrame) -> dict:
    """The four columns for a set of run or benchmark rows."""
    out = dict.fromkeys(COLUMNS, "")
    if rows.empty:
        return out
    out["run"] = _runs(rows.get("run", pd.Series(dtype=str))) or "unknown (no record)"
    out["launch_path"] = _paths(rows)
    if "status" in rows:  # sources and trials of the runs that finished
        rows = rows[rows["status"] == "ok"]
    if {"source", "trial", "graph"} <= set(rows.columns):
        key = ["graph", "variant"] if "variant" in rows else ["graph"]
        per = rows.groupby(key)
        out["sources"] = _span(per["source"].nunique())
        out["trials"] = _span(rows.groupby(key + ["source"]).size().groupby(level=key).median())
    return out


def _runs(labels: pd.Series) -> str:
    """"run 3 2026-11-26 (6e86660, d08dc26); 2026-11-23 (418c477)": each run's name where it
    has one, its days and commits, from labels "[run name] day commit" (report/tables.py)."""
    by_run: dict = {}
    for label in sorted({str(x) for x in labels if str(x)}):
        words = label.split()
        day = next((i for i, w in enumerate(words) if DAY.fullmatch(w)), None)
        if day is None:  # no day recorded: the label as it is
            key, commit = (label, ""), ""
        else:
            key, commit = (" ".join(words[:day]), words[day]), " ".join(words[day + 1:])
        by_run.setdefault(key, []).append(commit)
    return "; ".join(" ".join(p for p in key if p)
                     + (f" ({', '.join(c for c in cs if c)})" if any(cs) else "")
                     for key, cs in by_run.items())


def _same_data(bench: pd.DataFrame, evidence) -> bool:
    data = str(getattr(evidence, "data", "") or "")
    return "data" not in bench or not data or bench["data"].astype(str).isin([data]).any() or any(
        str(d).split(":", 1)[0] in data for d in bench["data"].unique())


def _paths(rows: pd.DataFrame) -> str:
    """The launch paths of the GPU rows; CPU work launches nothing."""
    if "device" in rows:
        rows = rows[rows["device"] == "gpu"]
    elif "impl" in rows:
        rows = rows[rows["impl"].astype(str).str.startswith("gpu")]
    if rows.empty or "launch_path" not in rows:
        return "none (CPU)" if rows.empty else ""
    return "; ".join(sorted({PATHS.get(p, p) for p in rows["launch_path"].astype(str)}))


def _span(values: pd.Series) -> str:
    if values.empty:
        return ""
    lo, hi = int(values.min()), int(values.max())
    return f"{lo}" if lo == hi else f"{lo}-{hi}"
