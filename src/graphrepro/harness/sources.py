"""Random sources, drawn from a seeded RNG so that every solver sees the same ones."""

from __future__ import annotations

import numpy as np

from ..graph.csr import CSRGraph


def draw_sources(graph: CSRGraph, count: int, seed: int) -> np.ndarray:
    """``count`` distinct internal vertex ids with at least one out-arc, in draw order.

    A vertex with no out-arc would make a trivial run (one vertex reached), which says nothing
    about a solver; the documents' "random sources" are read as random non-trivial ones.
    """
    candidates = np.flatnonzero(graph.out_degrees() > 0)
    if len(candidates) == 0:
        candidates = np.arange(graph.num_vertices)
    rng = np.random.default_rng(seed)
    count = min(count, len(candidates))
    return rng.choice(candidates, size=count, replace=False)
