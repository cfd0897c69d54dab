"""Benchmark (not a test): the GPU reduce step's result compacted on the host (numpy, after six
whole arrays come back) or on the device (cupy), issue 36.

    python benchmarks/cupy_compaction.py                       # a 2048 x 2048 grid's MST
    python benchmarks/cupy_compaction.py --side 4096 --block 256 --trials 20

The forest is the minimum spanning tree of a --side x --side 8-neighbour grid with random weights
(scipy); the kept vertices are the borders of --block x --block blocks, as in chapter 3's first
phase. Both compactions run the same four kernels; what differs is the "copy_back" part, timed
with CUDA events on the step's stream (graphrepro.gpu.DeviceTimer), and the whole call, timed on
the host. Prints the median and min of each over --trials (after one untimed warm-up each), the
bytes each way brings back, and checks that both give the same edges, partition and counters
(exit status 1 if not). Needs a real GPU and cupy (`pip install -e '.[gpu]'`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np


def forest(side: int, block: int, seed: int):
    """The MST of a side x side 8-neighbour grid with random weights, and the block borders."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree

    rng = np.random.default_rng(seed)
    ids = np.arange(side * side).reshape(side, side)
    pairs = [(ids[:, :-1], ids[:, 1:]), (ids[:-1, :], ids[1:, :]),
             (ids[:-1, :-1], ids[1:, 1:]), (ids[:-1, 1:], ids[1:, :-1])]
    u = np.concatenate([a.ravel() for a, _ in pairs])
    v = np.concatenate([b.ravel() for _, b in pairs])
    w = rng.integers(1, 1 << 20, size=len(u))
    tree = minimum_spanning_tree(coo_matrix((w, (u, v)), shape=(side * side,) * 2)).tocoo()
    r, c = np.divmod(np.arange(side * side), side)
    keep = (r % block == 0) | (r % block == block - 1) | (c % block == 0) | (c % block == block - 1)
    return side * side, tree.row.astype(np.int64), tree.col.astype(np.int64), \
        tree.data.astype(np.int64), keep


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", type=int, default=2048)
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    from graphrepro import gpu
    from graphrepro.solvers.gerritsen2012.mst_gpu_reduce import device_compaction, reduce_on_gpu

    if gpu.simulated() or not gpu.cuda_available() or device_compaction() is None:
        print("needs a real GPU and cupy (pip install -e '.[gpu]'), with NUMBA_ENABLE_CUDASIM unset",
              file=sys.stderr)
        return 2
    n, u, v, w, keep = forest(args.side, args.block, args.seed)
    print(f"{gpu.device_name()}: forest of {n:,} vertices, {len(u):,} edges, "
          f"{int(keep.sum()):,} kept vertices (blocks of {args.block})")
    results, rows = {}, []
    for how in ("host", "device"):
        reduce_on_gpu(n, u, v, w, keep, compaction=how)  # warm-up: JIT, cupy's kernels, pools
        copy_ms, call_ms = [], []
        for _ in range(args.trials):
            t0 = time.perf_counter()
            got = reduce_on_gpu(n, u, v, w, keep, compaction=how)
            call_ms.append((time.perf_counter() - t0) * 1e3)
            copy_ms.append(got.timings["copy_back"])
        results[how] = got
        m, kept = len(u), len(got.rep)
        back = 25 * m if how == "host" else 4 * m + 16 * kept + 24
        rows.append((how, statistics.median(copy_ms), min(copy_ms), statistics.median(call_ms),
                     min(call_ms), back))
    print(f"{'compaction':<10} {'copy_back ms (median/min, CUDA events)':>40} "
          f"{'whole call ms (median/min)':>28} {'bytes back':>12}")
    for how, cm, cmin, wm, wmin, back in rows:
        print(f"{how:<10} {cm:>31.3f} / {cmin:<8.3f} {wm:>17.3f} / {wmin:<8.3f} {back:>12,}")
    host, device = results["host"], results["device"]
    same = all(np.array_equal(getattr(host, f), getattr(device, f))
               for f in ("u", "v", "w", "rep", "definite"))
    counters = {k: v for k, v in host.counters.items() if k != "upload_us"}
    same = same and counters == {k: v for k, v in device.counters.items() if k != "upload_us"}
    print(f"copy_back speedup (median): {rows[0][1] / rows[1][1]:.2f}x; whole call: "
          f"{rows[0][3] / rows[1][3]:.2f}x; same result and counters: {'yes' if same else 'NO'}")
    print(f"counters: {counters}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
