"""The study's own GPU SSSP (``frontier``, issue 21) in the CUDA simulator: exact on graphs of
several shapes and on every parameter path, and its counters add up."""

import numpy as np
import pytest
from gpu_cases import solve_checked, with_zero_weights_and_an_island

from graphrepro import verify
from graphrepro.errors import InputError
from graphrepro.graph.csr import CSRGraph
from graphrepro.graph.generate import random_digraph, road_grid
from graphrepro.harness import RunSpec, draw_sources, measure
from graphrepro.solvers import INF, get_solver

# Small blocks keep the simulator quick. warp=0: the one-thread-a-vertex expansion these tests
# are about (the default's warp=1 is tests/test_frontier_warp.py's).
SMALL = {"threads_per_block": 16, "chunk": 16, "warp": 0}


def solve(graph, source, **params):
    return solve_checked(graph, "frontier", source, SMALL, **params)


def path(n, weight=7):
    return CSRGraph.from_arcs(n, np.arange(n - 1), np.arange(1, n), np.full(n - 1, weight),
                              name=f"path{n}")


def grid(side):
    """A 4-connected grid, both directions, seeded weights 1..20."""
    rng = np.random.default_rng(5)
    idx = np.arange(side * side).reshape(side, side)
    a = np.r_[idx[:, :-1].ravel(), idx[:-1, :].ravel()]
    b = np.r_[idx[:, 1:].ravel(), idx[1:, :].ravel()]
    w = rng.integers(1, 21, size=len(a))
    return CSRGraph.from_arcs(side * side, np.r_[a, b], np.r_[b, a], np.r_[w, w],
                              name=f"grid{side}")


def test_registered_beside_the_documents():
    spec = get_solver("frontier")
    assert spec.device == "gpu" and spec.document == "graphrepro"
    assert spec.static_counters["kernels_per_iteration"] == 0


def test_c_comes_from_the_graphs_own_degree_never_its_name():
    """Issue 54: the tuning set's road graphs (mean out-degree 2.4-2.8) take c=32; a graph past
    the degrees it covered keeps c=8; the name plays no part."""
    from graphrepro.solvers.frontier.frontier import default_c

    road = road_grid(20, 20, keep=1.0, seed=1, name="uniform_1m")  # a road-like degree, any name
    dense = random_digraph(400, 3200, max_weight=1000, seed=2, name="ny")
    assert default_c(road) == 32.0 and default_c(dense) == 8.0
    r = solve(road, 0)
    mean_w, degree = road.weights.mean(), road.num_arcs / road.num_vertices
    assert r.counters["delta"] == max(1, round(32.0 * mean_w / degree))
    with pytest.raises(InputError, match="c >= 0"):
        get_solver("frontier").prepare(road, **{**SMALL, "c": -1.0})


def test_single_vertex():
    g = CSRGraph.from_arcs(1, [], [], [], name="one")
    r = solve(g, 0)
    assert r.distances.tolist() == [0]
    assert r.counters["vertices_expanded"] == 1 and r.counters["arcs_relaxed"] == 0


def test_path_is_chased_not_queued():
    g = path(120)
    r = solve(g, 0, delta=1000, chase=8)  # 120 * 7 = 840 < Delta: one bucket
    assert r.distances[-1] == 7 * 119
    c = r.counters
    # one vertex popped per chase of at most 9 expansions; every arc relaxed once
    assert c["arcs_relaxed"] == 119 and c["improving_atomics"] == 119
    assert c["vertices_chased"] >= 8 * (c["vertices_popped"] - 1)
    assert c["redundant_relaxations"] == 0


def test_path_without_chasing_queues_every_vertex():
    r = solve(path(40), 0, chase=0)
    assert r.counters["vertices_chased"] == 0
    assert r.counters["vertices_popped"] == 40 and r.counters["vertices_pushed"] == 39


@pytest.mark.parametrize("params", [{}, {"lookahead": 1}, {"lookahead": 8, "buckets": 8},
                                    {"chase": 0, "chunk": 3}, {"delta": 1}, {"delta": 10**9},
                                    {"buckets": 2, "lookahead": 2, "delta": 3}])
def test_grid_every_parameter_path(params):
    g = grid(12)
    for source in (0, 77):
        solve(g, source, **params)


def test_zero_weights_and_unreachable_vertices():
    g = with_zero_weights_and_an_island(road_grid(10, 10, keep=0.7, max_weight=50, seed=4))
    r = solve(g, 0, chase=2)
    assert (r.distances[-3:] == INF).all()  # the island
    assert r.counters["vertices_expanded"] >= int(np.count_nonzero(r.distances != INF))


def test_all_zero_weights():
    g = grid(8)
    g = CSRGraph.from_arcs(g.num_vertices, g.arc_sources(), g.indices, np.zeros(g.num_arcs, np.int64),
                           name="zero grid")
    r = solve(g, 5)
    assert (r.distances == 0).all()


def test_weights_near_the_int32_limit():
    """Sums of int32 weights pass 2^31 after two arcs: distances must stay exact int64."""
    big = np.iinfo(np.int32).max - 3
    g = path(30, weight=big)
    r = solve(g, 0)
    assert r.distances[-1] == 29 * big
    g = random_digraph(150, 600, max_weight=100, seed=8)
    heavy = CSRGraph.from_arcs(g.num_vertices, g.arc_sources(), g.indices,
                               big - g.weights.astype(np.int64), name="heavy random")
    solve(heavy, 0)
    solve(heavy, 3, lookahead=1, chase=0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_graphs(seed):
    g = random_digraph(200, 900, max_weight=1000, seed=seed)
    solve(g, seed)


@pytest.mark.parametrize("stage", [0, 2])
def test_stage_overflow_pushes_directly(stage):
    """A stage of 2 cells makes most pushes take the direct path, none staged all of them."""
    g = grid(10)
    r = solve(g, 0, chase=0, stage=stage)
    assert r.counters["direct_pushes"] > 0
    if stage == 0:
        assert r.counters["direct_pushes"] == r.counters["vertices_pushed"]


def test_queues_are_left_empty_for_the_next_solve():
    g = random_digraph(120, 500, max_weight=30, seed=9)
    spec = get_solver("frontier")
    prepared = spec.prepare(g, **SMALL)
    for source in (0, 1, 2, 0):
        result = prepared.solve(source, count=source == 1)
        verify.check(g, source, result.distances, solver="frontier")
    assert not prepared.queues.copy_to_host().any()


def test_through_the_harness():
    g = road_grid(9, 9, keep=0.8, max_weight=100, seed=2)
    sources = [int(s) for s in draw_sources(g, 2, 7)]
    digests = [verify.digest(verify.reference_distances(g, s)) for s in sources]
    table = measure(g, RunSpec("frontier@threads_per_block=16,chunk=16", sources, digests,
                               trials=1, warmup=1), log=lambda m: None)
    assert (table["status"] == "ok").all()
    assert {"vertices_popped", "arcs_relaxed", "claims", "grid_syncs"} <= set(table.columns)


@pytest.mark.parametrize("bad", [{"buckets": 1}, {"lookahead": 0}, {"chunk": 17}, {"stage": -1},
                                 {"threads_per_block": 1024}, {"c": -1}, {"chase": -1},
                                 {"hub": -1}, {"reach": 0}, {"reach": 33}, {"rounds": 0}])
def test_bad_parameters(bad):
    with pytest.raises(InputError):
        get_solver("frontier").prepare(path(3), **{**SMALL, **bad})


def hub_graph(n=160, hubs=(0, 7, 50), seed=11):
    """A sparse random graph plus hubs with arcs to nearly every vertex (R-MAT's heavy tail in
    miniature), and arcs into the hubs, so chases and queue pops both reach them."""
    rng = np.random.default_rng(seed)
    g = random_digraph(n, 3 * n, max_weight=60, seed=seed)
    src, dst = [g.arc_sources()], [g.indices]
    w = [g.weights.astype(np.int64)]
    for h in hubs:
        targets = rng.choice(n, size=n - 20, replace=False)
        src += [np.full(len(targets), h), rng.integers(0, n, 10)]
        dst += [targets, np.full(10, h)]
        w += [rng.integers(1, 400, len(targets)), rng.integers(0, 5, 10)]
    return CSRGraph.from_arcs(n, np.concatenate(src), np.concatenate(dst), np.concatenate(w),
                              name="hubs")


@pytest.mark.parametrize("params", [{"hub": 16}, {"hub": 16, "stage": 2}, {"hub": 1},
                                    {"hub": 16, "reach": 3, "chase": 4}])
def test_hubs_are_shared_by_the_block(params):
    g = hub_graph()
    for source in (0, 3):
        r = solve(g, source, spread=0, **params)  # spread hands a hub's later pieces to others
        c = r.counters
        assert c["hub_expansions"] >= 1 and c["hub_arcs"] >= 140
        # every arc of a hub expanded is relaxed once per expansion, by some thread of the block
        assert c["arcs_relaxed"] >= c["hub_arcs"]


def test_hub_off_is_the_issue_21_design():
    r = solve(hub_graph(), 0, hub=0)
    assert r.counters["hub_expansions"] == 0 and r.counters["hub_arcs"] == 0


@pytest.mark.parametrize("reach", [2, 8])
def test_chase_past_the_bucket(reach):
    g = grid(12)
    for source in (0, 77):
        solve(g, source, reach=reach, delta=5)


def test_hubs_with_zero_weights_islands_and_heavy_weights():
    g = with_zero_weights_and_an_island(hub_graph(n=120, hubs=(1, 9)))
    r = solve(g, 1, hub=8, reach=2)
    assert (r.distances[-3:] == INF).all()
    big = np.iinfo(np.int32).max - 3
    h = hub_graph(n=100, hubs=(2,))
    heavy = CSRGraph.from_arcs(h.num_vertices, h.arc_sources(), h.indices,
                               big - h.weights.astype(np.int64), name="heavy hubs")
    solve(heavy, 2, hub=8)
    solve(heavy, 5, hub=8, reach=4, chase=0)


@pytest.mark.parametrize("params", [{"rounds": 4}, {"rounds": 16, "chase": 0},
                                    {"rounds": 8, "chase": 2, "hub": 8, "reach": 2},
                                    {"rounds": 3, "chase": 0, "stage": 2, "chunk": 3}])
def test_rounds_hand_over_in_shared_memory(params):
    g = grid(12)
    for source in (0, 77):
        r = solve(g, source, delta=60, **params)
        assert r.counters["vertices_local"] > 0 and r.counters["local_rounds"] > 0
    solve(hub_graph(), 3, **params)


def test_rounds_on_a_path_replace_the_queue():
    """chase=0 and enough rounds: a one-bucket path is expanded in one batch, round by round."""
    r = solve(path(40), 0, chase=0, rounds=64, delta=10**6)
    c = r.counters
    assert c["vertices_popped"] == 1 and c["vertices_local"] == 39 and c["local_rounds"] == 39
    assert c["vertices_pushed"] == 0


def test_rounds_with_zero_weights_islands_and_heavy_weights():
    g = with_zero_weights_and_an_island(road_grid(10, 10, keep=0.7, max_weight=50, seed=4))
    r = solve(g, 0, chase=1, rounds=8)
    assert (r.distances[-3:] == INF).all()
    big = np.iinfo(np.int32).max - 3
    r = solve(path(30, weight=big), 0, chase=0, rounds=5)
    assert r.distances[-1] == 29 * big


def test_earlier_designs_keep_a_run_id_and_chunk_0_is_one_vertex_a_thread():
    """The default moved to issue 34's round 3 (a warp expands its lanes' vertices, chase 4, hubs
    shared, 256 threads); round 2's and issue 21's designs are each still one run id away, and
    chunk=0 claims one vertex per thread at any block size."""
    from graphrepro.solvers import resolve

    _, old = resolve("frontier@chase=8,chunk=128,hub=0,threads_per_block=128,warp=0")
    assert (old["hub"], old["rounds"], old["reach"], old["stage"], old["warp"]) == (0, 1, 1, 1024, 0)
    _, round2 = resolve("frontier@chase=2,warp=0")
    assert (round2["hub"], round2["chunk"], round2["threads_per_block"]) == (32, 0, 256)
    _, new = resolve("frontier")
    assert (new["hub"], new["chase"], new["chunk"], new["threads_per_block"], new["warp"]) == (
        32, 4, 0, 256, 1)
    r = solve_checked(grid(6), "frontier@chase=8,chunk=16,hub=0,threads_per_block=16,warp=0", 0)
    assert r.counters["hub_expansions"] == 0
    prepared = get_solver("frontier").prepare(path(3), threads_per_block=16, chunk=0)
    assert prepared.chunk == 16


def test_shared_array_sizes_are_constants():
    """The simulator takes any size expression; the CUDA compiler wants a constant (a global or a
    literal), and an H100 call once stopped on `2 * MAX_THREADS`."""
    import ast
    import inspect

    from graphrepro.solvers.frontier import kernel as module

    sizes = [call.args[0] for call in ast.walk(ast.parse(inspect.getsource(module)))
             if isinstance(call, ast.Call) and ast.unparse(call.func) == "cuda.shared.array"]
    assert len(sizes) >= 10
    assert all(isinstance(size, (ast.Constant, ast.Name)) for size in sizes), \
        [ast.unparse(s) for s in sizes]
