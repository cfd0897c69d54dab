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
import time

import pandas as pd

from graphrepro import verify
from graphrepro.cli import load_graph
from graphrepro.graph import generate
from graphrepro.harness import RunSpec, draw_sources, measure

DEFAULT_RUNS = ["dijkstra", "workfront", "nearfar", "nearfar@c=8", "nearfar@c=64",
                "hybrid@m=0.0625", "hybrid", "hybrid@m=1", "hybrid@m=4"]
HYBRID_GOAL = 1.10


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("graph", nargs="?", help="a graph file or .npz cache")
    p.add_argument("--road-grid", type=int, help="generate a side x side road-like grid instead")
    p.add_argument("--random", type=int, nargs=2, metavar=("VERTICES", "ARCS"),
                   help="generate a uniform random graph instead")
    p.add_argument("--sources", type=int, default=3)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--seed", type=int, default=20170901)
    p.add_argument("--runs", nargs="+", default=DEFAULT_RUNS)
    p.add_argument("--csv", help="also write the per-run summary here")
    args = p.parse_args(argv)

    t0 = time.perf_counter()
    if args.road_grid:
        graph = generate.road_grid(args.road_grid, args.road_grid, keep=0.7, max_weight=1000,
                                   seed=3, name=f"road_{args.road_grid}x{args.road_grid}")
    elif args.random:
        graph = generate.random_digraph(*args.random, max_weight=1000, seed=3,
                                        name=f"random_{args.random[0]}_{args.random[1]}")
    else:
        graph = load_graph(args.graph)
    print(f"{graph.name}: {graph.num_vertices:,} vertices, {graph.num_arcs:,} arcs "
          f"({time.perf_counter() - t0:.1f} s to load)", flush=True)
    sources = [int(s) for s in draw_sources(graph, args.sources, args.seed)]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in sources]

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
