"""The reference Dijkstra against scipy, the solver registry, Harish et al. against the reference.

Harish runs in the CUDA simulator (switched on in conftest.py), where every GPU thread is a Python
thread: graphs stay at a few hundred vertices at most.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra

from strategies import graphs_and_sources

from graphrepro import gpu
from graphrepro.errors import InputError
from graphrepro.graph.csr import CSRGraph
from graphrepro.graph.generate import random_digraph, road_grid
from graphrepro.solvers import INF, all_solvers, get_solver, solve


def scipy_distances(graph: CSRGraph, source: int) -> np.ndarray:
    """scipy's answer in graphrepro's convention (int64, INF unreachable)."""
    n = graph.num_vertices
    # scipy sums duplicate entries of a sparse matrix, so parallel arcs are reduced to their
    # lightest first; explicit zeros it keeps as zero-weight arcs.
    best = {}
    for u, v, w in zip(graph.arc_sources().tolist(), graph.indices.tolist(),
                       graph.weights.tolist()):
        best[u, v] = min(w, best.get((u, v), w))
    rows = [u for u, _ in best]
    cols = [v for _, v in best]
    matrix = csr_matrix((np.array(list(best.values()), dtype=np.float64), (rows, cols)),
                        shape=(n, n))
    dist = scipy_dijkstra(matrix, directed=True, indices=source)
    out = np.full(n, INF, dtype=np.int64)
    finite = np.isfinite(dist)
    out[finite] = dist[finite].astype(np.int64)
    return out


# --- the reference -----------------------------------------------------------------------------

@settings(max_examples=300, deadline=None, derandomize=True)  # no deadline: numba compiles
@given(graphs_and_sources())
def test_dijkstra_matches_scipy(case):
    graph, source = case
    dist = solve(graph, source)
    assert dist.dtype == np.int64
    np.testing.assert_array_equal(dist, scipy_distances(graph, source))


def test_dijkstra_on_a_hand_made_graph(tiny_graph):
    # Arcs (1-based): 1->2:7 1->3:1 1->4:9 2->4:2 3->4:4 3->2:3 4->1:0; vertex 5 is unreachable.
    assert solve(tiny_graph, 0).tolist() == [0, 4, 1, 5, INF]
    assert solve(tiny_graph, 3).tolist() == [0, 4, 1, 0, INF]  # via the zero-weight arc 4->1
    assert solve(tiny_graph, 4).tolist() == [INF, INF, INF, INF, 0]


def test_dijkstra_sums_past_int32():
    # Path weights are summed in int64: three arcs of 2**31 - 1 must not wrap around.
    big = np.iinfo(np.int32).max
    g = CSRGraph.from_arcs(4, [0, 1, 2], [1, 2, 3], [big, big, big])
    assert solve(g, 0)[-1] == 3 * big


def test_dijkstra_counts_relaxed_arcs(tiny_graph):
    result = get_solver("dijkstra").prepare(tiny_graph).solve(0)
    assert result.counters["arcs_relaxed"] == 7  # each reachable vertex's arcs, once
    assert result.solve_ms >= 0


@pytest.mark.parametrize("source", [-1, 5])
def test_solve_rejects_source_out_of_range(tiny_graph, source):
    with pytest.raises(InputError, match=f"source {source} is out of range 0..4"):
        solve(tiny_graph, source)


# --- the registry ------------------------------------------------------------------------------

def test_registry_lists_the_solvers():
    specs = {s.name: s for s in all_solvers()}
    assert {"dijkstra", "harish"} <= set(specs)
    assert (specs["dijkstra"].device, specs["dijkstra"].document) == ("cpu", "reference")
    assert (specs["harish"].device, specs["harish"].document) == ("gpu", "safari2017")
    assert all(s.description for s in specs.values())
    assert all_solvers()[0].document == "reference"  # the reference is listed first
    assert specs["harish"].static_counters == {"kernels_per_iteration": 2, "atomic_statements": 1}


def test_unknown_solver():
    with pytest.raises(InputError, match=r"unknown solver 'nope'.*dijkstra.*harish"):
        get_solver("nope")


def test_params_reject_unknown_names():
    with pytest.raises(InputError, match="harish has no parameter blocks.*threads_per_block"):
        get_solver("harish").params(blocks=4)
    with pytest.raises(InputError, match="it takes: none"):
        get_solver("dijkstra").params(threads_per_block=4)


def test_params_coerce_command_line_strings():
    spec = get_solver("harish")
    assert spec.params() == {"threads_per_block": 256}
    assert spec.params(threads_per_block="64") == {"threads_per_block": 64}
    assert spec.params(threads_per_block=32) == {"threads_per_block": 32}
    with pytest.raises(InputError, match="'many' is not a int"):
        spec.params(threads_per_block="many")


# --- Harish et al. on the CUDA simulator -------------------------------------------------------

@pytest.fixture(scope="module")
def harish():
    if not gpu.cuda_available():
        pytest.skip("no CUDA device and NUMBA_ENABLE_CUDASIM is not 1")
    return get_solver("harish")


def reachable_arcs(graph: CSRGraph, dist: np.ndarray) -> int:
    return int(np.count_nonzero(dist[graph.arc_sources()] != INF))


HARISH_CASES = {
    # Near the percolation threshold: the source's component holds about half the vertices.
    "road_grid_islands": (road_grid(12, 15, keep=0.55, seed=4), 15),
    "road_grid_connected": (road_grid(10, 10, keep=0.9, seed=1, max_weight=20), 55),
    "random_zero_weights": (random_digraph(120, 360, max_weight=3, seed=7), 3),
    "single_vertex": (CSRGraph.from_arcs(1, [], [], []), 0),
    "source_without_out_arcs": (CSRGraph.from_arcs(4, [0, 1, 2], [1, 2, 3], [1, 1, 1]), 3),
}


def test_harish_cases_cover_what_they_claim():
    # Guards the cases below against a generator change quietly making them trivial.
    grid, source = HARISH_CASES["road_grid_islands"]
    reached = np.count_nonzero(solve(grid, source) != INF)
    assert 50 < reached < grid.num_vertices - 50
    random, _ = HARISH_CASES["random_zero_weights"]
    assert np.count_nonzero(random.weights == 0) > 10


@pytest.mark.parametrize("case", list(HARISH_CASES))
def test_harish_matches_reference(harish, case):
    graph, source = HARISH_CASES[case]
    expected = solve(graph, source)
    # Small blocks: several blocks per launch even on these graphs, as on a real GPU.
    prepared = harish.prepare(graph, threads_per_block=64)
    result = prepared.solve(source, count=True)
    assert result.distances.dtype == np.int64
    np.testing.assert_array_equal(result.distances, expected)

    c = result.counters
    # Two kernels and one read of the flag per iteration, plus the initialisation launch.
    assert c["kernel_launches"] == 1 + 2 * c["iterations"]
    assert c["host_round_trips"] == c["iterations"]
    assert c["iterations"] >= 1
    assert c["arcs_relaxed"] >= reachable_arcs(graph, expected)
    assert c["atomics"] == c["arcs_relaxed"]  # one atomicMin per arc relaxed
    assert c["improving_atomics"] <= c["atomics"]


def harish_rounds_on_the_cpu(graph: CSRGraph, source: int) -> tuple[int, int]:
    """(iterations, arcs relaxed) of Harish's synchronous rounds: kernel 1 relaxes the arcs of
    every vertex whose distance fell in the round before, reading last round's distances, so
    both counts are fixed by the graph and source (improving atomics are not: they depend on
    which of two racing atomicMins lands first)."""
    d = np.full(graph.num_vertices, INF, dtype=np.int64)
    d[source] = 0
    active, iterations, arcs = [source], 0, 0
    while True:
        iterations += 1
        up = d.copy()
        for u in active:
            lo, hi = graph.indptr[u], graph.indptr[u + 1]
            arcs += hi - lo
            np.minimum.at(up, graph.indices[lo:hi], d[u] + graph.weights[lo:hi])
        active = np.flatnonzero(up < d).tolist()
        d = up
        if not active:
            return iterations, arcs


@pytest.mark.parametrize("threads_per_block", [32, 96])
def test_harish_counts_every_arc_of_every_round_across_blocks(harish, threads_per_block):
    # the counting kernel sums per block, in a column of its own: nothing is lost or counted twice
    graph = random_digraph(300, 1500, max_weight=9, seed=4)
    result = harish.prepare(graph, threads_per_block=threads_per_block).solve(0, count=True)
    np.testing.assert_array_equal(result.distances, solve(graph, 0))
    iterations, arcs = harish_rounds_on_the_cpu(graph, 0)
    assert (result.counters["iterations"], result.counters["arcs_relaxed"]) == (iterations, arcs)
    assert 0 < result.counters["improving_atomics"] <= arcs


def test_harish_source_without_out_arcs_stops_after_one_iteration(harish):
    graph, source = HARISH_CASES["source_without_out_arcs"]
    result = harish.prepare(graph).solve(source, count=True)
    assert result.distances.tolist() == [INF, INF, INF, 0]
    assert result.counters["iterations"] == 1
    assert result.counters["arcs_relaxed"] == 0


def test_harish_prepared_solver_is_reusable_across_sources(harish):
    # The harness uploads once and solves from many sources: state must not leak between them.
    graph = road_grid(8, 8, keep=0.7, seed=9)
    prepared = harish.prepare(graph, threads_per_block="32")
    for source in (0, 63, 0):
        result = prepared.solve(source)
        np.testing.assert_array_equal(result.distances, solve(graph, source))
        assert "arcs_relaxed" not in result.counters  # only collected when asked for


def test_run_ids_round_trip_and_reject_malformed():
    from graphrepro.errors import InputError
    from graphrepro.solvers import make_run_id, parse_run_id

    assert parse_run_id("harish") == ("harish", {})
    assert parse_run_id("lbr@t=2,k=4") == ("lbr", {"t": "2", "k": "4"})
    assert make_run_id("lbr", {"t": 2, "k": 4}) == "lbr@k=4,t=2"
    assert make_run_id("harish", {}) == "harish"
    for bad in ("lbr@k", "lbr@k=", "lbr@=4", "lbr@k=4,,t=2", "lbr@k=4++t=2"):
        with pytest.raises(InputError):
            parse_run_id(bad)


def test_file_names_spell_run_ids_without_commas_and_still_find_old_ones(tmp_path):
    """Snakemake splits a submitted job's wildcards at commas (its issue 2366): the workflow's
    file names join parameters with "+", and read the same; the committed reference run's tables,
    written under the comma spelling, are still found."""
    from graphrepro.solvers import parse_run_id, run_file, run_file_id

    assert run_file_id("lbr@k=4,t=2") == "lbr@k=4+t=2" and run_file_id("harish") == "harish"
    assert parse_run_id("lbr@k=4+t=2") == parse_run_id("lbr@k=4,t=2")
    assert run_file(tmp_path, "lbr@k=4,t=2") == tmp_path / "lbr@k=4+t=2.csv"  # neither: the new
    (tmp_path / "lbr@k=4,t=2.csv").write_text("old\n")
    assert run_file(tmp_path, "lbr@k=4,t=2") == tmp_path / "lbr@k=4,t=2.csv"
    (tmp_path / "lbr@k=4+t=2.csv").write_text("new\n")
    assert run_file(tmp_path, "lbr@k=4,t=2") == tmp_path / "lbr@k=4+t=2.csv"


def test_resolve_checks_parameters_against_the_solver():
    from graphrepro.errors import InputError
    from graphrepro.solvers import resolve

    spec, params = resolve("dijkstra")
    assert spec.name == "dijkstra" and params == spec.defaults
    with pytest.raises(InputError, match="no parameter"):
        resolve("dijkstra@bogus=1")
