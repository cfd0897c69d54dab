"""One target's table and figure from the run tables and the document's published values."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import atomic
from ..bounded import read_csv
from ..experiments import get_target, published


def load_runs(paths, labels=None) -> pd.DataFrame:
    """The tidy run tables, one row per (graph, run id, source, trial); with ``labels`` ({graph:
    source labels}) each table is checked to hold every row its run writes."""
    from ..harness.files import read_run_table

    from ..harness.files import read_provenance

    frames = []
    for p in paths:
        graph = Path(p).parent.name  # runs/<graph>/<run id>.csv
        sampled = (read_provenance(Path(p)) or {}).get("sampling")
        want = (labels or {}).get(graph)
        if sampled and want is not None:  # a sampled run timed its first sources only
            want = want[:int(sampled["sources"])]
        df = read_run_table(p, want)
        if "variant" not in df:  # run tables written before run ids existed: default parameters
            df.insert(df.columns.get_loc("solver") + 1, "variant", df["solver"])
        df["launch_path"], df["run"] = launch_path_of(Path(p)), _run_label(Path(p))
        df["run_table"] = f"runs/{graph}/{Path(p).name}"  # what the ledger says a claim read
        df["job"] = job_of(Path(p))
        if sampled:  # why its sampling stopped: the ledger's `sampled` (claims/ledger.py)
            df["sampled"] = str(sampled["stopped"])
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def launch_path_of(run_table: Path) -> str:
    """The launch path a run table was timed with, from the provenance record beside it: a
    record without one predates ``graphrepro.launch``; no record at all, unknown ("")."""
    from ..claims.runs import OLD_LAUNCH_PATH
    from ..harness.files import read_provenance

    record = read_provenance(run_table)
    return "" if record is None else record.get("launch_path") or OLD_LAUNCH_PATH


def job_of(table: Path) -> str:
    """Which job timed a table, from its provenance record: its date and the card it ran on
    ("2026-11-26T19:35:28 card 0000:00:07"); runs timed interleaved in one job share it. "" where
    there is no record. A comparison whose sides name different jobs crosses them."""
    from ..harness.files import read_provenance

    record = read_provenance(table) or {}
    card = f"card {record['pci_bus_id']}" if record.get("pci_bus_id") else ""
    return " ".join(p for p in (str(record.get("date", ""))[:19], card) if p)


def _run_label(table: Path) -> str:
    """Which run made a table, from its provenance record: the run's name where it has one, the
    day and the commit ("run 3 2026-11-26 3e3b9f5"); "" where it left no record."""
    from ..harness.files import read_provenance

    record = read_provenance(table) or {}
    return " ".join(p for p in (str(record.get("run_name") or ""), str(record.get("date", ""))[:10],
                                str(record.get("commit", ""))[:7]) if p)


def load_stats(paths) -> dict:
    from ..harness.files import damaged, read_sources

    stats = {}
    for p in paths:
        record = read_sources(p)
        if not isinstance(record.get("stats"), dict):
            raise damaged(p, "no graph statistics")
        stats[record["graph"]] = {**record["stats"], "stands_for": record.get("stands_for"),
                                  "origin": record.get("origin"),
                                  "digests": record.get("digests")}  # same digests: same graph
    return stats


def mark_data(table: pd.DataFrame, stats: dict) -> pd.DataFrame:
    """Say beside every row measured on a graph what that graph was: real data or a stand-in."""
    if "graph" not in table.columns or "data" in table.columns or table.empty:
        return table
    from ..datasets.origin import data_kind, describe_origin

    origins = [(stats.get(g) or {}).get("origin") for g in table["graph"]]
    table = table.copy()
    at = list(table.columns).index("graph") + 1
    table.insert(at, "data", [describe_origin(o, brief=True) for o in origins])
    table.insert(at + 1, "data_kind", [data_kind(o) for o in origins])
    return table


def mark_runs(table: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Say beside every row measured on a graph which run made it, on which launch path, and
    over how many sources and trials, so a table that mixes runs says which row is which."""
    from ..claims.origin import COLUMNS, describe

    if "graph" not in table.columns or table.empty or runs.empty or "run" in table.columns:
        return table
    key = next((c for c in ("variant", "run_id", "solver") if c in table.columns and c in runs), None)
    cells = []
    for _, row in table.iterrows():
        mine = runs[runs["graph"] == row["graph"]]
        if key is not None and str(row[key]) in set(mine[key].astype(str)):
            mine = mine[mine[key].astype(str) == str(row[key])]
        cells.append(describe(mine))
    table = table.copy()
    at = list(table.columns).index("data" if "data" in table.columns else "graph") + 1
    for c in (c for c in COLUMNS if c not in table.columns):  # a table's own column stays
        table.insert(at, c, [cell[c] for cell in cells])
        at += 1
    return table


def _benchmark(path) -> pd.DataFrame:
    from ..harness.files import check_csv, job_columns

    check_csv(path)
    # the launch-path rule reads a benchmark's path as it reads a run table's, and the anchors
    # of the job that timed it as a run table's (claims/anchors.py)
    table = read_csv(path).assign(launch_path=launch_path_of(Path(path)),
                                  run=_run_label(Path(path)), job=job_of(Path(path)),
                                  **job_columns(path))
    table.attrs["origins"] = _terrain_origins(Path(path), table)
    return table


def _terrain_origins(path: Path, table: pd.DataFrame) -> dict:
    """{terrain: its origin record} for the terrains a benchmark table names (its ``terrain`` or
    ``grid`` column), read from ``terrain/<name>.zgrid.origin.json`` beside ``benchmarks/``:
    the ledger's data_kind comes from these records, never from a terrain's name."""
    from ..datasets.origin import read_origin

    out = {}
    for col in ("terrain", "grid"):
        for name in table[col].dropna().astype(str).unique() if col in table else ():
            record = path.parent.parent / "terrain" / f"{name}.zgrid.origin.json"
            if record.is_file():
                out[name] = read_origin(record)
    return out


def load_inputs(target, run_paths, source_paths, benchmark_paths=()) -> tuple:
    """What a target's compare and evidence functions read: (runs, stats, extra)."""
    from ..harness.files import read_sources

    records = [read_sources(p) for p in source_paths]
    runs = load_runs(run_paths, {r["graph"]: r.get("labels") for r in records if r.get("labels")})
    # Targets that read benchmark tables (an2017's transfers) get them by name, beside the runs.
    extra = ({"benchmarks": {Path(p).stem: _benchmark(p) for p in benchmark_paths}}
             if target.benchmarks else {})
    return runs, load_stats(source_paths), extra


def build_target_table(name: str, run_paths, source_paths, output: Path, figure: Path | None = None,
                       benchmark_paths=(), claims: Path | None = None,
                       figure_only: bool = False, design=None):
    """The target's table (its verdicts from the ledger) and figure, and its ledger rows
    (``claims``, default ``targets/<name>.claims.csv`` beside the table). ``figure_only``:
    the table as it is (e.g. a committed reference run's); only redraw the figure. ``design``:
    the config's sequential sampling (claims/sequential.py), else every source decides."""
    from ..claims import claims_path, fill_verdicts, judge_target

    target = get_target(name)
    if not target.ready:
        from ..errors import InputError

        raise InputError(f"target {name} is planned (issue {target.planned}), not built yet")
    runs, stats, extra = load_inputs(target, run_paths, source_paths, benchmark_paths)
    # compare first even when only redrawing: some figures read what it adds to the runs
    table = mark_runs(mark_data(target.compare(runs, stats, published(target.document), **extra),
                                stats), runs)
    if figure_only:
        draw_figure(target, runs, figure, **extra)
        return None
    rows = judge_target(target, runs, stats, design=design, **extra)
    table = fill_verdicts(table, rows)
    _write_csv(rows, claims or claims_path(output))
    _write_csv(table, output)
    if figure is not None:
        draw_figure(target, runs, figure, **extra)
    return table


def _write_csv(table: pd.DataFrame, output: Path) -> None:
    atomic.write_csv(table, output)


def draw_figure(target, runs: pd.DataFrame, path: Path, **extra) -> None:
    """The target's figure in the report's one style (report/figstyle.py), its caption inside
    the PNG; a figure with nothing to show is marked so the report leaves it out."""
    import inspect

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import figstyle

    figstyle.apply_theme()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    if target.figure is not None:
        if "published" in inspect.signature(target.figure).parameters:
            extra = {**extra, "published": published(target.document)}
        target.figure(runs, ax, **extra)
        drawn, notes = figstyle.finish(fig)
    else:
        drawn, notes = False, []
    if not drawn:
        fig.clf()
        fig.set_size_inches(2, 0.4)
    text = figstyle.caption(target, notes) if drawn else figstyle.NO_FIGURE
    try:
        with atomic.replacing(path) as tmp:
            fig.savefig(tmp, bbox_inches="tight", metadata={"Description": text})
    finally:
        plt.close(fig)


def _png_text(path: Path) -> str | None:
    from PIL import Image

    try:
        with Image.open(path) as im:
            return im.text.get("Description")
    except OSError:  # not a PNG we can read (a test's stand-in bytes): shown as it is
        return None


def figure_caption(path: Path) -> str | None:
    """The caption a figure carries (None: none, or a figure with nothing to show)."""
    from .figstyle import NO_FIGURE

    text = _png_text(path)
    return None if text in (None, NO_FIGURE) else text


def figure_is_empty(path: Path) -> bool:
    from .figstyle import NO_FIGURE

    return _png_text(path) == NO_FIGURE
