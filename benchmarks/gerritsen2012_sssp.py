"""Benchmark (not a test): gerritsen2012 chapter 5 on the GPU, and issue 11's speed goals.

    python benchmarks/gerritsen2012_sssp.py                     # every goal, default sizes
    python benchmarks/gerritsen2012_sssp.py --side 4096 --phase1-side 512 --blocks 16 32
    python benchmarks/gerritsen2012_sssp.py --alg1-m 64 --alg1-c 16   # the thesis's example block

On diamond-square terrain (graphrepro.terrain.diamond_square, rounded to integers; no download):
1. Phase 1 on 2^20 vertices (a 1024 x 1024 grid cut into I/O-blocks): GPU algorithm 2 against
   the CPU phase 1 (Dijkstra from each boundary vertex: the SSSP-IO framework's `cpu_dijkstra`
   step where it is installed, and this script's own numba one on --cpu-threads threads, which
   also checks every GPU distance). Goal: >= 10x at 32 x 32.
2. The alg-2 memory bound (section 5.4's blockSize x threads) for this GPU's free memory.
3. GPU algorithm 1 on one I/O-block: its kernel launches and host round trips against the
   thesis's arithmetic, the time per launch, and the extrapolation to 2^20 vertices.
4. The whole-grid GPU SSSP on a side x side grid against scipy's Dijkstra on the same grid
   (which also checks it). Goals: under one second and >= 20x faster than scipy at 8192 x 8192.

Exit status 1 when a goal is missed or an answer is wrong.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numba
import numpy as np

from graphrepro.errors import InputError, VerificationError
from graphrepro.gpu import device_name
from graphrepro.solvers.gerritsen2012 import PHASE1, load_steps
from graphrepro.solvers.heap import heap_pop, heap_push
from graphrepro.solvers.gerritsen2012.grid_sssp_gpu import GridSSSP
from graphrepro.solvers.gerritsen2012.sssp_gpu import (alg1_launch_arithmetic, alg2_memory_bound,
                                                       gpu_alg1, gpu_alg2)
from graphrepro.solvers.gerritsen2012.types import boundary_cells
from graphrepro.terrain import diamond_square

ALG2_GOAL = 10.0
GRID_GOAL_S = 1.0
GRID_GOAL_X = 20.0


def terrain(rows: int, cols: int, seed: int) -> np.ndarray:
    return np.rint(diamond_square(rows, cols, seed=seed, unknown_outside=False)).astype(np.int64)


def as_blocks(grid: np.ndarray, m: int) -> np.ndarray:
    rows, cols = grid.shape
    return (grid[:rows // m * m, :cols // m * m]
            .reshape(rows // m, m, cols // m, m).swapaxes(1, 2).reshape(-1, m, m))


@numba.njit(parallel=True, cache=True)
def _cpu_phase1(values, cells, out):
    """Dijkstra (binary heap, lazy deletion) from each boundary cell, inside each block."""
    nb, m, _ = values.shape
    k = len(cells)
    n = m * m
    for job in numba.prange(nb * k):
        b = job // k
        s = job % k
        dist = np.full(n, np.int64(1) << 62)
        heap_key = np.empty(9 * n, np.int64)
        heap_v = np.empty(9 * n, np.int64)
        size = 1
        heap_key[0] = 0
        heap_v[0] = cells[s]
        dist[cells[s]] = 0
        while size > 0:
            key, u, size = heap_pop(heap_key, heap_v, size)
            if key > dist[u]:
                continue
            uy = u // m
            ux = u % m
            for ny in range(max(uy - 1, 0), min(uy + 2, m)):
                for nx in range(max(ux - 1, 0), min(ux + 2, m)):
                    v = ny * m + nx
                    nd = key + abs(values[b, uy, ux] - values[b, ny, nx])
                    if nd < dist[v]:
                        dist[v] = nd
                        size = heap_push(heap_key, heap_v, size, nd, v)
        for t in range(k):
            out[b, s, t] = dist[cells[t]]


def cpu_phase1(values: np.ndarray) -> np.ndarray:
    cells = boundary_cells(values.shape[1])
    out = np.empty((len(values), len(cells), len(cells)), dtype=np.int64)
    _cpu_phase1(values, cells, out)
    return out


def timed(fn, trials: int, warmup: bool = True):
    """(median seconds, spread (min, max), last result), after one warm-up call if asked."""
    if warmup:
        fn()
    seconds = []
    for _ in range(trials):
        t0 = time.perf_counter()
        result = fn()
        seconds.append(time.perf_counter() - t0)
    return statistics.median(seconds), (min(seconds), max(seconds)), result


def check(name: str, got: np.ndarray, want: np.ndarray) -> None:
    if got.shape != want.shape or not np.array_equal(got, want):
        bad = int(np.count_nonzero(got != want)) if got.shape == want.shape else -1
        raise VerificationError(f"{name}: {bad} distances differ from the CPU reference")


def phase1_goal(args) -> bool:
    print(f"== phase 1 on {args.phase1_side}^2 = {args.phase1_side ** 2:,} vertices "
          f"({device_name()}; CPU numba on {args.cpu_threads} threads)", flush=True)
    load_steps()
    framework = PHASE1.get("cpu_dijkstra")
    grid = terrain(args.phase1_side, args.phase1_side, args.seed)
    met = True
    for m in args.blocks:
        values = as_blocks(grid, m)
        numba.set_num_threads(args.cpu_threads)
        cpu_phase1(values[:1])  # compile outside the timing
        cpu_s, cpu_spread, want = timed(lambda: cpu_phase1(values), 1, warmup=False)
        gpu_s, gpu_spread, result = timed(lambda: gpu_alg2(values), args.trials)
        check(f"gpu_alg2 at {m} x {m}", result.dist, want)
        line = (f"{m:3d} x {m:<3d} {len(values):6d} blocks  CPU (numba) {cpu_s:8.3f} s "
                f"[{cpu_spread[0]:.3f}, {cpu_spread[1]:.3f}]  GPU alg 2 {gpu_s:8.3f} s "
                f"[{gpu_spread[0]:.3f}, {gpu_spread[1]:.3f}] (kernel "
                f"{result.timings['kernel'] / 1e3:.3f} s, {result.counters['node_bits']}-bit "
                f"nodes, {result.counters['blocks_per_launch']} blocks/launch)  "
                f"{cpu_s / gpu_s:6.1f}x")
        baseline_s = cpu_s
        if framework is not None:
            framework(values[:1])
            fw_s, _, fw = timed(lambda: framework(values), 1, warmup=False)
            check(f"cpu_dijkstra at {m} x {m}", fw.dist, want)
            line += f"  | framework cpu_dijkstra {fw_s:8.3f} s: {fw_s / gpu_s:6.1f}x"
            baseline_s = fw_s
        print(line + "  verified", flush=True)
        if m == 32:
            ok = baseline_s / gpu_s >= ALG2_GOAL
            met &= ok
            print(f"goal: GPU algorithm 2 >= {ALG2_GOAL:.0f}x the CPU phase 1 at 32 x 32: "
                  f"{baseline_s / gpu_s:.1f}x {'MET' if ok else 'MISSED'} (the thesis: 1.5x)",
                  flush=True)
    return met


def memory_bound() -> None:
    print("== section 5.4's bound on blockSize x threads, this GPU's free memory", flush=True)
    for m in (8, 16, 32, 64):
        try:
            b = alg2_memory_bound(m)
        except InputError as e:
            print(f"skipped: {e}")
            return
        print(f"blockSize {m:3d}: thesis structures {b['thesis_bytes_per_block']:9,d} B/block -> "
              f"threads <= {b['thesis_threads']:6d}, blockSize x threads <= "
              f"{b['thesis_blocksize_x_threads']:7d} ({b['thesis_vertices_at_once']:,} vertices "
              f"at once; the thesis: 1024 on ~200 MB); ours (a tree per source) "
              f"{b['ours_bytes_per_block']:,} B/block -> blockSize x threads <= "
              f"{b['ours_blocksize_x_threads']}", flush=True)


def alg1_run(args) -> None:
    m, c = args.alg1_m, args.alg1_c
    print(f"== GPU algorithm 1 on one {m} x {m} I/O-block, C = {c} x {c} "
          f"(variants {', '.join(args.alg1_variants)})", flush=True)
    values = as_blocks(terrain(m, m, args.seed), m)[:1]
    want = cpu_phase1(values)
    thesis = alg1_launch_arithmetic(m, c)
    for variant in args.alg1_variants:
        gpu_alg1(as_blocks(terrain(8, 8, 1), 4)[:1], c=2, variant=variant)  # compile first
        t0 = time.perf_counter()
        result = gpu_alg1(values, c=c, variant=variant, limit_blocks=1)
        seconds = time.perf_counter() - t0
        check(f"gpu_alg1 {variant}", result.dist, want)
        n = result.counters
        per_2_20 = seconds * (1 << 20) / (m * m)
        print(f"{variant:7s} {seconds:9.2f} s  launches {n['kernel_launches']:,} (part 1 "
              f"{n['part1_launches']:,} over {n['rounds']:,} Harish rounds; part 2 "
              f"{n['part2_launches']:,}; the thesis's arithmetic {thesis['launches_per_block']:,})"
              f"  host round trips {n['host_round_trips']:,}  "
              f"{seconds / n['kernel_launches'] * 1e6:.1f} us/launch  part 1 "
              f"{result.timings['part1'] / 1e3:.2f} s, part 2 {result.timings['part2'] / 1e3:.2f} s"
              f"  -> 2^20 vertices ~{per_2_20 / 60:.0f} min (extrapolated)  verified", flush=True)


def grid_goal(args) -> bool:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    from graphrepro.terrain import grid_graph

    side = args.side
    print(f"== whole-grid SSSP on a {side} x {side} diamond-square grid", flush=True)
    t0 = time.perf_counter()
    grid = terrain(side, side, args.seed)
    print(f"terrain made in {time.perf_counter() - t0:.1f} s", flush=True)
    solver = GridSSSP(grid, tile=args.tile, delta=args.delta)
    rng = np.random.default_rng(args.seed)
    sources = [side // 2 * side + side // 2] + [int(s) for s in
                                                 rng.integers(0, side * side, args.sources - 1)]
    solver.solve(sources[0])  # compile and warm up
    t0 = time.perf_counter()
    g = grid_graph(grid)
    matrix = csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr),
                        shape=(g.num_vertices, g.num_vertices))
    del g
    print(f"CSR for scipy built in {time.perf_counter() - t0:.1f} s (not timed)", flush=True)
    met = True
    for source in sources:
        ms = []
        for _ in range(args.trials):
            result = solver.solve(source)
            ms.append(result.solve_ms)
        gpu_s = statistics.median(ms) / 1e3
        t0 = time.perf_counter()
        ref = dijkstra(matrix, indices=source)
        scipy_s = time.perf_counter() - t0
        want = np.where(np.isinf(ref), -1, ref).astype(np.int64)
        got = np.where(result.distances == np.iinfo(np.int64).max, -1, result.distances)
        check(f"grid SSSP from {source}", got, want)
        n = result.counters
        ok = gpu_s < GRID_GOAL_S and scipy_s / gpu_s >= GRID_GOAL_X
        met &= ok
        print(f"source {source:>10d}: GPU {gpu_s * 1e3:9.1f} ms [{min(ms):.1f}, {max(ms):.1f}] "
              f"(upload {solver.upload_ms:.1f} ms, download {result.download_ms:.1f} ms apart)  "
              f"scipy {scipy_s:7.1f} s  {scipy_s / gpu_s:7.1f}x  delta {n['delta']}  rounds {n['iterations']}  "
              f"tiles {n['tiles_processed']:,} ({n['tiles_processed'] / (-(-side // args.tile)) ** 2:.1f}"
              f" per tile)  sweeps {n['tile_sweeps']:,}  verified", flush=True)
    print(f"goal: whole-grid GPU SSSP on {side} x {side} under {GRID_GOAL_S:.0f} s and >= "
          f"{GRID_GOAL_X:.0f}x scipy: {'MET' if met else 'MISSED'}", flush=True)
    return met


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--phase1-side", type=int, default=1024, help="phase-1 grid side (2^20 cells)")
    p.add_argument("--blocks", type=int, nargs="+", default=[16, 32],
                   help="I/O-block sides for algorithm 2 (Table 5.4: 8 16 32, and 64)")
    p.add_argument("--cpu-threads", type=int, default=1,
                   help="threads of this script's CPU phase 1 (the thesis ran one)")
    p.add_argument("--side", type=int, default=8192, help="whole-grid side")
    p.add_argument("--tile", type=int, default=32)
    p.add_argument("--delta", type=int, default=0,
                   help="tile near-far step (0: tile x mean weight, -1: none)")
    p.add_argument("--sources", type=int, default=1, help="whole-grid sources: the centre, then random")
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--seed", type=int, default=2012)
    p.add_argument("--alg1-m", type=int, default=16)
    p.add_argument("--alg1-c", type=int, default=4)
    p.add_argument("--alg1-variants", nargs="+", default=["2d", "3d", "zorder"])
    p.add_argument("--skip", nargs="+", default=[], choices=["phase1", "bound", "alg1", "grid"])
    args = p.parse_args(argv)
    met = True
    if "phase1" not in args.skip:
        met &= phase1_goal(args)
    if "bound" not in args.skip:
        memory_bound()
    if "alg1" not in args.skip:
        alg1_run(args)
    if "grid" not in args.skip:
        met &= grid_goal(args)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
