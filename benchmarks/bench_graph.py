"""What the benchmark scripts share: the graph to time on, and its seeded, digested sources."""

from __future__ import annotations

import argparse
import time

from graphrepro import verify
from graphrepro.cli import load_graph
from graphrepro.graph import generate
from graphrepro.harness import draw_sources


def add_graph_arguments(p: argparse.ArgumentParser, default_runs: list[str]) -> None:
    p.add_argument("graph", nargs="?", help="a graph file or .npz cache")
    p.add_argument("--road-grid", type=int, help="generate a side x side road-like grid instead")
    p.add_argument("--random", type=int, nargs=2, metavar=("VERTICES", "ARCS"),
                   help="generate a uniform random graph instead")
    p.add_argument("--sources", type=int, default=3)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--seed", type=int, default=20170901)
    p.add_argument("--runs", nargs="+", default=default_runs)
    p.add_argument("--csv", help="also write the per-run summary here")


def graph_and_sources(args, *, road_keep: float):
    """(graph, sources, reference digests) as the arguments ask, timing the load."""
    t0 = time.perf_counter()
    if args.road_grid:
        graph = generate.road_grid(args.road_grid, args.road_grid, keep=road_keep,
                                   max_weight=1000, seed=3,
                                   name=f"road_{args.road_grid}x{args.road_grid}")
    elif args.random:
        graph = generate.random_digraph(*args.random, max_weight=1000, seed=3,
                                        name=f"random_{args.random[0]}_{args.random[1]}")
    elif args.graph:
        graph = load_graph(args.graph)
    else:
        raise SystemExit("give a graph file, --road-grid SIDE or --random VERTICES ARCS")
    print(f"{graph.name}: {graph.num_vertices:,} vertices, {graph.num_arcs:,} arcs "
          f"({time.perf_counter() - t0:.1f} s to load)", flush=True)
    sources = [int(s) for s in draw_sources(graph, args.sources, args.seed)]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in sources]
    return graph, sources, digests
