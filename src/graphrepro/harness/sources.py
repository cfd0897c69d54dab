"""Random sources, drawn from a seeded RNG so that every solver sees the same ones."""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from ..graph.csr import CSRGraph

# A calibration minimum below this share of the median iteration count is no calibration: the
# source behind it reaches a few vertices and ends a solve in a few rounds (safari2017's N).
DEGENERATE_SHARE = 0.25


def largest_component(graph) -> np.ndarray:
    """The vertices of the largest strongly connected component, ascending.

    A source outside it may reach a handful of vertices (the Western stand-in has 2-vertex
    components): its run measures nothing, and a calibration that takes a minimum over
    sources is ruined by it. A complete dense graph is one component; it is not expanded.
    """
    if getattr(graph, "density", None) == 1.0 and graph.num_vertices > 1:
        return np.arange(graph.num_vertices)
    csr = graph.to_csr() if hasattr(graph, "to_csr") else graph
    n = csr.num_vertices
    if n == 0:
        return np.arange(0)
    adj = csr_matrix((np.ones(csr.num_arcs, dtype=np.int8), csr.indices, csr.indptr), shape=(n, n))
    _, label = connected_components(adj, directed=True, connection="strong")
    return np.flatnonzero(label == np.bincount(label).argmax())


def draw_sources(graph: CSRGraph, count: int, seed: int) -> np.ndarray:
    """``count`` distinct internal vertex ids of the largest strongly connected component with
    at least one out-arc, in draw order.

    The documents' "random sources" are read as random non-trivial ones: a vertex with no
    out-arc, or one outside the largest component, makes a run that reaches a few vertices.
    On a strongly connected graph, or one without a cycle (every component a single vertex),
    the draw is what it was before components were considered.
    """
    candidates = np.flatnonzero(graph.out_degrees() > 0)
    component = largest_component(graph) if len(candidates) else candidates
    if len(component) > 1:  # a graph with no cycle has no component worth the name
        candidates = np.intersect1d(candidates, component)
    if len(candidates) == 0:
        candidates = np.arange(graph.num_vertices)
    rng = np.random.default_rng(seed)
    count = min(count, len(candidates))
    return rng.choice(candidates, size=count, replace=False)


def degenerate_minimum(iterations_by_source: dict) -> str | None:
    """Why a minimum iteration count over sources is no calibration, or None when it is one."""
    if not iterations_by_source:
        return None
    values = np.array(list(iterations_by_source.values()), dtype=float)
    low, median = values.min(), float(np.median(values))
    if len(values) > 1 and low < DEGENERATE_SHARE * median:
        source = min(iterations_by_source, key=iterations_by_source.get)
        return (f"minimum {low:g} iterations from source {source} against a median of "
                f"{median:g}: that source reaches few vertices")
    return None
