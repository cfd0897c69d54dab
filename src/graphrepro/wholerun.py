"""Whether a results folder holds one whole run of a config: the check before a run becomes the
reference (`retabulate --complete RUN_NAME`).

A target table is tabulated from whatever it finds, so a part of a run, a table left from another
run, or a baseline this machine could not build would each pass into the report unnoticed. Here
each of those is named instead: every run file and benchmark table the config's ready targets
read, each made by the named run (its provenance record's ``run_name``), and none holding rows of
a program that was never built.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .errors import InputError
from .native import NotBuildableHere


def expected_tables(config: dict, root: Path) -> list[Path]:
    """Every run file and benchmark table the config's ready targets read, under ``root``."""
    from .experiments import get_target
    from .plan import plan_runs
    from .solvers import run_file

    paths = [run_file(root / "runs" / r.graph, r.run_id) for r in plan_runs(config, root, root)]
    for name in config.get("targets") or {}:
        target = get_target(name)
        if target.ready:
            paths += [root / "benchmarks" / f"{b}.csv" for b in target.benchmarks]
    return list(dict.fromkeys(paths))


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
        status = pd.read_csv(table, usecols=lambda c: c == "status", dtype=str)
    except (OSError, ValueError, pd.errors.ParserError):
        return 0  # an unreadable table is the tabulation's to refuse, with its own message
    if "status" not in status:
        return 0
    return int(status["status"].fillna("").str.startswith(NotBuildableHere.status).sum())


def gaps(config: dict, root: Path, run_name: str) -> list[str]:
    """One line for each table that keeps ``root`` from being one whole run ``run_name`` of
    ``config``: missing, made by another run (or by none named), or holding never-built rows."""
    out = []
    for table in expected_tables(config, root):
        if not table.is_file():
            out.append(f"{table}: missing")
            continue
        made_by = _made_by(table)
        if made_by != run_name:
            out.append(f"{table}: made by {made_by}, not {run_name}")
        if count := _never_built(table):
            out.append(f"{table}: {count} row(s) of a program never built on that machine")
    return out


def require_whole_run(config: dict, root: Path, run_name: str, shown: int = 20) -> None:
    """Refuse (InputError) unless ``root`` holds one whole run ``run_name`` of ``config``."""
    found = gaps(config, root, run_name)
    if found:
        more = f"\n... and {len(found) - shown} more" if len(found) > shown else ""
        raise InputError(f"{root} is not one whole run '{run_name}' of the config "
                         f"({len(found)} gap(s)):\n" + "\n".join(found[:shown]) + more)
