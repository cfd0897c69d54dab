"""What a road-network stand-in has to share with the real graph, measured the same way on both.

- strongly connected components (scipy's csgraph; a symmetric graph's are its components);
- the degree histogram: the share of vertices with d distinct neighbours (arcs taken both ways,
  parallel arcs and loops not counted), so a DIMACS file's parallel copies of a road and a
  PACE topology's single edge count alike;
- BFS depth: the number of BFS levels below each source (its eccentricity in hops), from seeded
  sources drawn as the workflow draws them (harness.sources.draw_sources);
- Harish iterations: the rounds safari2017's Algorithm 3 makes from a source, computed on the CPU
  by the same round structure: in round r every vertex flagged in round r - 1 relaxes its out-arcs
  against the distances as they stood at the start of the round (kernel 1 writes ``up``, kernel 2
  folds ``up`` into ``d`` and flags the improved vertices), and the host stops after the first
  round that improves nothing, which is counted too, as the GPU code counts it. The result does
  not depend on thread order (atomicMin), so this count equals the GPU solver's.
"""

from __future__ import annotations

import numba
import numpy as np

from .csr import CSRGraph

INF = np.iinfo(np.int64).max // 4


def components(graph: CSRGraph) -> int:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    m = csr_matrix((np.ones(graph.num_arcs, dtype=np.int8), graph.indices, graph.indptr),
                   shape=(graph.num_vertices,) * 2)
    return int(connected_components(m, directed=True, connection="strong")[0])


def degree_histogram(graph: CSRGraph) -> np.ndarray:
    """Share of vertices by number of distinct neighbours (index = degree)."""
    src = graph.arc_sources().astype(np.int64)
    dst = graph.indices.astype(np.int64)
    keep = src != dst
    a, b = np.minimum(src[keep], dst[keep]), np.maximum(src[keep], dst[keep])
    n = graph.num_vertices
    pairs = np.unique(a * n + b)
    deg = np.bincount(np.concatenate([pairs // n, pairs % n]), minlength=n)
    return np.bincount(deg) / max(n, 1)


@numba.njit(cache=True)
def _bfs_depth(indptr, indices, source, dist, queue):
    dist[:] = -1
    dist[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue[tail] = v
                tail += 1
    return dist[queue[tail - 1]], tail


def bfs_depths(graph: CSRGraph, sources) -> list[int]:
    """Hop eccentricity of each source (levels below it in a BFS)."""
    dist = np.empty(graph.num_vertices, dtype=np.int64)
    queue = np.empty(graph.num_vertices, dtype=np.int64)
    return [int(_bfs_depth(graph.indptr, graph.indices, int(s), dist, queue)[0]) for s in sources]


@numba.njit(cache=True)
def _harish_rounds(indptr, indices, weights, source):
    n = len(indptr) - 1
    d = np.full(n, INF, dtype=np.int64)
    up = np.full(n, INF, dtype=np.int64)
    flagged = np.empty(n, dtype=np.int64)
    nxt = np.empty(n, dtype=np.int64)
    mark = np.zeros(n, dtype=np.uint8)
    d[source] = 0
    up[source] = 0
    flagged[0] = source
    count = 1
    rounds = 0
    while True:
        rounds += 1
        touched = 0
        for i in range(count):  # kernel 1: relax out-arcs of flagged vertices into up
            u = flagged[i]
            du = d[u]
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                if du + weights[e] < up[v]:
                    up[v] = du + weights[e]
                    if mark[v] == 0:
                        mark[v] = 1
                        nxt[touched] = v
                        touched += 1
        count = 0
        for i in range(touched):  # kernel 2: fold up into d, flag the improved
            v = nxt[i]
            mark[v] = 0
            if up[v] < d[v]:
                d[v] = up[v]
                flagged[count] = v
                count += 1
        if count == 0:
            return rounds, d


def harish_iterations(graph: CSRGraph, source: int) -> int:
    return int(_harish_rounds(graph.indptr, graph.indices, graph.weights, int(source))[0])


def summary(graph: CSRGraph, sources, *, harish: bool = False) -> dict:
    """Vertices, arcs, SCCs, degree histogram and BFS depths (and Harish rounds) of one graph."""
    depths = bfs_depths(graph, sources)
    out = {"vertices": graph.num_vertices, "arcs": graph.num_arcs, "sccs": components(graph),
           "degrees": degree_histogram(graph), "depths": depths}
    if harish:
        out["harish"] = [harish_iterations(graph, s) for s in sources]
    return out
