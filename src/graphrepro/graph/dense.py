"""Dense graphs: an adjacency matrix (int32, ``NO_EDGE`` where there is no arc), as an2017 uses.

an2017 times Bellman-Ford on complete graphs up to 20480 vertices: 419M arcs, 3.4 GB as CSR,
too big for a file in the workflow. So a dense graph is stored as a *descriptor* (vertices,
density, weight range, seed) and its matrix is generated where it is used, deterministically: the
arc (i, j) and its weight come from a counter-based hash of (i, j, seed), so every process that
builds the matrix (the reference's, the solver's, the transfer benchmark's) builds the same one,
in parallel, in well under a second at 20480 vertices. The reference answer for a dense graph is
an O(V^2) array Dijkstra over the matrix (no heap, no CSR), about half a second at 20480.

A ``DenseGraph`` reads like a ``CSRGraph`` where the harness and the CPU solvers need it to:
vertex numbering (1-based, as DIMACS), ``out_degrees``, and ``indptr``/``indices``/``weights``,
which build a CSR copy on first use (only CPU baselines and the edge-list solver want it; the
dense GPU solvers take the matrix).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from ..atomic import replacing
from ..errors import NUMPY_LOAD_ERRORS, InputError
from .csr import INT32_MAX, CSRGraph, host_memory_problem

NO_EDGE = INT32_MAX  # "no edge" is infinity in an2017's matrix; weights must stay below it
INF64 = np.iinfo(np.int64).max

_K1 = np.uint64(0xBF58476D1CE4E5B9)
_K2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_LOW32 = np.uint64(0xFFFFFFFF)


@numba.njit(cache=True, inline="always")
def _mix(x):
    """splitmix64's finaliser: a bijection of uint64 whose output bits look independent."""
    x = (x ^ (x >> np.uint64(30))) * _K1
    x = (x ^ (x >> np.uint64(27))) * _K2
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def arc_hash(i, j, seed):
    """64 random-looking bits for arc (i, j) of graph ``seed``; independent of the vertex count,
    so a bigger graph of the same seed contains the smaller one."""
    key = (np.uint64(i) << np.uint64(32)) | np.uint64(j)
    return _mix(_mix(key) ^ (np.uint64(seed) * _GOLDEN))


@numba.njit(parallel=True, cache=True)
def _fill(out, seed, max_weight, threshold):
    n = out.shape[0]
    mw = np.uint64(max_weight)
    for i in numba.prange(n):
        for j in range(n):
            h = arc_hash(i, j, seed)
            if i == j or (h >> np.uint64(32)) >= threshold:
                out[i, j] = NO_EDGE
            else:
                out[i, j] = np.int32(np.uint64(1) + (h & _LOW32) % mw)


@numba.njit(parallel=True, cache=True)
def _row_counts(matrix):
    n = matrix.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for i in numba.prange(n):
        c = 0
        for j in range(n):
            if matrix[i, j] != NO_EDGE:
                c += 1
        out[i] = c
    return out


@numba.njit(cache=True)
def dense_dijkstra(matrix, source):
    """Distances (int64, INF64 unreachable) by Dijkstra over a matrix: O(V^2), no heap."""
    n = matrix.shape[0]
    dist = np.full(n, INF64, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    dist[source] = 0
    for _ in range(n):
        u = -1
        best = INF64
        for v in range(n):
            if not done[v] and dist[v] < best:
                best = dist[v]
                u = v
        if u < 0:
            break
        done[u] = True
        for v in range(n):
            w = matrix[u, v]
            if w != NO_EDGE and best + w < dist[v]:
                dist[v] = best + w
    return dist


def check_dense_size(num_vertices: int, what: str) -> None:
    """Refuse, before allocating, a matrix the host cannot hold (the device is checked apart)."""
    problem = host_memory_problem(num_vertices * num_vertices * 4)
    if problem:
        raise InputError(f"{what}: a dense {num_vertices} x {num_vertices} matrix {problem}")


@dataclass
class DenseGraph:
    num_vertices: int
    density: float = 1.0  # probability that an arc i -> j (i != j) exists; 1.0: complete
    max_weight: int = 100  # weights are uniform in 1..max_weight
    seed: int = 0
    name: str = ""
    base: int = 1  # vertex ids 1..V, as DIMACS
    labels: None = None
    _matrix: np.ndarray | None = field(default=None, repr=False, compare=False)
    _csr: CSRGraph | None = field(default=None, repr=False, compare=False)
    _degrees: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.num_vertices < 1:
            raise InputError("a dense graph needs at least one vertex")
        if not 0.0 <= self.density <= 1.0:
            raise InputError(f"density {self.density} is not in [0, 1]")
        if not 1 <= self.max_weight < NO_EDGE:
            raise InputError(f"max_weight must be in 1..{NO_EDGE - 1}")
        if not 0 <= self.seed < 2**63:
            raise InputError(f"seed {self.seed} is not in 0..2^63-1")
        self.name = self.name or f"dense_{self.num_vertices}"

    # --- the matrix ------------------------------------------------------------------------
    def matrix(self) -> np.ndarray:
        """The V x V int32 matrix, NO_EDGE off the arcs (and on the diagonal); built once."""
        if self._matrix is None:
            check_dense_size(self.num_vertices, self.name)
            out = np.empty((self.num_vertices, self.num_vertices), dtype=np.int32)
            threshold = min(int(round(self.density * 2**32)), 2**32)
            _fill(out, np.uint64(self.seed), np.int64(self.max_weight), np.uint64(threshold))
            self._matrix = out
        return self._matrix

    def reference_distances(self, source: int) -> np.ndarray:
        return dense_dijkstra(self.matrix(), source)

    # --- what the harness reads of a graph ------------------------------------------------
    def out_degrees(self) -> np.ndarray:
        if self._degrees is None:
            self._degrees = _row_counts(self.matrix())
        return self._degrees

    @property
    def num_arcs(self) -> int:
        return int(self.out_degrees().sum())

    def label_of(self, vertices) -> np.ndarray:
        return np.asarray(vertices, dtype=np.int64) + self.base

    def all_labels(self) -> np.ndarray:
        return self.label_of(np.arange(self.num_vertices))

    def to_internal(self, label: int) -> int:
        v = int(label) - self.base
        if 0 <= v < self.num_vertices:
            return v
        raise InputError(f"source {label} is out of range: {self.name} has vertices "
                         f"{self.base}..{self.base + self.num_vertices - 1}")

    def degree_stats(self) -> dict:
        """The statistics ``degree_stats`` gives a CSR graph, from the matrix directly."""
        deg = self.out_degrees()
        m = self.matrix()
        finite = m != NO_EDGE
        any_arc = bool(finite.any())
        return {"vertices": self.num_vertices, "arcs": int(deg.sum()),
                "max_outdegree": int(deg.max()), "std_outdegree": float(deg.std()),
                "median_outdegree": float(np.median(deg)), "mean_outdegree": float(deg.mean()),
                "min_weight": int(m[finite].min()) if any_arc else 0,
                "max_weight": int(m[finite].max()) if any_arc else 0,
                "dense": True, "density": self.density}

    # --- a CSR view, for CPU baselines and the edge-list solver ----------------------------
    def to_csr(self) -> CSRGraph:
        if self._csr is None:
            m = self.matrix()
            src, dst = np.nonzero(m != NO_EDGE)
            self._csr = CSRGraph.from_arcs(self.num_vertices, src, dst, m[src, dst], base=self.base,
                                           name=self.name)
        return self._csr

    @property
    def indptr(self):
        return self.to_csr().indptr

    @property
    def indices(self):
        return self.to_csr().indices

    @property
    def weights(self):
        return self.to_csr().weights

    def arc_sources(self):
        return self.to_csr().arc_sources()

    def nbytes(self) -> int:
        return self.num_vertices * self.num_vertices * 4

    # --- the descriptor file ---------------------------------------------------------------
    def save(self, path) -> None:
        with replacing(path) as tmp, open(tmp, "wb") as f:
            np.savez(f, dense_vertices=np.int64(self.num_vertices), density=np.float64(self.density),
                     max_weight=np.int64(self.max_weight), seed=np.int64(self.seed),
                     name=np.str_(self.name))

    @classmethod
    def load(cls, path) -> DenseGraph:
        from ..errors import damaged

        try:
            with np.load(path, allow_pickle=False) as z:
                args = (int(z["dense_vertices"]), float(z["density"]), int(z["max_weight"]),
                        int(z["seed"]), str(z["name"]))
        except (*NUMPY_LOAD_ERRORS, TypeError) as e:
            raise damaged(path, f"not a dense-graph descriptor ({type(e).__name__}: "
                                f"{str(e)[:120]})") from None
        try:
            return cls(*args)
        except InputError as e:
            raise damaged(path, str(e)) from None


def is_dense_file(path) -> bool:
    """Whether an .npz is a dense-graph descriptor (rather than a CSR cache)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return "dense_vertices" in z.files
    except NUMPY_LOAD_ERRORS:
        return False  # not readable as a descriptor: the CSR reader names what is wrong


def dense_matrix(graph) -> np.ndarray:
    """The V x V int32 matrix of any graph: generated for a DenseGraph, scattered from a CSR one
    (parallel arcs reduced to the lightest, as an adjacency matrix must)."""
    if isinstance(graph, DenseGraph):
        return graph.matrix()
    n = graph.num_vertices
    check_dense_size(n, graph.name or "graph")
    if graph.num_arcs and int(graph.weights.max()) >= NO_EDGE:
        raise InputError(f"{graph.name or 'graph'}: an arc weighs {int(graph.weights.max())}; the "
                         f"dense matrix keeps weights below {NO_EDGE} (its 'no edge')")
    m = np.full((n, n), NO_EDGE, dtype=np.int32)
    np.minimum.at(m, (graph.arc_sources(), graph.indices), graph.weights.astype(np.int32))
    return m
