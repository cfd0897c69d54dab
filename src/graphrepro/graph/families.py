"""singla's graph families: sparse, general and almost-complete directed graphs.

The document (Section 6) evaluates on "sparse, general, almost complete directed graphs of 6
thousands to 0.2 million vertices having up to 2 million edges" and names three points (30K
vertices with 90K edges; 20,000 edges; 2,312,777 edges), but says nothing about how its graphs
were made or weighted. Ours, all deterministic given ``seed``:

- Every family is a *simple* directed graph (no self-loops, no parallel arcs) with exactly
  ``arcs`` arcs, drawn uniformly without replacement from the V(V-1) ordered pairs, so the
  families differ only in density, as the document's names do. Arc weights are uniform integers in
  1..``max_weight``.
- ``sparse``: mean out-degree at most 8 (30K vertices with 90K arcs is degree 3). Uniform arcs
  leave about e^-d of the vertices with no in-arc at degree d, so a few percent are unreachable.
- ``general``: mean out-degree above 8 and density below one half (200K vertices with 2,312,777
  arcs is degree 11.6). The three ranges do not overlap, so a graph's size names its family.
- ``almost_complete``: density at least 0.9. 2,312,777 arcs is itself almost complete: 1522
  vertices hold 1522 * 1521 = 2,314,962 ordered pairs, so it is K_1522 less 2,185 arcs; an
  almost-complete graph on even 6K vertices would have ~36M arcs, far above the document's
  "up to 2 million edges", so this family lives below 6K vertices.

How the weights are drawn decides how much work singla's edge-based Dijkstra does (one round per
distinct distance value), so ``max_weight`` is part of every graph's config.
"""

from __future__ import annotations

import numpy as np

from .csr import CSRGraph

FAMILIES = ("sparse", "general", "almost_complete")
SPARSE_MAX_DEGREE = 8
GENERAL_MAX_DENSITY = 0.5
ALMOST_COMPLETE_MIN_DENSITY = 0.9


def family_graph(family: str, vertices: int, arcs: int, *, max_weight: int = 10, seed: int = 0,
                 name: str = "") -> CSRGraph:
    """A deterministic simple digraph of the family, with exactly ``arcs`` arcs."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, not {family!r}")
    if vertices < 2:
        raise ValueError("a family graph needs at least 2 vertices")
    if max_weight < 1:
        raise ValueError("max_weight must be at least 1 (weights are drawn from 1..max_weight)")
    pairs = vertices * (vertices - 1)
    if not 0 <= arcs <= pairs:
        raise ValueError(f"{arcs} arcs do not fit a simple digraph on {vertices} vertices "
                         f"(at most {pairs})")
    degree, density = arcs / vertices, arcs / pairs
    if family == "sparse" and degree > SPARSE_MAX_DEGREE:
        raise ValueError(f"sparse: mean out-degree {degree:.3g} is above {SPARSE_MAX_DEGREE}; "
                         f"use general")
    if family == "general" and degree <= SPARSE_MAX_DEGREE:
        raise ValueError(f"general: mean out-degree {degree:.3g} is not above "
                         f"{SPARSE_MAX_DEGREE}; use sparse")
    if family == "general" and density >= GENERAL_MAX_DENSITY:
        raise ValueError(f"general: density {density:.3g} is not below {GENERAL_MAX_DENSITY}; "
                         f"use almost_complete")
    if family == "almost_complete" and density < ALMOST_COMPLETE_MIN_DENSITY:
        raise ValueError(f"almost_complete: density {density:.3g} is below "
                         f"{ALMOST_COMPLETE_MIN_DENSITY}; use general or sparse")
    rng = np.random.default_rng(seed)
    if density > 0.5:
        # Dense: choose the pairs to leave out, fewer draws than the pairs to keep.
        keep = np.ones(pairs, dtype=bool)
        keep[rng.choice(pairs, size=pairs - arcs, replace=False)] = False
        chosen = np.flatnonzero(keep)
    else:
        chosen = np.sort(rng.choice(pairs, size=arcs, replace=False))
    # Pair k = u * (V - 1) + r names arc u -> v, where v skips u itself: no self-loops.
    src = chosen // (vertices - 1)
    rest = chosen % (vertices - 1)
    dst = rest + (rest >= src)
    weights = rng.integers(1, max_weight, size=arcs, endpoint=True)
    return CSRGraph.from_arcs(vertices, src, dst, weights, base=1,
                              name=name or f"{family}_{vertices}_{arcs}")
