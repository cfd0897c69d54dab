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
    # hashed through the buffer, not a .tobytes() copy: the same bytes, one pass less over 50 MB
    # on a road graph, and blake2b lets other threads run while it hashes
    return hashlib.blake2b(memoryview(np.ascontiguousarray(distances, dtype="<i8")).cast("B"),
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


def reference_digests(graph, sources, workers: int = 1, log=None) -> tuple[list[str], list[float]]:
    """The digest of the reference distances from each source, and the milliseconds each took,
    in the order of ``sources``: the same digests whatever ``workers`` is.

    Sources run on ``workers`` threads: the reference Dijkstra is compiled without the GIL (and
    blake2b drops it), so each thread uses a core of its own on the one shared graph. A graph's
    100 references, minutes on one core on a road graph, take seconds on a host's cores.
    """
    import time
    from concurrent.futures import ThreadPoolExecutor

    def one(source):
        t0 = time.perf_counter()
        d = digest(reference_distances(graph, int(source)))
        return d, (time.perf_counter() - t0) * 1e3

    sources = [int(s) for s in sources]
    if workers <= 1 or len(sources) <= 1:
        results = [one(s) for s in sources]
    else:
        one(sources[0])  # compiles (or loads) the reference once, before the threads share it
        with ThreadPoolExecutor(max_workers=min(workers, len(sources))) as pool:
            results = list(pool.map(one, sources))
    if log:
        log(f"{graph.name}: {len(sources)} reference distances on {max(1, workers)} threads")
    return [d for d, _ in results], [ms for _, ms in results]


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
