"""The reference: sequential Dijkstra with a binary heap (numba), against which every answer is checked.

Lazy deletion (a vertex may sit in the heap more than once; stale entries are skipped when popped)
keeps the heap a plain pair of arrays, which is what makes it fast under numba.
"""

from __future__ import annotations

import numba
import numpy as np

from .base import INF, HostSolver, register


@numba.njit(cache=True, nogil=True)
def dijkstra_csr(indptr, indices, weights, source):
    """Distances (int64, INF unreachable) and the number of arcs relaxed."""
    n = len(indptr) - 1
    dist = np.full(n, INF, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    cap = len(indices) + 1
    heap_key = np.empty(cap, dtype=np.int64)
    heap_vertex = np.empty(cap, dtype=np.int64)
    size = 0
    dist[source] = 0
    heap_key[0] = 0
    heap_vertex[0] = source
    size = 1
    relaxed = 0
    while size > 0:
        key = heap_key[0]
        u = heap_vertex[0]
        size -= 1
        # sift the last entry down from the root
        last_key = heap_key[size]
        last_vertex = heap_vertex[size]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            if child + 1 < size and heap_key[child + 1] < heap_key[child]:
                child += 1
            if heap_key[child] >= last_key:
                break
            heap_key[i] = heap_key[child]
            heap_vertex[i] = heap_vertex[child]
            i = child
        heap_key[i] = last_key
        heap_vertex[i] = last_vertex
        if done[u] or key > dist[u]:
            continue
        done[u] = True
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            relaxed += 1
            nd = key + weights[e]
            if nd < dist[v]:
                dist[v] = nd
                # sift up
                j = size
                size += 1
                while j > 0:
                    parent = (j - 1) // 2
                    if heap_key[parent] <= nd:
                        break
                    heap_key[j] = heap_key[parent]
                    heap_vertex[j] = heap_vertex[parent]
                    j = parent
                heap_key[j] = nd
                heap_vertex[j] = v
    return dist, relaxed


@register("dijkstra", device="cpu", document="reference",
          description="sequential Dijkstra, binary heap with lazy deletion (numba); the reference")
def dijkstra(graph):
    def run(source):
        dist, relaxed = dijkstra_csr(graph.indptr, graph.indices, graph.weights, source)
        return dist, {"arcs_relaxed": int(relaxed)}

    return HostSolver(run)
