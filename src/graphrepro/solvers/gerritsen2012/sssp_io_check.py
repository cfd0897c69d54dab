"""gerritsen2012 chapter 5: the whole-grid baseline the I/O-efficient SSSP is checked against.

The in-memory Dijkstra over the whole grid graph (the thesis's comparison, and our exactness
check), and the checks that stop an experiment on a wrong phase-1 or final distance.
"""

from __future__ import annotations

import time

import numpy as np

from ...errors import VerificationError
from .types import boundary_cells


def grid_values(zgrid) -> np.ndarray:
    """The padded square grid, row-major, int64 (the baseline holds the whole grid in memory)."""
    from ...terrain import open_zgrid, to_rows

    z, meta = open_zgrid(zgrid)
    return to_rows(z, meta, padded=True).astype(np.int64)


def whole_grid_dijkstra(values2d: np.ndarray, source: int) -> tuple[np.ndarray, dict]:
    """The in-memory baseline: the grid graph as CSR (|difference| weights, 8 neighbours) and the
    reference Dijkstra on it. Returns (distances, {"build_ms", "dijkstra_ms", "arcs_relaxed"})."""
    from ...terrain import grid_graph
    from ..reference import dijkstra_csr

    t0 = time.perf_counter()
    g = grid_graph(values2d, weight="sssp")
    t1 = time.perf_counter()
    dist, relaxed = dijkstra_csr(g.indptr, g.indices, g.weights, int(source))
    t2 = time.perf_counter()
    return dist, {"build_ms": (t1 - t0) * 1e3, "dijkstra_ms": (t2 - t1) * 1e3,
                  "arcs_relaxed": int(relaxed)}


def check_distances(got: np.ndarray, expected: np.ndarray, *, what: str) -> None:
    """Raise VerificationError (stopping the experiment) unless the arrays are equal."""
    got = np.asarray(got).ravel()
    expected = np.asarray(expected).ravel()
    if got.shape != expected.shape:
        raise VerificationError(f"WRONG ANSWER: {what}: {got.size} distances, expected {expected.size}")
    diff = np.flatnonzero(got != expected)
    if len(diff):
        v = int(diff[0])
        raise VerificationError(f"WRONG ANSWER: {what}: {len(diff)} of {got.size} distances differ; "
                                f"first at vertex {v}: expected {expected[v]}, got {got[v]}")


def check_phase1(values: np.ndarray, dist: np.ndarray, *, what: str, rows: int = 2) -> None:
    """Check a phase-1 result against the reference Dijkstra on each block's grid graph, for the
    first and last ``rows // 2`` boundary sources of every block (all of them is phase 1 again)."""
    from ...terrain import grid_graph
    from ..reference import dijkstra_csr

    m = values.shape[1]
    bcells = boundary_cells(m)
    k = len(bcells)
    picks = sorted(set(list(range(min(k, rows // 2 or 1))) + list(range(max(0, k - rows // 2), k))))
    for b in range(values.shape[0]):
        g = grid_graph(values[b], weight="sssp")
        for i in picks:
            ref = dijkstra_csr(g.indptr, g.indices, g.weights, int(bcells[i]))[0][bcells]
            check_distances(dist[b, i], ref, what=f"{what}, block {b}, boundary vertex {i}")
