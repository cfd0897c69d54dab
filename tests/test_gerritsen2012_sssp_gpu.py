"""gerritsen2012 chapter 5 on the GPU (CUDA simulator): both phase-1 algorithms, the whole-grid
SSSP and phase 2, each against scipy's Dijkstra on the same grid."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from graphrepro.errors import InputError
from graphrepro.gpu import simulated
from graphrepro.graph.generate import random_digraph
from graphrepro.solvers import INF, get_solver
from graphrepro.solvers.gerritsen2012 import PHASE1, step
from graphrepro.solvers.gerritsen2012.grid_sssp_gpu import grid_sssp_gpu, phase2_gpu
from graphrepro.solvers.gerritsen2012.sssp_gpu import (alg1_launch_arithmetic, alg2_memory_bound,
                                                       gpu_alg1, gpu_alg2, thesis_bytes_per_block)
from graphrepro.solvers.gerritsen2012.types import boundary_cells
from graphrepro.terrain import grid_graph


def scipy_distances(values2d, sources):
    """Dijkstra (scipy) on the 8-neighbour |difference| grid; explicit zeros are edges there."""
    g = grid_graph(np.asarray(values2d))
    n = g.num_vertices
    matrix = csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr), shape=(n, n))
    d = dijkstra(matrix, indices=sources)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def phase1_oracle(values):
    """Dijkstra from each boundary cell of each block, inside the block only."""
    values = np.asarray(values)
    cells = boundary_cells(values.shape[1])
    return np.stack([scipy_distances(block, cells)[:, cells] for block in values])


def blocks(seed, count, m, high=6):
    return np.random.default_rng(seed).integers(0, high, size=(count, m, m))


# --- GPU algorithm 1 ----------------------------------------------------------------------------

@pytest.mark.parametrize("c,variant", [(2, "2d"), (2, "3d"), (2, "zorder"), (4, "2d")])
def test_alg1_equals_dijkstra_per_boundary_vertex(c, variant):
    values = blocks(c, 1, 4)
    result = gpu_alg1(values, c=c, variant=variant)
    np.testing.assert_array_equal(result.dist, phase1_oracle(values))


def test_alg1_counts_its_launches_as_the_thesis_counts_them():
    values = blocks(2, 2, 4, high=3)
    m, c, k = 4, 2, 12
    counters = gpu_alg1(values, c=c).counters
    thesis = alg1_launch_arithmetic(m, c)
    # part 2: the thesis's 2 + ceil(log2 leaves) per step, plus a reset and a seed per source
    assert counters["part2_launches"] == 2 * (thesis["launches_per_block"] + 2 * k)
    assert counters["tree_steps"] == 2 * k * thesis["leaves"]
    # part 1: an initialisation per GPU-block, two launches per Harish round
    assert counters["part1_launches"] == 2 * 4 + 2 * counters["rounds"]
    # one flag read per round, one root read per step and one more per source (the empty tree)
    assert counters["host_round_trips"] == counters["rounds"] + counters["tree_steps"] + 2 * k
    assert counters["kernel_launches"] == counters["part1_launches"] + counters["part2_launches"]
    # the thesis's example: M = 64, C = 16 -> 960 leaves, 12 launches each, ~3 million per block
    big = alg1_launch_arithmetic(64, 16)
    assert (big["leaves"], big["launches_per_step"], big["launches_per_block"]) == \
        (960, 12, 960 * 12 * 252)


def test_alg1_reports_its_progress_part_by_part():
    values = blocks(5, 2, 4)
    seen = []
    gpu_alg1(values, c=2, progress=lambda part, done, total: seen.append((part, done, total)))
    # per I/O-block: each of its 4 GPU-blocks (part 1), then each of its 12 boundary vertices
    one = [("part1", i, 4) for i in range(1, 5)] + [("part2", i, 12) for i in range(1, 13)]
    assert seen == one + one


def test_alg1_zero_weights_and_limit_blocks():
    values = np.zeros((3, 4, 4), dtype=np.int64)
    values[1, 1:3, 1:3] = 7  # a plateau: zero-weight paths around a raised middle
    result = gpu_alg1(values, c=2, variant="zorder", limit_blocks=2)
    assert result.dist.shape == (2, 12, 12)
    assert (result.counters["blocks_done"], result.counters["blocks_total"]) == (2, 3)
    np.testing.assert_array_equal(result.dist, phase1_oracle(values[:2]))
    assert not result.dist[0].any()


@pytest.mark.parametrize("bad,match", [
    ({"c": 3}, "power of two"), ({"c": 8}, "power of two"), ({"variant": "4d"}, "variant"),
    ({"limit_blocks": -1}, "limit_blocks")])
def test_alg1_refuses_bad_parameters(bad, match):
    with pytest.raises(InputError, match=match):
        gpu_alg1(blocks(0, 1, 4), **{"c": 2, **bad})


# --- GPU algorithm 2 ----------------------------------------------------------------------------

@pytest.mark.parametrize("m,high,threads", [(2, 6, 0), (5, 6, 0), (8, 20, 1), (6, 1 << 30, 0)])
def test_alg2_equals_dijkstra_per_boundary_vertex(m, high, threads):
    values = blocks(m, 3, m, high)
    result = gpu_alg2(values, threads=threads)
    np.testing.assert_array_equal(result.dist, phase1_oracle(values))
    assert result.counters["node_bits"] == (64 if high > 1000 else 32)
    assert result.counters["kernel_launches"] == (3 if threads == 1 else 1)


def test_alg2_zero_weights():
    values = np.full((2, 6, 6), 4, dtype=np.int64)
    values[1, 2, :5] = 9  # a wall with a gap: zero-weight detour
    result = gpu_alg2(values)
    np.testing.assert_array_equal(result.dist, phase1_oracle(values))
    assert not result.dist[0].any()


def test_steps_are_registered_for_the_framework():
    assert step(PHASE1, "gpu_alg1") is gpu_alg1
    assert step(PHASE1, "gpu_alg2") is gpu_alg2


def test_alg2_memory_bound_follows_the_thesis_derivation():
    assert thesis_bytes_per_block(32) == 32 * 32 * 9 + (2 * 32 * 32 - 1) * 9
    bound = alg2_memory_bound(32, free_bytes=200 * 2**20)
    threads = bound["thesis_threads"]
    assert threads ** 2 * thesis_bytes_per_block(32) <= 200 * 2**20 \
        < (threads + 1) ** 2 * thesis_bytes_per_block(32)
    assert bound["thesis_blocksize_x_threads"] == 32 * threads
    assert bound["ours_threads"] <= threads  # a tree per source costs more than one per block
    if simulated():
        with pytest.raises(InputError, match="needs a GPU"):
            alg2_memory_bound(32)
    else:  # on a real GPU (NUMBA_ENABLE_CUDASIM=0): its free memory
        assert alg2_memory_bound(32)["memory_bytes"] > 0


def test_phase1_refuses_bad_blocks():
    with pytest.raises(InputError, match="shared memory"):
        gpu_alg2(np.zeros((1, 65, 65), dtype=np.int64))
    with pytest.raises(InputError, match="integers"):
        gpu_alg2(np.zeros((1, 4, 4)))
    with pytest.raises(InputError, match="0..2"):
        gpu_alg1(-np.ones((1, 4, 4), dtype=np.int64), c=2)
    with pytest.raises(InputError, match="shape"):
        gpu_alg2(np.zeros((4, 4), dtype=np.int64))


# --- the whole grid -----------------------------------------------------------------------------

@pytest.mark.parametrize("rows,cols,tile,delta", [(13, 11, 4, -1), (9, 16, 8, 3), (7, 7, 2, 0)])
def test_grid_sssp_equals_dijkstra_from_corner_edge_and_interior(rows, cols, tile, delta):
    values = np.random.default_rng(rows).integers(0, 6, size=(rows, cols))
    sources = [cols // 2, (rows // 2) * cols + cols // 2, rows * cols - 1]  # edge, inside, corner
    expected = scipy_distances(values, sources)
    for source, want in zip(sources, expected):
        dist, timings, counters = grid_sssp_gpu(values, source, tile=tile, delta=delta)
        np.testing.assert_array_equal(dist, want)
        assert counters["kernel_launches"] == 1 and counters["host_round_trips"] == 0
        assert counters["tiles_processed"] >= -(-rows // tile) * -(-cols // tile)


def test_grid_sssp_zero_weights():
    values = np.full((8, 9), 3, dtype=np.int64)
    values[4, 1:] = 50
    dist, _, _ = grid_sssp_gpu(values, 0, tile=4)
    np.testing.assert_array_equal(dist, scipy_distances(values, [0])[0])
    assert not dist[:4 * 9].any()


def test_grid_solver_needs_a_terrain_grid():
    values = np.random.default_rng(5).integers(0, 9, size=(6, 7))
    graph = grid_graph(values)
    spec = get_solver("gerritsen_grid_sssp")
    assert (spec.device, spec.document) == ("gpu", "gerritsen2012")
    with pytest.raises(InputError, match="needs a terrain grid") as error:
        spec.prepare(graph)
    assert "\n" not in str(error.value)
    graph.terrain = values.astype(np.int64)
    result = spec.prepare(graph, tile=4).solve(8)
    np.testing.assert_array_equal(result.distances, scipy_distances(values, [8])[0])
    with pytest.raises(InputError, match="out of range"):
        spec.prepare(graph, tile=4).solve(42)
    with pytest.raises(InputError, match="tile"):
        spec.prepare(graph, tile=1)


# --- phase 2 ------------------------------------------------------------------------------------

def test_phase2_gpu_equals_dijkstra_from_seeded_sources():
    g = random_digraph(30, 100, max_weight=20, seed=4)
    n = g.num_vertices
    sources = np.array([3, 17, 25])
    init = np.array([5, 0, 12])
    matrix = csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr), shape=(n, n))
    nearest = (dijkstra(matrix, indices=sources) + init[:, None]).min(axis=0)
    want = np.full(n, INF, dtype=np.int64)
    want[np.isfinite(nearest)] = nearest[np.isfinite(nearest)]
    assert (want == INF).any()  # the case of an unreachable vertex is covered
    got = phase2_gpu(g.indptr, g.indices, g.weights, sources, init, delta=10,
                     threads_per_block=16)
    np.testing.assert_array_equal(got, want)
    full = np.full(n, INF, dtype=np.int64)
    full[sources] = init
    np.testing.assert_array_equal(  # a per-vertex init array, and int64 indices and weights
        phase2_gpu(g.indptr.astype(np.int64), g.indices.astype(np.int64),
                   g.weights.astype(np.int64), sources, full, delta=10, threads_per_block=16),
        want)


def test_phase2_gpu_refuses_bad_input():
    g = random_digraph(10, 30, max_weight=5, seed=1)
    with pytest.raises(InputError, match="out of range"):
        phase2_gpu(g.indptr, g.indices, g.weights, [10], [0])
    with pytest.raises(InputError, match="2 initial distances for 1 sources"):
        phase2_gpu(g.indptr, g.indices, g.weights, [1], [0, 0])
    with pytest.raises(InputError, match="one CSR graph"):
        phase2_gpu(g.indptr, g.indices[:-1], g.weights, [1], [0])


def test_io_sssp_times_gpu_phase_2_after_an_untimed_run(tmp_path, monkeypatch):
    """A fresh child's first GPU phase 2 creates the CUDA context and compiles near-far for G''s
    types: `io-sssp --phase2 gpu` runs phases 2 and 3 once untimed, then times them."""
    import json

    from graphrepro.cli import main
    from graphrepro.solvers.gerritsen2012 import sssp_io
    from graphrepro.terrain import convert_array

    values = np.random.default_rng(3).integers(0, 9, size=(8, 8)).astype(float)
    path = tmp_path / "t.zgrid"
    convert_array(values, path, source={"test": 1})
    sssp_io.phase1(path, tmp_path / "g", 4)
    calls = []
    original = sssp_io.phases23
    monkeypatch.setattr(sssp_io, "phases23",
                        lambda *a, **k: calls.append(k["phase2"]) or original(*a, **k))
    assert main(["io-sssp", str(path), "--source", "37", "--phases", "23", "--phase2", "gpu",
                 "--workdir", str(tmp_path / "g"), "--json", str(tmp_path / "r.json")]) == 0
    assert calls == ["gpu", "gpu"]
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["warmup"] == "one untimed run of phases 2 and 3"
    np.testing.assert_array_equal(sssp_io.read_distances(tmp_path / "g").ravel(),
                                  scipy_distances(values, [37])[0])
