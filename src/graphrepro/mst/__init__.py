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

from typing import Callable

import numpy as np

from ..errors import VerificationError
from ..graph.csr import exact_sum
from ..graph.edgelist import (EdgeList, _find, _union, count_components, first_cycle_edge,  # noqa: F401
                              from_arrays, from_graph)
from .registry import (_REGISTRY, MSTResult, MSTSolverSpec, all_mst_solvers,  # noqa: F401
                       get_mst_solver, minimum_spanning_forest, register_mst)


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


# --- verification -----------------------------------------------------------------------------

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
