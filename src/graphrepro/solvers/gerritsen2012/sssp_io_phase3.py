"""gerritsen2012 chapter 5 / section 5.6, phase 3 of the I/O-efficient SSSP: every vertex's distance.

Every block again, Dijkstra inside it seeded with its boundary distances from phase 2 (the
``bdist`` records), written to the ``dist`` records. The source block is the thesis's special
case: its answer is phase 2's kept initialisation combined (minimum) with the seeded run, since
the initialisation alone misses paths that leave the block and come back.
"""

from __future__ import annotations

import numba
import numpy as np

from .sssp_io_blocks import _block_dijkstra


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


def run_phase3(g, grid, bcells, slot, bdist, kept, src_slot: int, batch_vertices: int):
    """Phase 3 over every block in batches of about ``batch_vertices`` vertices; returns the
    ``dist`` records written."""
    m = g.m
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
    return out
