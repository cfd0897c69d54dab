"""Whether a results folder holds one whole run of a config: the check before a run becomes the
reference (`retabulate --complete RUN_NAME`).

A target table is tabulated from whatever it finds, so a part of a run, a table left from another
run, or a baseline this machine could not build would each pass into the report unnoticed. Here
each of those is named instead: every run file and benchmark table the config's ready targets
read, each made by the named run (its provenance record's ``run_name``), and none holding rows of
a program that was never built. Its tables must name one GPU model: timings of two kinds of card
never share a reference. The run's own record (``provenance.json``, what the report's overview
and provenance say of the reference run) is then drawn from the tables' records.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .bounded import load_json, read_csv
from .errors import InputError
from .native import NotBuildableHere

# The reference pieced together from runs 1 and 2 (before `retabulate --complete` wrote a run's
# record) names no config files: it was made with these.
PIECED_CONFIGS = ("config/config.yaml", "config/h100.yaml")


def reference_configfiles(reference: Path, base: Path = Path(".")) -> list[Path]:
    """The config files the committed reference run was made with, merged in this order, under
    ``base`` (the repository): those its own record names (``provenance.json``, written by
    `retabulate --complete`), else the pieced reference's."""

    record, path = {}, Path(reference) / "provenance.json"
    if path.is_file():
        try:
            record = load_json(path)
        except (OSError, ValueError) as e:
            raise InputError(f"{path}: not the reference run's record ({e})") from None
    names = record.get("configfiles") if isinstance(record, dict) else None
    if names is None:
        names = list(PIECED_CONFIGS)
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise InputError(f"{path}: configfiles should be a list of config file paths, "
                         f"not {names!r}")
    return [Path(base) / n for n in names]


def expected_tables(config: dict, root: Path) -> list[Path]:
    """Every run file and benchmark table the config's ready targets read, and those the
    terrain comparison reads, under ``root``: each with its provenance record."""
    from .configs import terrain_compare_parts
    from .experiments import get_target
    from .plan import plan_runs
    from .solvers import run_file

    paths = [run_file(root / "runs" / r.graph, r.run_id) for r in plan_runs(config, root, root)]
    for name in config.get("targets") or {}:
        target = get_target(name)
        if target.ready:
            paths += [root / "benchmarks" / f"{b}.csv" for b in target.benchmarks]
    terrains, variants = terrain_compare_parts(config)
    for terrain in terrains:
        paths += [root / "benchmarks" / "terrain_compare" / f"{terrain}_{part}.csv"
                  for part in (*(f"mst_{v}" for v in variants), "sssp")]
    return list(dict.fromkeys(paths))


def derived_tables(config: dict, root: Path) -> list[Path]:
    """The tables the report shows beside the targets', made from the run's graphs and tables
    with no record of their own: the stand-ins against the real graphs, and the real terrain
    against its stand-in where the config compares them."""
    from .configs import terrain_compare_parts

    return [root / "standins" / "standins.csv",
            *([root / "standins" / "terrain_compare.csv"] if terrain_compare_parts(config)[0]
              else [])]


def _made_by(table: Path) -> str:
    """The run that made a table, by its provenance record, said as a gap's line ends."""
    from .harness.files import read_provenance

    try:
        record = read_provenance(table)
    except InputError as e:  # a damaged record is a gap too, named, not the end of the list
        return f"a damaged record ({e})"
    return (record or {}).get("run_name") or "a run with no run_name"


def _never_built(table: Path) -> int:
    try:
        status = read_csv(table, usecols=lambda c: c == "status", dtype=str)
    except (OSError, ValueError, pd.errors.ParserError):
        return 0  # an unreadable table is the tabulation's to refuse, with its own message
    if "status" not in status:
        return 0
    return int(status["status"].fillna("").str.startswith(NotBuildableHere.status).sum())


def _missing_passes(table: Path, repeats: list[int]) -> list[int]:
    """The configured repeat shards (block_repeat_shards) a chapter-3 block table holds no
    second pass of: without them its comparisons allow for no drift between passes."""
    from .configs import is_block_table
    from .harness.block_shards import passes

    if not repeats or not is_block_table(table.stem):
        return []
    try:
        df = read_csv(table, usecols=lambda c: c in ("pass", "shard", "status"), dtype=str)
    except (OSError, ValueError, pd.errors.ParserError):
        return []  # the tabulation refuses an unreadable table, with its own message
    if "status" in df and not (df["status"] == "ok").any():
        return []  # not run here (no GPU): its row says why; there is no timing to drift
    if "shard" not in df:
        return list(repeats)
    again = df.loc[passes(df) == 2, "shard"].dropna().str.split("/").str[0].str.strip()
    return [i for i in repeats if str(i) not in set(again)]


def _records(tables: list[Path]) -> list[dict]:
    """Every job's own record behind the tables: a merged table's shards, else its record (a
    missing or damaged record is a gap already named)."""
    from .harness.files import read_provenance
    from .harness.shards import job_records

    out = []
    for table in tables:
        try:
            record = read_provenance(table) if table.is_file() else None
        except InputError:
            continue
        if isinstance(record, dict):
            out += job_records(record)
    return out


def _unrecorded(table: Path) -> list[str]:
    """What the job records behind ``table`` leave out of what a reference run's provenance
    names (the commit, the launch path, the job's wall time, and the PCI id where a GPU ran
    it): one phrase per missing field, with how many of the table's jobs lack it."""
    missing: dict[str, int] = {}
    for r in _records([table]):
        lacks = [f for f in ("commit", "launch_path") if not r.get(f)]
        if not isinstance(r.get("job"), dict) or r["job"].get("wall_s") in (None, ""):
            lacks.append("job.wall_s")
        if _gpu(r) and not r.get("pci_bus_id"):
            lacks.append("pci_bus_id")
        for f in lacks:
            missing[f] = missing.get(f, 0) + 1
    return [f"{n} job record(s) with no {f}" for f, n in missing.items()]


def _gpu(record: dict) -> str | None:
    gpu = record.get("gpu")
    return gpu if isinstance(gpu, str) and gpu and gpu != "none" else None


def _mixed_cards(records: list[dict]) -> list[str]:
    counts: dict[str, int] = {}
    for r in records:
        if gpu := _gpu(r):
            counts[gpu] = counts.get(gpu, 0) + 1
    if len(counts) < 2:
        return []
    return [f"the tables were timed on {len(counts)} GPU models ("
            + ", ".join(f"{g}: {n} job(s)" for g, n in sorted(counts.items()))
            + "): one run, one kind of card"]


def gaps(config: dict, root: Path, run_name: str) -> list[str]:
    """One line for each table that keeps ``root`` from being one whole run ``run_name`` of
    ``config``: missing, made by another run (or by none named), with job records that leave out
    the commit, the launch path, the job's wall time or the GPU's PCI id, holding never-built
    rows, or a chapter-3 block table without the second passes the config asks for; each
    derived table missing; and one where its jobs ran on more than one GPU model."""
    from .configs import block_repeats

    out = []
    repeats = block_repeats(config)
    tables = expected_tables(config, root)
    for table in tables:
        if not table.is_file():
            out.append(f"{table}: missing")
            continue
        made_by = _made_by(table)
        if made_by != run_name:
            out.append(f"{table}: made by {made_by}, not {run_name}")
        elif lacking_fields := _unrecorded(table):
            out.append(f"{table}: " + "; ".join(lacking_fields))
        if count := _never_built(table):
            out.append(f"{table}: {count} row(s) of a program never built on that machine")
        if lacking := _missing_passes(table, repeats):
            out.append(f"{table}: no second pass of shard(s) {', '.join(map(str, lacking))} "
                       "(block_repeat_shards): no drift between passes to allow for")
    out += [f"{table}: missing" for table in derived_tables(config, root) if not table.is_file()]
    return out + _mixed_cards(_records(tables))


def _one_or_all(values) -> str | None:
    """The one value the records agree on, or all of them in order of appearance, joined."""
    seen = [v for v in dict.fromkeys(values) if v not in (None, "")]
    return " | ".join(map(str, seen)) if seen else None


def run_record(config: dict, root: Path, run_name: str, configfiles: list[str]) -> dict:
    """The whole run's record (the reference's ``provenance.json``), from its tables' own: the
    card, driver, CUDA, CPU and packages they name (one value, or each value where they differ),
    and each commit with the first and last job it made. A device call records no name of its
    own in a table, so the commits, not the calls, are what is listed; the run's README has the
    calls."""
    records = sorted(_records(expected_tables(config, root)), key=lambda r: str(r.get("date", "")))
    gpu_records = [r for r in records if _gpu(r)]
    commits: dict[str, dict] = {}
    for r in records:
        commit, date = str(r.get("commit") or "?"), str(r.get("date") or "")
        entry = commits.setdefault(commit, {"commit": commit, "first": date, "last": date, "jobs": 0})
        entry["last"], entry["jobs"] = date, entry["jobs"] + 1
    packages = {name: _one_or_all((r.get("packages") or {}).get(name) for r in records)
                for name in dict.fromkeys(k for r in records for k in (r.get("packages") or {}))}
    *base, last = configfiles
    return {
        "run_name": run_name,
        "date": records[-1].get("date") if records else None,
        "gpu": _one_or_all(_gpu(r) for r in gpu_records),
        "driver": _one_or_all(r.get("driver") for r in gpu_records),
        "cuda_runtime": _one_or_all(r.get("cuda_runtime") for r in gpu_records),
        "pci_bus_ids": sorted({r["pci_bus_id"] for r in gpu_records if r.get("pci_bus_id")}),
        "cpu": _one_or_all(r.get("cpu") for r in records),
        "host": _one_or_all(r.get("host") for r in records),
        "python": _one_or_all(r.get("python") for r in records),
        "packages": packages,
        # whether every table's record names its whole environment, not only seven packages
        "packages_complete": bool(records) and all(r.get("packages_complete") for r in records),
        "config": last + (f" (over {', '.join(base)})" if base else ""),
        "configfiles": list(configfiles),
        "config_hash": _one_or_all(r.get("config_hash") for r in records),
        "commit": ", ".join(commits),
        "commits": list(commits.values()),
        "jobs": len(records),
    }


def require_whole_run(config: dict, root: Path, run_name: str, shown: int = 20) -> None:
    """Refuse (InputError) unless ``root`` holds one whole run ``run_name`` of ``config``."""
    found = gaps(config, root, run_name)
    if found:
        more = f"\n... and {len(found) - shown} more" if len(found) > shown else ""
        raise InputError(f"{root} is not one whole run '{run_name}' of the config "
                         f"({len(found)} gap(s)):\n" + "\n".join(found[:shown]) + more)
