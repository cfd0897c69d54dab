"""Departures from a document's method, read off the tables a claim read.

A departure is something our run did differently from the document in a way that can move the
number: it is said on every ledger row that read such a table (the ``departure`` column), so a
verdict is never signed without it. Each is detected from what the tables record, not from a
claim's name, so a run that does as the document did loses the note by itself.
"""

from __future__ import annotations

import json

import pandas as pd


def departures(tables) -> list[str]:
    """The departures of [(table name, rows)], each said once, in a fixed order."""
    found: list[str] = []
    for check in (_threads, _one_launch, _padding, _bgl_hand_off, _cap):
        for name, rows in tables:
            note = check(name, rows)
            if note and note not in found:
                found.append(note)
    return found


def _threads(name: str, rows: pd.DataFrame) -> str | None:
    """gerritsen2012 chapter 5 times its CPU Dijkstra as one program; ours used cpu_threads."""
    if "cpu_threads" not in rows:
        return None
    threads = pd.to_numeric(rows["cpu_threads"], errors="coerce").dropna()
    if threads.empty or threads.max() <= 1:
        return None
    return (f"CPU Dijkstra on {int(threads.max())} threads (cpu_threads), against the thesis's "
            f"single-threaded program")


def _one_launch(name: str, rows: pd.DataFrame) -> str | None:
    """Algorithm 9 loops over a block's boundary Dijkstras on the host; ours launches them all
    at once."""
    if "impl" not in rows or not (rows["impl"].astype(str) == "gpu_alg2").any():
        return None
    return ("GPU algorithm 2 runs all of a block's boundary Dijkstras in one launch, against "
            "Algorithm 9's host loop of one launch each")


def _padding(name: str, rows: pd.DataFrame) -> str | None:
    """Chapter 3's centre blocks of the padded 2^15 grid: those wholly past the terrain's rows or
    columns are all zero, which the thesis's real terrain has none of."""
    need = {"bx", "by", "block_side", "rows", "cols"}
    if not need <= set(rows.columns):
        return None
    blocks = rows.drop_duplicates(["bx", "by"])
    side = pd.to_numeric(blocks["block_side"], errors="coerce")
    pad = ((pd.to_numeric(blocks["bx"], errors="coerce") * side >= blocks["cols"])
           | (pd.to_numeric(blocks["by"], errors="coerce") * side >= blocks["rows"]))
    if not pad.any():
        return None
    return (f"{int(pad.sum()):,} of the {len(blocks):,} centre blocks timed are all-zero "
            f"padding past the terrain's {int(blocks['rows'].iloc[0]):,} x "
            f"{int(blocks['cols'].iloc[0]):,} points")


def _bgl_hand_off(name: str, rows: pd.DataFrame) -> str | None:
    """Our BGL baseline runs in a separate C++ process: its time includes writing the edge list
    that process reads, which an in-process BGL call does not pay."""
    if "variant" not in rows or not rows["variant"].astype(str).str.startswith("bgl").any():
        return None
    return ("the BGL baseline's time includes writing the edge list for its separate process, "
            "which the document's in-process call does not pay")


def _cap(name: str, rows: pd.DataFrame) -> str | None:
    """Table 5.7's memory cap: a departure where it held the heap only (RLIMIT_DATA, the host
    delegating no memory cgroup) and the capped runs' resident memory, the pages of the
    memory-mapped grid and G' that the thesis's machine paged, rose past it."""
    if not {"cap", "max_rss_mib"} <= set(rows.columns):
        return None
    capped = rows[rows["cap"].astype(str).str.startswith("{\"")]
    if capped.empty:
        return None
    cap = json.loads(str(capped["cap"].iloc[0]))
    if "cgroup" in cap:  # a cgroup charges every page it holds: it binds
        return None
    rss = pd.to_numeric(capped["max_rss_mib"], errors="coerce").dropna()
    limit = float(cap.get("limit_mib", float("nan")))
    if rss.empty or not rss.max() > limit:
        return None
    return (f"the {cap.get('budget_mib', 238):g} MB memory cap bound the heap only: "
            f"{cap.get('rlimit', 'the limit')} held it at {limit:g} MiB while the memory-mapped "
            f"grid and G' brought resident memory to {rss.min():.0f}-{rss.max():.0f} MiB")
