"""CSRGraph construction, numbering, cache and statistics; the road_grid generator."""

import math

import numpy as np
import pytest

from graphrepro.errors import InputError
from graphrepro.graph.csr import INT32_MAX, CSRGraph, degree_stats, index_dtype
from graphrepro.graph.generate import random_digraph, road_grid


def arc_set(graph: CSRGraph) -> list[tuple[int, int, int]]:
    return sorted(zip(graph.arc_sources().tolist(), graph.indices.tolist(),
                      graph.weights.tolist()))


# --- from_arcs ---------------------------------------------------------------------------------

def test_from_arcs_builds_csr_keeping_arc_order_within_each_source(tiny_graph):
    assert tiny_graph.num_vertices == 5
    assert tiny_graph.num_arcs == 7
    assert tiny_graph.indptr.tolist() == [0, 3, 4, 6, 7, 7]
    # Within a source, arcs stay in input order (a stable sort): the GPU kernels' memory access
    # pattern, and so their timings, must not depend on an arbitrary reordering.
    assert tiny_graph.indices.tolist() == [1, 2, 3, 3, 3, 1, 0]
    assert tiny_graph.weights.tolist() == [7, 1, 9, 2, 4, 3, 0]


def test_from_arcs_uses_int32_where_it_fits(tiny_graph):
    assert tiny_graph.indptr.dtype == np.int32
    assert tiny_graph.indices.dtype == np.int32
    assert tiny_graph.weights.dtype == np.int32


def test_from_arcs_widens_weights_beyond_int32():
    g = CSRGraph.from_arcs(2, [0], [1], [INT32_MAX + 1])
    assert g.weights.dtype == np.int64
    assert g.weights[0] == INT32_MAX + 1


def test_index_dtype_switches_to_int64_past_int32():
    # Building a graph with 2**31 arcs is out of reach for a unit test; the rule itself is not.
    assert index_dtype(INT32_MAX) == np.int32
    assert index_dtype(INT32_MAX + 1) == np.int64


def test_from_arcs_accepts_no_arcs():
    g = CSRGraph.from_arcs(3, [], [], [])
    assert g.indptr.tolist() == [0, 0, 0, 0]
    assert g.num_arcs == 0
    assert degree_stats(g)["max_outdegree"] == 0


@pytest.mark.parametrize("src, dst, weights, message", [
    ([0, 1], [1], [1], "same length"),
    ([0], [3], [1], "outside"),
    ([-1], [0], [1], "outside"),
    ([3], [0], [1], "outside"),
    ([0], [-1], [1], "outside"),
    ([0], [1], [-1], "negative"),
])
def test_from_arcs_rejects_bad_arcs(src, dst, weights, message):
    with pytest.raises(ValueError, match=message):
        CSRGraph.from_arcs(3, src, dst, weights)


# --- derived views -----------------------------------------------------------------------------

def test_arc_sources_is_the_edge_list_view(tiny_graph):
    assert tiny_graph.arc_sources().tolist() == [0, 0, 0, 1, 2, 2, 3]
    assert tiny_graph.arc_sources().dtype == tiny_graph.indices.dtype


def test_reverse_is_the_transpose(tiny_graph):
    rev = tiny_graph.reverse()
    assert rev.num_vertices == tiny_graph.num_vertices
    expected = sorted((v, u, w) for u, v, w in arc_set(tiny_graph))
    assert arc_set(rev) == expected
    assert rev.base == tiny_graph.base
    assert rev is tiny_graph.reverse()  # built once: pull-style solvers ask for it per source


def test_reverse_keeps_labels():
    g = CSRGraph.from_arcs(2, [0], [1], [5], labels=[10, 20])
    assert g.reverse().label_of([0, 1]).tolist() == [10, 20]


# --- vertex numbering --------------------------------------------------------------------------

def test_label_of_and_to_internal_with_base(tiny_graph):
    assert tiny_graph.label_of([0, 4]).tolist() == [1, 5]
    assert tiny_graph.all_labels().tolist() == [1, 2, 3, 4, 5]
    assert tiny_graph.to_internal(1) == 0
    assert tiny_graph.to_internal(5) == 4


@pytest.mark.parametrize("label", [0, 6, -1])
def test_to_internal_out_of_range_names_the_valid_range(tiny_graph, label):
    with pytest.raises(InputError) as err:
        tiny_graph.to_internal(label)
    message = str(err.value)
    assert f"source {label}" in message
    assert "tiny" in message
    assert "1..5" in message


def test_label_of_and_to_internal_with_labels():
    # Non-contiguous ids as in a SNAP file: the user speaks in 7, 42, 1000, never in 0..2.
    g = CSRGraph.from_arcs(3, [0, 1], [1, 2], [1, 1], labels=[7, 42, 1000], name="snap")
    assert g.label_of([0, 1, 2]).tolist() == [7, 42, 1000]
    assert [g.to_internal(x) for x in (7, 42, 1000)] == [0, 1, 2]
    with pytest.raises(InputError, match=r"source 8 is not a vertex of snap"):
        g.to_internal(8)


def test_to_internal_with_unsorted_labels():
    g = CSRGraph.from_arcs(3, [0], [1], [1], labels=[30, 10, 20])
    assert [g.to_internal(x) for x in (30, 10, 20)] == [0, 1, 2]
    with pytest.raises(InputError):
        g.to_internal(15)


# --- cache -------------------------------------------------------------------------------------

@pytest.mark.parametrize("labels", [None, [7, 42, 1000, 5, 6]])
def test_save_load_round_trip(tmp_path, tiny_graph, labels):
    if labels is not None:
        tiny_graph.labels = np.asarray(labels, dtype=np.int64)
    path = tmp_path / "g.npz"
    tiny_graph.save(path)
    loaded = CSRGraph.load(path)
    for name in ("indptr", "indices", "weights"):
        original, back = getattr(tiny_graph, name), getattr(loaded, name)
        assert back.dtype == original.dtype
        np.testing.assert_array_equal(back, original)
    if labels is None:
        assert loaded.labels is None
    else:
        assert loaded.labels.tolist() == labels
    assert loaded.base == 1
    assert loaded.name == "tiny"
    assert not list(tmp_path.glob("*.part*"))  # written atomically, no leftovers


# --- statistics (safari2017 Table 1) -----------------------------------------------------------

def test_degree_stats_on_a_hand_made_graph(tiny_graph):
    # Out-degrees 3, 1, 2, 1, 0: mean 7/5; squared deviations sum to 5.2; sorted middle is 1.
    stats = degree_stats(tiny_graph)
    assert stats["vertices"] == 5
    assert stats["arcs"] == 7
    assert stats["max_outdegree"] == 3
    assert stats["mean_outdegree"] == pytest.approx(1.4)
    # Population standard deviation (numpy's default, ddof=0), over all vertices.
    assert stats["std_outdegree"] == pytest.approx(math.sqrt(5.2 / 5))
    assert stats["median_outdegree"] == 1.0
    assert stats["min_weight"] == 0
    assert stats["max_weight"] == 9


def test_degree_stats_matches_numpy_on_a_generated_graph():
    g = random_digraph(50, 200, seed=1)
    deg = np.bincount(g.arc_sources(), minlength=50)
    stats = degree_stats(g)
    assert stats["max_outdegree"] == deg.max()
    assert stats["std_outdegree"] == pytest.approx(deg.std())
    assert stats["median_outdegree"] == np.median(deg)
    assert stats["mean_outdegree"] == pytest.approx(200 / 50)


# --- generators --------------------------------------------------------------------------------

def test_road_grid_is_deterministic():
    a, b = road_grid(12, 9, seed=5), road_grid(12, 9, seed=5)
    for name in ("indptr", "indices", "weights"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    c = road_grid(12, 9, seed=6)
    assert arc_set(c) != arc_set(a)


def test_road_grid_is_symmetric_with_equal_weights():
    g = road_grid(15, 20, keep=0.7, seed=2)
    arcs = arc_set(g)
    assert arcs == sorted((v, u, w) for u, v, w in arcs)
    assert len(set((u, v) for u, v, _ in arcs)) == len(arcs)  # no parallel streets


def test_road_grid_looks_like_a_road_network():
    g = road_grid(30, 30, keep=0.6, seed=0, max_weight=50)
    assert g.num_vertices == 900
    assert g.base == 1
    assert g.out_degrees().max() <= 4
    assert g.weights.min() >= 1 and g.weights.max() <= 50
    src, dst = g.arc_sources(), g.indices
    assert np.all(src != dst)
    # Streets join lattice neighbours only: same row one column apart, or same column.
    rows_apart = np.abs(src // 30 - dst // 30)
    cols_apart = np.abs(src % 30 - dst % 30)
    assert np.all(rows_apart + cols_apart == 1)


def test_road_grid_with_every_street_is_the_full_lattice():
    g = road_grid(3, 4, keep=1.0)
    assert g.num_arcs == 2 * (3 * 3 + 2 * 4)


@pytest.mark.parametrize("kwargs", [dict(rows=0, cols=3), dict(rows=3, cols=3, keep=0.0),
                                    dict(rows=3, cols=3, keep=1.5)])
def test_road_grid_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        road_grid(**kwargs)
