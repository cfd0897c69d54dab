"""Per-block MST steps on the CPU (gerritsen2012 sections 3.1 and 3.3.1), registered in
``PER_BLOCK_MST``: ``fn(values (b, b) integer, **params) -> BlockMST``, the minimum spanning tree
of the block's 8-neighbour grid, weights max(val(u), val(v)), ids block-local row-major.

- ``"bgl"``: the thesis's CPU baseline: the block converted to an edge list and handed to the
  Boost Graph Library's Kruskal (our native ``bgl_mst`` binary, g++ -O3). ``mst`` is the time
  BGL itself reports; ``other`` is the conversion and hand-over the thesis also paid ("we are
  required to convert the data in the correct format for the BGL").
- ``"tournament"``: Prim with a tournament tree over the block's cells, reading weights from the
  grid directly, no conversion (section 3.3.1); the tree code is ``mst.algorithms._replay``.
- ``"kruskal"``: sort by key, union-find (numba): the reference order itself.

Tie rule (contracts; thesis Figure 3.1): edges are ordered by (weight, lower endpoint index,
direction), which for an 8-neighbour grid is (weight, min(u, v), max(u, v)). Every step compares
that whole key, so all edges are distinct, the MST is unique, and every step (CPU or GPU) returns
the same edge set on ties.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from ...errors import InputError
from ...mst import EdgeList, _union
from ...mst.algorithms import INF, _BGL, _replay, new_tournament
from ...terrain.dem import grid_edges
from . import PER_BLOCK_MST, register_step
from .types import BlockMST

# Forward neighbours from the lower endpoint, in increasing index of the other endpoint:
# east (+1), south-west (+b-1), south (+b), south-east (+b+1). The rank is the "direction" part of
# the key; within one lower endpoint it orders edges as max(u, v) does.
_DIRECTIONS = np.array([(0, 1), (1, -1), (1, 0), (1, 1)], dtype=np.int64)


def _values(values) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 2 or values.shape[0] != values.shape[1] or values.shape[0] < 1:
        raise InputError(f"a block must be a non-empty square array, not shape {values.shape}")
    if values.size and values.min() < 0:
        raise InputError("block values must be non-negative (section 1.5.1 sets unknowns to 0)")
    return np.ascontiguousarray(values, dtype=np.int64)


def _check_key_range(values: np.ndarray) -> None:
    n = values.size
    if values.size and int(values.max()) >= (2 ** 62) // (4 * n):
        raise InputError(f"weights up to {int(values.max())} on a {values.shape[0]}^2 block do "
                         f"not fit the 64-bit (weight, index, direction) key")


@numba.njit(cache=True, nogil=True)
def _edge_key(values, y, x, d, b):
    """The packed key of the edge from cell (y, x) in forward direction d."""
    y2 = y + _DIRECTIONS[d, 0]
    x2 = x + _DIRECTIONS[d, 1]
    w = max(values[y, x], values[y2, x2])
    return (w * (b * b) + (y * b + x)) * 4 + d


@numba.njit(cache=True, nogil=True)
def _grid_prim(values):
    """Prim with a tournament tree on the implicit grid; keys are packed (weight, index, direction).

    Leaf i holds the least key of an edge from the visited cells to cell i (INF once visited); the
    root names the next cell. As in mst.algorithms.prim_tournament, but neighbours and weights
    come from the grid itself."""
    b = values.shape[0]
    n = b * b
    leaves, key, winner = new_tournament(n)
    endpoint = np.full(n, -1, dtype=np.int64)
    visited = np.zeros(n, dtype=np.bool_)
    out_u = np.empty(max(n - 1, 0), dtype=np.int64)
    out_v = np.empty(max(n - 1, 0), dtype=np.int64)
    k = 0
    replayed = 0
    cur = 0
    for step in range(n):
        if step > 0:
            cur = winner[1]
            a = endpoint[cur]
            out_u[k] = min(a, cur)
            out_v[k] = max(a, cur)
            k += 1
            key[leaves + cur] = INF
            replayed += _replay(key, winner, leaves, (leaves + cur) // 2)
        visited[cur] = True
        y = cur // b
        x = cur % b
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                y2 = y + dy
                x2 = x + dx
                if (dy == 0 and dx == 0) or y2 < 0 or y2 >= b or x2 < 0 or x2 >= b:
                    continue
                other = y2 * b + x2
                if visited[other]:
                    continue
                # the key is that of the edge from its lower endpoint
                if other > cur:
                    ly, lx, ddy, ddx = y, x, dy, dx
                else:
                    ly, lx, ddy, ddx = y2, x2, -dy, -dx
                d = 0
                for j in range(4):
                    if _DIRECTIONS[j, 0] == ddy and _DIRECTIONS[j, 1] == ddx:
                        d = j
                kk = _edge_key(values, ly, lx, d, b)
                if kk < key[leaves + other]:
                    key[leaves + other] = kk
                    endpoint[other] = cur
                    replayed += _replay(key, winner, leaves, (leaves + other) // 2)
    return out_u[:k], out_v[:k], replayed


@numba.njit(cache=True, nogil=True)
def _kruskal_sorted(n, u, v, order):
    parent = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    chosen = np.empty(max(n - 1, 0), dtype=np.int64)
    k = 0
    for i in order:
        if k == n - 1:
            break
        if _union(parent, size, u[i], v[i]):
            chosen[k] = i
            k += 1
    return chosen[:k]


def packed_order(u, v, w) -> np.ndarray:
    """Edge indices in the thesis's packed-key order: weight, then min(u, v), then max(u, v)."""
    return np.lexsort((np.maximum(u, v), np.minimum(u, v), w))


def _result(values, u, v, ms, other_ms=0.0, counters=None) -> BlockMST:
    flat = values.ravel()
    u, v = np.minimum(u, v), np.maximum(u, v)
    order = np.lexsort((v, u))
    u, v = u[order], v[order]
    return BlockMST(u, v, np.maximum(flat[u], flat[v]), {"mst": ms, "other": other_ms},
                    dict(counters or {}))


@register_step(PER_BLOCK_MST, "kruskal")
def block_kruskal(values, **_) -> BlockMST:
    values = _values(values)
    t0 = time.perf_counter()
    u, v, w = grid_edges(values, "mst")
    chosen = _kruskal_sorted(values.size, u, v, packed_order(u, v, w))
    ms = (time.perf_counter() - t0) * 1e3
    return _result(values, u[chosen], v[chosen], ms, counters={"edges": len(u)})


@register_step(PER_BLOCK_MST, "tournament")
def block_tournament(values, **_) -> BlockMST:
    values = _values(values)
    _check_key_range(values)
    t0 = time.perf_counter()
    u, v, replayed = _grid_prim(values)
    ms = (time.perf_counter() - t0) * 1e3
    return _result(values, u, v, ms, counters={"matches_replayed": int(replayed)})


@register_step(PER_BLOCK_MST, "bgl")
def block_bgl(values, **_) -> BlockMST:
    values = _values(values)
    _check_key_range(values)
    t0 = time.perf_counter()
    u, v, w = grid_edges(values, "mst")
    b = values.shape[0]
    a, c = np.minimum(u, v), np.maximum(u, v)
    rank = np.where(c - a == 1, 0, np.where(c - a == b - 1, 1, np.where(c - a == b, 2, 3)))
    key = (w * values.size + a) * 4 + rank  # unique weights: BGL's Kruskal returns the same tree
    solver = _BGL(EdgeList(values.size, u, v, key), "kruskal")
    result = solver.solve()
    del solver
    total = (time.perf_counter() - t0) * 1e3
    return _result(values, result.u, result.v, result.solve_ms, total - result.solve_ms)
