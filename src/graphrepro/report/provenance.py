"""Where a reference table came from, read from the provenance files of the runs behind it.

Every run file and benchmark table of a reference run has a ``.provenance.json`` beside it
(commit, config hash, date, device). A reference table is credited with the records of exactly
the runs it reads, so a table rebuilt from later calls names those calls' commits. A table copied
from a call of its own names that call's records in ``targets/<target>.runs`` (one path below the
reference folder a line).
"""

from __future__ import annotations

from pathlib import Path

from ..bounded import read_csv
from ..harness.files import read_record
from ..harness.shards import job_records
from ..solvers import run_file, run_file_id


def _record_paths(reference: Path, target, settings: dict | None) -> list[Path]:
    listed = reference / "targets" / f"{target.name}.runs"
    if listed.is_file():  # a table copied from a call of its own (frontier_sssp: peers/): its runs
        lines = [line.strip() for line in listed.read_text().splitlines()]
        return [reference / line for line in lines
                if line and not line.startswith("#") and (reference / line).is_file()]
    run_ids = (settings or {}).get("runs") or list(target.solvers)
    graphs = (settings or {}).get("graphs")
    paths = []
    for r in run_ids:
        if graphs:
            paths += [run_file(reference / "runs" / g, r, ".provenance.json") for g in graphs]
        else:
            found = {p.parent for s in {r, run_file_id(r)}
                     for p in reference.glob(f"runs/*/{s}.provenance.json")}
            paths += sorted(run_file(folder, r, ".provenance.json") for folder in found)
    paths += [reference / "benchmarks" / f"{b}.provenance.json" for b in target.benchmarks]
    return [p for p in paths if p.is_file()]


def table_provenance(reference: Path, target, settings: dict | None = None) -> list[dict]:
    """One entry per (commit, device) among the target's runs: how many runs, and
    the dates they span. Empty when none of its runs left a record."""
    groups: dict[tuple, dict] = {}
    for p in _record_paths(reference, target, settings):
        by_key: dict[tuple, list[str]] = {}
        # a table merged from shards: each shard's own commit and device (shards made by two
        # calls credit both); one line per commit and device, config hashes differing per run
        for rec in job_records(read_record(p, "a provenance record")):
            key = (str(rec.get("commit", "?"))[:12], rec.get("gpu") or rec.get("cpu", "?"))
            by_key.setdefault(key, []).append(str(rec.get("date", ""))[:16].replace("T", " "))
        for key, dates in by_key.items():
            g = groups.setdefault(key, {"commit": key[0], "device": key[1], "dates": [], "runs": 0})
            g["runs"] += 1
            g["dates"] += dates
    out = []
    for g in groups.values():
        dates = sorted(d for d in g.pop("dates") if d)
        g["date"] = dates[0] if len(set(dates)) <= 1 else f"{dates[0]} to {dates[-1]}"
        out.append(g)
    return sorted(out, key=lambda g: g["date"])


def benchmark_devices(reference: Path, target) -> list[str]:
    """For benchmark tables without a record: the devices their own rows name."""
    devices: set[str] = set()
    for b in target.benchmarks:
        p = reference / "benchmarks" / f"{b}.csv"
        if p.is_file():
            df = read_csv(p, usecols=lambda c: c == "device_name", dtype=str)
            if "device_name" in df:
                devices |= set(df["device_name"].dropna())
    return sorted(devices)
