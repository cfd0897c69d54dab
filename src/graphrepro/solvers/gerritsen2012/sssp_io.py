"""gerritsen2012 chapter 4 / section 5.6: the three-phase I/O-efficient SSSP on a terrain grid.

Haverkort's algorithm after Arge et al., as the thesis implemented it (the non-hierarchical
version, O(scan(N) + sort(N / sqrt(M))) I/Os):

1. Phase 1, per I/O-block of side m (M = m^2 vertices): the distance between every pair of its
   4m - 4 boundary vertices using only the block (a ``PHASE1`` step by name: "cpu_dijkstra" here,
   Dijkstra from each boundary vertex as the thesis ran it; 11b's "gpu_alg1" / "gpu_alg2"). The
   result is G', stored per block as section 5.6.1 describes: one record with the boundary pairs,
   one with the edges to the block on the right, one with the edges to the block below (Figure
   5.1). A record's edges are implied by their position ("determine the correct index based on
   the type of edge"): row r of the right record holds the weights from cell (r, m-1) to rows
   r-1, r, r+1 of the next block column, so the diagonal edges are included, and an edge across
   a block corner is stored twice (in a right and in a bottom record), as the thesis notes.
2. Phase 2: Dijkstra over G' with a priority queue over clusters, keyed by the smallest
   tentative distance of a boundary vertex in the cluster. The source block is read first and its
   own distances from s are kept (section 5.6.1). When a cluster is fetched, its records (and the
   neighbours' records that hold edges into it) are read once and its boundary vertices are made
   final while it still holds the smallest key: exactly Dijkstra's order, one fetch per run of
   consecutive vertices rather than one per vertex.
3. Phase 3: every block again, Dijkstra inside it seeded with its boundary distances. The source
   block is the thesis's special case: its answer is the kept phase-2 initialisation combined
   (minimum) with the seeded run. (The thesis takes the initialisation alone; that misses paths
   that leave the source block and come back, so both are combined, which is exact.)

Every block transfer is counted in an ``IOCounter``: grid blocks through ``terrain.blockio.ZBlocks``,
G' and distance records through ``RecordFile`` (fixed-size records, one file per kind: the thesis's
per-block files packed so a run on 2^26 vertices does not make a million files; one record read or
written is one counted transfer either way). Weight of an edge: |val(i) - val(j)|, 8 neighbours,
zero weights allowed; distances int64. Vertex ids are row-major over the padded square grid.
"""

from __future__ import annotations

import json
import os
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from ...errors import InputError, VerificationError
from ...terrain import morton
from ...terrain.blockio import IOCounter, ZBlocks
from ..base import INF
from ..heap import heap_pop, heap_push
from . import PHASE1, register_step, step
from .types import Phase1Result, boundary_cells

GPRIME_FORMAT = "graphrepro gprime 1"
MISSING = -1  # a right/bottom record entry whose neighbour lies outside the grid


# --- fixed-size, counted records ------------------------------------------------------------

class RecordFile:
    """One record of a fixed shape per I/O-block slot, all in one file (record i at i * size).

    ``write`` / ``read`` are counted transfers; kernels that walk records themselves (phase 2)
    get ``array`` (the memmap) and report how many records they touched with ``count_reads``."""

    def __init__(self, path, shape, dtype, slots: int, counter: IOCounter, *, create=False):
        self.path = Path(path)
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.slots = int(slots)
        self.counter = counter
        self.record_bytes = int(np.prod(self.shape)) * self.dtype.itemsize
        if create:
            with open(self.path, "wb") as f:
                f.truncate(self.slots * self.record_bytes)
        elif not self.path.is_file() or self.path.stat().st_size != self.slots * self.record_bytes:
            raise InputError(f"{self.path}: missing or not {self.slots} records of "
                             f"{self.record_bytes} bytes (rerun phase 1)")
        self.array = np.memmap(self.path, dtype=self.dtype, mode="r+" if create else "r",
                               shape=(self.slots,) + self.shape)

    def write(self, slot: int, values) -> None:
        t0 = time.perf_counter()
        self.array[slot] = values
        self.counter.write_seconds += time.perf_counter() - t0
        self.counter.block_writes += 1
        self.counter.bytes_written += self.record_bytes

    def read(self, slot: int) -> np.ndarray:
        t0 = time.perf_counter()
        out = np.array(self.array[slot])
        self.counter.read_seconds += time.perf_counter() - t0
        self.counter.block_reads += 1
        self.counter.bytes_read += self.record_bytes
        return out

    def count_reads(self, records: int) -> None:
        self.counter.block_reads += int(records)
        self.counter.bytes_read += int(records) * self.record_bytes

    def flush(self) -> None:
        self.array.flush()


# --- Dijkstra inside one block ----------------------------------------------------------------

@numba.njit(cache=True, nogil=True)
def _block_dijkstra(vals, m, seeds, seed_dist, dist, done, heap_key, heap_vertex):
    """Multi-source Dijkstra on the m x m block ``vals`` (flat, row-major), 8 neighbours, weight
    |difference|; ``dist``/``done`` are overwritten. Binary heap with lazy deletion. Returns the
    number of arcs relaxed."""
    n = m * m
    for v in range(n):
        dist[v] = INF
        done[v] = False
    size = 0
    for s in range(len(seeds)):
        v = seeds[s]
        d = seed_dist[s]
        if d < dist[v]:
            dist[v] = d
            size = heap_push(heap_key, heap_vertex, size, d, v)
    relaxed = 0
    while size > 0:
        key, u, size = heap_pop(heap_key, heap_vertex, size)
        if done[u] or key > dist[u]:
            continue
        done[u] = True
        r = u // m
        c = u - r * m
        a = vals[u]
        for dr in range(-1, 2):
            r2 = r + dr
            if r2 < 0 or r2 >= m:
                continue
            for dc in range(-1, 2):
                c2 = c + dc
                if (dr == 0 and dc == 0) or c2 < 0 or c2 >= m:
                    continue
                v = r2 * m + c2
                if done[v]:
                    continue
                relaxed += 1
                b = vals[v]
                nd = key + (a - b if a > b else b - a)
                if nd < dist[v]:
                    dist[v] = nd
                    size = heap_push(heap_key, heap_vertex, size, nd, v)
    return relaxed


def _heap_capacity(m: int, seeds: int) -> int:
    return 8 * m * m + seeds + 1  # every push is a decrease along one of <= 8 in-arcs, or a seed


def _phase1_cpu_body(values, bcells, parts, out, relaxed):
    """Each block's k sources in ``parts`` runs of consecutive sources; a run allocates its
    work arrays once (many small blocks: one run per block; few big ones: the sources of a block
    spread over the cores)."""
    nb, m, _ = values.shape
    k = len(bcells)
    n = m * m
    per_part = (k + parts - 1) // parts
    for t in numba.prange(nb * parts):
        b = t // parts
        first = (t - b * parts) * per_part
        last = min(k, first + per_part)
        if first >= last:
            continue
        vals = values[b].ravel()
        dist = np.empty(n, dtype=np.int64)
        done = np.empty(n, dtype=np.bool_)
        cap = 8 * n + 2
        heap_key = np.empty(cap, dtype=np.int64)
        heap_vertex = np.empty(cap, dtype=np.int64)
        zero = np.zeros(1, dtype=np.int64)
        count = 0
        for i in range(first, last):
            count += _block_dijkstra(vals, m, bcells[i:i + 1], zero, dist, done, heap_key,
                                     heap_vertex)
            for j in range(k):
                out[b, i, j] = dist[bcells[j]]
        relaxed[t] = count


_phase1_cpu_parallel = numba.njit(parallel=True, cache=True)(_phase1_cpu_body)
_phase1_cpu_serial = numba.njit(cache=True)(_phase1_cpu_body)


@register_step(PHASE1, "cpu_dijkstra")
def phase1_cpu_dijkstra(values: np.ndarray, *, parallel: bool = True) -> Phase1Result:
    """Phase 1 on the CPU as the thesis ran it: Dijkstra from each boundary vertex of each block
    (numba; the blocks x boundary vertices runs are spread over the cores when ``parallel``)."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    if values.ndim != 3 or values.shape[1] != values.shape[2]:
        raise InputError(f"phase 1 wants (blocks, m, m) values, got shape {values.shape}")
    nb, m, _ = values.shape
    bcells = boundary_cells(m)
    k = len(bcells)
    out = np.empty((nb, k, k), dtype=np.int64)
    fn = _phase1_cpu_parallel if parallel and nb * k * m * m >= (1 << 16) else _phase1_cpu_serial
    threads = numba.get_num_threads() if fn is _phase1_cpu_parallel else 1
    parts = min(k, -(-4 * threads // nb))  # about four runs per core, at least one per block
    relaxed = np.zeros(nb * parts, dtype=np.int64)
    t0 = time.perf_counter()
    fn(values, bcells, parts, out, relaxed)
    ms = (time.perf_counter() - t0) * 1e3
    return Phase1Result(out, timings={"phase1": ms},
                        counters={"dijkstra_runs": nb * k, "arcs_relaxed": int(relaxed.sum()),
                                  "threads": numba.get_num_threads() if fn is _phase1_cpu_parallel else 1})


def block_dijkstra(values2d: np.ndarray, seeds, seed_dist) -> np.ndarray:
    """Distances inside one m x m block from several seeds with start distances (phase 3's
    seeded run; a single seed at 0 is the source block's initialisation)."""
    m = values2d.shape[0]
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)
    seed_dist = np.ascontiguousarray(seed_dist, dtype=np.int64)
    dist = np.empty(m * m, dtype=np.int64)
    done = np.empty(m * m, dtype=np.bool_)
    cap = _heap_capacity(m, len(seeds))
    _block_dijkstra(np.ascontiguousarray(values2d, dtype=np.int64).ravel(), m, seeds, seed_dist,
                    dist, done, np.empty(cap, np.int64), np.empty(cap, np.int64))
    return dist


def _phase3_body(values, bcells, bdist, out):
    nb, m, _ = values.shape
    n = m * m
    k = len(bcells)
    for b in numba.prange(nb):
        dist = np.empty(n, dtype=np.int64)
        done = np.empty(n, dtype=np.bool_)
        cap = 8 * n + k + 1
        heap_key = np.empty(cap, dtype=np.int64)
        heap_vertex = np.empty(cap, dtype=np.int64)
        _block_dijkstra(values[b].ravel(), m, bcells, bdist[b], dist, done, heap_key, heap_vertex)
        for v in range(n):
            out[b, v] = dist[v]


_phase3_parallel = numba.njit(parallel=True, cache=True)(_phase3_body)
_phase3_serial = numba.njit(cache=True)(_phase3_body)


# --- the seams: edges between neighbouring blocks -------------------------------------------

@numba.njit(cache=True)
def _seams(border, slot, m, bpos, right, bottom, has_right, has_bottom):
    """Right and bottom records of every block from the blocks' boundary values (``border``:
    slot x k). Returns the number of border records read (own and neighbours', once each per
    block)."""
    per = slot.shape[0]
    reads = 0
    for by in range(per):
        for bx in range(per):
            s = slot[by, bx]
            reads += 1
            if bx + 1 < per:
                has_right[s] = True
                t = slot[by, bx + 1]
                reads += 1
                if by > 0:
                    reads += 1
                if by + 1 < per:
                    reads += 1
                for r in range(m):
                    a = np.int64(border[s, bpos[r * m + m - 1]])
                    for d in range(3):
                        rr = r + d - 1
                        if rr < 0:
                            if by == 0:
                                right[s, r, d] = MISSING
                                continue
                            b = np.int64(border[slot[by - 1, bx + 1], bpos[(m - 1) * m]])
                        elif rr >= m:
                            if by + 1 >= per:
                                right[s, r, d] = MISSING
                                continue
                            b = np.int64(border[slot[by + 1, bx + 1], bpos[0]])
                        else:
                            b = np.int64(border[t, bpos[rr * m]])
                        right[s, r, d] = a - b if a > b else b - a
            if by + 1 < per:
                has_bottom[s] = True
                t = slot[by + 1, bx]
                reads += 1
                if bx > 0:
                    reads += 1
                # (the down-right block's border, if any, was read for the right record)
                for c in range(m):
                    a = np.int64(border[s, bpos[(m - 1) * m + c]])
                    for d in range(3):
                        cc = c + d - 1
                        if cc < 0:
                            if bx == 0:
                                bottom[s, c, d] = MISSING
                                continue
                            b = np.int64(border[slot[by + 1, bx - 1], bpos[m - 1]])
                        elif cc >= m:
                            if bx + 1 >= per:
                                bottom[s, c, d] = MISSING
                                continue
                            b = np.int64(border[slot[by + 1, bx + 1], bpos[0]])
                        else:
                            b = np.int64(border[t, bpos[cc]])
                        bottom[s, c, d] = a - b if a > b else b - a
    return reads


# --- phase 2: Dijkstra over G' with a priority queue of clusters ----------------------------

@numba.njit(cache=True, inline="always")
def _sift_up(heap, pos, key, i):
    c = heap[i]
    kc = key[c]
    while i > 0:
        p = (i - 1) // 2
        if key[heap[p]] <= kc:
            break
        heap[i] = heap[p]
        pos[heap[i]] = i
        i = p
    heap[i] = c
    pos[c] = i


@numba.njit(cache=True, inline="always")
def _sift_down(heap, pos, key, size, i):
    c = heap[i]
    kc = key[c]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and key[heap[child + 1]] < key[heap[child]]:
            child += 1
        if key[heap[child]] >= kc:
            break
        heap[i] = heap[child]
        pos[heap[i]] = i
        i = child
    heap[i] = c
    pos[c] = i


@numba.njit(cache=True)
def _phase2(slot, m, bcells, bpos, bnd, right, bottom, src_slot, init, d, counters):
    """Dijkstra over G'. ``d`` (slots x k, INF) gets the final boundary distances; ``init`` the
    source block's boundary distances from s. counters: [fetches, finalised, boundary-pair /
    right / bottom records read, relaxations, max queue size]."""
    per = slot.shape[0]
    slots = per * per
    k = len(bcells)
    bx_of = np.empty(slots, dtype=np.int64)
    by_of = np.empty(slots, dtype=np.int64)
    for by in range(per):
        for bx in range(per):
            bx_of[slot[by, bx]] = bx
            by_of[slot[by, bx]] = by
    final = np.zeros((slots, k), dtype=np.bool_)
    key = np.full(slots, INF, dtype=np.int64)
    heap = np.empty(slots, dtype=np.int64)
    pos = np.full(slots, -1, dtype=np.int64)
    size = 0
    best = INF
    for j in range(k):
        d[src_slot, j] = init[j]
        if init[j] < best:
            best = init[j]
    if best < INF:
        key[src_slot] = best
        heap[0] = src_slot
        pos[src_slot] = 0
        size = 1
    side = per * m
    fetches = 0
    finalised = 0
    reads_bnd = 0
    reads_right = 0
    reads_bottom = 0
    relaxations = 0
    max_size = size
    while size > 0:
        q = heap[0]
        pos[q] = -1
        size -= 1
        if size > 0:
            heap[0] = heap[size]
            pos[heap[0]] = 0
            _sift_down(heap, pos, key, size, 0)
        key[q] = INF
        fetches += 1
        bx = bx_of[q]
        by = by_of[q]
        # the records that hold q's edges: its own three, the right records of the blocks to
        # the left (left, up-left, down-left) and the bottom record of the block above
        reads_bnd += 1
        if bx + 1 < per:
            reads_right += 1
        if by + 1 < per:
            reads_bottom += 1
        if bx > 0:
            reads_right += 1
            if by > 0:
                reads_right += 1
            if by + 1 < per:
                reads_right += 1
        if by > 0:
            reads_bottom += 1
        while True:
            t = -1
            dt = INF
            for j in range(k):
                if not final[q, j] and d[q, j] < dt:
                    dt = d[q, j]
                    t = j
            if t < 0:
                break  # every reachable boundary vertex of q is final: q leaves the queue
            if size > 0 and dt > key[heap[0]]:
                key[q] = dt  # another cluster holds the minimum now: q goes back, keyed
                heap[size] = q
                pos[q] = size
                size += 1
                _sift_up(heap, pos, key, size - 1)
                break
            final[q, t] = True
            finalised += 1
            for j in range(k):
                if not final[q, j]:
                    nd = dt + bnd[q, t, j]
                    relaxations += 1
                    if nd < d[q, j]:
                        d[q, j] = nd
            cell = bcells[t]
            r = cell // m
            c = cell - r * m
            gy = by * m + r
            gx = bx * m + c
            for dy in range(-1, 2):
                ny = gy + dy
                if ny < 0 or ny >= side:
                    continue
                for dx in range(-1, 2):
                    nx = gx + dx
                    if (dx == 0 and dy == 0) or nx < 0 or nx >= side:
                        continue
                    nbx = nx // m
                    nby = ny // m
                    if nbx == bx and nby == by:
                        continue
                    if nbx != bx:  # crosses a vertical seam: the left cell's right record
                        if dx == 1:
                            w = right[q, r, dy + 1]
                        else:
                            w = right[slot[nby, nbx], ny - nby * m, 1 - dy]
                    else:  # crosses a horizontal seam only: the upper cell's bottom record
                        if dy == 1:
                            w = bottom[q, c, dx + 1]
                        else:
                            w = bottom[slot[nby, nbx], nx - nbx * m, 1 - dx]
                    q2 = slot[nby, nbx]
                    j2 = bpos[(ny - nby * m) * m + (nx - nbx * m)]
                    if final[q2, j2]:
                        continue
                    relaxations += 1
                    nd = dt + w
                    if nd < d[q2, j2]:
                        d[q2, j2] = nd
                        if nd < key[q2]:
                            key[q2] = nd
                            if pos[q2] < 0:
                                heap[size] = q2
                                pos[q2] = size
                                size += 1
                                if size > max_size:
                                    max_size = size
                            _sift_up(heap, pos, key, pos[q2])
    counters[0] = fetches
    counters[1] = finalised
    counters[2] = reads_bnd
    counters[3] = reads_right
    counters[4] = reads_bottom
    counters[5] = relaxations
    counters[6] = max_size


# --- G' as CSR, for phase 2 on the GPU -------------------------------------------------------

@numba.njit(cache=True)
def _gprime_csr(slot, m, bcells, bpos, bnd, right, bottom):
    """G' in CSR: vertex slot * k + j; arcs within each cluster (phase 1 distances) and across
    seams (grid weights), both directions."""
    per = slot.shape[0]
    k = len(bcells)
    side = per * m
    n = per * per * k
    deg = np.zeros(n + 1, dtype=np.int64)
    for by in range(per):
        for bx in range(per):
            q = slot[by, bx]
            for t in range(k):
                cell = bcells[t]
                r = cell // m
                c = cell - r * m
                cnt = k - 1
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        ny = by * m + r + dy
                        nx = bx * m + c + dx
                        if (dx == 0 and dy == 0) or ny < 0 or nx < 0 or ny >= side or nx >= side:
                            continue
                        if nx // m != bx or ny // m != by:
                            cnt += 1
                deg[q * k + t + 1] = cnt
    indptr = np.cumsum(deg)
    indices = np.empty(indptr[-1], dtype=np.int64)
    weights = np.empty(indptr[-1], dtype=np.int64)
    for by in range(per):
        for bx in range(per):
            q = slot[by, bx]
            for t in range(k):
                p = indptr[q * k + t]
                for j in range(k):
                    if j != t:
                        indices[p] = q * k + j
                        weights[p] = bnd[q, t, j]
                        p += 1
                cell = bcells[t]
                r = cell // m
                c = cell - r * m
                gy = by * m + r
                gx = bx * m + c
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        ny = gy + dy
                        nx = gx + dx
                        if (dx == 0 and dy == 0) or ny < 0 or nx < 0 or ny >= side or nx >= side:
                            continue
                        nbx = nx // m
                        nby = ny // m
                        if nbx == bx and nby == by:
                            continue
                        if nbx != bx:
                            w = right[q, r, dy + 1] if dx == 1 else \
                                right[slot[nby, nbx], ny - nby * m, 1 - dy]
                        else:
                            w = bottom[q, c, dx + 1] if dy == 1 else \
                                bottom[slot[nby, nbx], nx - nbx * m, 1 - dx]
                        indices[p] = slot[nby, nbx] * k + bpos[(ny - nby * m) * m + nx - nbx * m]
                        weights[p] = w
                        p += 1
    return indptr, indices, weights


# --- the driver ------------------------------------------------------------------------------

def block_layout(m: int) -> tuple[np.ndarray, np.ndarray]:
    """(boundary cells, boundary position of each block cell or -1)."""
    bcells = boundary_cells(m)
    bpos = np.full(m * m, -1, dtype=np.int64)
    bpos[bcells] = np.arange(len(bcells))
    return bcells, bpos


def slot_table(per: int) -> np.ndarray:
    """Record slot of block (bx, by) = its z-order index: records follow the grid file's order."""
    by, bx = np.divmod(np.arange(per * per, dtype=np.int64), per)
    return morton.encode(bx, by).reshape(per, per)


def _distance_dtype(max_value: int, m: int):
    """int32 records where no in-block distance can reach 2^31 (halves G' on disk), else int64."""
    return np.int32 if max_value * (m * m) < 2 ** 31 - 1 else np.int64


@dataclass
class Gprime:
    """A G' directory made by phase 1 (gprime.json says what it holds)."""
    directory: Path
    meta: dict
    counter: IOCounter = field(default_factory=IOCounter)

    @classmethod
    def open(cls, directory, counter: IOCounter | None = None) -> "Gprime":
        directory = Path(directory)
        path = directory / "gprime.json"
        if not path.is_file():
            raise InputError(f"{directory}: no G' there (run phase 1 first)")
        meta = json.loads(path.read_text())
        if meta.get("partial"):
            raise InputError(f"{directory}: phase 1 ran on some blocks only (a timing run); "
                             "phases 2 and 3 need the whole G'")
        return cls(directory, meta, counter or IOCounter())

    @property
    def m(self) -> int:
        return int(self.meta["m"])

    @property
    def per(self) -> int:
        return int(self.meta["per"])

    def records(self, kind: str, create=False) -> RecordFile:
        m, k, slots = self.m, 4 * self.m - 4, self.per ** 2
        shape, dtype = {"bnd": ((k, k), self.meta["dtype"]), "right": ((m, 3), np.int32),
                        "bottom": ((m, 3), np.int32), "border": ((k,), np.int64),
                        "bdist": ((k,), np.int64), "dist": ((m * m,), np.int64)}[kind]
        return RecordFile(self.directory / f"{kind}.rec", shape, dtype, slots, self.counter,
                          create=create)


def phase1(zgrid, directory, m: int, *, step_name: str = "cpu_dijkstra", params: dict | None = None,
           batch_vertices: int = 1 << 20, counter: IOCounter | None = None, log=None,
           only_blocks: list | None = None, warmup: bool = False) -> Gprime:
    """Phase 1 over the whole grid: G' written under ``directory``. Blocks go to the step in
    batches of about ``batch_vertices`` vertices (GPU algorithm 2 runs many blocks at once).

    ``only_blocks`` [(bx, by), ...] times the step on those blocks alone (the thesis's tables
    time a few blocks and extrapolate): the G' is then partial and phases 2 and 3 refuse it.
    ``warmup`` first runs the step once, untimed: on a real block of side m for steps compiled per
    side (``specialises_on_side``: GPU algorithm 2), else on an 8 x 8 block (kernel compilation; GPU
    algorithm 1 with C = 4^2 there)."""
    counter = counter if counter is not None else IOCounter()
    grid = ZBlocks(zgrid, counter)
    per = grid.blocks_per_side(m)
    if m < 2:
        raise InputError("an I/O-block needs side >= 2")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "gprime.json").unlink(missing_ok=True)  # a half-made G' must not look complete
    max_value = int(grid.meta.get("max", np.iinfo(grid.z.dtype).max))
    meta = {"format": GPRIME_FORMAT, "m": m, "per": per, "side": grid.side,
            "dtype": np.dtype(_distance_dtype(max_value, m)).name, "zgrid": str(Path(zgrid).resolve()),
            "phase1": step_name, "params": params or {}}
    try:
        fn = step(PHASE1, step_name)
    except KeyError as e:
        raise InputError(f"phase 1: {e.args[0]}") from None
    g = Gprime(directory, meta, counter)
    bnd, border = g.records("bnd", create=True), g.records("border", create=True)
    bcells, bpos = block_layout(m)
    slot = slot_table(per)
    batch = max(1, batch_vertices // (m * m))
    timings = {"step_ms": 0.0, "read_ms": 0.0, "write_ms": 0.0, "seams_ms": 0.0}
    counters: dict = {}
    order = list(grid.zorder_blocks(m)) if only_blocks is None else [tuple(b) for b in only_blocks]
    batch_ms = []
    if warmup and order:
        if getattr(fn, "specialises_on_side", False):
            # its kernels are compiled per block side (GPU algorithm 2): warm up on a real block
            # of this side, or the first timed batch would include the compiler
            bx, by = order[0]
            fn(grid.read(m, bx, by)[None].astype(np.int64), **(params or {}))
            meta["warmup"] = f"one {m} x {m} block (kernels compiled per side)"
        else:
            # kernels compile per type, not per size: a small block warms them in moments, where
            # the first real block could take as long as the timed run (GPU algorithm 1)
            w = min(m, 8)
            small = dict(params or {})
            if "c" in small:
                small["c"] = min(int(small["c"]), w // 2) if w >= 4 else w
            fn(grid.read(w, 0, 0)[None].astype(np.int64), **small)
            meta["warmup"] = f"one {w} x {w} block (kernels compiled per type)"
    progress = {}
    if log and getattr(fn, "reports_progress", False):
        progress["progress"] = lambda part, done, total: log(f"progress {part} {done}/{total}")
    if log:
        log(f"phase 1: timing starts ({len(order)} blocks)")
    for start in range(0, len(order), batch):
        chunk = order[start:start + batch]
        t0 = time.perf_counter()
        values = np.stack([grid.read(m, bx, by) for bx, by in chunk]).astype(np.int64)
        timings["read_ms"] += (time.perf_counter() - t0) * 1e3
        t0 = time.perf_counter()
        res = fn(values, **(params or {}), **progress)
        batch_ms.append((time.perf_counter() - t0) * 1e3)
        timings["step_ms"] += batch_ms[-1]
        if res.dist.shape != (len(chunk), len(bcells), len(bcells)):
            raise VerificationError(f"phase-1 step {step_name} returned shape {res.dist.shape} "
                                    f"for {len(chunk)} blocks of side {m}")
        for key, value in res.counters.items():
            if isinstance(value, (int, np.integer)) and key != "threads":
                counters[key] = counters.get(key, 0) + int(value)
            else:
                counters[key] = value
        t0 = time.perf_counter()
        for b, (bx, by) in enumerate(chunk):
            s = slot[by, bx]
            bnd.write(s, res.dist[b])
            border.write(s, values[b].ravel()[bcells])
        timings["write_ms"] += (time.perf_counter() - t0) * 1e3
        if log:
            log(f"phase 1: {min(start + batch, len(order))}/{len(order)} blocks")
    bnd.flush()
    border.flush()
    meta.update(batch_ms=batch_ms, blocks=[list(map(int, b)) for b in order] if only_blocks else None)
    if only_blocks is not None:
        meta.update(partial=True, timings=timings, counters=counters)
        (directory / "gprime.json").write_text(json.dumps(meta, indent=1) + "\n")
        return g
    t0 = time.perf_counter()
    right, bottom = g.records("right", create=True), g.records("bottom", create=True)
    has_right = np.zeros(per * per, dtype=np.bool_)
    has_bottom = np.zeros(per * per, dtype=np.bool_)
    reads = _seams(border.array, slot, m, bpos, right.array, bottom.array, has_right, has_bottom)
    border.count_reads(reads)
    # one counted write per record that exists ("if blocks don't exist we don't save anything")
    for rec, has in ((right, has_right), (bottom, has_bottom)):
        n = int(has.sum())
        counter.block_writes += n
        counter.bytes_written += n * rec.record_bytes
        rec.flush()
    timings["seams_ms"] = (time.perf_counter() - t0) * 1e3
    meta.update(timings=timings, counters=counters)
    tmp = directory / "gprime.json.part"
    tmp.write_text(json.dumps(meta, indent=1) + "\n")
    tmp.replace(directory / "gprime.json")
    return g


@dataclass
class Phase23:
    dist_records: Path
    timings: dict
    counters: dict
    io: dict


def vm_data_kib() -> int | None:
    """This process's data segment (VmData: what RLIMIT_DATA limits), KiB; None off Linux."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmData:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def apply_memory_cap(budget_mb: float) -> dict:
    """Limit this process's data segment to what it uses now plus ``budget_mb`` (RLIMIT_DATA:
    heap and private anonymous mappings; the memory-mapped grid and G' files are file-backed and
    the kernel may evict them, as the thesis's 238 MB machine did with its disk files). Not
    RLIMIT_AS: numba and LLVM reserve far more address space than they use. Call after the
    kernels are compiled, so the cap bounds the algorithm, not the compiler."""
    base = vm_data_kib()
    if base is None:
        raise InputError("a memory cap needs Linux (/proc/self/status for the data segment)")
    limit = int(base * 1024 + budget_mb * 2 ** 20)
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY and limit > hard:
        raise InputError(f"a data-segment cap of {limit >> 20} MiB exceeds this process's hard "
                         f"limit ({hard >> 20} MiB)")
    # the soft limit only, so that the check after the capped phases can lift it again
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    return {"rlimit": "RLIMIT_DATA", "baseline_mib": round(base / 1024, 1),
            "budget_mib": float(budget_mb), "limit_mib": round(limit / 2 ** 20, 1),
            "previous_soft": soft}


def lift_memory_cap(cap: dict) -> None:
    """Undo ``apply_memory_cap`` (the whole-grid check is not part of the capped algorithm)."""
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (cap["previous_soft"], hard))


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel of the three phases on a 4 x 4 grid,
    with the array types the phases pass (read-only memory-mapped records among them), so no
    timed section includes the compiler."""
    m, per = 2, 2
    bcells, bpos = block_layout(m)
    slot = slot_table(per)
    k = len(bcells)
    side = np.zeros((per * per, m, 3), dtype=np.int32)
    side.setflags(write=False)
    for dtype in (np.int32, np.int64):
        for writable in (False, True):
            bnd = np.zeros((per * per, k, k), dtype=dtype)
            bnd.setflags(write=writable)
            d = np.full((per * per, k), INF, dtype=np.int64)
            _phase2(slot, m, bcells, bpos, bnd, side, side, 0, np.zeros(k, np.int64), d,
                    np.zeros(7, np.int64))
            _gprime_csr(slot, m, bcells, bpos, bnd, side, side)
    phase1_cpu_dijkstra(np.zeros((1, 2, 2), dtype=np.int64))
    bc = boundary_cells(2)
    _phase1_cpu_parallel(np.zeros((2, 2, 2), np.int64), bc, 2, np.empty((2, 4, 4), np.int64),
                         np.zeros(4, np.int64))  # starts the threading layer too
    morton.decode(np.arange(4))  # ZBlocks.read: its z-order scatter and its start index
    morton.encode1(1, 1)
    whole_grid_dijkstra(np.zeros((4, 4), dtype=np.int64), 0)
    border = np.zeros((per * per, k), dtype=np.int64)
    _seams(border, slot, m, bpos, np.zeros((per * per, m, 3), np.int32),
           np.zeros((per * per, m, 3), np.int32), np.zeros(per * per, np.bool_),
           np.zeros(per * per, np.bool_))
    vals = np.zeros((1, m, m), dtype=np.int64)
    _phase3_serial(vals, bcells, np.zeros((1, k), np.int64), np.empty((1, m * m), np.int64))
    _phase3_parallel(vals, bcells, np.zeros((1, k), np.int64), np.empty((1, m * m), np.int64))
    block_dijkstra(vals[0], [0], [0])


def check_source(zgrid, source: int) -> None:
    side = ZBlocks(zgrid).side
    if not 0 <= source < side * side:
        raise InputError(f"source {source} out of range: the grid has {side} x {side} = "
                         f"{side * side} vertices (row-major ids of the padded square)")


def phases23(directory, source: int, *, phase2: str = "cpu", batch_vertices: int = 1 << 20,
             counter: IOCounter | None = None) -> Phase23:
    """Phases 2 and 3 on a G' made by ``phase1``: boundary distances from ``source`` (a row-major
    id of the padded grid), then every vertex's distance, written to the ``dist`` records."""
    counter = counter if counter is not None else IOCounter()
    g = Gprime.open(directory, counter)
    m, per = g.m, g.per
    side = per * m
    if not 0 <= source < side * side:
        raise InputError(f"source {source} out of range: the grid has {side} x {side} = "
                         f"{side * side} vertices (row-major ids of the padded square)")
    grid = ZBlocks(g.meta["zgrid"], counter)
    bcells, bpos = block_layout(m)
    slot = slot_table(per)
    k = len(bcells)
    timings, counters = {}, {}

    # phase 2
    before = counter.as_dict()
    t0 = time.perf_counter()
    sy, sx = divmod(source, side)
    sbx, sby = sx // m, sy // m
    src_slot = int(slot[sby, sbx])
    src_values = grid.read(m, sbx, sby)
    src_local = (sy - sby * m) * m + (sx - sbx * m)
    kept = block_dijkstra(src_values, [src_local], [0])  # the source block's own distances
    init = kept[bcells].copy()
    bnd, right, bottom = g.records("bnd"), g.records("right"), g.records("bottom")
    d = np.full((per * per, k), INF, dtype=np.int64)
    if phase2 == "cpu":
        c = np.zeros(7, dtype=np.int64)
        _phase2(slot, m, bcells, bpos, bnd.array, right.array, bottom.array, src_slot, init, d, c)
        bnd.count_reads(c[2])
        right.count_reads(c[3])
        bottom.count_reads(c[4])
        counters.update(phase2_fetches=int(c[0]), phase2_finalised=int(c[1]),
                        phase2_record_reads=int(c[2] + c[3] + c[4]), phase2_relaxations=int(c[5]),
                        phase2_max_queue=int(c[6]))
    elif phase2 == "gpu":
        try:
            from .grid_sssp_gpu import phase2_gpu
        except ImportError:
            raise InputError("phase 2 on the GPU needs solvers/gerritsen2012/grid_sssp_gpu.py "
                             "(issue 11, GPU part), which is not in this tree") from None
        t_csr = time.perf_counter()
        indptr, indices, weights = _gprime_csr(slot, m, bcells, bpos, bnd.array, right.array,
                                               bottom.array)
        counters["phase2_gprime_csr_ms"] = (time.perf_counter() - t_csr) * 1e3
        bnd.count_reads(per * per)
        right.count_reads(per * per)
        bottom.count_reads(per * per)
        finite = np.flatnonzero(init < INF)
        sources = src_slot * k + finite
        flat = np.asarray(phase2_gpu(indptr, indices, weights, sources.astype(np.int64),
                                     init[finite].astype(np.int64)), dtype=np.int64)
        d = flat.reshape(per * per, k)
    else:
        raise InputError(f"phase2 must be 'cpu' or 'gpu', not {phase2!r}")
    bdist = g.records("bdist", create=True)
    for s in range(per * per):
        bdist.write(s, d[s])
    bdist.flush()
    timings["phase2_ms"] = (time.perf_counter() - t0) * 1e3
    counters["phase2_io"] = _io_delta(before, counter)

    # phase 3
    before = counter.as_dict()
    t0 = time.perf_counter()
    out = g.records("dist", create=True)
    batch = max(1, batch_vertices // (m * m))
    order = list(grid.zorder_blocks(m))
    for start in range(0, len(order), batch):
        chunk = order[start:start + batch]
        values = np.stack([grid.read(m, bx, by) for bx, by in chunk]).astype(np.int64)
        seeds = np.stack([bdist.read(int(slot[by, bx])) for bx, by in chunk])
        res = np.empty((len(chunk), m * m), dtype=np.int64)
        fn = _phase3_parallel if len(chunk) * m * m >= (1 << 16) else _phase3_serial
        fn(values, bcells, seeds, res)
        for b, (bx, by) in enumerate(chunk):
            s = int(slot[by, bx])
            if s == src_slot:  # the thesis's special case: the kept initialisation counts too
                np.minimum(res[b], kept, out=res[b])
            out.write(s, res[b])
    out.flush()
    timings["phase3_ms"] = (time.perf_counter() - t0) * 1e3
    counters["phase3_io"] = _io_delta(before, counter)
    return Phase23(out.path, timings, counters, counter.as_dict())


def _io_delta(before: dict, counter: IOCounter) -> dict:
    now = counter.as_dict()
    return {k: now[k] - before[k] for k in ("block_reads", "block_writes", "bytes_read", "bytes_written")}


def centre_blocks(per: int, n: int) -> list[tuple[int, int]]:
    """The n blocks nearest the grid's centre (bx, by): where a timing run samples real terrain
    rather than the padding of the power-of-two square."""
    c = (per - 1) / 2
    cells = sorted(((bx - c) ** 2 + (by - c) ** 2, by, bx) for by in range(per) for bx in range(per))
    return [(bx, by) for _, by, bx in cells[:max(1, n)]]


def partial_bnd(directory) -> tuple[dict, np.ndarray]:
    """A timing run's G' metadata and the boundary-pair records of its blocks, in its order."""
    directory = Path(directory)
    meta = json.loads((directory / "gprime.json").read_text())
    m, per = int(meta["m"]), int(meta["per"])
    k = 4 * m - 4
    rec = RecordFile(directory / "bnd.rec", (k, k), meta["dtype"], per * per, IOCounter())
    slot = slot_table(per)
    blocks = meta["blocks"] or [(bx, by) for by in range(per) for bx in range(per)]
    return meta, np.stack([np.asarray(rec.array[slot[by, bx]], dtype=np.int64) for bx, by in blocks])


def read_distances(directory) -> np.ndarray:
    """Phase 3's answer as one row-major (side x side) int64 array (for checking; not counted)."""
    g = Gprime.open(directory)
    m, per = g.m, g.per
    dist = g.records("dist").array
    slot = slot_table(per)
    out = np.empty((per * m, per * m), dtype=np.int64)
    for by in range(per):
        for bx in range(per):
            out[by * m:(by + 1) * m, bx * m:(bx + 1) * m] = dist[slot[by, bx]].reshape(m, m)
    return out


# --- the whole-grid baseline and the check ----------------------------------------------------

def grid_values(zgrid) -> np.ndarray:
    """The padded square grid, row-major, int64 (the baseline holds the whole grid in memory)."""
    from ...terrain import open_zgrid, to_rows

    z, meta = open_zgrid(zgrid)
    return to_rows(z, meta, padded=True).astype(np.int64)


def whole_grid_dijkstra(values2d: np.ndarray, source: int) -> tuple[np.ndarray, dict]:
    """The in-memory baseline: the grid graph as CSR (|difference| weights, 8 neighbours) and the
    reference Dijkstra on it. Returns (distances, {"build_ms", "dijkstra_ms", "arcs_relaxed"})."""
    from ...terrain import grid_graph
    from ..reference import dijkstra_csr

    t0 = time.perf_counter()
    g = grid_graph(values2d, weight="sssp")
    t1 = time.perf_counter()
    dist, relaxed = dijkstra_csr(g.indptr, g.indices, g.weights, int(source))
    t2 = time.perf_counter()
    return dist, {"build_ms": (t1 - t0) * 1e3, "dijkstra_ms": (t2 - t1) * 1e3,
                  "arcs_relaxed": int(relaxed)}


def check_distances(got: np.ndarray, expected: np.ndarray, *, what: str) -> None:
    """Raise VerificationError (stopping the experiment) unless the arrays are equal."""
    got = np.asarray(got).ravel()
    expected = np.asarray(expected).ravel()
    if got.shape != expected.shape:
        raise VerificationError(f"WRONG ANSWER: {what}: {got.size} distances, expected {expected.size}")
    diff = np.flatnonzero(got != expected)
    if len(diff):
        v = int(diff[0])
        raise VerificationError(f"WRONG ANSWER: {what}: {len(diff)} of {got.size} distances differ; "
                                f"first at vertex {v}: expected {expected[v]}, got {got[v]}")


def check_phase1(values: np.ndarray, dist: np.ndarray, *, what: str, rows: int = 2) -> None:
    """Check a phase-1 result against the reference Dijkstra on each block's grid graph, for the
    first and last ``rows // 2`` boundary sources of every block (all of them is phase 1 again)."""
    from ...terrain import grid_graph
    from ..reference import dijkstra_csr

    m = values.shape[1]
    bcells = boundary_cells(m)
    k = len(bcells)
    picks = sorted(set(list(range(min(k, rows // 2 or 1))) + list(range(max(0, k - rows // 2), k))))
    for b in range(values.shape[0]):
        g = grid_graph(values[b], weight="sssp")
        for i in picks:
            ref = dijkstra_csr(g.indptr, g.indices, g.weights, int(bcells[i]))[0][bcells]
            check_distances(dist[b, i], ref, what=f"{what}, block {b}, boundary vertex {i}")


@dataclass
class IOSSSPResult:
    distances: np.ndarray | None
    timings: dict
    counters: dict
    io: dict
    check: str


def io_sssp(zgrid, source: int, m: int, workdir, *, phase1_step: str = "cpu_dijkstra",
            phase1_params: dict | None = None, phase2: str = "cpu", batch_vertices: int = 1 << 20,
            verify: bool = True, keep_distances: bool = False, log=None) -> IOSSSPResult:
    """All three phases in this process, then (``verify``) the whole-grid Dijkstra check."""
    check_source(zgrid, source)
    counter = IOCounter()
    t0 = time.perf_counter()
    g = phase1(zgrid, workdir, m, step_name=phase1_step, params=phase1_params,
               batch_vertices=batch_vertices, counter=counter, log=log)
    p1_ms = (time.perf_counter() - t0) * 1e3
    io1 = counter.as_dict()
    p23 = phases23(workdir, source, phase2=phase2, batch_vertices=batch_vertices, counter=counter)
    timings = {"phase1_ms": p1_ms, **{f"phase1_{k}": v for k, v in g.meta["timings"].items()},
               **p23.timings}
    counters = {**{f"phase1_{k}": v for k, v in g.meta["counters"].items()}, **p23.counters,
                "phase1_io": {k: io1[k] for k in ("block_reads", "block_writes", "bytes_read",
                                                  "bytes_written")}}
    dist = read_distances(workdir)
    check = "not checked"
    if verify:
        ref, base = whole_grid_dijkstra(grid_values(zgrid), source)
        check_distances(dist, ref, what=f"I/O-efficient SSSP (M = {m}^2, phase 1 {phase1_step}, "
                                        f"phase 2 {phase2}) from source {source}")
        timings["baseline_dijkstra_ms"] = base["dijkstra_ms"]
        timings["baseline_build_ms"] = base["build_ms"]
        check = "ok: equals whole-grid Dijkstra"
    return IOSSSPResult(dist.ravel() if keep_distances or not verify else None, timings, counters,
                        counter.as_dict(), check)


def child_env() -> dict:
    """The environment for a ``python -m graphrepro`` child: this package's source first, so a
    checkout runs its own code whatever is installed."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_capped(zgrid, workdir, source: int, *, budget_mb: float | None, phase2: str = "cpu",
               batch_vertices: int = 1 << 20, timeout: float | None = None) -> dict:
    """Phases 2 and 3 in a child process whose data segment is capped (``apply_memory_cap``),
    as the thesis ran them on a machine limited to 238 MB. Returns the child's JSON record;
    raises InputError with the child's last line when it fails (e.g. MemoryError under the cap)."""
    import subprocess
    import sys

    out = Path(workdir) / "phases23.json"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "graphrepro", "io-sssp", str(zgrid), "--source", str(source),
           "--workdir", str(workdir), "--phases", "23", "--phase2", phase2,
           "--batch-vertices", str(batch_vertices), "--no-check", "--json", str(out)]
    if budget_mb is not None:  # None: the same child, uncapped (phase 2 on the GPU holds G' as CSR)
        cmd += ["--memory-cap-mb", str(budget_mb)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=timeout)
    if proc.returncode != 0 or not out.is_file():
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"status": f"failed under the cap: {last}", "returncode": proc.returncode}
    record = json.loads(out.read_text())
    record["status"] = "ok"
    return record
