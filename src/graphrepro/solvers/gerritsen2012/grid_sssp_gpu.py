"""Beyond the thesis: SSSP on the whole terrain grid on the GPU, and phase 2 on the GPU.

``grid_sssp_gpu(values2d, source)``: shortest distances over the implicit 8-neighbour grid of a
whole elevation grid (weights |val(i) - val(j)| computed on the fly, zeros allowed), with no I/O
blocking: an H100 holds the thesis's whole 40 ft grid. One persistent cooperative kernel does
every round, separated by grid-wide barriers, and decides termination on the device.

The grid is cut into square tiles (``tile`` cells a side). A tile is *active* when a cell next
to it improved. Each round every block takes the active tiles it owns (tile t belongs to block
t mod blocks), loads each with its one-cell halo into shared memory, relaxes it there until it no
longer changes (each thread owns a few cells; in-place, so an improvement can cross several cells
in one sweep), writes the improved cells back and activates the neighbouring tiles across each
improved border cell, with the border's least new distance as the tile's key. The rounds are
near-far over tiles: only tiles whose key is below the threshold are processed, the rest are
carried to the next round, and the threshold moves on by delta (jumping empty buckets) when none
is left below it. ``delta = 0`` takes delta = tile side x mean |difference| of neighbours, about
the distance a front gains crossing a tile; ``delta = -1`` processes every active tile each round.
Why the default: a serial model of these rounds (each round reading the distances as they were
when it began, as the blocks may; diamond-square grids of 1024^2 and 2048^2, 32-cell tiles,
exact against scipy) processed each tile 13.6x and 21x with no threshold, the factor growing
with the grid, and 5.6x at this delta, in 207 rounds at 2048^2; a threshold 3x larger cut the
rounds to 124 for 6.9x the tiles (benchmarks/gerritsen2012_grid_model.py replays it).

Why it is exact without atomics on distances: only a tile's owner writes its cells, so a write is
a plain store; distances only decrease; a tile that reads a neighbour's cell while it is being
improved reads an older, still valid upper bound, and the improvement activates the tile for the
next round, which starts after a grid barrier and so sees it. Activations of a round go to the
other of two key arrays, so a round never takes work that the same round produced. The loop ends
when no tile is active: every tile is relaxed with respect to its halo, so no edge can be
relaxed, which is Bellman-Ford's fixpoint, the shortest distances.

``phase2_gpu(indptr, indices, weights, sources, init_dist)``: phase 2 of the three-phase
I/O-efficient SSSP (the thesis's chapter 4) on G' in CSR, with several sources seeded with
their distances: the near-far pile of ``senthilkumar.sweep`` (one persistent kernel) run from a
super-source joined to each seed by an arc weighing the seed's distance.
"""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu
from ...errors import InputError
from ...graph.csr import CSRGraph, index_dtype
from ..base import INF, SolveResult, get_solver, register
from .sssp_gpu_common import int32_elevations

BIG = np.int64(1) << 62  # "not reached" inside the kernel: BIG + any weight cannot overflow
MAX_THREADS = 256
MAX_TILE = 48  # the tile and its halo in shared memory: 50^2 x 12 bytes of the 48 KiB static limit
# Control words. The least key of the next round rotates over three slots: round r writes slot
# (r+1)%3 and clears (r+2)%3, which was last read before the previous barrier.
MINKEY, ROUNDS, TILES, SWEEPS, IMPROVED, WORDS = 0, 3, 4, 5, 6, 7
_kernels = {}


def _compile(ts: int):
    if ts in _kernels:
        return _kernels[ts]
    side = ts + 2  # the tile with its halo
    halo_cells = side * side  # shared array sizes must be constants of the closure
    cells = ts * ts

    @cuda.jit
    def grid_sssp(values, d, keys, words, source, delta):
        grid = cuda.cg.this_grid()
        rows, cols = values.shape
        tile_rows = (rows + ts - 1) // ts
        tile_cols = (cols + ts - 1) // ts
        tiles = tile_rows * tile_cols
        tid = cuda.grid(1)
        stride = cuda.gridsize(1)
        t = cuda.threadIdx.x
        width = cuda.blockDim.x
        sd = cuda.shared.array(halo_cells, np.int64)
        sv = cuda.shared.array(halo_cells, np.int32)
        todo = cuda.shared.array(MAX_THREADS, np.int32)
        ntodo = cuda.shared.array(1, np.int32)
        changed = cuda.shared.array(3, np.int32)
        border = cuda.shared.array(9, np.int64)  # least improved distance per neighbour tile
        tally = cuda.shared.array(3, np.int64)  # tiles processed, sweeps, cells improved
        if t == 0:
            for q in range(3):
                tally[q] = 0
        for v in range(tid, rows * cols, stride):
            d[v] = BIG  # the source too: its tile sets it, so its first write activates
        for q in range(tid, tiles, stride):
            keys[0, q] = BIG
            keys[1, q] = BIG
        if tid == 0:
            for w in range(WORDS):
                words[w] = 0
            words[MINKEY + 1] = BIG
            words[MINKEY + 2] = BIG
        grid.sync()
        if tid == 0:
            keys[0, (source // cols // ts) * tile_cols + (source % cols) // ts] = 0
        threshold = delta if delta > 0 else BIG  # delta -1: every active tile
        grid.sync()
        r = 0
        mine = (tiles - cuda.blockIdx.x + cuda.gridDim.x - 1) // cuda.gridDim.x  # tiles owned
        while True:
            cur = r % 2
            nxt = 1 - cur
            if tid == 0:
                words[MINKEY + (r + 2) % 3] = BIG
            for chunk in range(0, mine, width):
                if t == 0:
                    ntodo[0] = 0
                cuda.syncthreads()
                if chunk + t < mine:
                    q = cuda.blockIdx.x + (chunk + t) * cuda.gridDim.x
                    key = keys[cur, q]
                    if key < BIG:
                        keys[cur, q] = BIG  # nobody else writes keys[cur] this round
                        if key < threshold:
                            todo[cuda.atomic.add(ntodo, 0, 1)] = q
                        else:  # far: carried to the next round
                            cuda.atomic.min(keys, (nxt, q), key)
                            cuda.atomic.min(words, MINKEY + (r + 1) % 3, key)
                cuda.syncthreads()
                for item in range(ntodo[0]):
                    q = todo[item]
                    y0 = (q // tile_cols) * ts - 1  # grid row of the halo's first row
                    x0 = (q % tile_cols) * ts - 1
                    for j in range(t, halo_cells, width):
                        gy = y0 + j // side
                        gx = x0 + j % side
                        if 0 <= gy < rows and 0 <= gx < cols:
                            g = gy * cols + gx
                            sd[j] = 0 if g == source else d[g]
                            sv[j] = values[gy, gx]
                        else:
                            sd[j] = BIG
                            sv[j] = 0
                    for e in range(t, 9, width):
                        border[e] = BIG
                    if t == 0:
                        changed[0] = 0
                        changed[1] = 0
                    cuda.syncthreads()
                    sweep = 0
                    while True:
                        if t == 0:
                            changed[(sweep + 1) % 3] = 0
                        for j in range(t, cells, width):
                            ly = j // ts + 1
                            lx = j % ts + 1
                            if y0 + ly >= rows or x0 + lx >= cols:
                                continue
                            c = ly * side + lx
                            best = sd[c]
                            vc = sv[c]
                            for dy in range(-side, side + 1, side):
                                for dx in range(-1, 2):
                                    n = c + dy + dx
                                    dn = sd[n]
                                    if dn < BIG:
                                        candidate = dn + abs(vc - sv[n])
                                        if candidate < best:
                                            best = candidate
                            if best < sd[c]:
                                sd[c] = best
                                changed[sweep % 3] = 1
                        cuda.syncthreads()
                        done = changed[sweep % 3] == 0
                        sweep += 1
                        if done:
                            break
                    improved = 0
                    for j in range(t, cells, width):
                        ly = j // ts + 1
                        lx = j % ts + 1
                        gy = y0 + ly
                        gx = x0 + lx
                        if gy >= rows or gx >= cols:
                            continue
                        new = sd[ly * side + lx]
                        if new < d[gy * cols + gx]:
                            d[gy * cols + gx] = new
                            improved += 1
                            # the neighbour tiles this cell touches: a row/column step only
                            # where the cell is on that edge of its tile
                            for sy in range(-1, 2):
                                if (sy == -1 and ly != 1) or (sy == 1 and ly != ts):
                                    continue
                                for sx in range(-1, 2):
                                    if (sx == -1 and lx != 1) or (sx == 1 and lx != ts):
                                        continue
                                    if sy != 0 or sx != 0:
                                        cuda.atomic.min(border, (sy + 1) * 3 + sx + 1, new)
                    if improved > 0:
                        cuda.atomic.add(tally, 2, improved)
                    cuda.syncthreads()
                    for e in range(t, 9, width):
                        if border[e] < BIG:
                            ny = q // tile_cols + e // 3 - 1
                            nx = q % tile_cols + e % 3 - 1
                            if 0 <= ny < tile_rows and 0 <= nx < tile_cols:
                                cuda.atomic.min(keys, (nxt, ny * tile_cols + nx), border[e])
                                cuda.atomic.min(words, MINKEY + (r + 1) % 3, border[e])
                    if t == 0:
                        tally[0] += 1
                        tally[1] += sweep
                    cuda.syncthreads()  # the next tile overwrites the shared arrays
            grid.sync()
            r += 1
            least = words[MINKEY + r % 3]
            if least >= BIG:
                break
            if least >= threshold:  # nothing left below the threshold: the next bucket
                threshold = (least // delta + 1) * delta
        if t == 0:
            cuda.atomic.add(words, TILES, tally[0])
            cuda.atomic.add(words, SWEEPS, tally[1])
            cuda.atomic.add(words, IMPROVED, tally[2])
        if tid == 0:
            words[ROUNDS] = r

    _kernels[ts] = grid_sssp
    return grid_sssp


def _check_grid(values2d) -> np.ndarray:
    values = np.asarray(values2d)
    if values.ndim != 2 or min(values.shape) < 1:
        raise InputError(f"grid_sssp_gpu takes a 2-D elevation grid, got shape {values.shape}")
    return int32_elevations(values)


def mean_weight(values: np.ndarray) -> float:
    """Mean |difference| between row and column neighbours, from every 16th row and column."""
    rows = np.abs(np.diff(values[::16].astype(np.int64), axis=1))
    cols = np.abs(np.diff(values[:, ::16].astype(np.int64), axis=0))
    count = rows.size + cols.size
    return float(rows.sum() + cols.sum()) / count if count else 0.0


class GridSSSP:
    """Device state for one grid: upload once, then solve from any number of sources."""

    def __init__(self, values2d, tile: int = 32, delta: int = 0):
        cuda_mod = gpu.require_cuda()
        if not 2 <= tile <= MAX_TILE:
            raise InputError(f"tile must be 2..{MAX_TILE} cells a side, got {tile}")
        if delta < -1:
            raise InputError(f"delta must be >= -1 (0: tile x mean weight, -1: no threshold), "
                             f"got {delta}")
        values = _check_grid(values2d)
        if delta == 0:
            delta = max(1, round(tile * mean_weight(values)))
        self.rows, self.cols = values.shape
        self.n = values.size
        self.tile, self.delta = tile, delta
        self.threads = min(MAX_THREADS, tile * tile)
        tiles = -(-self.rows // tile) * -(-self.cols // tile)
        self.device_bytes = values.nbytes + self.n * 8 + 2 * tiles * 8 + WORDS * 8
        gpu.check_fits(self.device_bytes, f"grid {self.rows} x {self.cols}")
        self.stream = s = cuda_mod.stream()
        arrays, self.upload_ms = gpu.upload(cuda_mod, {"values": values}, stream=s)
        self.values = arrays["values"]
        self.d = cuda_mod.device_array(self.n, dtype=np.int64, stream=s)
        self.keys = cuda_mod.device_array((2, tiles), dtype=np.int64, stream=s)
        self.words = cuda_mod.device_array(WORDS, dtype=np.int64, stream=s)
        self._launchable = gpu.CooperativeLauncher(self.threads)

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        if not 0 <= source < self.n:
            raise InputError(f"source {source} is out of range 0..{self.n - 1}")
        s = self.stream
        kernel = _compile(self.tile)
        args = (self.values, self.d, self.keys, self.words, source, self.delta)
        launch, blocks = self._launchable(kernel, args, -(-self.n // (self.tile * self.tile))
                                          * self.threads)
        distances, words, solve_ms, download_ms = gpu.persistent_solve(
            launch, blocks, self.threads, s, args, self.d, self.words)
        distances[distances >= BIG] = INF
        tiles = int(words[TILES])
        counters = {"iterations": int(words[ROUNDS]), "kernel_launches": 1, "host_round_trips": 0,
                    "tiles_processed": tiles, "tile_sweeps": int(words[SWEEPS]),
                    "cells_improved": int(words[IMPROVED]), "resident_blocks": blocks,
                    "tile": self.tile, "delta": self.delta}
        return SolveResult(distances, solve_ms, download_ms, counters)


def grid_sssp_gpu(values2d, source: int, *, tile: int = 32, delta: int = 0):
    """(distances int64 row-major, timings ms, counters) from cell ``source`` (row-major id)."""
    solver = GridSSSP(values2d, tile=tile, delta=delta)
    result = solver.solve(int(source))
    timings = {"upload": solver.upload_ms, "solve": result.solve_ms,
               "download": result.download_ms}
    return result.distances, timings, result.counters


@register("gerritsen_grid_sssp", device="gpu", document="gerritsen2012",
          description="whole-grid terrain SSSP (weights |elevation difference| on the implicit "
                      "8-neighbour grid): tiles relaxed in shared memory, active tiles per round, "
                      "near-far over tiles (delta=0: tile x mean weight, -1: off); one persistent "
                      "kernel (beyond the thesis); needs a graph read from a DEM",
          defaults={"tile": 32, "delta": 0},
          static_counters={"kernels_per_iteration": 0, "atomic_statements": 4})
def gerritsen_grid_sssp(graph, tile: int = 32, delta: int = 0):
    terrain = getattr(graph, "terrain", None)
    if not isinstance(terrain, np.ndarray) or terrain.ndim != 2 \
            or terrain.size != graph.num_vertices:
        raise InputError(f"gerritsen_grid_sssp needs a terrain grid (a graph read from a DEM); "
                         f"graph {graph.name or '(unnamed)'} has none")
    return GridSSSP(terrain, tile=tile, delta=delta)


def phase2_gpu(indptr, indices, weights, sources, init_dist, *, delta: int = 0,
               threads_per_block: int | None = None, return_counters: bool = False):
    """Distances over G' (CSR) from several seeds at once (phase 2 on the GPU).

    ``init_dist`` gives one distance per entry of ``sources`` (a full per-vertex array, with
    ``len == vertices``, is also taken: its values at ``sources`` are used). Returns int64
    distances, INF where unreachable; with ``return_counters`` also (timings, counters).
    ``delta`` is the near-far step (0: Davidson's heuristic); ``threads_per_block`` defaults to 512
    (32 under the CUDA simulator, where every thread is a Python thread)."""
    if threads_per_block is None:
        threads_per_block = 32 if gpu.simulated() else 512
    indptr = np.asarray(indptr)
    indices = np.asarray(indices)
    weights = np.asarray(weights)
    n = len(indptr) - 1
    sources = np.asarray(sources, dtype=np.int64).ravel()
    init = np.asarray(init_dist, dtype=np.int64).ravel()
    if n < 0 or len(indices) != indptr[-1] or len(weights) != len(indices):
        raise InputError("phase2_gpu: indptr, indices and weights are not one CSR graph")
    if len(sources) == 0:
        raise InputError("phase2_gpu needs at least one source")
    if sources.min() < 0 or sources.max() >= n:
        raise InputError(f"phase2_gpu: a source is out of range 0..{n - 1}")
    if len(init) == n and len(sources) != n:
        init = init[sources]
    if len(init) != len(sources):
        raise InputError(f"phase2_gpu: {len(init)} initial distances for {len(sources)} sources")
    reached = init < INF
    if not reached.any():
        out = np.full(n, INF, dtype=np.int64)
        return (out, {}, {}) if return_counters else out
    if (init[reached] < 0).any() or (len(weights) and weights.min() < 0):
        raise InputError("phase2_gpu: distances and weights must be >= 0")
    # A super-source n with an arc to each seed weighing the seed's distance above the least;
    # the least is added back at the end, so the arcs stay small.
    base = int(init[reached].min())
    seeds = sources[reached]
    # The super-source is the last vertex, so its arcs go at the end: no sort of G' (which has
    # about a billion arcs for the thesis's 8192^2 window).
    lift = init[reached] - base
    arcs = len(indices) + len(seeds)
    index_type = index_dtype(max(arcs, n + 1))
    weight_type = np.int32 if max(int(lift.max()), int(weights.max()) if len(weights) else 0) \
        <= np.iinfo(np.int32).max else np.int64
    graph = CSRGraph(np.append(indptr.astype(index_type), arcs).astype(index_type),
                     np.concatenate([indices, seeds]).astype(index_dtype(n + 1)),
                     np.concatenate([weights, lift]).astype(weight_type), name="G'+super-source")
    spec = get_solver("nearfar")
    prepared = spec.prepare(graph, delta=delta, threads_per_block=threads_per_block)
    result = prepared.solve(n)
    dist = result.distances[:n].copy()
    finite = dist < INF
    dist[finite] += base
    if return_counters:
        return dist, {"upload": prepared.upload_ms, "solve": result.solve_ms,
                      "download": result.download_ms}, result.counters
    return dist
