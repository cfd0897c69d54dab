"""Compressed sparse row storage: the one graph representation every solver reads.

Plain numpy arrays, as in ``scipy.sparse.csgraph``: ``indptr`` (V+1), ``indices`` (A) and
``weights`` (A). Internal vertex ids are 0..V-1; ``labels`` maps them back to the file's own
numbering so that sources and outputs speak the user's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError

INT32_MAX = np.iinfo(np.int32).max


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
        path = Path(path)
        tmp = path.with_name(path.name + ".part")
        arrays = dict(indptr=self.indptr, indices=self.indices, weights=self.weights,
                      base=np.int64(self.base), name=np.str_(self.name))
        if self.labels is not None:
            arrays["labels"] = self.labels
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path) -> CSRGraph:
        with np.load(path, allow_pickle=False) as z:
            return cls(z["indptr"], z["indices"], z["weights"],
                       labels=z["labels"] if "labels" in z.files else None,
                       base=int(z["base"]), name=str(z["name"]))


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
