"""Where a ledger row comes from: the tables it read, and from them the run, launch path,
sources, trials, device and kind of data behind it.

Written here once for every document. An evidence function names the tables it read
(``Evidence.reads``: (graph, run id) pairs of run tables, names of benchmark tables); the
columns are computed from those tables' rows and provenance (``run``, ``launch_path`` and
``run_table``, added by ``report.tables.load_runs``), and the kind of data from the graphs' and
terrains' origin records, never from a name. Evidence that names no table is placed by the
graphs its ``data`` names (every run table on them), and its ``tables`` column says so.
"""

from __future__ import annotations

import re

import pandas as pd

from ..datasets.origin import data_kind
from .departures import departures
from .runs import OLD_LAUNCH_PATH

DAY = re.compile(r"\d{4}-\d{2}-\d{2}")

COLUMNS = ("run", "launch_path", "sources", "trials", "device")
LEDGER = COLUMNS + ("data_kind", "departure", "tables")
# How the ledger names each launch path: a run's record says graphrepro.launch, says nothing
# (numba's own launches, superseded), or there is no record (unknown).
PATHS = {"graphrepro.launch": "graphrepro.launch",
         OLD_LAUNCH_PATH: "numba's launches (before graphrepro.launch)", "": "unknown (no record)"}


def graphs_named(data: str, known) -> list[str]:
    """The graphs a ``data`` string names, in its order."""
    # a part may name a setting after its graph ("dense_4096 4 e/t chunked: ...")
    names = [part.split(":", 1)[0].strip().split(" ")[0] for part in str(data or "").split(";")]
    return [n for n in dict.fromkeys(names) if n in set(known)]


def reads_of(evidence) -> list:
    """The tables one piece of evidence read: its own ``reads``, else its parts'."""
    own = list(getattr(evidence, "reads", ()) or ())
    if own:
        return list(dict.fromkeys(own))
    for part in getattr(evidence, "parts", ()) or ():
        own += reads_of(part)
    return list(dict.fromkeys(own))


def read_rows(evidence, runs: pd.DataFrame, benchmarks: dict | None = None) -> list:
    """[(table name, its rows)] of the tables behind one claim, in the order it read them."""
    benchmarks = benchmarks or {}
    has_runs = isinstance(runs, pd.DataFrame) and len(runs) and "graph" in runs
    reads = reads_of(evidence)
    out = []
    if reads:
        for key in reads:
            if isinstance(key, tuple) and has_runs:
                graph, variant = key
                rows = runs[(runs["graph"] == graph) & (runs["variant"] == variant)]
                if len(rows):
                    out.append((_table_name(rows, f"runs/{graph}/{variant}"), rows))
            elif isinstance(key, str) and isinstance(benchmarks.get(key), pd.DataFrame):
                out.append((f"benchmarks/{key}.csv", benchmarks[key]))
        return out
    if has_runs:  # no table named: every run table on the graphs its data names
        for g in graphs_named(getattr(evidence, "data", ""), runs["graph"].unique()):
            for _, rows in runs[runs["graph"] == g].groupby("variant", sort=False):
                out.append((_table_name(rows, f"runs/{g}/{rows['variant'].iloc[0]}"), rows))
    if not out:  # a target that reads benchmark tables: those with the same data
        out = [(f"benchmarks/{name}.csv", b) for name, b in benchmarks.items()
               if isinstance(b, pd.DataFrame) and len(b) and _same_data(b, evidence)]
    return out


def mark_jobs(evidence, runs: pd.DataFrame, benchmarks: dict | None = None) -> None:
    """Set ``jobs`` on every piece of evidence (and part of one) that names the tables it read
    and not its jobs: the jobs of those tables' rows (``job``, from their provenance records), so
    the rule sees a comparison that crosses jobs without each evidence function saying so. A
    table whose record names its job (``job_id``: one id for every table an interleaved job
    wrote) is placed by it, an older one by its record's date and card (``job``). A part that
    names no table of its own was read from its whole's tables."""
    if getattr(evidence, "reads", ()) and not getattr(evidence, "jobs", ()):
        jobs = []
        for _, rows in read_rows(evidence, runs, benchmarks):
            jobs += [j for j in job_names(rows).unique() if j]
        evidence.jobs = tuple(dict.fromkeys(jobs))
    for part in getattr(evidence, "parts", ()) or ():
        if not getattr(part, "reads", ()) and not getattr(part, "jobs", ()):
            part.jobs = getattr(evidence, "jobs", ())
        mark_jobs(part, runs, benchmarks)


def job_names(rows: pd.DataFrame) -> pd.Series:
    """Each row's job: the ``job_id`` its table's record names, else that record's date and card
    (``job``), else ""."""
    empty = pd.Series("", index=rows.index, dtype=str)
    old = rows["job"].fillna("").astype(str) if "job" in rows else empty
    if "job_id" not in rows:
        return old
    named = rows["job_id"].fillna("").astype(str)
    return named.where(named != "", old)


def _table_name(rows: pd.DataFrame, fallback: str) -> str:
    names = rows["run_table"].dropna().unique() if "run_table" in rows else []
    return str(names[0]) if len(names) else fallback + ".csv"


def where_from(evidence, runs: pd.DataFrame, benchmarks: dict | None = None,
               stats: dict | None = None) -> dict:
    """The ledger's columns for one claim (empty strings where nothing was measured)."""
    out = dict.fromkeys(LEDGER, "")
    tables = read_rows(evidence, runs, benchmarks)
    if not tables:  # read off the graph alone (Table 1's statistics): its origin still says
        graphs = graphs_named(getattr(evidence, "data", ""), (stats or {}).keys())
        out["data_kind"] = kind_of([("", pd.DataFrame({"graph": graphs}))], stats or {}) \
            if graphs else ""
        return out
    out.update(describe(pd.concat([rows for _, rows in tables], ignore_index=True)))
    out["tables"] = "; ".join(name for name, _ in tables)
    out["data_kind"] = kind_of(tables, stats or {})
    out["departure"] = "; ".join(departures(tables))
    return out


# real first: a claim on several kinds lists them in this order
KIND_ORDER = ("real", "real topology, modelled weights", "synthetic", "stand-in")


def kind_of(tables, stats: dict) -> str:
    """The kinds of data the tables were measured on, from the graphs' origin records
    (``stats[graph]["origin"]``) and the terrains' (a benchmark frame's ``attrs["origins"]``)."""
    kinds = set()
    for _, rows in tables:
        if "graph" in rows:
            kinds |= {data_kind((stats.get(g) or {}).get("origin")) for g in rows["graph"].unique()}
        origins = rows.attrs.get("origins") or {}
        for col in ("terrain", "grid"):
            if col in rows:
                kinds |= {data_kind(origins[t]) for t in rows[col].dropna().unique()
                          if t in origins}
    ordered = [k for k in KIND_ORDER if k in kinds] + sorted(kinds - set(KIND_ORDER))
    return "; ".join(ordered)


def describe(rows: pd.DataFrame) -> dict:
    """The run, launch path, sources, trials and device of a set of run or benchmark rows."""
    out = dict.fromkeys(COLUMNS, "")
    if rows.empty:
        return out
    out["run"] = _runs(rows.get("run", pd.Series(dtype=str))) or "unknown (no record)"
    out["launch_path"] = _paths(rows)
    out["device"] = _devices(rows)
    if "status" in rows:  # sources and trials of the runs that finished
        rows = rows[rows["status"] == "ok"]
    if {"source", "trial", "graph"} <= set(rows.columns):
        key = ["graph", "variant"] if "variant" in rows else ["graph"]
        per = rows.groupby(key)
        out["sources"] = _span(per["source"].nunique())
        out["trials"] = _span(rows.groupby(key + ["source"]).size().groupby(level=key).median())
    return out


def _devices(rows: pd.DataFrame) -> str:
    """The devices that timed the rows: each GPU by its name, the host's cores as "CPU"."""
    if "device_name" not in rows:
        return ""
    names = {str(d) for d in rows["device_name"].dropna() if str(d) not in ("", "nan")}
    named = sorted("CPU" if d.lower() == "cpu" else d for d in names)
    return "; ".join(dict.fromkeys(named))


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
