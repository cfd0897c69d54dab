"""The reference: sequential Dijkstra with a binary heap (numba), against which every answer is checked.

The heap (solvers/heap.py) uses lazy deletion: a vertex may sit in it more than once, and stale
entries are skipped when popped.
"""

from __future__ import annotations

import numba
import numpy as np

from .base import INF, HostSolver, register
from .heap import heap_pop, heap_push


@numba.njit(cache=True, nogil=True, inline="always")
def settle_next(heap_key, heap_vertex, size, dist, done):
    """Lazy deletion: pop until a vertex comes out at its current distance and not yet settled,
    settle it and return (its key, it, the heap's size); vertex -1 once the heap runs dry."""
    while size > 0:
        key, u, size = heap_pop(heap_key, heap_vertex, size)
        if done[u] or key > dist[u]:
            continue
        done[u] = True
        return key, u, size
    return INF, -1, size


@numba.njit(cache=True, nogil=True)
def dijkstra_csr(indptr, indices, weights, source):
    """Distances (int64, INF unreachable) and the number of arcs relaxed."""
    n = len(indptr) - 1
    dist = np.full(n, INF, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    cap = len(indices) + 1
    heap_key = np.empty(cap, dtype=np.int64)
    heap_vertex = np.empty(cap, dtype=np.int64)
    dist[source] = 0
    heap_key[0] = 0
    heap_vertex[0] = source
    size = 1
    relaxed = 0
    while True:
        key, u, size = settle_next(heap_key, heap_vertex, size, dist, done)
        if u < 0:
            break
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            relaxed += 1
            nd = key + weights[e]
            if nd < dist[v]:
                dist[v] = nd
                size = heap_push(heap_key, heap_vertex, size, nd, v)
    return dist, relaxed


@register("dijkstra", device="cpu", document="reference",
          description="sequential Dijkstra, binary heap with lazy deletion (numba); the reference")
def dijkstra(graph):
    def run(source):
        dist, relaxed = dijkstra_csr(graph.indptr, graph.indices, graph.weights, source)
        return dist, {"arcs_relaxed": int(relaxed)}

    return HostSolver(run)
