"""gerritsen2012 chapter 5 / section 5.6, phase 2 of the I/O-efficient SSSP: Dijkstra over G'.

The boundary vertices' distances from the source, over G' (phase 1's boundary-pair records plus
the seams' right and bottom records). On the CPU (``_phase2``) with a priority queue over
clusters keyed by their smallest tentative boundary distance, the source block read first and
its own distances kept (section 5.6.1); each fetch of a cluster reads its records once and
finalises its boundary vertices while it holds the smallest key. On the GPU, G' is handed over
as CSR (``_gprime_csr``) to ``grid_sssp_gpu.phase2_gpu``. ``run_phase2`` is the step between
phase 1's records and phase 3's ``bdist`` records.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from ...errors import InputError
from ..base import INF
from .sssp_io_blocks import _neighbour_inside, block_dijkstra


@numba.njit(cache=True, inline="always")
def _across_seam(m, bx, by, cell, dy, dx, side):
    """Grid cell (ny, nx) at offset (dy, dx) from boundary cell ``cell`` of block (bx, by) when
    it lies on the grid and in another block, so that the two are joined by a G' seam arc; else
    (-1, -1)."""
    r = cell // m
    gy = by * m + r
    gx = bx * m + cell - r * m
    if not _neighbour_inside(gy, gx, dy, dx, side):
        return -1, -1
    ny = gy + dy
    nx = gx + dx
    if nx // m == bx and ny // m == by:
        return -1, -1
    return ny, nx


@numba.njit(cache=True, inline="always")
def _seam_arc(slot, m, bpos, right, bottom, q, bx, by, cell, dy, dx, side):
    """The G' arc from boundary cell ``cell`` of block q = (bx, by) across a seam at offset
    (dy, dx): (the other block's slot, the other cell's boundary position, the weight, from
    whichever right or bottom record holds the edge); slot -1 where there is no such arc."""
    ny, nx = _across_seam(m, bx, by, cell, dy, dx, side)
    if ny < 0:
        return -1, -1, 0
    r = cell // m
    c = cell - r * m
    nbx = nx // m
    nby = ny // m
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
    return slot[nby, nbx], bpos[(ny - nby * m) * m + (nx - nbx * m)], w


@numba.njit(cache=True, inline="always")
def _place(heap, pos, i, c):
    """Cluster c into heap slot i: ``pos`` must follow every move for the decrease-key."""
    heap[i] = c
    pos[c] = i


@numba.njit(cache=True, inline="always")
def _sift_up(heap, pos, key, i):
    c = heap[i]
    kc = key[c]
    while i > 0:
        p = (i - 1) // 2
        if key[heap[p]] <= kc:
            break
        _place(heap, pos, i, heap[p])
        i = p
    _place(heap, pos, i, c)


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
        _place(heap, pos, i, heap[child])
        i = child
    _place(heap, pos, i, c)


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
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    q2, j2, w = _seam_arc(slot, m, bpos, right, bottom, q, bx, by, bcells[t], dy,
                                          dx, side)
                    if q2 < 0 or final[q2, j2]:
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
                cnt = k - 1
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        if _across_seam(m, bx, by, bcells[t], dy, dx, side)[0] >= 0:
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
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        q2, j2, w = _seam_arc(slot, m, bpos, right, bottom, q, bx, by, bcells[t],
                                              dy, dx, side)
                        if q2 < 0:
                            continue
                        indices[p] = q2 * k + j2
                        weights[p] = w
                        p += 1
    return indptr, indices, weights


def run_phase2(g, grid, source: int, bcells, bpos, slot, phase2: str, counters: dict):
    """Phase 2 from ``source`` on the G' ``g``: the source block read and its own distances kept
    (section 5.6.1), Dijkstra over G' on the CPU or the GPU, the boundary distances written to
    the ``bdist`` records. Returns (bdist records, kept distances, source block's slot)."""
    m, per = g.m, g.per
    side = per * m
    k = len(bcells)
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
    return bdist, kept, src_slot
