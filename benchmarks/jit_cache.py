"""Benchmark (not a test): does a second process pay the host-loop solvers' JIT again?

    python benchmarks/jit_cache.py; python benchmarks/jit_cache.py   # same NUMBA_CACHE_DIR

Each call prepares the host-loop solvers on a small road-like grid and times the first solve of
each (compilation or a load from numba's disk cache, then the solve), verified. Run it twice: the
second process should load every kernel from the cache (issue 25, "compile once").
"""

from __future__ import annotations

import sys
import time

from graphrepro import verify
from graphrepro.graph import generate
from graphrepro.solvers.base import resolve

RUNS = ["harish", "lbr@n=2", "singla_bfs", "singla_dijkstra", "an_bf_edgelist"]


def main() -> int:
    graph = generate.road_grid(64, 64, keep=0.6, max_weight=1000, seed=3, name="road_64x64")
    source = 0
    total = 0.0
    for run_id in RUNS:
        t0 = time.perf_counter()
        spec, params = resolve(run_id)
        result = spec.prepare(graph, **params).solve(source)
        verify.check(graph, source, result.distances, solver=spec.name, metric=spec.metric)
        seconds = time.perf_counter() - t0
        total += seconds
        print(f"{run_id:18s} first solve {seconds:6.2f} s", flush=True)
    print(f"total {total:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
