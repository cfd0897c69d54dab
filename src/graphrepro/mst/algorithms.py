"""MST solvers: Prim with a tournament tree and Kruskal with union-find (gerritsen2012 section
3.3.1, numba), scipy's minimum_spanning_tree, and the Boost Graph Library's Kruskal and Prim."""

from __future__ import annotations

import time

import numba
import numpy as np

from .. import native
from ..errors import GraphreproError, InputError
from ..graph.edgelist import EdgeList, _union
from .registry import MSTResult, register_mst

INF = np.iinfo(np.int64).max


def _timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - t0) * 1e3


# --- Kruskal ------------------------------------------------------------------------------------

@numba.njit(cache=True, nogil=True)
def kruskal_edges(n, u, v, w):
    """Indices of a minimum spanning forest's edges (lightest first; ties by input order) and the
    number of union-find finds made."""
    order = np.argsort(w, kind="mergesort")
    parent = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    chosen = np.empty(max(n - 1, 0), dtype=np.int64)
    k = 0
    scanned = 0
    for i in order:
        if k == n - 1:
            break  # a spanning tree is complete: the rest can only close cycles
        scanned += 1
        if _union(parent, size, u[i], v[i]):
            chosen[k] = i
            k += 1
    return chosen[:k], scanned


@register_mst("kruskal", document="gerritsen2012",
              description="Kruskal: sort by weight, union-find with path halving and union by "
                          "size (numba); the reference every MST is checked against")
def kruskal(edges: EdgeList):
    class Prepared:
        def solve(self):
            (chosen, scanned), ms = _timed(kruskal_edges, edges.num_vertices, edges.u, edges.v,
                                           edges.w)
            return MSTResult(edges.u[chosen], edges.v[chosen], edges.w[chosen], ms,
                             {"edges_scanned": int(scanned)})

    return Prepared()


# --- Prim with a tournament tree ----------------------------------------------------------------

def symmetric_csr(edges: EdgeList):
    """Both directions of every edge as CSR arrays (indptr, neighbour, weight)."""
    n = edges.num_vertices
    src = np.concatenate([edges.u, edges.v])
    dst = np.concatenate([edges.v, edges.u])
    w = np.concatenate([edges.w, edges.w])
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst[order], w[order]


@numba.njit(cache=True, nogil=True)
def new_tournament(n):
    """An empty tournament tree over n leaves, padded to a power of two: every key INF, every
    internal node naming its leftmost leaf. Returns (leaves, key, winner); leaf i is node leaves + i."""
    leaves = 1
    while leaves < max(n, 1):
        leaves *= 2
    key = np.full(2 * leaves, INF, dtype=np.int64)
    winner = np.empty(2 * leaves, dtype=np.int64)
    for i in range(leaves):
        winner[leaves + i] = i
    for node in range(leaves - 1, 0, -1):
        winner[node] = winner[2 * node]
    return leaves, key, winner


@numba.njit(cache=True, nogil=True)
def _replay(key, winner, leaves, node):
    """Recompute the matches from ``node`` up to the root; stop where a match's winner and key
    come out as before, since nothing above it can change then. Returns matches replayed."""
    replayed = 0
    while node >= 1:
        left = 2 * node
        right = left + 1
        if key[right] < key[left]:  # ties go to the left: the lower vertex index wins
            best = right
        else:
            best = left
        if winner[node] == winner[best] and key[node] == key[best]:
            break
        winner[node] = winner[best]
        key[node] = key[best]
        replayed += 1
        node //= 2
    return replayed


@numba.njit(cache=True, nogil=True)
def prim_tournament(indptr, nbr, wgt, n):
    """Prim's algorithm with a tournament tree over the vertices (gerritsen2012 section 3.3.1).

    Leaf i holds vertex i's key: the lightest edge weight from the visited vertices to i (INF if
    none or once i is visited), and ``endpoint[i]`` that edge's visited end. Each internal node
    holds the winner (least key, then least index) of its two children, so the root names the next
    vertex to visit. Visiting a vertex lowers its unvisited neighbours' keys and replays their
    matches up to the root, O(log V) each: O(E log V) in all, which the thesis prefers for grid
    graphs where E = O(V). When the root's key is INF the current tree is complete and the next
    unvisited vertex starts a new one, so disconnected graphs give a spanning forest.
    """
    leaves, key, winner = new_tournament(n)
    endpoint = np.full(n, -1, dtype=np.int64)
    visited = np.zeros(n, dtype=np.bool_)
    out_u = np.empty(max(n - 1, 0), dtype=np.int64)
    out_v = np.empty(max(n - 1, 0), dtype=np.int64)
    out_w = np.empty(max(n - 1, 0), dtype=np.int64)
    k = 0
    next_root = 0
    replayed = 0
    trees = 0
    for _ in range(n):
        if key[1] == INF:  # the tree is complete: start the next one at the next unvisited vertex
            while visited[next_root]:
                next_root += 1
            u = next_root
            trees += 1
        else:
            u = winner[1]
            out_u[k] = endpoint[u]
            out_v[k] = u
            out_w[k] = key[1]
            k += 1
            key[leaves + u] = INF  # visited: out of the tournament
            replayed += _replay(key, winner, leaves, (leaves + u) // 2)
        visited[u] = True
        for e in range(indptr[u], indptr[u + 1]):
            x = nbr[e]
            if not visited[x] and wgt[e] < key[leaves + x]:
                key[leaves + x] = wgt[e]
                endpoint[x] = u
                replayed += _replay(key, winner, leaves, (leaves + x) // 2)
    return out_u[:k], out_v[:k], out_w[:k], replayed, trees


@register_mst("prim", document="gerritsen2012",
              description="Prim with a tournament tree over the vertices, forest by restarting "
                          "(gerritsen2012 3.3.1; numba)")
def prim(edges: EdgeList):
    indptr, nbr, wgt = symmetric_csr(edges)

    class Prepared:
        def solve(self):
            (u, v, w, replayed, trees), ms = _timed(prim_tournament, indptr, nbr, wgt,
                                                    edges.num_vertices)
            return MSTResult(u, v, w, ms, {"matches_replayed": int(replayed), "trees": int(trees)})

    return Prepared()


# --- scipy --------------------------------------------------------------------------------------

@register_mst("scipy_mst", document="reference",
              description="scipy.sparse.csgraph.minimum_spanning_tree (weights shifted by +1 so "
                          "zero-weight edges are not taken for absent ones)")
def scipy_mst(edges: EdgeList):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree

    n = edges.num_vertices
    if edges.num_edges and int(edges.w.max()) + 1 >= 2 ** 53:
        raise InputError("scipy_mst computes in float64: weights past 2**53 would be rounded")
    # Every spanning forest of the graph has the same number of edges, so adding 1 to every
    # weight changes no choice, and keeps zero weights from vanishing as sparse zeros.
    matrix = csr_matrix(((edges.w + 1).astype(np.float64), (edges.u, edges.v)), shape=(n, n))

    class Prepared:
        def solve(self):
            tree, ms = _timed(minimum_spanning_tree, matrix)
            coo = tree.tocoo()
            return MSTResult(coo.row.astype(np.int64), coo.col.astype(np.int64),
                             coo.data.astype(np.int64) - 1, ms)

    return Prepared()


# --- the Boost Graph Library ----------------------------------------------------------------------

class _BGL:
    """BGL's MST on one edge list, answered by a ``bgl_mst --serve`` process kept for the life of
    this Python process: callers timing thousands of small graphs (gerritsen2012's per-block
    baseline) must not pay a process start per graph."""

    _server: native.Process | None = None

    def __init__(self, edges: EdgeList, algorithm: str):
        self.algorithm = algorithm
        self.path = native.temp_file(".edges")
        native.write_edges(edges.num_vertices, edges.u, edges.v, edges.w, self.path)

    @classmethod
    def _serving(cls) -> native.Process:
        if cls._server is None or not cls._server.alive():
            cls._server = native.Process("bgl_mst", ["--serve"])
        return cls._server

    def solve(self):
        server = self._serving()
        try:
            server.request(f"{self.algorithm} {self.path}")
            head = server.read(16)
            ms = float(np.frombuffer(head[:8], dtype="<f8")[0])
            k = int(np.frombuffer(head[8:], dtype="<i8")[0])
            body = server.read(24 * k)
        except GraphreproError as e:
            type(self)._server = None  # it stopped: the next solve starts a fresh one
            raise GraphreproError(f"bgl_mst {self.algorithm} failed: {e}") from None
        arrays = np.frombuffer(body, dtype="<i8").reshape(3, k).astype(np.int64)
        return MSTResult(arrays[0], arrays[1], arrays[2], ms)

    def __del__(self):
        self.path.unlink(missing_ok=True)


@register_mst("bgl_kruskal", document="reference",
              description="Boost Graph Library kruskal_minimum_spanning_tree on an undirected "
                          "adjacency_list (C++, g++ -O3); gerritsen2012's CPU baseline")
def bgl_kruskal(edges: EdgeList):
    return _BGL(edges, "kruskal")


@register_mst("bgl_prim", document="reference",
              description="Boost Graph Library prim_minimum_spanning_tree (C++, g++ -O3); a "
                          "virtual root joins the components for a forest")
def bgl_prim(edges: EdgeList):
    return _BGL(edges, "prim")
