"""gerritsen2012 chapter 5, our side: reading the benchmark tables that
``gerritsen2012_sssp_run`` writes, alike for the chapter's targets (``gerritsen2012_sssp``) and
its evidence (``gerritsen2012_sssp_evidence``), and section 5.1's count of kernel launches that
both set beside ours."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

VERTICES = 1 << 20  # the thesis's unit: seconds per 2^20 vertices


def bench_table(benchmarks, table) -> pd.DataFrame:
    """Table ``table``'s benchmark rows (``gerritsen2012_<table>``); empty when not measured."""
    df = (benchmarks or {}).get(f"gerritsen2012_{table}")
    return df if df is not None else pd.DataFrame()


def has_time(r) -> bool:
    """A run (or row) that gives a time: finished, or stopped and extrapolated from its progress."""
    status = str(r.get("status", ""))
    return status == "ok" or status.startswith("extrapolated")


def _timed_alg1_row(b: pd.DataFrame, variant: str):
    """GPU algorithm 1's ``variant`` row (Tables 5.2, 5.3), or None when it gave no time."""
    g = b[(b["impl"] == "gpu_alg1") & (b["variant"] == variant)] if len(b) else b
    return g.iloc[0] if len(g) and has_time(g.iloc[0]) else None


def gpu_alg1_block_ms(b: pd.DataFrame, variant: str) -> float | None:
    """The mean per-I/O-block ms of GPU algorithm 1's ``variant`` launch (Tables 5.2, 5.3), or
    None when it gave no time."""
    r = _timed_alg1_row(b, variant)
    return None if r is None else float(np.mean(json.loads(r["batch_ms"])))


def trial_ratios(b: pd.DataFrame, variant: str) -> list[float]:
    """Each interleaved trial's ratio of ``variant``'s mean per-I/O-block time to the 2-D run's
    in the same trial (Tables 5.2, 5.3: the two take turns, so a drift of the machine hits both
    alike); empty for a table timed once each, or where either side gave no time."""
    if "trial_ms" not in b:
        return []
    rows = [_timed_alg1_row(b, "2d"), _timed_alg1_row(b, variant)]
    if any(r is None or not str(r["trial_ms"]).startswith("[") for r in rows):
        return []
    a, v = (json.loads(r["trial_ms"]) for r in rows)
    return [float(y) / float(x) for x, y in zip(a, v)]


def launch_arithmetic(m: int, c: int) -> int:
    """Section 5.1's count of kernel launches per I/O-block: each of the (m/c)^2 (4c - 4) GPU-block
    boundary vertices starts 2 + ceil(log2 of their number) kernels, once per I/O-block boundary
    vertex (4m - 4). M = 64^2, C = 16^2: 960 x 12 x 252 = 2,903,040."""
    g = (m // c) ** 2 * (4 * c - 4)
    return g * (2 + math.ceil(math.log2(g))) * (4 * m - 4)
