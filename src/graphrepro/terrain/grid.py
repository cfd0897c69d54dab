"""Grid graphs from elevation grids (gerritsen2012 Definition 1 and section 1.5.1).

Vertices are the samples, numbered row-major (the thesis's Figure 1.1a); each links to its 4 or
8 neighbours (the thesis's experiments use 8, "I did add diagonal edges"). The thesis's weights:
max(val(i), val(j)) for MST and |val(i) - val(j)| for SSSP.
"""

from __future__ import annotations

import numba
import numpy as np

from .._jit import sized
from ..graph.csr import CSRGraph, index_dtype

_N8 = np.array([(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)], dtype=np.int64)
_N4 = np.array([(-1, 0), (0, -1), (0, 1), (1, 0)], dtype=np.int64)


@sized
def _degrees(rows, cols, nb, deg):
    for y in numba.prange(rows):
        for x in range(cols):
            d = 0
            for k in range(len(nb)):
                y2, x2 = y + nb[k, 0], x + nb[k, 1]
                if 0 <= y2 < rows and 0 <= x2 < cols:
                    d += 1
            deg[y * cols + x + 1] = d


@sized
def _fill(elev, nb, indptr, indices, weights, mst):
    rows, cols = elev.shape
    for y in numba.prange(rows):
        for x in range(cols):
            p = indptr[y * cols + x]
            a = np.int64(elev[y, x])
            for k in range(len(nb)):
                y2, x2 = y + nb[k, 0], x + nb[k, 1]
                if 0 <= y2 < rows and 0 <= x2 < cols:
                    b = np.int64(elev[y2, x2])
                    indices[p] = y2 * cols + x2
                    weights[p] = max(a, b) if mst else abs(a - b)
                    p += 1


def grid_graph(elevation: np.ndarray, *, neighbours: int = 8, weight: str = "sssp",
               name: str = "") -> CSRGraph:
    """CSR of the grid graph of ``elevation`` (integers, rows x cols)."""
    if neighbours not in (4, 8):
        raise ValueError("neighbours must be 4 or 8")
    if weight not in ("sssp", "mst"):
        raise ValueError("weight must be 'sssp' (|difference|) or 'mst' (max)")
    elev = np.ascontiguousarray(elevation)
    rows, cols = elev.shape
    n = rows * cols
    nb = _N8 if neighbours == 8 else _N4
    deg = np.zeros(n + 1, dtype=np.int64)
    _degrees(n * len(nb), rows, cols, nb, deg)
    indptr = np.cumsum(deg)
    m = int(indptr[-1])
    indices = np.empty(m, dtype=index_dtype(n))
    weights = np.empty(m, dtype=np.int32)
    _fill(m, elev, nb, indptr, indices, weights, weight == "mst")
    return CSRGraph(indptr.astype(index_dtype(m)), indices, weights, base=0,
                    name=name or f"grid_{rows}x{cols}")
