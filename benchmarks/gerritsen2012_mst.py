"""Benchmark (not a test): gerritsen2012 chapter 3 on the GPU, and issue 10's speed goals.

    python benchmarks/gerritsen2012_mst.py                      # 40 ft size, about 2-3 minutes
    python benchmarks/gerritsen2012_mst.py --rows 4096 --cols 4096 --blocks 64 --gpu-blocks 32

The terrain is the diamond-square stand-in for the Neuse grid (graphrepro.terrain), converted as
section 1.5.1 says (unknown/negative to 0, rounded), so nothing is downloaded. Prints:

1. per-block times on the centre blocks of side --block (the thesis: 256 x 256, 16 x 16 threads):
   the CPU tournament-tree MST (issue 10a's step when it is installed, else graphrepro.mst's Prim
   with a tournament tree, timed on a prebuilt CSR: the CPU's best case), each GPU Boruvka variant
   one block per call (thesis launches or one persistent kernel, 32- or 64-bit key), and all blocks
   batched in one launch sequence; max / min / average ms per block end to end (upload, solve, copy
   back, decode) and the solve alone, with launches, iterations, host round trips and atomics;
2. dead-end removal + path contraction on the GPU for the same blocks' trees (boundary kept);
3. the whole-grid GPU MST (no blocking): upload, solve, copy back, decode, over --trials runs.

Every tree is checked against a CPU Kruskal in packed-key order on the same grid (same edges,
hence spanning, acyclic, minimum); every reduce against the rep/definite partition, and against
the CPU reduce step when it is installed. Goals (issue 10): the best GPU per-block variant at
least 10x faster than the CPU tournament tree per 256 x 256 block; the whole 40 ft-size grid's
MST in seconds (here: under 10 s end to end). Exit status 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import pandas as pd

from graphrepro.errors import VerificationError
from graphrepro.gpu import device_name
from graphrepro.solvers.gerritsen2012 import PER_BLOCK_MST, REDUCE, load_steps
from graphrepro.solvers.gerritsen2012 import mst_gpu as G
from graphrepro.solvers.gerritsen2012.mst_gpu_reduce import reduce_gpu
from graphrepro.solvers.gerritsen2012.types import boundary_cells
from graphrepro.terrain import NEUSE_40FT, diamond_square

PER_BLOCK_GOAL = 10.0
WHOLE_GRID_GOAL_S = 10.0
VARIANTS = [("gpu_boruvka32", 32, "thesis"), ("gpu_boruvka64", 64, "thesis"),
            ("gpu_boruvka32@persistent", 32, "persistent"),
            ("gpu_boruvka64@persistent", 64, "persistent")]


def terrain(rows: int, cols: int, seed: int) -> np.ndarray:
    t0 = time.perf_counter()
    raw = diamond_square(rows, cols, seed=seed)
    values = np.rint(np.maximum(raw, 0)).astype(np.int32)  # section 1.5.1: unknown -> 0, rounded
    print(f"terrain {rows:,} x {cols:,} (diamond-square, seed {seed}): values "
          f"{values.min()}..{values.max()}, {np.mean(values == 0):.0%} zero "
          f"({time.perf_counter() - t0:.1f} s)", flush=True)
    return values


def centre_blocks(values: np.ndarray, b: int, count: int) -> np.ndarray:
    """The ``count`` b x b blocks nearest the centre (the thesis used the 10,000 centre blocks)."""
    rows, cols = values.shape
    by, bx = rows // b, cols // b
    if by * bx == 0:
        raise SystemExit(f"the grid ({rows} x {cols}) holds no {b} x {b} block")
    cy, cx = (by - 1) / 2, (bx - 1) / 2
    cells = sorted(((y - cy) ** 2 + (x - cx) ** 2, y, x) for y in range(by) for x in range(bx))
    chosen = cells[:min(count, len(cells))]
    return np.stack([values[y * b:(y + 1) * b, x * b:(x + 1) * b] for _, y, x in chosen])


def spread(xs) -> dict:
    return {"max": max(xs), "min": min(xs), "avg": statistics.fmean(xs),
            "median": statistics.median(xs)}


def row(name, wall, solve, counters, note="") -> dict:
    s, m = spread(wall), spread(solve)
    out = {"variant": name, "max_ms": s["max"], "min_ms": s["min"], "avg_ms": s["avg"],
           "median_ms": s["median"], "solve_avg_ms": m["avg"], "note": note}
    for key in ("launches", "iterations", "host_round_trips", "atomics"):
        if key in counters:
            out[key] = counters[key]
    print(f"  {name:28s} max {s['max']:9.3f}  min {s['min']:9.3f}  avg {s['avg']:9.3f} ms/block"
          f"  (solve {m['avg']:8.3f})  "
          + "  ".join(f"{k} {counters[k]}" for k in ("launches", "iterations",
                                                      "host_round_trips", "atomics")
                      if k in counters) + (f"  [{note}]" if note else ""), flush=True)
    return out


def cpu_tournament(blocks: np.ndarray, refs) -> tuple[list, list, str]:
    load_steps()
    if "tournament" in PER_BLOCK_MST:
        fn = PER_BLOCK_MST["tournament"]
        fn(blocks[0])  # compile
        wall, solve = [], []
        for values, ref in zip(blocks, refs):
            t0 = time.perf_counter()
            tree = fn(values)
            wall.append((time.perf_counter() - t0) * 1e3)
            solve.append(float(tree.timings.get("mst", wall[-1])))
            check_weight(tree.w, ref, "CPU tournament tree")
        return wall, solve, "issue 10a's tournament step"
    from graphrepro.mst.algorithms import prim_tournament
    from graphrepro.terrain import grid_graph

    wall = []
    for i, (values, ref) in enumerate(zip(blocks, refs)):
        g = grid_graph(values, weight="mst")
        if i == 0:
            prim_tournament(g.indptr, g.indices, g.weights, g.num_vertices)  # compile
        t0 = time.perf_counter()
        u, v, w, _, _ = prim_tournament(g.indptr, g.indices, g.weights, g.num_vertices)
        wall.append((time.perf_counter() - t0) * 1e3)
        check_weight(w, ref, "CPU tournament tree")
    return wall, wall, "graphrepro.mst Prim + tournament tree on a prebuilt CSR (solve only)"


def check_weight(w, ref, what):
    if int(np.asarray(w, dtype=np.int64).sum()) != int(ref[0]):
        raise VerificationError(f"WRONG ANSWER: {what}: weight {int(np.sum(w))}, the minimum is "
                                f"{int(ref[0])}")


def per_block(args, blocks: np.ndarray) -> tuple[list, dict]:
    """(summary rows, average ms per block of each GPU variant)"""
    b = blocks.shape[1]
    print(f"\nper-block MST, {len(blocks)} centre blocks of {b} x {b} "
          f"(CPU on the first {min(args.cpu_blocks, len(blocks))}, GPU one at a time on the first "
          f"{min(args.gpu_blocks, len(blocks))}, batched on all)", flush=True)
    refs = [G.grid_kruskal_cpu(v) for v in blocks]
    rows = []
    wall, solve, note = cpu_tournament(blocks[:args.cpu_blocks], refs)
    rows.append(row("cpu_tournament", wall, solve, {}, note))
    best = {}
    small = 32 if b * b <= G.KEY32.max_vertices and blocks.max() <= G.KEY32.max_weight else 64
    for name, bits, launch in VARIANTS:
        if bits == 32 and small != 32:
            print(f"  {name:28s} skipped: the 32-bit key cannot hold these blocks")
            continue
        G.boruvka_block(blocks[0], bits=bits, launch=launch)  # compile, allocate
        wall, solve, counters = [], [], {}
        for values, ref in zip(blocks[:args.gpu_blocks], refs):
            t0 = time.perf_counter()
            tree = G.boruvka_block(values, bits=bits, launch=launch)
            wall.append((time.perf_counter() - t0) * 1e3)
            solve.append(tree.timings["mst"])
            G.verify_grid_tree(values, tree, name, reference=ref)
            counters = tree.counters
        rows.append(row(name, wall, solve, counters))
        best[name] = statistics.fmean(wall)
    for bits in (small, 64) if small == 32 else (64,):
        name = f"boruvka_blocks{bits}@batched"
        # warm up on the timed stack itself: the workspace is allocated per vertex count
        G.boruvka_blocks(blocks, bits=bits)
        t0 = time.perf_counter()
        trees = G.boruvka_blocks(blocks, bits=bits)
        total = (time.perf_counter() - t0) * 1e3
        for values, tree, ref in zip(blocks, trees, refs):
            G.verify_grid_tree(values, tree, name, reference=ref)
        per = total / len(blocks)
        split = {k: ms * len(blocks) for k, ms in trees[0].timings.items()}
        host = total - sum(split.values())
        rows.append(row(name, [per], [trees[0].timings["mst"]], trees[0].counters,
                        f"{len(blocks)} blocks in {total:.1f} ms: upload {split['other']:.1f}, "
                        f"solve {split['mst']:.1f}, copy back {split['copy_back']:.1f}, "
                        f"host checks + decode + split {host:.1f} ms"))
        best[name] = per
    return rows, best


def reduce_blocks(args, blocks: np.ndarray) -> None:
    b = blocks.shape[1]
    keep = np.zeros(b * b, dtype=bool)
    keep[boundary_cells(b)] = True
    load_steps()
    cpu = REDUCE.get("cpu")
    count = min(args.gpu_blocks, len(blocks))
    print(f"\ndead ends + contraction on the GPU, {count} block trees (boundary kept)"
          + ("" if cpu else "; the CPU reduce step is not installed: partition check only"),
          flush=True)
    trees = G.boruvka_blocks(blocks[:count], bits=64)
    reduce_gpu(b * b, trees[0].u, trees[0].v, trees[0].w, keep)  # compile
    times = {"dead_ends": [], "contraction": [], "copy_back": [], "wall": []}
    kept = []
    for tree in trees:
        t0 = time.perf_counter()
        red = reduce_gpu(b * b, tree.u, tree.v, tree.w, keep)
        times["wall"].append((time.perf_counter() - t0) * 1e3)
        for key in ("dead_ends", "contraction", "copy_back"):
            times[key].append(red.timings[key])
        m = len(tree.u)
        if not np.array_equal(np.sort(np.concatenate([red.rep, red.definite])), np.arange(m)):
            raise VerificationError("WRONG ANSWER: gpu reduce: rep and definite do not "
                                    "partition the edges")
        if cpu is not None:
            other = cpu(b * b, tree.u, tree.v, tree.w, keep)
            same = (set(red.definite.tolist()) == set(np.asarray(other.definite).tolist())
                    and kept_edges(red) == kept_edges(other))
            if not same:
                raise VerificationError("WRONG ANSWER: gpu reduce differs from the cpu reduce")
        kept.append(len(red.rep))
    for key, xs in times.items():
        s = spread(xs)
        print(f"  {key:12s} max {s['max']:8.3f}  min {s['min']:8.3f}  avg {s['avg']:8.3f} ms/block")
    print(f"  edges kept per block: avg {statistics.fmean(kept):.0f} of {b * b - 1}")


def kept_edges(red) -> set:
    u, v = np.asarray(red.u), np.asarray(red.v)
    return set(zip(np.asarray(red.rep).tolist(), np.minimum(u, v).tolist(),
                   np.maximum(u, v).tolist(), np.asarray(red.w).tolist()))


def whole_grid(args, values: np.ndarray) -> float:
    rows, cols = values.shape
    print(f"\nwhole-grid GPU MST, {rows:,} x {cols:,} = {values.size:,} vertices, no blocking",
          flush=True)
    G.grid_mst_gpu(values[:64, :64])  # compile at a small size
    results = []
    tree = None
    for _ in range(args.trials):
        t0 = time.perf_counter()
        tree = G.grid_mst_gpu(values)
        wall = time.perf_counter() - t0
        t = tree.timings
        results.append(wall)
        print(f"  end to end {wall:7.3f} s: upload {t['other']:8.1f} ms, solve {t['mst']:8.1f} ms, "
              f"copy back {t['copy_back']:8.1f} ms; iterations {tree.counters['iterations']}, "
              f"launches {tree.counters['launches']}, host round trips "
              f"{tree.counters['host_round_trips']}, atomics {tree.counters['atomics']:,}, "
              f"blocks {tree.counters.get('resident_blocks')}", flush=True)
    t0 = time.perf_counter()
    weight = G.verify_grid_tree(values, tree, "grid_mst_gpu")
    print(f"  verified: the same {len(tree.u):,} edges as Kruskal in packed-key order, weight "
          f"{weight:,} ({time.perf_counter() - t0:.1f} s on the CPU)")
    return statistics.median(results)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=NEUSE_40FT["rows"])
    p.add_argument("--cols", type=int, default=NEUSE_40FT["cols"])
    p.add_argument("--block", type=int, default=256)
    p.add_argument("--blocks", type=int, default=1024, help="centre blocks batched (thesis: 10000)")
    p.add_argument("--gpu-blocks", type=int, default=256, help="blocks timed one call at a time")
    p.add_argument("--cpu-blocks", type=int, default=64)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--seed", type=int, default=2012)
    p.add_argument("--no-whole", action="store_true", help="skip the whole-grid MST")
    p.add_argument("--csv", help="also write the per-block summary here")
    args = p.parse_args(argv)
    print(f"device: {device_name()}")
    values = terrain(args.rows, args.cols, args.seed)
    blocks = centre_blocks(values, args.block, args.blocks)
    rows, best = per_block(args, blocks)
    reduce_blocks(args, blocks)
    if args.csv:
        pd.DataFrame(rows).to_csv(args.csv, index=False)
    ok = True
    cpu = rows[0]["avg_ms"]
    name, gpu = min(best.items(), key=lambda kv: kv[1])
    speedup = cpu / gpu
    hit = speedup >= PER_BLOCK_GOAL
    ok &= hit
    print(f"\ngoal: best GPU per-block variant >= {PER_BLOCK_GOAL:g}x the CPU tournament tree on "
          f"{args.block} x {args.block} blocks: {speedup:.1f}x ({name}, {gpu:.3f} vs {cpu:.3f} "
          f"ms/block) {'MET' if hit else 'MISSED'}")
    thesis = best.get("gpu_boruvka32") or best.get("gpu_boruvka64")
    if thesis:
        print(f"      the thesis's own structure (launches + a flag read per iteration): "
              f"{cpu / thesis:.1f}x")
    if not args.no_whole:
        seconds = whole_grid(args, values)
        hit = seconds < WHOLE_GRID_GOAL_S
        ok &= hit
        print(f"\ngoal: whole-grid MST of {args.rows:,} x {args.cols:,} in seconds "
              f"(< {WHOLE_GRID_GOAL_S:g} s end to end): {seconds:.2f} s "
              f"{'MET' if hit else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
