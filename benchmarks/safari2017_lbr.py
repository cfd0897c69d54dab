"""Benchmark (not a test): safari2017's solvers on one graph, and the issue's speed goals.

    python benchmarks/safari2017_lbr.py GRAPH.npz [--sources 5] [--runs harish lbr ...]
    python benchmarks/safari2017_lbr.py --road-grid 2500 --sources 3

Prints, per run id, the median solve time over the sources (each source's median of trials),
iterations, launches and time per iteration, and checks the goals of issue 5 on this machine:
the persistent (no round trip) variant at least 10x faster than Harish, and LBR's best (k, t)
at least the paper's lowest speedup (3.36x) over Harish. Every solve is verified.
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from bench_graph import add_graph_arguments, graph_and_sources
from graphrepro.harness import RunSpec, measure

DEFAULT_RUNS = ["harish", "lbr", "lbr@k=2,t=2", "lbr@k=5,t=2",
                "lbr_persistent@frontier=flags", "lbr_persistent@k=1,t=1", "lbr_persistent@k=2,t=1",
                "lbr_persistent@k=2,t=2", "lbr_persistent@k=3,t=1", "lbr_persistent"]
PERSISTENT_GOAL = 10.0
LBR_GOAL = 3.36


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_graph_arguments(p, DEFAULT_RUNS)
    args = p.parse_args(argv)

    graph, sources, digests = graph_and_sources(args, road_keep=0.6)

    rows = []
    calibration = {}
    for run_id in args.runs:
        params = dict(calibration) if run_id.split("@")[0] == "lbr" else {}
        table = measure(graph, RunSpec(run_id, sources, digests, params, trials=args.trials,
                                       warmup=1), log=lambda m: None)
        ok = table[table["status"] == "ok"]
        if ok.empty:
            print(f"{run_id:28s} {table['status'].iloc[0]}")
            continue
        per_source = ok.groupby("source").median(numeric_only=True)
        if run_id == "harish":
            calibration = {"calibration_iterations": int(ok["iterations"].min())}
        ms = float(per_source["solve_ms"].median())
        iterations = float(per_source["iterations"].median())
        row = {"run": run_id, "median_ms": ms, "iterations": iterations,
               "launches": float(per_source["kernel_launches"].median()),
               "round_trips": float(per_source["host_round_trips"].median()),
               "us_per_iteration": ms / max(iterations, 1) * 1e3,
               "upload_ms": float(ok["upload_ms"].median()),
               "arcs_relaxed": float(per_source["arcs_relaxed"].median()),
               "blocks": float(per_source["resident_blocks"].median())
               if "resident_blocks" in per_source else None}
        rows.append(row)
        print(f"{run_id:28s} {ms:10.2f} ms  {iterations:8.0f} it  {row['launches']:8.0f} launches "
              f"{row['round_trips']:7.0f} trips  {row['us_per_iteration']:8.2f} us/it "
              f"{row['arcs_relaxed'] / 1e6:8.1f} M arcs" + (f"  {row['blocks']:.0f} blocks" if row["blocks"] else ""),
              flush=True)
    summary = pd.DataFrame(rows)
    if args.csv:
        summary.to_csv(args.csv, index=False)
    by_run = summary.set_index("run")["median_ms"] if len(summary) else pd.Series(dtype=float)
    if "harish" not in by_run:
        return 0
    harish = by_run["harish"]
    persistent = by_run[[r for r in by_run.index if r.startswith("lbr_persistent")]]
    lbr = by_run[[r for r in by_run.index if r.split("@")[0] == "lbr"]]
    ok = True
    if len(persistent):
        best = persistent.idxmin()
        speedup = harish / persistent.min()
        hit = speedup >= PERSISTENT_GOAL
        ok &= hit
        print(f"goal: persistent >= {PERSISTENT_GOAL:g}x Harish: {speedup:.1f}x ({best}) "
              f"{'MET' if hit else 'MISSED'}")
    if len(lbr):
        best = lbr.idxmin()
        speedup = harish / lbr.min()
        hit = speedup >= LBR_GOAL
        ok &= hit
        print(f"goal: LBR best (k, t) >= {LBR_GOAL:g}x Harish: {speedup:.2f}x ({best}) "
              f"{'MET' if hit else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
