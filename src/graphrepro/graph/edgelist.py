"""Undirected edge lists: the input of every minimum spanning forest solver (``graphrepro.mst``).

``num_vertices`` and undirected edges ``u``, ``v``, ``w`` (int64), each vertex pair once at its
lightest weight, no self-loops. Storage, like a CSR graph, so the terrain readers can make one
without reaching up into the solvers; the union-find here counts components for any caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from ..errors import InputError
from .csr import sums_problem


@dataclass
class EdgeList:
    num_vertices: int
    u: np.ndarray  # int64, u < v
    v: np.ndarray
    w: np.ndarray
    labels: np.ndarray | None = None  # file vertex id of each internal vertex; None: id = i + base
    base: int = 0
    name: str = ""
    # A DEM's padded square (int64, row-major, ids as the edges'): solvers that work on the grid
    # itself (gerritsen2012's GPU Boruvka, the I/O-efficient framework) need it and refuse without.
    grid: np.ndarray | None = field(default=None, repr=False, compare=False)
    _components: int | None = field(default=None, repr=False, compare=False)

    @property
    def num_edges(self) -> int:
        return len(self.u)

    def label_of(self, vertices) -> np.ndarray:
        vertices = np.asarray(vertices, dtype=np.int64)
        return self.labels[vertices] if self.labels is not None else vertices + self.base

    def components(self) -> int:
        if self._components is None:
            self._components = int(count_components(self.num_vertices, self.u, self.v))
        return self._components


def from_arrays(num_vertices: int, u, v, w, **meta) -> EdgeList:
    """Undirected edges from arcs or edges in any order: (min, max) pairs, self-loops dropped,
    each pair kept once at its lightest weight (the only one a minimum forest can use)."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    w = np.asarray(w, dtype=np.int64)
    a, b = np.minimum(u, v), np.maximum(u, v)
    keep = a != b
    a, b, w = a[keep], b[keep], w[keep]
    order = np.lexsort((w, b, a))  # by pair, lightest first
    a, b, w = a[order], b[order], w[order]
    first = np.ones(len(a), dtype=bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    if len(w) and w.min() < 0:
        raise InputError(f"{meta.get('name') or 'graph'}: negative edge weight {int(w.min())}")
    problem = sums_problem(num_vertices, w[first])
    if problem:  # a forest's total is a sum of weights: refused rather than wrapped
        raise InputError(f"{meta.get('name') or 'graph'}: {problem}")
    return EdgeList(num_vertices, a[first], b[first], w[first], **meta)


def from_graph(graph) -> EdgeList:
    """The undirected edges of a CSRGraph (a directed graph's arcs lose their direction)."""
    return from_arrays(graph.num_vertices, graph.arc_sources(), graph.indices, graph.weights,
                       labels=graph.labels, base=graph.base, name=graph.name)


@numba.njit(cache=True, nogil=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving
        x = parent[x]
    return x


@numba.njit(cache=True, nogil=True)
def _union(parent, size, a, b):
    """Join the trees of a and b; False when they were one tree already."""
    ra = _find(parent, a)
    rb = _find(parent, b)
    if ra == rb:
        return False
    if size[ra] < size[rb]:
        ra, rb = rb, ra
    parent[rb] = ra
    size[ra] += size[rb]
    return True


@numba.njit(cache=True, nogil=True)
def count_components(n, u, v):
    parent = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    components = n
    for i in range(len(u)):
        if _union(parent, size, u[i], v[i]):
            components -= 1
    return components


@numba.njit(cache=True, nogil=True)
def first_cycle_edge(n, u, v):
    """Index of the first edge that closes a cycle, or -1 for a forest."""
    parent = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    for i in range(len(u)):
        if not _union(parent, size, u[i], v[i]):
            return i
    return -1
