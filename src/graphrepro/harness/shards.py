"""A graph's sources split across jobs (one per GPU), and the shards' run tables merged back.

Shards are contiguous slices of the drawn sources, so the merged table lists sources in the same
order as a run over all of them; each shard warms up on its own first source, as a whole run does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..bounded import load_json, read_csv
from ..errors import InputError


def parse_shard(text: str) -> tuple[int, int]:
    """'I/N' -> (I, N), shard I (from 0) of N."""
    m = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not m or not 0 <= int(m[1]) < int(m[2]):
        raise InputError(f"--shard {text!r}: give I/N with 0 <= I < N, e.g. 0/2")
    return int(m[1]), int(m[2])


def shard_slice(count: int, shard: tuple[int, int]) -> slice:
    """The contiguous slice of `count` sources that shard (I, N) runs (sizes differ by one at
    most); a shard past the last source is empty."""
    i, n = shard
    base, extra = divmod(count, n)
    start = i * base + min(i, extra)
    return slice(start, start + base + (1 if i < extra else 0))


def merge_run_tables(paths: list[Path]) -> pd.DataFrame:
    """The shards' run tables, in shard order, as one table (the shards of one solver on one
    graph: anything else is refused)."""
    tables = [read_csv(p) for p in paths]
    check_alike(paths, tables, ("graph", "solver"))
    return pd.concat(tables, ignore_index=True)


def check_alike(paths: list[Path], tables: list[pd.DataFrame], keys,
                problem: str = "{path}: shards of different {key}s cannot be merged: {seen}"
                ) -> None:
    """Shards of one measurement agree on every one of ``keys`` they record; else ``problem``,
    naming the first path, the key and the values seen."""
    for key in keys:
        seen = sorted({str(v) for t in tables if key in t for v in t[key].dropna().unique()})
        if len(seen) > 1:
            raise InputError(problem.format(path=paths[0], key=key, seen=", ".join(seen)))


def merge_provenance(paths: list[Path]) -> dict:
    """Shard 0's record (host, GPU, commit) with every shard's own record under "shards"."""
    records = [load_json(Path(p)) for p in paths if Path(p).is_file()]
    if not records:
        return {}
    return {**records[0], "shards": records}


def job_records(record: dict) -> list[dict]:
    """The records of the jobs behind one table's record: each shard's where it was merged from
    shards (shard 0's alone heads it), and each repeat's (a shard timed again as a second
    pass: `merge-blocks --repeats`), else the record itself."""
    shards = record.get("shards")
    if not isinstance(shards, list):
        return [record]
    repeats = record.get("repeats")
    return [r for r in [*shards, *(repeats if isinstance(repeats, list) else [])]
            if isinstance(r, dict)]
