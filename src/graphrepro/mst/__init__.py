"""Minimum spanning forests: one small interface and registry, plain arrays in and out.

Input is an :class:`EdgeList`: ``num_vertices`` and undirected edges ``u``, ``v``, ``w`` (int64),
each vertex pair once at its lightest weight, no self-loops. :func:`from_graph` makes one from any
graph `solve` reads (arcs taken as undirected); a DEM grid (``terrain.dem``) is read by another
function in :data:`READERS`, chosen by content, and its EdgeList carries the padded grid as
``grid`` for the solvers that work on the grid itself.

A solver is a factory ``(edges, **params) -> prepared`` whose ``prepared.solve()`` returns an
:class:`MSTResult`: the forest's edges ``u``, ``v``, ``w`` plus the time of the algorithm alone.
Every result is checked by :func:`check`: every edge is an edge of the input at its weight, the
edges form no cycle and number ``num_vertices - components`` (so they span every component),
and the total weight equals the reference's (Kruskal). Ties may make solvers pick different
edges; the weight and the forest property are what must agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numba
import numpy as np

from ..errors import InputError, VerificationError
from ..graph.csr import exact_sum, sums_problem


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


def _read_graph_file(path, fmt=None) -> EdgeList:
    from ..graph.load import load_graph

    return from_graph(load_graph(path, fmt))


def _read_dem(path, fmt=None) -> EdgeList:
    from ..terrain.dem import dem_edge_list

    return dem_edge_list(path)


# How `mst` reads its input: one function per kind of file, each returning an EdgeList.
READERS: dict[str, Callable[..., EdgeList]] = {"graph": _read_graph_file, "dem": _read_dem}


def load_edges(path, fmt=None) -> EdgeList:
    """A graph file, or a DEM grid (told by content: GRASS/ESRI ASCII, .npy, .zgrid)."""
    from ..terrain.dem import is_dem

    if fmt == "dem" or (fmt is None and is_dem(path)):
        return READERS["dem"](path, fmt)
    return READERS["graph"](path, fmt)


# --- results, registry ----------------------------------------------------------------------------

@dataclass
class MSTResult:
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    solve_ms: float
    counters: dict[str, int] = field(default_factory=dict)

    @property
    def weight(self) -> int:
        return exact_sum(self.w)  # a Python int: a wrong answer's total is shown, not wrapped


@dataclass(frozen=True)
class MSTSolverSpec:
    name: str
    device: str
    document: str
    description: str
    factory: Callable[..., Any]
    defaults: dict[str, Any] = field(default_factory=dict)

    def prepare(self, edges: EdgeList, **params):
        unknown = set(params) - set(self.defaults)
        if unknown:
            raise InputError(f"MST solver {self.name} has no parameter {', '.join(sorted(unknown))}")
        return self.factory(edges, **{**self.defaults, **params})


_REGISTRY: dict[str, MSTSolverSpec] = {}


def register_mst(name: str, *, device: str = "cpu", document: str = "reference",
                 description: str, defaults: dict[str, Any] | None = None):
    def wrap(factory):
        if name in _REGISTRY:
            raise ValueError(f"MST solver {name} registered twice")
        _REGISTRY[name] = MSTSolverSpec(name, device, document, description, factory,
                                        dict(defaults or {}))
        return factory

    return wrap


def _load_all() -> None:
    from . import algorithms  # noqa: F401  (registration)
    from ..solvers.gerritsen2012 import load_steps

    load_steps()  # gerritsen2012's grid solvers register themselves with their step modules


def get_mst_solver(name: str) -> MSTSolverSpec:
    _load_all()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown MST solver {name!r}; `python -m graphrepro solvers --problem mst` "
                         f"lists them: {', '.join(sorted(_REGISTRY))}") from None


def all_mst_solvers() -> list[MSTSolverSpec]:
    _load_all()
    return sorted(_REGISTRY.values(), key=lambda s: (s.name != "kruskal", s.document, s.name))


def minimum_spanning_forest(edges: EdgeList, solver: str = "kruskal", **params) -> MSTResult:
    return get_mst_solver(solver).prepare(edges, **params).solve()


# --- verification -----------------------------------------------------------------------------

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


def reference_weight(edges: EdgeList) -> int:
    from .algorithms import kruskal_edges

    return exact_sum(edges.w[kruskal_edges(edges.num_vertices, edges.u, edges.v, edges.w)[0]])


def check(edges: EdgeList, result: MSTResult, *, solver: str,
          expected_weight: int | None = None) -> None:
    """Raise VerificationError unless ``result`` is a minimum spanning forest of ``edges``."""
    where = f"{solver} on {edges.name or 'the graph'}"
    u = np.asarray(result.u, dtype=np.int64)
    v = np.asarray(result.v, dtype=np.int64)
    w = np.asarray(result.w, dtype=np.int64)
    n = edges.num_vertices
    if not (u.shape == v.shape == w.shape and u.ndim == 1):
        raise VerificationError(f"WRONG ANSWER: {where}: u, v, w differ in shape")
    if len(u) and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n):
        raise VerificationError(f"WRONG ANSWER: {where}: an edge endpoint is not a vertex")
    a, b = np.minimum(u, v), np.maximum(u, v)
    keys = edges.u * n + edges.v  # sorted: from_arrays orders edges by (u, v)
    pos = np.minimum(np.searchsorted(keys, a * n + b), max(len(keys) - 1, 0))
    found = (len(keys) > 0) & (keys[pos] == a * n + b) if len(a) else np.zeros(0, bool)
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        raise VerificationError(f"WRONG ANSWER: {where}: edge {_edge(edges, a[i], b[i])} is not "
                                f"in the graph")
    wrong_w = edges.w[pos] != w
    if wrong_w.any():
        i = int(np.flatnonzero(wrong_w)[0])
        raise VerificationError(f"WRONG ANSWER: {where}: edge {_edge(edges, a[i], b[i])} has "
                                f"weight {int(w[i])}; its lightest weight in the graph is "
                                f"{int(edges.w[pos[i]])}")
    cycle = first_cycle_edge(n, a, b)
    if cycle >= 0:
        raise VerificationError(f"WRONG ANSWER: {where}: edge {_edge(edges, a[cycle], b[cycle])} "
                                f"closes a cycle")
    want = n - edges.components()
    if len(a) != want:
        raise VerificationError(f"WRONG ANSWER: {where}: {len(a)} edges; a spanning forest of "
                                f"{n} vertices in {edges.components()} components has {want}")
    if expected_weight is None:
        expected_weight = reference_weight(edges)
    if result.weight != expected_weight:
        raise VerificationError(f"WRONG ANSWER: {where}: total weight {result.weight}, the "
                                f"minimum is {expected_weight}")


def _edge(edges: EdgeList, a, b) -> str:
    la, lb = edges.label_of([a, b])
    return f"({int(la)}, {int(lb)})"
