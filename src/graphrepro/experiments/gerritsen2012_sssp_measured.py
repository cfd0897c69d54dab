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


def gpu_alg1_block_ms(b: pd.DataFrame, variant: str) -> float | None:
    """The mean per-I/O-block ms of GPU algorithm 1's ``variant`` launch (Tables 5.2, 5.3), or
    None when it gave no time."""
    g = b[(b["impl"] == "gpu_alg1") & (b["variant"] == variant)] if len(b) else b
    if not len(g) or not has_time(g.iloc[0]):
        return None
    return float(np.mean(json.loads(g["batch_ms"].iloc[0])))


def trial_ratios(b: pd.DataFrame, variant: str) -> list[float]:
    """Each interleaved trial's ratio of ``variant``'s mean per-I/O-block time to the 2-D run's
    in the same trial (Tables 5.2, 5.3: the two take turns, so a drift of the machine hits both
    alike); empty for a table timed once each, or where either side gave no time."""
    if not len(b) or "trial_ms" not in b:
        return []
    g = b[b["impl"] == "gpu_alg1"]
    two, var = g[g["variant"] == "2d"], g[g["variant"] == variant]
    if not len(two) or not len(var) or not has_time(two.iloc[0]) or not has_time(var.iloc[0]):
        return []
    cells = [two["trial_ms"].iloc[0], var["trial_ms"].iloc[0]]
    if any(not isinstance(x, str) or not x.startswith("[") for x in cells):
        return []
    a, v = (json.loads(x) for x in cells)
    return [float(y) / float(x) for x, y in zip(a, v)]


def launch_arithmetic(m: int, c: int) -> int:
    """Section 5.1's count of kernel launches per I/O-block: each of the (m/c)^2 (4c - 4) GPU-block
    boundary vertices starts 2 + ceil(log2 of their number) kernels, once per I/O-block boundary
    vertex (4m - 4). M = 64^2, C = 16^2: 960 x 12 x 252 = 2,903,040."""
    g = (m // c) ** 2 * (4 * c - 4)
    return g * (2 + math.ceil(math.log2(g))) * (4 * m - 4)
