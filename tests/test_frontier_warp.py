"""``frontier@warp=1`` (issue 34, round 3) in the CUDA simulator: a warp expands its lanes'
vertices together; exact on hubs, zero weights, unreachable vertices and weights near the int32
limit, in part warps and in several warps a block, and the counters add up."""

import numpy as np
import pytest
from gpu_cases import solve_checked, with_zero_weights_and_an_island
from test_frontier import grid, hub_graph, path

from graphrepro import verify
from graphrepro.errors import InputError
from graphrepro.graph.csr import CSRGraph
from graphrepro.graph.generate import random_digraph, road_grid
from graphrepro.solvers import INF, get_solver

# One part warp of 16 lanes keeps the simulator quick; MULTI runs two full warps a block.
SMALL = {"threads_per_block": 16, "chunk": 16, "warp": 1}
MULTI = {"threads_per_block": 64, "chunk": 0, "warp": 1}


def solve(graph, source, **params):
    return solve_checked(graph, "frontier", source, SMALL, **params)


def test_path_is_chased_by_the_warp():
    """One bucket: every vertex after the source is kept by the warp, none queued."""
    r = solve(path(60), 0, delta=10**6, chase=100)
    c = r.counters
    assert r.distances[-1] == 7 * 59
    assert c["vertices_popped"] == 1 and c["vertices_pushed"] == 0
    assert c["vertices_chased"] == 59 and c["arcs_relaxed"] == 59


def test_path_without_chasing_queues_every_vertex():
    r = solve(path(30), 0, chase=0)
    assert r.counters["vertices_chased"] == 0
    assert r.counters["vertices_popped"] == 30 and r.counters["vertices_pushed"] == 29


@pytest.mark.parametrize("params", [{}, {"chase": 0}, {"chase": 8, "reach": 3}, {"delta": 1},
                                    {"lookahead": 1, "chunk": 3}, {"stage": 0}, {"stage": 2},
                                    {"buckets": 2, "lookahead": 2, "delta": 3}])
def test_grid_every_parameter_path(params):
    g = grid(12)
    for source in (0, 77):
        solve(g, source, **params)


@pytest.mark.parametrize("params", [{}, {"chunk": 5}, {"chunk": 40, "chase": 4}])
def test_several_warps_a_block(params):
    """Claims spread over two warps (a claim smaller than the block lands on both)."""
    g = random_digraph(150, 700, max_weight=100, seed=4)
    for source in (0, 9):
        solve_checked(g, "frontier", source, MULTI, **params)


@pytest.mark.parametrize("params", [{"hub": 16}, {"hub": 16, "stage": 2}, {"hub": 1},
                                    {"hub": 0}, {"hub": 16, "chase": 6, "reach": 4}])
def test_hubs(params):
    g = hub_graph()
    for source in (0, 3):
        r = solve(g, source, **params)
        c = r.counters
        if params["hub"]:
            assert c["hub_expansions"] >= 1
        else:  # the warp walks a hub's arcs itself
            assert c["hub_expansions"] == 0 and c["arcs_relaxed"] >= 140


def test_zero_weights_and_unreachable_vertices():
    g = with_zero_weights_and_an_island(road_grid(10, 10, keep=0.7, max_weight=50, seed=4))
    r = solve(g, 0, chase=3)
    assert (r.distances[-3:] == INF).all()
    h = with_zero_weights_and_an_island(hub_graph(n=120, hubs=(1, 9)))
    r = solve(h, 1, hub=8, chase=4)
    assert (r.distances[-3:] == INF).all()
    z = grid(8)
    z = CSRGraph.from_arcs(z.num_vertices, z.arc_sources(), z.indices,
                           np.zeros(z.num_arcs, np.int64), name="zero grid")
    assert (solve(z, 5).distances == 0).all()


def test_weights_near_the_int32_limit():
    big = np.iinfo(np.int32).max - 3
    assert solve(path(30, weight=big), 0, chase=5).distances[-1] == 29 * big
    g = random_digraph(150, 600, max_weight=100, seed=8)
    heavy = CSRGraph.from_arcs(g.num_vertices, g.arc_sources(), g.indices,
                               big - g.weights.astype(np.int64), name="heavy random")
    solve(heavy, 0)
    solve(heavy, 3, chase=0, lookahead=1)
    h = hub_graph(n=100, hubs=(2,))
    heavy_hubs = CSRGraph.from_arcs(h.num_vertices, h.arc_sources(), h.indices,
                                    big - h.weights.astype(np.int64), name="heavy hubs")
    solve(heavy_hubs, 2, hub=8, chase=3)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_graphs(seed):
    solve(random_digraph(200, 900, max_weight=1000, seed=seed), seed)


def test_queues_are_left_empty_for_the_next_solve():
    g = random_digraph(120, 500, max_weight=30, seed=9)
    prepared = get_solver("frontier").prepare(g, **SMALL)
    for source in (0, 1, 0):
        verify.check(g, source, prepared.solve(source, count=source == 1).distances,
                     solver="frontier@warp=1")
    assert not prepared.queues.copy_to_host().any()


@pytest.mark.parametrize("bad", [{"warp": 2}, {"warp": -1}, {"warp": 1, "rounds": 2},
                                 {"warp": 1, "threads_per_block": 48, "chunk": 0}])
def test_bad_parameters(bad):
    with pytest.raises(InputError):
        get_solver("frontier").prepare(path(3), **{**SMALL, **bad})


def test_warp_is_todays_default():
    """Issue 34 round 3 (reports/evidence/frontier3): warp=1 with chase 4, faster than round 2's
    default (frontier@chase=2,warp=0) on all five graphs measured."""
    from graphrepro.solvers import resolve

    assert (resolve("frontier")[1]["warp"], resolve("frontier")[1]["chase"]) == (1, 4)
    assert resolve("frontier@chase=2,warp=0")[1]["warp"] == 0
