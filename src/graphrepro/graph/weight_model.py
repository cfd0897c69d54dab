"""Named, seeded weight models for real topologies whose weights are not at hand.

safari2017's COL and NW are DIMACS distance graphs, but the files at hand may be only their PACE
2016 topologies (no weights). A model puts weights on such a graph whose distribution is that of
a real DIMACS distance graph, and the origin record names it: "real topology, synthetic weights
(model, seed)". The arcs stay real; what a weight-dependent result (iterations of a
label-correcting solver, Delta-stepping buckets) sees is only as real as this distribution.

``ny_distance_v1`` was measured from the original ``USA-road-d.NY.gr.gz`` (sha256 7b2446c7...,
the published file) by ``python -m graphrepro.graph.weight_model USA-road-d.NY.gr.gz``: one
weight per arc u -> v with u < v (every NY arc has a reverse of equal weight, so this is one per
street, 366,923 of them), and the 257 quantiles at 0, 1/256, ..., 1 of those weights (numpy's
linear method). Its inverse CDF is piecewise linear in log(weight) between those quantiles, so
sampled weights follow NY's to within 1/256 in probability everywhere (1..36,946, median 951).

A weight is drawn per street from a counter-based hash of (seed, min(u, v), max(u, v)): both arcs
of a street get the same weight, as in the DIMACS distance graphs, whatever the arc order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numba
import numpy as np

from .._jit import sized
from ..bounded import load_json
from .csr import CSRGraph
from .generate import _uniform

MODELS_FILE = Path(__file__).with_name("weight_models.json")


def models() -> dict:
    return load_json(MODELS_FILE)


def get_model(name: str) -> dict:
    table = models()
    if name not in table:
        raise ValueError(f"unknown weight model {name!r}; one of {', '.join(table)}")
    return table[name]


@sized
def _draw(src, dst, seed, logq, out):
    steps = len(logq) - 1
    for e in numba.prange(len(src)):
        a, b = min(src[e], dst[e]), max(src[e], dst[e])
        x = _uniform(seed, a, b) * steps
        i = min(int(x), steps - 1)
        w = np.exp(logq[i] + (x - i) * (logq[i + 1] - logq[i]))
        out[e] = max(1, int(w + 0.5))


def sample(src, dst, model: str, seed: int) -> np.ndarray:
    """One int32 weight per arc (src[e] -> dst[e]) from the named model."""
    logq = np.log(np.asarray(get_model(model)["quantiles"], dtype=np.float64))
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    out = np.empty(len(src), dtype=np.int32)
    _draw(len(src), src, dst, np.uint64(seed), logq, out)
    return out


def apply(graph: CSRGraph, model: str, seed: int) -> CSRGraph:
    """The same arcs with weights from ``model`` (seeded)."""
    weights = sample(graph.arc_sources(), graph.indices, model, seed)
    return CSRGraph(graph.indptr, graph.indices, weights, labels=graph.labels, base=graph.base,
                    name=graph.name)


def fit(graph: CSRGraph, steps: int = 256) -> list[float]:
    """The quantile table of a symmetric distance graph's street weights (one per u < v arc)."""
    src = graph.arc_sources()
    w = np.asarray(graph.weights[src < graph.indices], dtype=np.float64)
    return [round(float(q), 3) for q in np.quantile(w, np.linspace(0, 1, steps + 1))]


def main(argv=None) -> int:
    from .formats import read_graph

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m graphrepro.graph.weight_model FILE.gr[.gz]", file=sys.stderr)
        return 2
    graph = read_graph(args[0])
    print(json.dumps({"file": args[0], "quantiles": fit(graph)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
