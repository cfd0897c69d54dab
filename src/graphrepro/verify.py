"""Checking answers: every timed run is compared with the reference, and a wrong one fails loudly.

Reference distances are kept as digests (blake2b of the int64 array) so that a run on a graph of
millions of vertices and a hundred sources need not hold a hundred distance arrays. On a mismatch
the reference is recomputed for that source to name the first differing vertex.
"""

from __future__ import annotations

import hashlib

import numpy as np

from .errors import VerificationError
from .graph.csr import CSRGraph
from .solvers.base import INF


def digest(distances: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(distances, dtype="<i8").tobytes(),
                           digest_size=16).hexdigest()


def graph_digest(graph) -> str:
    """What a graph is, for telling whether a sources record was drawn on it: its arrays as int64
    (a dense graph: the parameters its matrix is generated from)."""
    h = hashlib.blake2b(digest_size=16)
    if hasattr(graph, "indptr"):
        h.update(repr((graph.num_vertices, graph.num_arcs)).encode())
        for array in (graph.indptr, graph.indices, graph.weights):
            h.update(np.ascontiguousarray(array, dtype="<i8").tobytes())
    else:
        h.update(repr((graph.num_vertices, graph.density, graph.max_weight, graph.seed)).encode())
    return h.hexdigest()


def reference_distances(graph: CSRGraph, source: int, metric: str = "distance") -> np.ndarray:
    """Dijkstra's distances; for ``metric="hops"`` (BFS) on unit weights, i.e. hop counts."""
    from .graph.dense import DenseGraph
    from .solvers.reference import dijkstra_csr

    from .solvers.base import check_source, check_sums

    check_source(graph, source)
    if isinstance(graph, DenseGraph) and metric == "distance":
        return graph.reference_distances(source)  # O(V^2) over the matrix, no CSR copy
    check_sums(graph)  # the reference must never wrap silently, whoever calls it
    weights = graph.weights if metric == "distance" else np.ones_like(graph.weights)
    return dijkstra_csr(graph.indptr, graph.indices, weights, source)[0]


def check(graph: CSRGraph, source: int, got: np.ndarray, *, solver: str,
          expected_digest: str | None = None, expected: np.ndarray | None = None,
          metric: str = "distance") -> None:
    """Raise VerificationError unless ``got`` equals the reference distances from ``source``."""
    got = np.asarray(got)
    if got.shape != (graph.num_vertices,):
        raise VerificationError(f"{solver} on {graph.name}, source {graph.label_of(source)}: "
                                f"returned {got.shape} distances for {graph.num_vertices} vertices")
    if metric != "distance":
        expected_digest = None  # stored digests are of weighted distances
    if expected is None and expected_digest is not None and digest(got) == expected_digest:
        return
    if expected is None:
        expected = reference_distances(graph, source, metric)
    diff = np.flatnonzero(got != expected)
    if len(diff) == 0:
        return
    v = int(diff[0])
    raise VerificationError(
        f"WRONG ANSWER: {solver} on {graph.name}, source {graph.label_of(source)}: "
        f"{len(diff)} of {graph.num_vertices} distances differ; first at vertex "
        f"{graph.label_of(v)}: expected {_show(expected[v])}, got {_show(got[v])}")


def _show(d) -> str:
    return "inf" if int(d) == INF else str(int(d))
