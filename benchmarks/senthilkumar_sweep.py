"""Benchmark (not a test): senthilkumar's solvers on one graph, and issue 6's speed goals.

    python benchmarks/senthilkumar_sweep.py GRAPH.npz [--sources 3] [--runs workfront nearfar ...]
    python benchmarks/senthilkumar_sweep.py --road-grid 1400 --sources 3
    python benchmarks/senthilkumar_sweep.py --random 875713 5105039

Prints, per run id, the median solve time over the sources (each source's median of trials),
rounds, time per round, arcs relaxed and redundant relaxations, and checks the goals on this
machine: the best hybrid within 10% of the better of workfront and near-far, and (on graphs that
are not road-like) all three faster than sequential Dijkstra. Every solve is verified.
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from bench_graph import add_graph_arguments, graph_and_sources
from graphrepro.harness import RunSpec, measure

DEFAULT_RUNS = ["dijkstra", "workfront", "nearfar", "nearfar@c=8", "nearfar@c=64",
                "hybrid@m=0.0625", "hybrid", "hybrid@m=1", "hybrid@m=4"]
HYBRID_GOAL = 1.10


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_graph_arguments(p, DEFAULT_RUNS)
    args = p.parse_args(argv)

    graph, sources, digests = graph_and_sources(args, road_keep=0.7)

    rows = []
    for run_id in args.runs:
        table = measure(graph, RunSpec(run_id, sources, digests, {}, trials=args.trials, warmup=1),
                        log=lambda m: None)
        ok = table[table["status"] == "ok"]
        if ok.empty:
            print(f"{run_id:20s} {table['status'].iloc[0]}")
            continue
        per_source = ok.groupby("source").median(numeric_only=True)
        ms = float(per_source["solve_ms"].median())

        def med(column):
            return float(per_source[column].median()) if column in per_source else float("nan")

        rounds = med("iterations")
        row = {"run": run_id, "median_ms": ms, "rounds": rounds,
               "us_per_round": ms / rounds * 1e3 if rounds == rounds and rounds else float("nan"),
               "arcs_per_arc": med("arcs_relaxed") / max(graph.num_arcs, 1),
               "redundant": med("redundant_relaxations"), "syncs": med("grid_syncs")}
        rows.append(row)
        print(f"{run_id:20s} {ms:10.2f} ms  {rounds:8.0f} rounds  {row['us_per_round']:8.2f} us/round "
              f"{row['arcs_per_arc']:7.2f} arcs/arc  {row['redundant']:12.0f} redundant "
              f"{row['syncs']:8.0f} syncs", flush=True)
    summary = pd.DataFrame(rows)
    if args.csv:
        summary.to_csv(args.csv, index=False)
    by_run = summary.set_index("run")["median_ms"] if len(summary) else pd.Series(dtype=float)
    base = {name: by_run[[r for r in by_run.index if r.split("@")[0] == name]]
            for name in ("workfront", "nearfar", "hybrid")}
    if any(s.empty for s in base.values()):
        return 0
    better = min(base["workfront"].min(), base["nearfar"].min())
    ratio = base["hybrid"].min() / better
    ok = ratio <= HYBRID_GOAL
    print(f"goal: best hybrid ({base['hybrid'].idxmin()}) within 10% of the better of workfront "
          f"and near-far: {ratio:.2f}x {'MET' if ok else 'MISSED'}")
    if "dijkstra" in by_run:
        for name, series in base.items():
            print(f"      {name} best over sequential Dijkstra: {by_run['dijkstra'] / series.min():.2f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
