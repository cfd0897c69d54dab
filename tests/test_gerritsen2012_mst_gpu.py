"""gerritsen2012 chapter 3 on the GPU: the packed key, Boruvka (Algorithms 1-5) on implicit grids,
batched blocks and the whole grid, and dead-end removal + path contraction (section 3.3.4).

Kernels run in the CUDA simulator (conftest.py), so grids stay at a few dozen cells; with
NUMBA_ENABLE_CUDASIM=0 the same tests run on a real GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from graphrepro import mst
from graphrepro.errors import InputError
from graphrepro.mst.algorithms import kruskal_edges
from graphrepro.solvers.gerritsen2012 import PER_BLOCK_MST, REDUCE, step
from graphrepro.solvers.gerritsen2012 import mst_gpu as G
from graphrepro.solvers.gerritsen2012.types import boundary_cells
from graphrepro.terrain import grid_graph

VARIANTS = [(32, "thesis"), (64, "thesis"), (32, "persistent"), (64, "persistent")]


def grid_edges(values: np.ndarray) -> mst.EdgeList:
    """The 8-neighbour grid graph of ``values`` with MST weights, carrying its grid."""
    edges = mst.from_graph(grid_graph(values, weight="mst"))
    edges.grid = np.asarray(values, dtype=np.int64)  # what a DEM reader attaches
    return edges


def kruskal_set(edges: mst.EdgeList) -> set:
    """Kruskal with ties by (u, v): from_arrays sorts by pair, the weight sort is stable, so this
    is the packed key's order (weight, lower endpoint, higher endpoint)."""
    chosen, _ = kruskal_edges(edges.num_vertices, edges.u, edges.v, edges.w)
    return set(zip(edges.u[chosen].tolist(), edges.v[chosen].tolist()))


def tree_set(tree) -> set:
    return set(zip(np.minimum(tree.u, tree.v).tolist(), np.maximum(tree.u, tree.v).tolist()))


def check_tree(values, tree, name="gpu"):
    edges = grid_edges(values)
    result = mst.MSTResult(tree.u, tree.v, tree.w, 0.0)
    mst.check(edges, result, solver=name)  # weight = Kruskal's, spanning, acyclic, real edges
    assert tree_set(tree) == kruskal_set(edges)  # and the same edges on ties
    assert np.all(tree.u < tree.v)


GRIDS = {
    "random": lambda rng: rng.integers(0, 1001, size=(7, 9)),
    "constant": lambda rng: np.full((6, 6), 5),
    "few_values": lambda rng: rng.integers(0, 3, size=(8, 5)),
    # every vertex hooks east (then south-west at a row's end) in the first round: one chain
    # through all 120 vertices, the worst case for shortcutting
    "falling_ramp": lambda rng: np.arange(120)[::-1].reshape(10, 12),
}


# --- the key --------------------------------------------------------------------------------------

@pytest.mark.parametrize("bits", [32, 64])
def test_key_round_trip_and_order(bits):
    rng = np.random.default_rng(bits)
    lay = G.layout(bits)
    w = rng.integers(0, lay.max_weight + 1, 500)
    a = rng.integers(0, lay.max_vertices, 500)
    d = rng.integers(0, 8, 500)
    e = rng.integers(0, 2, 500)
    key = G.pack_key(w, a, d, e, bits)
    assert key.min() >= 0 and key.max() < lay.inf and key.max() < 2 ** bits
    for got, want in zip(G.unpack_key(key, bits), (w, a, d, e)):
        np.testing.assert_array_equal(got, want)
    # keys order by weight, then index, then direction
    np.testing.assert_array_equal(np.argsort(key, kind="stable"), np.lexsort((e, d, a, w)))
    extreme = G.pack_key(lay.max_weight, lay.max_vertices - 2, 7, 1, bits)
    assert extreme < lay.inf  # the top index (the last vertex) is never a lower endpoint


def test_direction_numbering_is_figure_3_1():
    dr, dc = G.offset(np.arange(8))
    np.testing.assert_array_equal(G.direction(dr, dc), np.arange(8))
    assert list(zip(dr.tolist(), dc.tolist())) == [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1),
                                                  (1, -1), (1, 0), (1, 1)]
    rdr, rdc = G.offset(7 - np.arange(8))
    np.testing.assert_array_equal(rdr, -dr)  # 7 - d is the way back
    np.testing.assert_array_equal(rdc, -dc)


def test_edge_keys_order_edges_like_weight_then_pair():
    values = np.random.default_rng(3).integers(0, 4, size=(6, 7))
    edges = grid_edges(values)
    keys = G.edge_key(values, edges.u, edges.v, 32)
    assert len(np.unique(keys)) == edges.num_edges  # a strict total order
    np.testing.assert_array_equal(np.argsort(keys), np.lexsort((edges.v, edges.u, edges.w)))


# --- Boruvka --------------------------------------------------------------------------------------

@pytest.mark.parametrize("bits,launch", VARIANTS)
@pytest.mark.parametrize("grid", sorted(GRIDS))
def test_boruvka_is_the_packed_key_mst(bits, launch, grid):
    values = GRIDS[grid](np.random.default_rng(7))
    tree = G.boruvka_block(values, bits=bits, launch=launch)
    check_tree(values, tree)
    c = tree.counters
    assert c["iterations"] >= 1 and c["atomics"] >= values.size  # first round: one per vertex
    if launch == "thesis":
        assert c["host_round_trips"] == c["iterations"]
        assert c["launches"] == 1 + 4 * c["iterations"] - 2
        assert c["threads_per_block"] == 256
    else:
        assert c["launches"] == 1 and c["host_round_trips"] == 0
    assert set(tree.timings) == {"mst", "copy_back", "other"}


def cpu_packed_key_boruvka(values: np.ndarray) -> set:
    """Algorithm 1 on the CPU, straight from the thesis's rule: each supervertex takes the least
    packed key among its vertices' edges to other supervertices; all chosen edges join at once."""
    rows, cols = values.shape
    n = values.size
    comp = np.arange(n)
    tree = set()
    while True:
        best = {}
        for x in range(n):
            r, c = divmod(x, cols)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols:
                        y = x + dr * cols + dc
                        if comp[x] != comp[y]:
                            key = int(G.edge_key(values, x, y, 32))
                            best[comp[x]] = min(best.get(comp[x], key), key)
        if not best:
            return tree
        for key in set(best.values()):
            _, a, d, _ = G.unpack_key(key, 32)
            dr, dc = G.offset(d)
            b = int(a + dr * cols + dc)
            tree.add((int(a), b))
            old, new = comp[b], comp[int(a)]
            comp[comp == old] = new


def test_gpu_and_cpu_packed_key_rule_pick_the_same_edges_on_ties():
    values = np.random.default_rng(11).integers(0, 2, size=(7, 6))
    assert tree_set(G.gpu_boruvka32(values)) == cpu_packed_key_boruvka(values)
    constant = np.zeros((5, 5), dtype=np.int64)
    assert tree_set(G.gpu_boruvka64(constant, launch="persistent")) == \
        cpu_packed_key_boruvka(constant)


def test_registered_steps():
    values = np.random.default_rng(5).integers(0, 50, size=(4, 4))
    assert step(PER_BLOCK_MST, "gpu_boruvka32") is G.gpu_boruvka32
    check_tree(values, step(PER_BLOCK_MST, "gpu_boruvka64")(values, launch="persistent"))


def test_32_bit_key_refuses_what_it_cannot_hold():
    with pytest.raises(InputError, match="weights up to 1023") as err:
        G.gpu_boruvka32(np.array([[0, 1024], [3, 4]]))
    assert "\n" not in str(err.value) and "64-bit" in str(err.value)
    with pytest.raises(InputError, match="512 x 512") as err:
        G.gpu_boruvka32(np.zeros((513, 512), dtype=np.int16))
    assert "\n" not in str(err.value)
    with pytest.raises(InputError, match="non-negative"):
        G.gpu_boruvka64(np.array([[0, -1], [3, 4]]))
    with pytest.raises(InputError, match="weights up to"):
        G.gpu_boruvka64(np.array([[0, 2 ** 27]]))


def test_one_row_and_one_cell():
    check_tree(np.array([[3, 1, 2, 2, 0]]), G.gpu_boruvka64(np.array([[3, 1, 2, 2, 0]])))
    single = G.grid_mst_gpu(np.array([[7]]))
    assert len(single.u) == 0


def test_batched_blocks_equal_one_at_a_time():
    rng = np.random.default_rng(2)
    stack = rng.integers(0, 4, size=(3, 5, 5))
    trees = G.boruvka_blocks(stack, bits=32)
    assert len(trees) == 3
    for values, tree in zip(stack, trees):
        check_tree(values, tree)
        assert tree.counters["blocks"] == 3
    thesis = G.boruvka_blocks(stack[:2], bits=64, launch="thesis")  # 16 x 16 tiles, z = block
    for values, tree in zip(stack, thesis):
        check_tree(values, tree)


def test_whole_grid_non_square():
    values = np.random.default_rng(4).integers(0, 100, size=(5, 11))
    tree = G.grid_mst_gpu(values)
    check_tree(values, tree)
    assert tree.counters["launches"] == 1 and tree.counters["host_round_trips"] == 0


def test_mst_solvers_need_a_grid_and_respect_the_key():
    values = np.random.default_rng(9).integers(0, 30, size=(6, 4))
    edges = grid_edges(values)
    for name in ("gerritsen_boruvka32", "gerritsen_boruvka64", "gerritsen_grid_gpu"):
        result = mst.minimum_spanning_forest(edges, name)
        mst.check(edges, result, solver=name)
        assert mst.get_mst_solver(name).device == "gpu"
    result = mst.minimum_spanning_forest(edges, "gerritsen_boruvka32", launch="persistent")
    mst.check(edges, result, solver="gerritsen_boruvka32@launch=persistent")
    assert result.counters["launches"] == 1
    with pytest.raises(InputError, match="launch must be one of"):
        mst.get_mst_solver("gerritsen_boruvka64").prepare(edges, launch="fast")
    plain = mst.from_arrays(3, [0, 1], [1, 2], [4, 5], name="path.gr")
    with pytest.raises(InputError, match="path.gr is a plain graph") as err:
        mst.get_mst_solver("gerritsen_grid_gpu").prepare(plain)
    assert "\n" not in str(err.value)
    high = grid_edges(np.array([[0, 2000], [5, 1]]))
    with pytest.raises(InputError, match="32-bit packed key holds weights up to 1023"):
        mst.get_mst_solver("gerritsen_boruvka32").prepare(high)


# --- dead ends and contraction --------------------------------------------------------------------

def reduce_oracle(n, u, v, w, keep):
    """Observations 3 and 4 on the CPU, one vertex and one path at a time."""
    adj = [set() for _ in range(n)]
    for e in range(len(u)):
        adj[u[e]].add(e)
        adj[v[e]].add(e)
    definite = set()
    stack = [x for x in range(n) if not keep[x] and len(adj[x]) == 1]
    while stack:
        x = stack.pop()
        if len(adj[x]) != 1:
            continue
        (e,) = adj[x]
        y = u[e] + v[e] - x
        definite.add(e)
        adj[x].discard(e)
        adj[y].discard(e)
        if not keep[y] and len(adj[y]) == 1:
            stack.append(y)

    def interior(x):
        return not keep[x] and len(adj[x]) == 2

    kept, seen = {}, set()
    for x in range(n):
        if interior(x):
            continue
        for e in sorted(adj[x]):
            if e in seen:
                continue
            path, prev, cur = [e], e, u[e] + v[e] - x
            while interior(cur):
                (f,) = adj[cur] - {prev}
                path.append(f)
                prev, cur = f, u[f] + v[f] - cur
            seen.update(path)
            rep = max(path, key=lambda f: (w[f], min(u[f], v[f]), max(u[f], v[f])))
            kept[rep] = (min(x, cur), max(x, cur), max(w[f] for f in path))
            definite.update(set(path) - {rep})
    return kept, definite


def check_reduced(n, u, v, w, keep):
    u, v, w = (np.asarray(a, dtype=np.int64) for a in (u, v, w))
    keep = np.asarray(keep, dtype=bool)
    got = step(REDUCE, "gpu")(n, u, v, w, keep)
    m = len(u)
    both = np.concatenate([got.rep, got.definite])
    np.testing.assert_array_equal(np.sort(both), np.arange(m))  # rep and definite partition m
    kept, definite = reduce_oracle(n, u.tolist(), v.tolist(), w.tolist(), keep.tolist())
    assert set(got.definite.tolist()) == definite
    assert {int(r): (int(a), int(b), int(c)) for r, a, b, c in
            zip(got.rep, got.u, got.v, got.w)} == kept
    assert set(got.timings) >= {"dead_ends", "contraction", "copy_back"}
    return got


def test_reduce_hand_made():
    # 0-1-2-3-4 a path kept at both ends, with a dead-end branch 2-5-6 and a leaf 3-7
    u = [0, 1, 2, 3, 2, 5, 3]
    v = [1, 2, 3, 4, 5, 6, 7]
    w = [4, 9, 9, 1, 7, 2, 8]
    keep = [True, False, False, False, True, False, False, False]
    got = check_reduced(8, u, v, w, keep)
    # one edge (0, 4) of weight 9 stands for the heavier of the tied (1,2) and (2,3): (2,3)
    assert got.u.tolist() == [0] and got.v.tolist() == [4] and got.w.tolist() == [9]
    assert got.rep.tolist() == [2]
    assert got.counters["dead_end_edges"] == 3
    assert got.counters["contracted_paths"] == 1 and got.counters["contracted_path_edges"] == 4


def test_reduce_no_keep_single_edge_and_empty():
    got = check_reduced(4, [0, 1, 2], [1, 2, 3], [1, 1, 1], [False] * 4)
    assert len(got.rep) == 0 and sorted(got.definite.tolist()) == [0, 1, 2]
    got = check_reduced(3, [0], [2], [5], [True, False, True])  # a path of length 1
    assert got.rep.tolist() == [0] and (got.u[0], got.v[0], got.w[0]) == (0, 2, 5)
    got = check_reduced(3, [], [], [], [True, True, True])
    assert len(got.rep) == len(got.definite) == 0


@pytest.mark.parametrize("seed", range(4))
def test_reduce_grid_forests_match_the_oracle(seed):
    rng = np.random.default_rng(seed)
    side = 8
    values = rng.integers(0, 3 if seed % 2 else 1000, size=(side, side))  # ties or not
    edges = grid_edges(values)
    chosen, _ = kruskal_edges(edges.num_vertices, edges.u, edges.v, edges.w)
    u, v, w = edges.u[chosen], edges.v[chosen], edges.w[chosen]
    if seed >= 2:  # a forest: drop a few tree edges
        mask = rng.random(len(u)) > 0.15
        u, v, w = u[mask], v[mask], w[mask]
    keep = np.zeros(side * side, dtype=bool)
    keep[boundary_cells(side)] = True
    if seed == 3:
        keep = rng.random(side * side) < 0.1
    check_reduced(side * side, u, v, w, keep)


def test_grid_kruskal_and_tree_verifier():
    values = np.random.default_rng(12).integers(0, 3, size=(6, 9))
    edges = grid_edges(values)
    weight, mask = G.grid_kruskal_cpu(values)
    assert weight == mst.reference_weight(edges)
    lower, bit = np.nonzero(np.unpackbits(mask[:, None], axis=1, bitorder="little")[:, :4])
    dr, dc = G.offset(bit + 4)
    assert set(zip(lower.tolist(), (lower + dr * 9 + dc).tolist())) == kruskal_set(edges)
    tree = G.grid_mst_gpu(values)
    assert G.verify_grid_tree(values, tree) == weight
    from graphrepro.errors import VerificationError
    from graphrepro.solvers.gerritsen2012.types import BlockMST
    swapped = BlockMST(tree.u.copy(), tree.v.copy(), tree.w.copy())
    swapped.v[0] = swapped.u[0] + 1 if swapped.v[0] != swapped.u[0] + 1 else swapped.u[0] + 9
    swapped.w[0] = max(values.flat[swapped.u[0]], values.flat[swapped.v[0]])
    with pytest.raises(VerificationError, match="WRONG ANSWER"):
        G.verify_grid_tree(values, swapped)


# --- the `mst` command ----------------------------------------------------------------------------

def test_mst_command_refuses_a_plain_graph_in_one_line(tmp_path, capsys):
    from graphrepro.cli import main

    path = tmp_path / "path.gr"
    path.write_text("p sp 3 2\na 1 2 4\na 2 3 5\n")
    assert main(["mst", str(path), "--solver", "gerritsen_grid_gpu",
                 "--output", str(tmp_path / "t.txt")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "DEM grid" in err


def test_mst_command_on_a_dem(tmp_path, capsys):
    pytest.importorskip("graphrepro.terrain.dem")  # the DEM reader (issue 10's CPU part)
    from graphrepro.cli import main

    dem = tmp_path / "g.npy"
    np.save(dem, np.random.default_rng(1).integers(0, 900, size=(5, 7)))
    lines = {}
    for name in ("kruskal", "gerritsen_boruvka32", "gerritsen_boruvka64", "gerritsen_grid_gpu"):
        out = tmp_path / f"{name}.txt"
        assert main(["mst", str(dem), "--solver", name, "--output", str(out)]) == 0
        lines[name] = capsys.readouterr().out.strip().splitlines()[-1]
        assert len(out.read_text().splitlines()) == 63  # padded to 8 x 8
    assert len(set(lines.values())) == 1 and lines["kruskal"].endswith("edges 63")
    np.save(dem, np.array([[0, 2000], [7, 1]]))
    assert main(["mst", str(dem), "--solver", "gerritsen_boruvka32",
                 "--output", str(tmp_path / "t.txt")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "1023" in err


# --- where the reduce step's result is compacted (issue 36: cupy on the device) ---------------

class _NumpyAsCupy:
    """The cupy calls of the device compaction, done by numpy: under the simulator device arrays
    are host memory, which real cupy cannot read, so this checks that path's selection and counters
    here; benchmarks/cupy_compaction.py runs it with cupy on a GPU."""
    int32, int64 = np.int32, np.int64
    flatnonzero, stack, where = staticmethod(np.flatnonzero), staticmethod(np.stack), staticmethod(np.where)

    class cuda:
        class ExternalStream:
            def __init__(self, handle):
                assert isinstance(handle, int)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

    @staticmethod
    def asarray(a):
        return a.copy_to_host() if hasattr(a, "copy_to_host") else np.asarray(a)

    @staticmethod
    def asnumpy(a):
        return np.asarray(a)


def _reduce_case(seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3, size=(8, 8))
    edges = grid_edges(values)
    chosen, _ = kruskal_edges(edges.num_vertices, edges.u, edges.v, edges.w)
    keep = rng.random(64) < 0.2
    return 64, edges.u[chosen], edges.v[chosen], edges.w[chosen], keep


def test_device_and_host_compaction_give_the_same_result(monkeypatch):
    from graphrepro.solvers.gerritsen2012 import mst_gpu_reduce as R

    if R.device_compaction() is None:  # the simulator (or no cupy): numpy stands in for cupy
        monkeypatch.setattr(R, "device_compaction", lambda: _NumpyAsCupy)
        monkeypatch.setattr(R, "_stream_handle", lambda stream: 0)  # the simulator's has none
    for seed in range(3):
        case = _reduce_case(seed)
        host, device = (R.reduce_on_gpu(*case, compaction=c) for c in ("host", "device"))
        for field in ("u", "v", "w", "rep", "definite"):
            np.testing.assert_array_equal(getattr(device, field), getattr(host, field))
            assert getattr(device, field).dtype == np.int64
        drop = {"upload_us"}
        assert ({k: v for k, v in device.counters.items() if k not in drop}
                == {k: v for k, v in host.counters.items() if k not in drop})
        assert all(type(v) is int for v in device.counters.values())


def test_device_compaction_refused_in_one_line_where_cupy_cannot_run(monkeypatch):
    from graphrepro.solvers.gerritsen2012 import mst_gpu_reduce as R

    if R.gpu.simulated():
        with pytest.raises(InputError, match="simulator"):
            R.reduce_on_gpu(*_reduce_case(0), compaction="device")
    with pytest.raises(InputError, match="compaction must be one of"):
        R.reduce_on_gpu(*_reduce_case(0), compaction="gpu")
    monkeypatch.setattr(R.gpu, "simulated", lambda: False)
    monkeypatch.setitem(__import__("sys").modules, "cupy", None)  # `import cupy` fails
    assert R.device_compaction() is None
    with pytest.raises(InputError, match="cupy is not installed"):
        R.reduce_on_gpu(*_reduce_case(0), compaction="device")
