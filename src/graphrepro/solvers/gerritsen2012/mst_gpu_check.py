"""gerritsen2012 section 3.1: the CPU reference the GPU Boruvka's trees are checked against.

Kruskal on the implicit 8-neighbour grid in packed-key order (``grid_kruskal_cpu``), and
``verify_grid_tree``, which refuses any tree that is not exactly that MST.
"""

from __future__ import annotations

import numba
import numpy as np

from ...errors import VerificationError
from .mst_gpu_key import direction


@numba.njit(cache=True, nogil=True, inline="always")
def _forward_weight(vals, a, d):
    """Weight of vertex a's edge in forward direction d (4..7: E, SW, S, SE), -1 where that
    neighbour is off the grid: both passes of the counting sort must see the same edges."""
    rows, cols = vals.shape
    r = a // cols
    c = a - r * cols
    dr = (d + 1) // 3 - 1
    dc = (d + 1) % 3 - 1
    if r + dr < rows and 0 <= c + dc < cols:
        return np.int64(max(vals[r, c], vals[r + dr, c + dc]))
    return np.int64(-1)


@numba.njit(cache=True, nogil=True)
def _grid_kruskal(vals, top):
    """Kruskal on the implicit grid with edges in packed-key order (weight, lower id, higher id):
    a counting sort by weight of the edges generated in (lower id, direction) order, which is
    (lower, higher) order. Returns the total weight and, per vertex, a bit for each of its forward
    directions E, SW, S, SE (4..7) whose edge is in the tree."""
    rows, cols = vals.shape
    n = rows * cols
    counts = np.zeros(top + 2, dtype=np.int64)
    for a in range(n):
        for d in range(4, 8):
            w = _forward_weight(vals, a, d)
            if w >= 0:
                counts[w + 1] += 1
    for i in range(1, top + 2):
        counts[i] += counts[i - 1]
    order = np.empty(counts[top + 1], dtype=np.int64)
    for a in range(n):
        for d in range(4, 8):
            w = _forward_weight(vals, a, d)
            if w >= 0:
                order[counts[w]] = a * 4 + d - 4
                counts[w] += 1
    parent = np.arange(n)
    mask = np.zeros(n, dtype=np.uint8)
    total = 0
    joined = 0
    for code in order:
        if joined == n - 1:
            break
        a = code // 4
        d = code - a * 4 + 4
        b = a + ((d + 1) // 3 - 1) * cols + (d + 1) % 3 - 1
        ra = a
        while parent[ra] != ra:
            parent[ra] = parent[parent[ra]]
            ra = parent[ra]
        rb = b
        while parent[rb] != rb:
            parent[rb] = parent[parent[rb]]
            rb = parent[rb]
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
            mask[a] |= np.uint8(1 << (d - 4))
            total += max(vals[a // cols, a % cols], vals[b // cols, b % cols])
            joined += 1
    return total, mask


@numba.njit(cache=True, nogil=True)
def _forward_mask(n, lower, d):
    mask = np.zeros(n, dtype=np.uint8)
    for i in range(len(lower)):
        mask[lower[i]] |= np.uint8(1 << (d[i] - 4))
    return mask


def grid_kruskal_cpu(values2d: np.ndarray):
    """(total weight, forward-edge bit mask) of the packed-key MST of a grid, on the CPU."""
    values2d = np.ascontiguousarray(values2d, dtype=np.int32)
    return _grid_kruskal(values2d, int(values2d.max()) if values2d.size else 0)


def verify_grid_tree(values2d: np.ndarray, tree, what: str = "GPU MST", reference=None) -> int:
    """Raise VerificationError unless ``tree`` is exactly the packed-key MST of the grid (the same
    edges as grid_kruskal_cpu, hence spanning, acyclic and of minimum weight). Returns its weight.
    ``reference``: grid_kruskal_cpu's answer, when the caller checks several trees of one grid."""
    values2d = np.asarray(values2d)
    rows, cols = values2d.shape
    want_weight, want = reference if reference is not None else grid_kruskal_cpu(values2d)
    u, v, w = (np.asarray(x, dtype=np.int64) for x in (tree.u, tree.v, tree.w))
    problem = None
    if len(u) != values2d.size - 1:
        problem = (f"{len(u)} edges, a spanning tree of {values2d.size} vertices has "
                   f"{values2d.size - 1}")
    else:
        a, b = np.minimum(u, v), np.maximum(u, v)
        dr, dc = b // cols - a // cols, b % cols - a % cols
        ok = (a >= 0) & (b < values2d.size) & (dr >= 0) & (dr <= 1) & (np.abs(dc) <= 1) & (a != b)
        flat = values2d.reshape(-1)
        if not ok.all():
            problem = "an edge is not a grid edge"
        elif not np.array_equal(np.maximum(flat[a], flat[b]), w):
            problem = "an edge's weight is not max(val(u), val(v))"
        else:
            got = _forward_mask(values2d.size, a, direction(dr, dc))
            if not np.array_equal(got, want):
                problem = "its edges differ from Kruskal's in packed-key order"
            elif int(w.sum()) != int(want_weight):
                problem = f"total weight {int(w.sum())}, the minimum is {int(want_weight)}"
    if problem:
        raise VerificationError(f"WRONG ANSWER: {what} on a {rows} x {cols} grid: {problem}")
    return int(want_weight)
