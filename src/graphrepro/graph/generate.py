"""Deterministic synthetic graphs, for the embedded default config and for tests.

``road_grid`` imitates what makes road networks hard for GPU SSSP (safari2017 Table 1): low, even
out-degree (mean near 2.4, maximum 4), symmetric arcs and a hop diameter that grows with the square
root of the vertex count, so relaxation needs thousands of iterations on large instances. Each
street of a rows x cols lattice exists with probability ``keep``; below the percolation threshold
(0.5) the graph falls apart, above it a few small islands remain, which exercises "unreachable".
"""

from __future__ import annotations

import numpy as np

from .csr import CSRGraph


def road_grid(rows: int, cols: int, *, keep: float = 0.6, max_weight: int = 1000, seed: int = 0,
              name: str = "") -> CSRGraph:
    if rows < 1 or cols < 1:
        raise ValueError("rows and cols must be positive")
    if not 0.0 < keep <= 1.0:
        raise ValueError("keep must be in (0, 1]")
    rng = np.random.default_rng(seed)
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    horizontal = np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()], axis=1)
    vertical = np.stack([ids[:-1, :].ravel(), ids[1:, :].ravel()], axis=1)
    streets = np.concatenate([horizontal, vertical])
    streets = streets[rng.random(len(streets)) < keep]
    weights = rng.integers(1, max_weight, size=len(streets), endpoint=True)
    src = np.concatenate([streets[:, 0], streets[:, 1]])
    dst = np.concatenate([streets[:, 1], streets[:, 0]])
    return CSRGraph.from_arcs(rows * cols, src, dst, np.concatenate([weights, weights]), base=1,
                              name=name or f"road_grid_{rows}x{cols}")


def random_digraph(num_vertices: int, num_arcs: int, *, max_weight: int = 100, seed: int = 0,
                   name: str = "") -> CSRGraph:
    """Uniform random arcs (self-loops and parallel arcs allowed, as in real edge lists)."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, num_vertices, size=num_arcs)
    dst = rng.integers(0, num_vertices, size=num_arcs)
    weights = rng.integers(0, max_weight, size=num_arcs, endpoint=True)
    return CSRGraph.from_arcs(num_vertices, src, dst, weights, base=1,
                              name=name or f"random_{num_vertices}_{num_arcs}")
