"""The CPU baselines (Bellman-Ford, BFS, scipy's Dijkstra, delta-stepping sequential and
parallel) against the reference.

BFS computes hop counts, not weighted distances: it is checked against Dijkstra on a copy of the
graph with every weight 1.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import graphs_and_sources

from graphrepro.errors import InputError
from graphrepro.graph.csr import CSRGraph
from graphrepro.graph.generate import random_digraph, road_grid
from graphrepro.solvers import INF, all_solvers, get_solver, solve

WEIGHTED = ("bellman_ford", "scipy_dijkstra", "delta_stepping", "delta_stepping_par")


def unit_weights(graph: CSRGraph) -> CSRGraph:
    return CSRGraph(graph.indptr, graph.indices, np.ones_like(graph.weights), name=graph.name)


def run(name, graph, source, **params):
    result = get_solver(name).prepare(graph, **params).solve(source, count=True)
    assert result.distances.dtype == np.int64
    assert result.solve_ms >= 0
    return result


@settings(max_examples=100, deadline=None, derandomize=True)  # no deadline: numba compiles
@given(graphs_and_sources(), st.sampled_from(WEIGHTED + ("delta_stepping_small",)))
def test_weighted_baselines_match_reference(case, name):
    graph, source = case
    params = {}
    if name == "delta_stepping_small":  # delta=1: zero-weight arcs light, the rest heavy
        name, params = "delta_stepping", {"delta": 1}
    result = run(name, graph, source, **params)
    np.testing.assert_array_equal(result.distances, solve(graph, source))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(graphs_and_sources())
def test_bfs_matches_reference_on_unit_weights(case):
    graph, source = case
    result = run("bfs", graph, source)
    np.testing.assert_array_equal(result.distances, solve(unit_weights(graph), source))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(graphs_and_sources())
def test_bellman_ford_counters(case):
    graph, source = case
    c = run("bellman_ford", graph, source).counters
    assert 1 <= c["iterations"] <= graph.num_vertices
    assert c["arcs_relaxed"] <= c["iterations"] * graph.num_arcs


GRIDS = {
    "islands": (road_grid(30, 30, keep=0.55, seed=4), 15),
    "connected": (road_grid(40, 40, keep=0.9, seed=1, max_weight=20), 55),
    "zero_weights": (random_digraph(500, 2000, max_weight=3, seed=7), 3),
}


@pytest.mark.parametrize("case", list(GRIDS))
@pytest.mark.parametrize("name", WEIGHTED)
def test_weighted_baselines_on_larger_graphs(case, name):
    graph, source = GRIDS[case]
    expected = solve(graph, source)
    np.testing.assert_array_equal(run(name, graph, source).distances, expected)


@pytest.mark.parametrize("delta", [1, 7, 100, 5000, 10**9])
def test_delta_stepping_any_delta(delta):
    graph, source = GRIDS["islands"]
    result = run("delta_stepping", graph, source, delta=delta)
    np.testing.assert_array_equal(result.distances, solve(graph, source))
    c = result.counters
    assert c["delta"] == delta
    assert 1 <= c["buckets"] <= c["phases"]
    expected = solve(graph, source)
    if delta > expected[expected != INF].max():  # one bucket holds everything: Bellman-Ford-like
        assert c["buckets"] == 1


def test_delta_stepping_default_delta_is_the_mean_weight():
    graph, source = GRIDS["connected"]
    c = run("delta_stepping", graph, source).counters
    assert c["delta"] == max(1, round(float(graph.weights.mean())))
    empty = CSRGraph.from_arcs(3, [], [], [])
    assert run("delta_stepping", empty, 1).counters["delta"] == 1
    with pytest.raises(InputError, match="delta must be a positive"):
        get_solver("delta_stepping").prepare(graph, delta=-3)


@pytest.mark.parametrize("case", list(GRIDS))
def test_bfs_on_larger_graphs(case):
    graph, source = GRIDS[case]
    result = run("bfs", graph, source)
    expected = solve(unit_weights(graph), source)
    np.testing.assert_array_equal(result.distances, expected)
    reached = expected[expected != INF]
    assert result.counters["levels"] == reached.max() + 1


def test_counters_on_a_hand_made_graph(tiny_graph):
    # Arcs (0-based): 0->1:7 0->2:1 0->3:9 1->3:2 2->3:4 2->1:3 3->0:0; vertex 4 unreachable.
    bf = run("bellman_ford", tiny_graph, 0)
    assert bf.distances.tolist() == [0, 4, 1, 5, INF]
    assert bf.counters["arcs_relaxed"] == 7 * bf.counters["iterations"]  # 4 reachable vertices
    assert run("bfs", tiny_graph, 0).distances.tolist() == [0, 1, 1, 1, INF]
    assert run("scipy_dijkstra", tiny_graph, 3).distances.tolist() == [0, 4, 1, 0, INF]
    assert run("delta_stepping", tiny_graph, 3, delta=2).distances.tolist() == [0, 4, 1, 0, INF]


def test_scipy_keeps_zero_weights_and_the_lightest_parallel_arc():
    # 0->1 twice (5 and 2: scipy alone would sum them to 7), a zero-weight cycle 1->2->1, 2->2.
    graph = CSRGraph.from_arcs(4, [0, 0, 1, 2, 2, 2], [1, 1, 2, 1, 2, 3], [5, 2, 0, 0, 0, 4])
    assert run("scipy_dijkstra", graph, 0).distances.tolist() == [0, 2, 2, 6]
    assert run("scipy_dijkstra", graph, 2).distances.tolist() == [INF, 0, 0, 4]


def test_scipy_refuses_weights_past_float64_precision():
    big = np.iinfo(np.int32).max
    graph = CSRGraph.from_arcs(2, [0] * 4200000 + [1], [1] * 4200000 + [0], [big] * 4200001)
    with pytest.raises(InputError, match="2\\*\\*53"):
        get_solver("scipy_dijkstra").prepare(graph)


def test_prepared_baselines_are_reusable_across_sources():
    graph, _ = GRIDS["islands"]
    for name in WEIGHTED + ("bfs",):
        prepared = get_solver(name).prepare(graph)
        for source in (0, 899, 0):
            ref = unit_weights(graph) if name == "bfs" else graph
            np.testing.assert_array_equal(prepared.solve(source).distances, solve(ref, source))


def test_baselines_are_registered_as_cpu_reference_solvers():
    specs = {s.name: s for s in all_solvers()}
    for name in WEIGHTED + ("bfs",):
        assert (specs[name].device, specs[name].document) == ("cpu", "reference")
        assert "\t" not in specs[name].description
    assert "not weighted" in specs["bfs"].description.lower()
    assert specs["delta_stepping"].defaults == {"delta": 0}
    assert all_solvers()[0].document == "reference"


def test_bfs_passes_the_harness_check_against_unit_weight_dijkstra():
    # The harness's stored digests are of weighted distances; a hop-count solver must be
    # checked against Dijkstra on unit weights instead, and still fail on a wrong answer.
    from graphrepro import verify
    from graphrepro.errors import VerificationError
    from graphrepro.harness import RunSpec, draw_sources, measure

    graph = road_grid(8, 8, seed=4, name="bfs_grid")
    sources = [int(s) for s in draw_sources(graph, 2, seed=1)]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in sources]
    table = measure(graph, RunSpec("bfs", sources, digests, trials=1, warmup=0), log=lambda m: None)
    assert set(table["status"]) == {"ok"}
    hops = verify.reference_distances(graph, sources[0], "hops")
    wrong = hops.copy()
    wrong[np.flatnonzero((hops > 0) & (hops != INF))[0]] += 1
    with pytest.raises(VerificationError):
        verify.check(graph, sources[0], wrong, solver="bfs", metric="hops")


# --- parallel delta-stepping -----------------------------------------------------------------------

def test_atomic_min_returns_the_old_value_and_keeps_the_minimum():
    import numba

    from graphrepro.solvers.baselines import _atomic_min

    @numba.njit
    def apply(a, i, v):
        return _atomic_min(a, i, v)

    a = np.array([5, INF], dtype=np.int64)
    assert apply(a, 0, 7) == 5 and a[0] == 5
    assert apply(a, 0, 3) == 5 and a[0] == 3
    assert apply(a, 1, 0) == INF and a.tolist() == [3, 0]


@pytest.mark.parametrize("case", list(GRIDS))
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("delta", [1, 0, 5000])
def test_parallel_delta_stepping_with_every_round_parallel(case, threads, delta):
    # grain=1 sends every round through the parallel region (the default keeps thin rounds serial)
    import numba

    threads = min(threads, numba.config.NUMBA_NUM_THREADS)
    graph, source = GRIDS[case]
    result = run("delta_stepping_par", graph, source, delta=delta, threads=threads, grain=1)
    np.testing.assert_array_equal(result.distances, solve(graph, source))
    c = result.counters
    assert c["threads"] == threads
    assert 1 <= c["buckets"] <= c["phases"]
    assert 1 <= c["parallel_phases"] <= c["phases"]  # all but rounds whose frontier has no arcs
    assert c["pushes"] <= c["arcs_relaxed"]


def test_parallel_delta_stepping_keeps_thin_rounds_serial_and_checks_threads():
    graph, source = GRIDS["connected"]
    c = run("delta_stepping_par", graph, source, grain=10**9).counters
    assert c["parallel_phases"] == 0
    import numba

    with pytest.raises(InputError, match="threads must be"):
        get_solver("delta_stepping_par").prepare(graph, threads=numba.config.NUMBA_NUM_THREADS + 1)
    assert get_solver("delta_stepping_par").defaults == {"delta": 0, "threads": 0, "grain": 16384}
