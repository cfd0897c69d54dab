"""Issue 54 item 4's designs of ``frontier`` in the CUDA simulator, each off by default:
``warp_push`` (a warp's pushes past the stage share one reservation), ``spread`` (a hub's arcs
split into pieces other blocks take) and ``order`` (a locality-preserving vertex order, undone on
the distances). Each is exact against the CPU Dijkstra on graphs with zero weights, parallel
arcs, unreachable vertices and a star hub, and its counters show it acted."""

import numpy as np
import pytest
from gpu_cases import solve_checked, with_zero_weights_and_an_island
from test_frontier import grid, hub_graph

from graphrepro.errors import InputError
from graphrepro.graph.csr import CSRGraph
from graphrepro.graph.generate import random_digraph
from graphrepro.solvers import INF, get_solver, resolve

# One part warp of 16 lanes keeps the simulator quick; TWO_WARPS runs full 32-lane masks.
SMALL = {"threads_per_block": 16, "chunk": 16, "warp": 1}
TWO_WARPS = {"threads_per_block": 64, "chunk": 0, "warp": 1}


def awkward(n=150, seed=3):
    """A random graph with a star hub (vertex 1, an arc to every other vertex), parallel arcs
    (every fifth arc again, heavier and lighter), zero weights and an unreachable island."""
    g = random_digraph(n, 3 * n, max_weight=50, seed=seed)
    src, dst, w = g.arc_sources(), g.indices, g.weights.astype(np.int64)
    leaves = np.setdiff1d(np.arange(n), [1])
    twice = np.arange(0, len(src), 5)
    src = np.r_[src, src[twice], src[twice], np.full(len(leaves), 1), [0]]
    dst = np.r_[dst, dst[twice], dst[twice], leaves, [1]]
    w = np.r_[w, w[twice] + 7, np.maximum(w[twice] - 3, 0), np.arange(len(leaves)) % 90, [2]]
    star = CSRGraph.from_arcs(n, src, dst, w, name="awkward")
    return with_zero_weights_and_an_island(star)


def solve(graph, source, defaults=SMALL, **params):
    return solve_checked(graph, "frontier", source, defaults, **params)


def test_the_designs_that_helped_on_the_held_out_graphs_are_on_past_the_road_degrees():
    """warp_push and spread come from the graph's mean out-degree, never its name; order is
    asked for."""
    params = resolve("frontier")[1]
    assert (params["warp_push"], params["spread"], params["order"]) == (-1, -1, 0)
    road, web = grid(6), random_digraph(60, 360, max_weight=9, seed=2)  # degrees 3.3 and 6
    for g, on in ((road, 0), (web, 1)):
        prepared = get_solver("frontier").prepare(g, **SMALL)
        assert (prepared.warp_push, prepared.piece > 0) == (on, bool(on))
    assert resolve("frontier@warp_push=1,spread=1,order=1")[1]["spread"] == 1


@pytest.mark.slow  # 15-30 s under the simulator: the slow lane, beside the main one
@pytest.mark.parametrize("params", [{"stage": 0}, {"stage": 3, "hub": 8}])
def test_warp_push_is_exact(params):
    r = solve(awkward(), 0, warp_push=1, **params)
    assert (r.distances[-3:] == INF).all()


@pytest.mark.slow  # 15-30 s under the simulator: the slow lane, beside the main one
def test_warp_push_pays_one_reservation_per_warp_and_slot():
    """stage=0: every push goes past the stage; the star hub's 149 leaves, improved by the lanes
    of one warp together, take far fewer reservations than pushes."""
    g = awkward()
    r = solve(g, 1, TWO_WARPS, warp_push=1, stage=0, hub=0).counters
    assert r["direct_pushes"] == r["vertices_pushed"] > 0
    assert 1 <= r["warp_flushes"] <= r["warp_reservations"] < r["direct_pushes"] / 4
    off = solve(g, 1, TWO_WARPS, warp_push=0, stage=0, hub=0).counters
    assert off["warp_flushes"] == off["warp_reservations"] == 0


@pytest.mark.slow  # 15-30 s under the simulator: the slow lane, beside the main one
def test_warp_push_with_full_warps_and_the_block_hub_phase():
    r = solve(hub_graph(), 3, TWO_WARPS, warp_push=1, stage=2, hub=16)
    assert r.counters["hub_expansions"] >= 1 and r.counters["warp_flushes"] >= 1


def test_warp_push_acts_on_the_warp_expansion_only():
    """On by default, it has nothing to act on in the designs without a warp's expansion."""
    assert get_solver("frontier").prepare(grid(3), **{**SMALL, "warp": 0}).warp_push == 0
    with pytest.raises(InputError, match="warp_push"):
        get_solver("frontier").prepare(grid(3), **{**SMALL, "warp_push": 2})


def test_spread_piece_comes_from_the_graphs_own_degree():
    """A piece is an average batch's arcs (chunk x mean out-degree), never below hub."""
    from graphrepro.solvers.frontier.defaults import spread_piece

    g = random_digraph(200, 1166, max_weight=9, seed=1, name="web_google_w1000")  # degree 5.83
    assert spread_piece(g, 256, 32) == 1493
    assert spread_piece(g, 2, 32) == 32
    # no vertex past the piece: the kernel does not poll an empty pool
    prepared = get_solver("frontier").prepare(grid(4), **{**SMALL, "spread": 1, "hub": 2})
    assert prepared.piece == 48 and prepared.kernel_piece == 0


@pytest.mark.slow  # 15-30 s under the simulator: the slow lane, beside the main one
@pytest.mark.parametrize("params", [{"spread": 40, "hub": 8, "stage": 2},
                                    {"spread": 48, "hub": 8, "warp": 0}])
def test_spread_is_exact_and_publishes_pieces(params):
    """The simulator runs one block: it takes its own pieces back from the pool, which still
    walks every publish and take."""
    g = hub_graph()
    r = solve(g, 0, **params).counters
    assert r["spread_hubs"] >= 1 and r["pieces_published"] == r["pieces_taken"] >= 1
    assert r["spread_piece"] == params["spread"]


def test_spread_on_the_star_with_zero_weights_and_an_island():
    g = awkward()
    r = solve(g, 0, spread=1, hub=8, warp_push=1)
    assert (r.distances[-3:] == INF).all()
    c = r.counters
    from graphrepro.solvers.frontier.defaults import spread_piece

    piece = spread_piece(g, SMALL["chunk"], 8)
    assert c["spread_piece"] == piece and c["pieces_published"] == c["pieces_taken"] >= 150 // piece


def test_order_renumbers_for_locality_and_maps_the_distances_back():
    """A grid numbered at random has arcs spanning the whole numbering; reverse Cuthill-McKee
    brings every arc within a few rows of the grid."""
    from graphrepro.solvers.frontier.layout import Renumbering, renumbering

    g = grid(12)
    shuffle = np.random.default_rng(1).permutation(g.num_vertices)
    shuffled = CSRGraph.from_arcs(g.num_vertices, shuffle[g.arc_sources()], shuffle[g.indices],
                                  g.weights, name="shuffled grid")
    r = Renumbering(shuffled)
    span = np.abs(r.new_of_old[shuffled.arc_sources()] - r.new_of_old[shuffled.indices]).max()
    assert span <= 2 * 12 < np.abs(shuffled.arc_sources() - shuffled.indices).max()
    assert (r.distances(np.arange(g.num_vertices)) == r.new_of_old).all()
    assert renumbering(shuffled) is renumbering(shuffled) is not renumbering(g)


def test_order_is_exact():
    r = solve(awkward(), 5, order=1)
    assert r.counters["renumbered"] == 1 and (r.distances[-3:] == INF).all()


@pytest.mark.slow  # 15-30 s under the simulator: the slow lane, beside the main one
def test_every_design_together():
    g = awkward()
    solve(g, 1, TWO_WARPS, warp_push=1, spread=12, hub=8, order=1, stage=4)


@pytest.mark.parametrize("bad", [{"spread": -2}, {"order": 2}])
def test_bad_design_parameters(bad):
    with pytest.raises(InputError, match="spread"):
        get_solver("frontier").prepare(grid(3), **{**SMALL, **bad})
