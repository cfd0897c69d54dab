"""Minimum spanning forests: every solver is a spanning forest of the reference's weight, on
hand-made graphs, random ones (cross-checked with networkx) and road grids; the check catches
each kind of wrong answer; the `mst` command keeps its contract."""

import json
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from machine import boost_missing
from strategies import graphs_and_sources

from graphrepro import mst
from graphrepro.errors import GraphreproError, InputError, VerificationError
from graphrepro.graph import write_dimacs
from graphrepro.graph.generate import road_grid

SOLVERS = ("kruskal", "prim", "scipy_mst", "bgl_kruskal", "bgl_prim")
NUMBA = ("kruskal", "prim", "scipy_mst")


def networkx_weight(edges: mst.EdgeList) -> int:
    g = nx.Graph()
    g.add_nodes_from(range(edges.num_vertices))
    g.add_weighted_edges_from(zip(edges.u.tolist(), edges.v.tolist(), edges.w.tolist()))
    return int(sum(d["weight"] for _, _, d in nx.minimum_spanning_edges(g, data=True)))


def solve_checked(name, edges):
    result = mst.get_mst_solver(name).prepare(edges).solve()
    mst.check(edges, result, solver=name)
    assert result.solve_ms >= 0
    return result


def test_edge_list_is_undirected_lightest_and_loop_free():
    # arcs 0->1:5, 1->0:2 (the same pair, lighter), 2->2:1 (a loop), 3->1:4
    edges = mst.from_arrays(4, [0, 1, 2, 3], [1, 0, 2, 1], [5, 2, 1, 4])
    assert list(zip(edges.u.tolist(), edges.v.tolist(), edges.w.tolist())) == [(0, 1, 2), (1, 3, 4)]
    assert edges.components() == 2  # {0, 1, 3} and {2}


@pytest.mark.parametrize("name", SOLVERS)
def test_hand_made_forest(name):
    # two components: a square with a diagonal (0-1-2-3, 0-2), and 4-5; vertex 6 alone
    u = [0, 1, 2, 3, 0, 4]
    v = [1, 2, 3, 0, 2, 5]
    w = [1, 4, 2, 7, 3, 0]
    edges = mst.from_arrays(7, u, v, w)
    result = solve_checked(name, edges)
    assert result.weight == 1 + 3 + 2 + 0
    assert sorted(zip(np.minimum(result.u, result.v).tolist(),
                      np.maximum(result.u, result.v).tolist())) == [(0, 1), (0, 2), (2, 3), (4, 5)]


@pytest.mark.parametrize("name", SOLVERS)
def test_no_edges_and_one_vertex(name):
    for n in (1, 3):
        edges = mst.from_arrays(n, [], [], [])
        assert len(solve_checked(name, edges).u) == 0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(graphs_and_sources(), st.sampled_from(NUMBA))
def test_random_graphs_match_networkx(case, name):
    graph, _ = case
    edges = mst.from_graph(graph)
    assert solve_checked(name, edges).weight == networkx_weight(edges)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(graphs_and_sources(), st.sampled_from(("bgl_kruskal", "bgl_prim")))
def test_random_graphs_bgl(case, name):
    graph, _ = case
    edges = mst.from_graph(graph)
    assert solve_checked(name, edges).weight == networkx_weight(edges)


@pytest.mark.parametrize("name", SOLVERS)
def test_road_grids(name):
    for keep, seed in ((0.55, 4), (0.95, 1)):
        edges = mst.from_graph(road_grid(40, 40, keep=keep, seed=seed, max_weight=30))
        result = solve_checked(name, edges)  # many ties: max_weight 30 over ~3000 edges
        assert len(result.u) == edges.num_vertices - edges.components()


def test_prim_counts_one_tree_per_component():
    edges = mst.from_graph(road_grid(30, 30, keep=0.5, seed=2))
    assert solve_checked("prim", edges).counters["trees"] == edges.components()


def test_check_catches_each_kind_of_wrong_forest():
    edges = mst.from_arrays(4, [0, 1, 2, 0], [1, 2, 3, 3], [1, 1, 1, 5])
    good = mst.MSTResult(np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([1, 1, 1]), 0.0)
    mst.check(edges, good, solver="x")
    cases = {
        "not in the graph": ([0, 1, 0], [1, 2, 2], [1, 1, 1]),
        "lightest weight": ([0, 1, 2], [1, 2, 3], [1, 1, 2]),
        "closes a cycle": ([0, 1, 1], [1, 2, 0], [1, 1, 1]),
        "spanning forest": ([0, 1], [1, 2], [1, 1]),
        "the minimum is 3": ([0, 1, 0], [1, 2, 3], [1, 1, 5]),
    }
    for message, (u, v, w) in cases.items():
        with pytest.raises(VerificationError, match=message):
            mst.check(edges, mst.MSTResult(np.array(u), np.array(v), np.array(w), 0.0), solver="x")


def test_registry_lists_and_refuses():
    names = [s.name for s in mst.all_mst_solvers()]
    assert names[0] == "kruskal" and set(SOLVERS) <= set(names)
    # the rest work on DEM grids only (gerritsen2012), tested in test_gerritsen2012_mst*.py
    assert all(n.startswith("gerritsen_") for n in set(names) - set(SOLVERS))
    with pytest.raises(InputError, match="unknown MST solver"):
        mst.get_mst_solver("boruvka_typo")


def test_mst_command_contract(tmp_path):
    graph = road_grid(12, 12, keep=0.7, seed=3)  # written as DIMACS: vertices numbered from 1
    path = tmp_path / "g.gr"
    write_dimacs(graph, path)
    edges = mst.from_graph(graph)
    want = mst.reference_weight(edges)
    for name in ("prim", "bgl_kruskal"):
        if name.startswith("bgl") and boost_missing():
            continue  # the BGL half needs Boost headers (prim's half still runs)
        out = tmp_path / f"{name}.txt"
        done = subprocess.run([sys.executable, "-m", "graphrepro", "mst", str(path), "--solver", name,
                               "--output", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        lines = out.read_text().splitlines()
        assert done.stdout.splitlines()[-1] == f"weight {want} edges {len(lines)}"
        rows = np.array([list(map(int, line.split())) for line in lines]).reshape(-1, 3)
        assert rows[:, :2].min() >= 1 and rows[:, :2].max() <= graph.num_vertices
        assert rows[:, 2].sum() == want
        mst.check(edges, mst.MSTResult(rows[:, 0] - 1, rows[:, 1] - 1, rows[:, 2], 0.0), solver=name)
    done = subprocess.run([sys.executable, "-m", "graphrepro", "solvers", "--problem", "mst",
                           "--format", "json"], capture_output=True, text=True)
    listed = json.loads(done.stdout)
    assert listed[0]["name"] == "kruskal"
    assert all({"name", "device", "document", "description"} <= set(row) for row in listed)
    done = subprocess.run([sys.executable, "-m", "graphrepro", "mst", str(path), "--solver", "nope",
                           "--output", str(tmp_path / "x.txt")], capture_output=True, text=True)
    assert done.returncode == 2 and "unknown MST solver" in done.stderr


def test_bgl_answers_many_graphs_from_one_process_and_recovers_from_a_failure():
    """One `bgl_mst --serve` process per Python process: thousands of per-block calls must not
    each pay a process start; a request it cannot answer fails with its message, and the next
    call gets a fresh server."""
    from graphrepro.mst.algorithms import _BGL

    for seed in (1, 2, 3):
        edges = mst.from_graph(road_grid(6, 7, keep=0.8, seed=seed))
        solve_checked("bgl_kruskal", edges)
        solve_checked("bgl_prim", edges)
        if seed == 1:
            server = _BGL._server
    assert _BGL._server is server and server.alive()
    broken = _BGL(mst.from_graph(road_grid(4, 4, seed=1)), "kruskal")
    broken.path.write_bytes(b"GREDG01\0" + b"\x01")  # truncated header
    with pytest.raises(GraphreproError, match="bgl_mst kruskal failed: .*truncated"):
        broken.solve()
    assert _BGL._server is None
    solve_checked("bgl_kruskal", mst.from_graph(road_grid(5, 5, seed=4)))
    assert _BGL._server.alive() and _BGL._server is not server
