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


def trial_ratios(b: pd.DataFrame, variant: str, column: str = "trial_ms",
                 against: str = "2d") -> list[float]:
    """Each interleaved trial's ratio of ``variant``'s mean per-I/O-block time to the
    ``against`` run's in the same trial (Tables 5.2, 5.3: they take turns, so a drift of the
    machine hits both alike); empty for a table timed once each, or where either side gave no
    time. ``column`` ``trial_part1_ms``: part 1's time alone, the part the 3-D and z-order
    variants change."""
    if column not in b:
        return []
    rows = [_timed_alg1_row(b, against), _timed_alg1_row(b, variant)]
    if any(r is None or not str(r[column]).startswith("[") for r in rows):
        return []
    a, v = (json.loads(r[column]) for r in rows)
    out = [float(y) / float(x) for x, y in zip(a, v) if float(x) > 0]
    return [r for r in out if math.isfinite(r)]


def cpu_block_ms(benchmarks) -> dict:
    """{(table, M): CPU phase 1's ms per block} where Tables 5.1, 5.4 and 5.7 timed it: the same
    work (Dijkstra from each boundary vertex of an M x M block) timed in each table's own job."""
    out = {}
    for table in ("table5_1", "table5_4"):
        b = bench_table(benchmarks, table)
        if not {"impl", "status", "block", "blocks", "step_ms"} <= set(b.columns):
            continue
        for _, r in b[(b["impl"] == "cpu_dijkstra") & (b["status"] == "ok")].iterrows():
            if float(r["blocks"] or 0) > 0:
                out[(table, int(r["block"]))] = float(r["step_ms"]) / float(r["blocks"])
    b = bench_table(benchmarks, "table5_7")
    if {"impl", "status", "block", "window", "seconds"} <= set(b.columns):
        for _, r in b[(b["impl"] == "cpu_dijkstra") & (b["status"] == "ok")].iterrows():
            m, window = int(float(r["block"])), float(r["window"])
            out[("table5_7", m)] = float(r["seconds"]) * 1e3 / (window / m) ** 2
    return out


def cpu_drift(benchmarks) -> tuple[float | None, str]:
    """How far the same CPU phase-1 work moved between the chapter's jobs: the largest ratio, less
    1, of one block size's per-block time between the tables that timed it (e.g. 28.5, 51.1 and
    110.9 ms for a 64 x 64 block in Tables 5.1, 5.4 and 5.7); (None, why) with no size in two."""
    times = cpu_block_ms(benchmarks)
    by_m: dict = {}
    for (table, m), ms in times.items():
        by_m.setdefault(m, {})[table] = ms
    shared = {m: t for m, t in by_m.items() if len(t) >= 2}
    if not shared:
        return None, "no block size's CPU phase 1 timed in two of Tables 5.1, 5.4 and 5.7"
    m, t = max(shared.items(), key=lambda kv: max(kv[1].values()) / min(kv[1].values()))
    drift = max(t.values()) / min(t.values()) - 1
    return drift, (f"CPU phase 1 on one {m} x {m} block: " + ", ".join(
        f"{ms:.3g} ms in Table {table.removeprefix('table').replace('_', '.')}"
        for table, ms in sorted(t.items())))


def part1_ratios(b: pd.DataFrame, variant: str, against: str = "2d") -> list[float]:
    """:func:`trial_ratios` of part 1 alone (empty where the table did not record it)."""
    return trial_ratios(b, variant, "trial_part1_ms", against)


def part1_share(b: pd.DataFrame, variant: str) -> str:
    """How little of GPU algorithm 1 a variant touches, from its counters: "544 of 1,223,184
    launches" (part 1's of all), and whether its counters equal the 2-D run's."""
    rows = [_timed_alg1_row(b, "2d"), _timed_alg1_row(b, variant)]
    if any(r is None for r in rows):
        return ""
    a, v = (json.loads(str(r["counters"]) or "{}") for r in rows)
    if "part1_launches" not in v:
        return ""
    same = "identical to" if a == v else "unlike"
    return (f"{v['part1_launches']:,} of {v['kernel_launches']:,} launches are part 1's; the "
            f"counters {same} the 2-D run's")


def launch_arithmetic(m: int, c: int) -> int:
    """Section 5.1's count of kernel launches per I/O-block: each of the (m/c)^2 (4c - 4) GPU-block
    boundary vertices starts 2 + ceil(log2 of their number) kernels, once per I/O-block boundary
    vertex (4m - 4). M = 64^2, C = 16^2: 960 x 12 x 252 = 2,903,040."""
    g = (m // c) ** 2 * (4 * c - 4)
    return g * (2 + math.ceil(math.log2(g))) * (4 * m - 4)


def scaled_sample(row) -> np.ndarray | None:
    """A cell timed on a sample of blocks and scaled to the whole (Table 5.7's CPU phase 1 on its
    centre blocks): each batch's ms per block, the units whose spread is the scaling's error;
    None for a cell timed whole, or sampled in fewer than two batches."""
    try:
        ms, blocks = json.loads(str(row["batch_ms"])), json.loads(str(row["batch_blocks"]))
    except (KeyError, ValueError):
        return None
    if not isinstance(ms, list) or not isinstance(blocks, list) or len(ms) != len(blocks) \
            or len(ms) < 2 or min(blocks) < 1:
        return None
    return np.asarray(ms, dtype=float) / np.asarray(blocks, dtype=float)


def rescaled(value: float, sample: np.ndarray, resample: np.ndarray) -> float:
    """A value scaled from ``sample``'s per-block times, as a resample of them would scale it:
    the whole's time moves with the mean per-block time (blocks_total x mean per block)."""
    return value * float(np.mean(resample)) / float(np.mean(sample))
