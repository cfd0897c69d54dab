"""No answer wraps: a graph whose shortest paths or spanning forest could pass int64 is refused,
in the parsers, in from_arcs and at solve time, and the sums that are made are exact."""

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrepro import verify
from graphrepro.errors import GraphFormatError, InputError
from graphrepro.graph.csr import INT64_MAX, CSRGraph, exact_sum, longest_path_bound, sums_problem
from graphrepro.graph.formats import read_graph
from graphrepro.solvers import get_solver

# weights the parsers accept (at most 18 digits) on small vertex counts
weights = st.lists(st.integers(0, 10**18 - 1), min_size=1, max_size=40)


@given(weights)
def test_exact_sum_is_the_python_sum(ws):
    assert exact_sum(np.array(ws, dtype=np.int64)) == sum(ws)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 30), weights)
def test_a_graph_is_refused_exactly_when_its_sums_could_wrap(n, ws):
    src = [i % n for i in range(len(ws))]
    dst = [(i + 1) % n for i in range(len(ws))]
    bound = min((n - 1) * max(ws), sum(ws))
    fits = bound + max(ws) < INT64_MAX
    assert (sums_problem(n, np.array(ws)) is None) == fits
    if fits:
        g = CSRGraph.from_arcs(n, src, dst, ws)
        d = verify.reference_distances(g, 0)
        assert (d >= 0).all()  # nothing wrapped negative
        # the distance along the cycle 0 -> 1 -> ... is an exact Python sum of its arcs
        assert longest_path_bound(n, g.weights) == bound
    else:
        with pytest.raises(InputError, match="does not fit the int64"):
            CSRGraph.from_arcs(n, src, dst, ws)


@settings(max_examples=50, deadline=None)
@given(st.integers(3, 20), st.integers(2**62 // 20, 10**18 - 1))
def test_the_parsers_refuse_heavy_paths_with_the_file_name(tmp_path_factory, n, w):
    """A chain of n-1 arcs of weight w: refused when (n-1) w + w could pass int64."""
    path = tmp_path_factory.mktemp("heavy") / "chain.gr.gz"
    arcs = "".join(f"a {i} {i + 1} {w}\n" for i in range(1, n))
    with gzip.open(path, "wt") as f:
        f.write(f"p sp {n} {n - 1}\n{arcs}")
    if (n - 1) * w + w < INT64_MAX:
        g = read_graph(path)
        assert int(verify.reference_distances(g, 0)[-1]) == (n - 1) * w
    else:
        with pytest.raises(GraphFormatError, match=r"chain\.gr\.gz: .*does not fit"):
            read_graph(path)


def test_a_graph_built_past_from_arcs_is_refused_at_solve_time():
    g = CSRGraph.from_arcs(3, [0, 1], [1, 2], [5, 5])
    g.weights = np.array([2**62, 2**62], dtype=np.int64)  # e.g. a cache written by other code
    with pytest.raises(InputError, match="does not fit"):
        get_solver("dijkstra").prepare(g)
    with pytest.raises(InputError, match="does not fit"):
        verify.reference_distances(g, 0)


@settings(max_examples=50, deadline=None)
@given(st.integers(3, 12), st.integers(1, 10**18 - 1))
def test_mst_totals_are_exact_or_refused(n, w):
    from graphrepro import mst

    u = np.arange(n - 1)
    if (n - 1) * w + w < INT64_MAX:
        edges = mst.from_arrays(n, u, u + 1, np.full(n - 1, w))
        result = mst.minimum_spanning_forest(edges)
        assert result.weight == (n - 1) * w == mst.reference_weight(edges)
    else:
        with pytest.raises(InputError, match="does not fit"):
            mst.from_arrays(n, u, u + 1, np.full(n - 1, w))


def test_reweight_refuses_a_range_whose_paths_could_wrap(tiny_graph):
    from graphrepro.graph.generate import reweight

    assert reweight(tiny_graph, 1, 10**17, 1).weights.max() <= 10**17
    with pytest.raises(InputError, match="lower `high`"):
        reweight(tiny_graph, 1, 4 * 10**18, 1)


def test_a_whole_cache_with_weights_too_heavy_is_an_input_error_not_damage(tmp_path):
    from graphrepro.harness.files import DamagedFile

    with open(tmp_path / "h.npz", "wb") as f:
        np.savez(f, indptr=np.array([0, 1, 2, 2]), indices=np.array([1, 2]),
                 weights=np.array([2**62, 2**62]), base=np.int64(0), name=np.str_("h"))
    with pytest.raises(InputError, match="does not fit") as e:
        CSRGraph.load(tmp_path / "h.npz")
    assert not isinstance(e.value, DamagedFile)
