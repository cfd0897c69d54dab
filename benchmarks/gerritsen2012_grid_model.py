"""Model (not a test, no GPU): the rounds of the whole-grid GPU SSSP, run serially on the CPU.

    python benchmarks/gerritsen2012_grid_model.py 2048 --factors -1 0.25 1 3

Replays grid_sssp_gpu's round structure (tiles of --tile cells relaxed to convergence against
their halo, activations into the next round's keys, near-far threshold over tiles) with each
round reading the distances as they were when it began, as the GPU's blocks may; checks the
distances against scipy's Dijkstra and prints rounds, tile activations per tile and sweeps per
activation for each threshold factor (delta = factor x tile x mean |difference|; -1: none).
This is what chose grid_sssp_gpu's default delta (factor 1).
"""

from __future__ import annotations

import argparse
import sys
import time

import numba
import numpy as np

BIG = np.int64(1) << 62


@numba.njit(cache=True)
def _process(v, d, snap, ty, tx, ts, src):
    rows, cols = v.shape
    y0, x0 = ty * ts, tx * ts
    y1, x1 = min(y0 + ts, rows), min(x0 + ts, cols)
    sd = np.full((y1 - y0 + 2, x1 - x0 + 2), BIG, np.int64)
    for yy in range(max(y0 - 1, 0), min(y1 + 1, rows)):
        for xx in range(max(x0 - 1, 0), min(x1 + 1, cols)):
            g = yy * cols + xx
            sd[yy - y0 + 1, xx - x0 + 1] = 0 if g == src else snap[g]
    sweeps = 0
    while True:
        sweeps += 1
        changed = False
        for yy in range(y0, y1):
            for xx in range(x0, x1):
                ly, lx = yy - y0 + 1, xx - x0 + 1
                best = sd[ly, lx]
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        ny, nx = yy + dy, xx + dx
                        if 0 <= ny < rows and 0 <= nx < cols and sd[ly + dy, lx + dx] < BIG:
                            best = min(best, sd[ly + dy, lx + dx] + abs(v[yy, xx] - v[ny, nx]))
                if best < sd[ly, lx]:
                    sd[ly, lx] = best
                    changed = True
        if not changed:
            break
    border = np.full(9, BIG, np.int64)
    for yy in range(y0, y1):
        for xx in range(x0, x1):
            ly, lx = yy - y0 + 1, xx - x0 + 1
            new = sd[ly, lx]
            if new < d[yy * cols + xx]:
                d[yy * cols + xx] = new
                for sy in range(-1, 2):
                    if (sy == -1 and ly != 1) or (sy == 1 and ly != ts):
                        continue
                    for sx in range(-1, 2):
                        if (sx == -1 and lx != 1) or (sx == 1 and lx != ts):
                            continue
                        if sy != 0 or sx != 0:
                            k = (sy + 1) * 3 + sx + 1
                            border[k] = min(border[k], new)
    return sweeps, border


@numba.njit(cache=True)
def model(v, ts, src, delta):
    """(distances, rounds, tile activations, sweeps, most tiles in one round); delta <= 0: none."""
    rows, cols = v.shape
    tr, tc = (rows + ts - 1) // ts, (cols + ts - 1) // ts
    d = np.full(rows * cols, BIG, np.int64)
    keys = np.full((2, tr * tc), BIG, np.int64)
    keys[0, (src // cols // ts) * tc + (src % cols) // ts] = 0
    threshold = delta if delta > 0 else BIG
    rounds = tiles = sweeps = busiest = 0
    while True:
        cur, nxt = rounds % 2, 1 - rounds % 2
        snap = d.copy()
        least = BIG
        count = 0
        for q in range(tr * tc):
            k = keys[cur, q]
            if k >= BIG:
                continue
            keys[cur, q] = BIG
            if k < threshold:
                s, border = _process(v, d, snap, q // tc, q % tc, ts, src)
                sweeps += s
                tiles += 1
                count += 1
                for e in range(9):
                    ny, nx = q // tc + e // 3 - 1, q % tc + e % 3 - 1
                    if border[e] < BIG and 0 <= ny < tr and 0 <= nx < tc:
                        keys[nxt, ny * tc + nx] = min(keys[nxt, ny * tc + nx], border[e])
                        least = min(least, border[e])
            else:
                keys[nxt, q] = min(keys[nxt, q], k)
                least = min(least, k)
        busiest = max(busiest, count)
        rounds += 1
        if least >= BIG:
            break
        if least >= threshold:
            threshold = (least // delta + 1) * delta
    return d, rounds, tiles, sweeps, busiest


def main(argv=None) -> int:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    from graphrepro.solvers.gerritsen2012.grid_sssp_gpu import mean_weight
    from graphrepro.terrain import diamond_square, grid_graph

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("side", type=int)
    p.add_argument("--tile", type=int, default=32)
    p.add_argument("--factors", type=float, nargs="+", default=[-1, 1, 3])
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    n, ts = args.side, args.tile
    v = np.rint(diamond_square(n, n, seed=args.seed, unknown_outside=False)).astype(np.int64)
    src = n // 2 * n + n // 2
    g = grid_graph(v)
    ref = dijkstra(csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr),
                              shape=(n * n, n * n)), indices=src).astype(np.int64)
    w = mean_weight(v)
    print(f"{n} x {n}, mean |difference| {w:.2f}, tile {ts}")
    ok = True
    for f in args.factors:
        delta = -1 if f < 0 else max(1, round(f * ts * w))
        t0 = time.perf_counter()
        d, rounds, tiles, sweeps, busiest = model(v, ts, src, delta)
        exact = bool(np.array_equal(d, ref))
        ok &= exact
        print(f"factor {f:5g} delta {delta:6d}: rounds {rounds:6d}  activations per tile "
              f"{tiles / (-(-n // ts)) ** 2:6.2f}  sweeps per activation {sweeps / tiles:5.1f}  "
              f"most tiles in a round {busiest:6d}  {'exact' if exact else 'WRONG'}  "
              f"({time.perf_counter() - t0:.1f} s)", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
