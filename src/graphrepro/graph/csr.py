"""Compressed sparse row storage: the one graph representation every solver reads.

Plain numpy arrays, as in ``scipy.sparse.csgraph``: ``indptr`` (V+1), ``indices`` (A) and
``weights`` (A). Internal vertex ids are 0..V-1; ``labels`` maps them back to the file's own
numbering so that sources and outputs speak the user's language.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..atomic import replacing
from ..errors import NUMPY_LOAD_ERRORS, InputError

INT32_MAX = np.iinfo(np.int32).max
INT64_MAX = np.iinfo(np.int64).max  # also "unreachable" (solvers.INF): no distance may reach it


def host_memory() -> int | None:
    """This machine's physical memory in bytes, where the system says."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def host_memory_problem(nbytes: int) -> str | None:
    """Why ``nbytes`` cannot be allocated here (more than half of this machine's memory), or None.
    Readers ask before allocating what a header announces, so a header that lies costs nothing."""
    host = host_memory()
    if host is None or nbytes <= host // 2:
        return None
    return f"needs {nbytes / 2**30:,.1f} GiB, more than half of this machine's {host / 2**30:,.1f} GiB"


def csr_bytes(num_vertices: int, num_arcs: int) -> int:
    """Peak bytes of building a CSR graph from int64 arc columns (from_arcs): the columns, their
    sort order, the indices and weights, and the per-vertex offsets and counts."""
    return 16 * (num_vertices + 1) + 48 * num_arcs


def exact_sum(values) -> int:
    """The sum of non-negative integers as a Python int: never wrapped, whatever the values.

    Where len * max fits int64 numpy's sum is exact; otherwise the high and low 32 bits are
    summed apart (each fits for any array below 2^31 entries) and joined in Python.
    """
    v = np.asarray(values)
    if v.size == 0:
        return 0
    v = v.astype(np.int64, copy=False)
    if int(v.max()) <= INT64_MAX // v.size:
        return int(v.sum())
    return (int((v >> 32).sum()) << 32) + int((v & 0xFFFFFFFF).sum())


def longest_path_bound(num_vertices: int, weights) -> int:
    """No shortest path (simple: at most V-1 arcs) and no spanning forest weighs more than
    min((V - 1) * max weight, sum of all weights)."""
    weights = np.asarray(weights)
    if num_vertices < 2 or weights.size == 0:
        return 0
    return min((num_vertices - 1) * int(weights.max()), exact_sum(weights))


def sums_problem(num_vertices: int, weights) -> str | None:
    """Why int64 distances or forest weights could wrap on this graph, or None when they cannot.

    Dijkstra adds an arc to a settled distance, so the bound plus the heaviest arc must stay
    below INT64_MAX (which also stands for "unreachable")."""
    weights = np.asarray(weights)
    if weights.size == 0:
        return None
    wmax = int(weights.max())
    bound = longest_path_bound(num_vertices, weights)
    if bound + wmax < INT64_MAX:
        return None
    return (f"weights up to {wmax:,} on {num_vertices:,} vertices: a shortest path or spanning "
            f"forest may weigh up to {bound:,}, which with one more arc does not fit the int64 "
            f"sums every solver and the reference use (at most {INT64_MAX:,}); scale the weights "
            f"down")


def index_dtype(count: int) -> np.dtype:
    """int32 where it fits (half the memory traffic on the GPU), int64 beyond."""
    return np.dtype(np.int32) if count <= INT32_MAX else np.dtype(np.int64)


@dataclass
class CSRGraph:
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    labels: np.ndarray | None = None  # file vertex id of each internal vertex; None: id = i + base
    base: int = 0  # the file's first vertex id when labels is None (1 for DIMACS and MatrixMarket)
    name: str = ""
    _reverse: CSRGraph | None = field(default=None, repr=False, compare=False)

    @property
    def num_vertices(self) -> int:
        return len(self.indptr) - 1

    @property
    def num_arcs(self) -> int:
        return len(self.indices)

    # --- construction -------------------------------------------------------------------
    @classmethod
    def from_arcs(cls, num_vertices: int, src, dst, weights, *, labels=None, base: int = 0,
                  name: str = "") -> CSRGraph:
        """Build from arc arrays (internal ids); arcs keep their order within each source vertex."""
        src = np.asarray(src)
        dst = np.asarray(dst)
        weights = np.asarray(weights)
        if src.size == 0:  # np.asarray([]) is float64, which bincount refuses
            src = src.astype(np.int64)
        if not (len(src) == len(dst) == len(weights)):
            raise ValueError("src, dst and weights must have the same length")
        if len(src) and (src.min() < 0 or src.max() >= num_vertices
                         or dst.min() < 0 or dst.max() >= num_vertices):
            raise ValueError("arc endpoint outside 0..num_vertices-1")
        if len(weights) and weights.min() < 0:
            raise ValueError("negative arc weight")
        problem = sums_problem(num_vertices, weights)
        if problem:
            raise InputError(f"{name or 'graph'}: {problem}")
        order = np.argsort(src, kind="stable")
        counts = np.bincount(src, minlength=num_vertices)
        indptr = np.zeros(num_vertices + 1, dtype=index_dtype(len(src)))
        np.cumsum(counts, out=indptr[1:])
        indices = dst[order].astype(index_dtype(num_vertices), copy=False)
        wmax = int(weights.max()) if len(weights) else 0
        wdtype = np.int32 if wmax <= INT32_MAX else np.int64
        return cls(indptr, indices, weights[order].astype(wdtype, copy=False),
                   labels=None if labels is None else np.asarray(labels, dtype=np.int64),
                   base=base, name=name)

    # --- vertex numbering ---------------------------------------------------------------
    def label_of(self, vertices) -> np.ndarray:
        vertices = np.asarray(vertices, dtype=np.int64)
        return self.labels[vertices] if self.labels is not None else vertices + self.base

    def all_labels(self) -> np.ndarray:
        return self.label_of(np.arange(self.num_vertices))

    def to_internal(self, label: int) -> int:
        """The internal id of a file vertex id; a clear error when the graph has no such vertex."""
        label = int(label)
        if self.labels is None:
            v = label - self.base
            if 0 <= v < self.num_vertices:
                return v
            lo, hi = self.base, self.base + self.num_vertices - 1
            raise InputError(f"source {label} is out of range: {self.name or 'the graph'} has "
                             f"vertices {lo}..{hi}")
        pos = int(np.searchsorted(self.labels, label)) if _is_sorted(self.labels) else -1
        if 0 <= pos < len(self.labels) and self.labels[pos] == label:
            return pos
        hits = np.flatnonzero(self.labels == label)
        if len(hits):
            return int(hits[0])
        raise InputError(f"source {label} is not a vertex of {self.name or 'the graph'} "
                         f"(ids {int(self.labels.min())}..{int(self.labels.max())}, "
                         f"{self.num_vertices} vertices)")

    # --- derived views -------------------------------------------------------------------
    def out_degrees(self) -> np.ndarray:
        return np.diff(self.indptr)

    def arc_sources(self) -> np.ndarray:
        """The source vertex of every arc (the edge-list view, S_a in singla and an2017)."""
        return np.repeat(np.arange(self.num_vertices, dtype=self.indices.dtype), self.out_degrees())

    def reverse(self) -> CSRGraph:
        """The transpose (in-arcs as out-arcs), built once on demand for pull-style solvers."""
        if self._reverse is None:
            self._reverse = CSRGraph.from_arcs(self.num_vertices, self.indices, self.arc_sources(),
                                               self.weights, labels=self.labels, base=self.base,
                                               name=f"{self.name} (reversed)")
        return self._reverse

    def nbytes(self) -> int:
        return self.indptr.nbytes + self.indices.nbytes + self.weights.nbytes

    # --- cache ----------------------------------------------------------------------------
    def save(self, path) -> None:
        """Binary cache (.npz, uncompressed so it loads at disk speed); written atomically."""
        arrays = dict(indptr=self.indptr, indices=self.indices, weights=self.weights,
                      base=np.int64(self.base), name=np.str_(self.name))
        if self.labels is not None:
            arrays["labels"] = self.labels
        with replacing(path) as tmp, open(tmp, "wb") as f:
            np.savez(f, **arrays)

    @classmethod
    def load(cls, path) -> CSRGraph:
        """A cache written by ``save``, checked whole before any solver indexes with it: a
        truncated or hand-made file is refused with its name, never read out of bounds."""
        from ..errors import damaged

        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                missing = {"indptr", "indices", "weights", "base", "name"} - set(z.files)
                if missing:
                    raise damaged(path, f"not a graph cache: no {', '.join(sorted(missing))}")
                graph = cls(z["indptr"], z["indices"], z["weights"],
                            labels=z["labels"] if "labels" in z.files else None,
                            base=z["base"], name=z["name"])
        except NUMPY_LOAD_ERRORS as e:
            if isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError)):
                raise InputError(f"{path}: {e.strerror}") from None
            raise damaged(path, f"cannot be read as a graph cache ({type(e).__name__}: "
                                f"{str(e)[:120]})") from None
        problem = graph.invariant_problem()
        if problem:
            raise damaged(path, problem)
        heavy = sums_problem(graph.num_vertices, graph.weights)
        if heavy:  # a whole file, but weights no int64 sum can carry: the input is the problem
            raise InputError(f"{path}: {heavy}")
        graph.base, graph.name = int(graph.base), str(graph.name)
        # the dtypes from_arcs makes, whatever integer widths a hand-made file used
        graph.indptr = graph.indptr.astype(index_dtype(graph.num_arcs), copy=False)
        graph.indices = graph.indices.astype(index_dtype(graph.num_vertices), copy=False)
        wmax = int(graph.weights.max()) if graph.num_arcs else 0
        graph.weights = graph.weights.astype(np.int32 if wmax <= INT32_MAX else np.int64, copy=False)
        if graph.labels is not None:
            graph.labels = graph.labels.astype(np.int64, copy=False)
        return graph

    def invariant_problem(self) -> str | None:
        """What makes these arrays no CSR graph (dtypes, shapes, offsets, ids, weights), or None."""
        arrays = {"indptr": self.indptr, "indices": self.indices, "weights": self.weights}
        if self.labels is not None:
            arrays["labels"] = self.labels
        for key, a in arrays.items():
            if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "iu" \
                    or a.dtype.itemsize > 8 or (a.dtype.kind == "u" and a.dtype.itemsize == 8):
                return (f"{key} must be a 1-D array of integers, not "
                        f"{getattr(a, 'dtype', type(a).__name__)} {getattr(a, 'shape', '')}")
        for key in ("base", "name"):
            v = np.asarray(getattr(self, key))
            if v.ndim != 0 or (key == "base" and v.dtype.kind not in "iu") \
                    or (key == "name" and v.dtype.kind != "U"):
                return f"{key} must be a single {'integer' if key == 'base' else 'string'}"
        n = len(self.indptr) - 1
        if n < 0:
            return "indptr is empty (it has V + 1 entries)"
        if self.indptr[0] != 0:
            return f"indptr starts at {int(self.indptr[0])}, not 0"
        if n and np.any(np.diff(self.indptr.astype(np.int64)) < 0):
            return "indptr decreases"
        if int(self.indptr[-1]) != len(self.indices) or len(self.indices) != len(self.weights):
            return (f"indptr ends at {int(self.indptr[-1])} but there are {len(self.indices)} "
                    f"indices and {len(self.weights)} weights")
        if len(self.indices) and (int(self.indices.min()) < 0 or int(self.indices.max()) >= n):
            return (f"an arc points at vertex {int(self.indices.max()) if self.indices.max() >= n else int(self.indices.min())}, "
                    f"outside 0..{n - 1}")
        if len(self.weights) and int(self.weights.min()) < 0:
            return f"negative weight {int(self.weights.min())}"
        if self.labels is not None and len(self.labels) != n:
            return f"{len(self.labels)} labels for {n} vertices"
        if n > INT32_MAX and self.indices.dtype.itemsize < 8:
            return "indices too narrow for the vertex count"
        return None


def _is_sorted(a: np.ndarray) -> bool:
    return bool(len(a) < 2 or np.all(a[1:] >= a[:-1]))


def degree_stats(graph: CSRGraph) -> dict:
    """The columns of safari2017 Table 1, plus the mean the table's caption states."""
    if hasattr(graph, "degree_stats"):  # a DenseGraph counts them from its matrix
        return graph.degree_stats()
    deg = graph.out_degrees()
    n = graph.num_vertices
    return {
        "vertices": n,
        "arcs": graph.num_arcs,
        "max_outdegree": int(deg.max()) if n else 0,
        "std_outdegree": float(deg.std()) if n else 0.0,
        "median_outdegree": float(np.median(deg)) if n else 0.0,
        "mean_outdegree": float(deg.mean()) if n else 0.0,
        "min_weight": int(graph.weights.min()) if graph.num_arcs else 0,
        "max_weight": int(graph.weights.max()) if graph.num_arcs else 0,
    }
