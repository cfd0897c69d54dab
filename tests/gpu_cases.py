"""Graph cases and a checked solve shared by the GPU solver tests (CUDA simulator)."""

import numpy as np

from graphrepro import verify
from graphrepro.graph.csr import CSRGraph
from graphrepro.solvers import parse_run_id, resolve


def solve_checked(graph, run_id, source, defaults=None, **params):
    """One counted solve of a run id, checked against the reference; raises on any wrong distance.

    ``defaults`` are parameters the test file always passes (small blocks keep the simulator quick).
    """
    named = parse_run_id(run_id)[1]  # what the run id names is what runs: defaults fill the rest
    spec, full = resolve(run_id, **{**{k: v for k, v in (defaults or {}).items() if k not in named},
                                    **params})
    result = spec.factory(graph, **full).solve(source, count=True)
    verify.check(graph, source, result.distances, solver=run_id)
    return result


def with_zero_weights_and_an_island(graph: CSRGraph) -> CSRGraph:
    """Every third arc weighs 0, and three extra vertices (an arc among them) nothing reaches."""
    src = np.repeat(np.arange(graph.num_vertices), np.diff(graph.indptr))
    n = graph.num_vertices
    weights = graph.weights.astype(np.int64).copy()
    weights[::3] = 0
    return CSRGraph.from_arcs(n + 3, np.r_[src, n, n + 1], np.r_[graph.indices, n + 1, n + 2],
                              np.r_[weights, 5, 0], name=graph.name + "+zero+island")
