"""an2017: dense graphs, the Bellman-Ford family under the CUDA simulator, the transfer benchmark,
the targets' verdicts (from the claims ledger), and the workflow's dense-graph path.

The simulator runs every GPU thread as a Python thread, so the 2-D dense kernels (one thread per
matrix entry at 1 edge per thread) stay at a few dozen vertices.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphrepro import gpu
from graphrepro.claims import VERDICTS
from graphrepro.errors import InputError, VerificationError
from graphrepro.graph.csr import CSRGraph, degree_stats
from graphrepro.graph.dense import (NO_EDGE, DenseGraph, dense_dijkstra, dense_matrix,
                                    is_dense_file)
from graphrepro.graph.generate import random_digraph, road_grid
from graphrepro.solvers import INF, get_solver, solve
from graphrepro.solvers.reference import dijkstra_csr
from machine import real_cuda_device

REPO = Path(__file__).resolve().parents[1]

needs_cuda = pytest.mark.skipif(not gpu.cuda_available(),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not 1")


# --- dense graphs ------------------------------------------------------------------------------

def test_dense_graph_is_deterministic_and_nested():
    small, big = DenseGraph(40, density=0.3, seed=5), DenseGraph(70, density=0.3, seed=5)
    np.testing.assert_array_equal(small.matrix(), DenseGraph(40, density=0.3, seed=5).matrix())
    # arcs depend on (i, j, seed) only, so a bigger graph of the same seed contains the smaller
    np.testing.assert_array_equal(big.matrix()[:40, :40], small.matrix())
    assert not np.array_equal(small.matrix(), DenseGraph(40, density=0.3, seed=6).matrix())


def test_dense_graph_density_weights_and_diagonal():
    g = DenseGraph(200, density=0.25, max_weight=7, seed=1)
    m = g.matrix()
    assert m.dtype == np.int32 and m.shape == (200, 200)
    assert np.all(np.diag(m) == NO_EDGE)
    arcs = m[m != NO_EDGE]
    assert 0.22 < len(arcs) / (200 * 199) < 0.28
    assert arcs.min() == 1 and arcs.max() == 7
    complete = DenseGraph(30).matrix()
    assert np.count_nonzero(complete != NO_EDGE) == 30 * 29
    assert g.num_arcs == len(arcs)
    stats = degree_stats(g)
    assert stats["arcs"] == len(arcs) and stats["max_weight"] == 7 and stats["dense"]


@pytest.mark.parametrize("density, seed", [(1.0, 1), (0.02, 2), (0.006, 3)])
def test_dense_dijkstra_matches_the_csr_reference(density, seed):
    g = DenseGraph(150, density=density, seed=seed)
    csr = g.to_csr()
    for source in (0, 77):
        expected = dijkstra_csr(csr.indptr, csr.indices, csr.weights, source)[0]
        np.testing.assert_array_equal(dense_dijkstra(g.matrix(), source), expected)
    if density < 0.01:  # the sparse ones leave vertices unreachable
        assert np.count_nonzero(dense_dijkstra(g.matrix(), 0) == INF) > 0


def test_dense_descriptor_round_trip(tmp_path):
    g = DenseGraph(33, density=0.5, max_weight=9, seed=4, name="d33")
    g.save(tmp_path / "d33.npz")
    assert is_dense_file(tmp_path / "d33.npz")
    back = DenseGraph.load(tmp_path / "d33.npz")
    assert (back.num_vertices, back.density, back.max_weight, back.seed, back.name) == \
        (33, 0.5, 9, 4, "d33")
    np.testing.assert_array_equal(back.matrix(), g.matrix())
    road_grid(3, 3).save(tmp_path / "csr.npz")
    assert not is_dense_file(tmp_path / "csr.npz")
    assert (tmp_path / "d33.npz").stat().st_size < 2000  # a descriptor, not a matrix


def test_dense_graph_reads_like_a_csr_graph():
    g = DenseGraph(20, density=0.2, seed=2)
    assert g.label_of(0) == 1 and g.to_internal(20) == 19
    with pytest.raises(InputError, match="out of range"):
        g.to_internal(21)
    # CPU solvers see the CSR view; the reference Dijkstra agrees with the dense one
    np.testing.assert_array_equal(solve(g, 3), dense_dijkstra(g.matrix(), 3))
    np.testing.assert_array_equal(solve(g, 3, solver="bellman_ford"), solve(g, 3))


@pytest.mark.parametrize("kwargs, message", [({"density": 1.5}, "density"),
                                             ({"max_weight": 0}, "max_weight"),
                                             ({"max_weight": NO_EDGE}, "max_weight")])
def test_dense_graph_rejects_bad_parameters(kwargs, message):
    with pytest.raises(InputError, match=message):
        DenseGraph(10, **kwargs)


def test_dense_matrix_of_a_csr_graph_keeps_the_lightest_parallel_arc():
    g = CSRGraph.from_arcs(3, [0, 0, 1, 2], [1, 1, 2, 2], [5, 3, 0, 4])
    m = dense_matrix(g)
    assert m.tolist() == [[NO_EDGE, 3, NO_EDGE], [NO_EDGE, NO_EDGE, 0], [NO_EDGE, NO_EDGE, 4]]
    heavy = CSRGraph.from_arcs(2, [0], [1], [NO_EDGE])
    with pytest.raises(InputError, match="below"):
        dense_matrix(heavy)


# --- the solvers under the simulator ----------------------------------------------------------

SOLVER_CASES = {
    # run id, parameters: small blocks so that even these graphs take several blocks per launch
    "dense_coalesced_1": ("an_bf_dense", {"block_x": 8, "block_y": 4}),
    "dense_coalesced_4": ("an_bf_dense", {"edges_per_thread": 4, "block_x": 8, "block_y": 2}),
    "dense_chunked_3": ("an_bf_dense", {"edges_per_thread": 3, "order": "chunked",
                                        "block_x": 4, "block_y": 4}),
    "dense_transposed_2": ("an_bf_dense", {"edges_per_thread": 2, "order": "transposed",
                                           "block_x": 8, "block_y": 4}),
    "dense_coalesced_64": ("an_bf_dense", {"edges_per_thread": 64, "block_x": 8, "block_y": 1}),
    "edgelist_1": ("an_bf_edgelist", {"threads_per_block": 32}),
    "edgelist_5": ("an_bf_edgelist", {"edges_per_thread": 5, "threads_per_block": 8}),
    "incoming": ("an_bf_incoming", {"threads_per_block": 8}),
    "outgoing": ("an_bf_outgoing", {"threads_per_block": 8}),
}

GRAPH_CASES = {
    # complete: every vertex one hop away, the document's case
    "dense_complete": (DenseGraph(12, max_weight=50, seed=1), 3),
    # sparse dense-matrix graph: a third of the vertices unreachable from the source
    "dense_sparse": (DenseGraph(24, density=0.06, max_weight=20, seed=11), 0),
    # a CSR graph scattered into a matrix: zero weights, parallel arcs, self-loops
    "csr_random_zero_weights": (random_digraph(20, 70, max_weight=3, seed=7), 2),
    # road-like islands: many unreachable vertices
    "csr_road_islands": (road_grid(4, 6, keep=0.6, seed=0), 15),
}


def test_graph_cases_cover_what_they_claim():
    for name in ("dense_sparse", "csr_road_islands"):
        g, s = GRAPH_CASES[name]
        reached = np.count_nonzero(solve(g, s) != INF)
        assert 3 < reached < g.num_vertices - 3, name
    g, _ = GRAPH_CASES["csr_random_zero_weights"]
    assert np.count_nonzero(g.weights == 0) > 5


@needs_cuda
@pytest.mark.parametrize("graph_case", list(GRAPH_CASES))
@pytest.mark.parametrize("solver_case", list(SOLVER_CASES))
def test_solver_matches_reference(solver_case, graph_case):
    name, params = SOLVER_CASES[solver_case]
    graph, source = GRAPH_CASES[graph_case]
    expected = solve(graph, source)
    result = get_solver(name).prepare(graph, **params).solve(source, count=True)
    assert result.distances.dtype == np.int64
    np.testing.assert_array_equal(result.distances, expected)
    c = result.counters
    # Alg. 1: a relaxation and a flag read per iteration, a swap between iterations
    assert c["host_round_trips"] == c["iterations"] >= 1
    assert c["kernel_launches"] == 1 + 2 * c["iterations"] - 1
    reachable_arcs = int(np.count_nonzero(expected[graph.arc_sources()] != INF))
    assert c["arcs_relaxed"] >= reachable_arcs - np.count_nonzero(
        graph.arc_sources() == graph.indices)  # a matrix has no room for parallel arcs
    assert c["atomics"] == (0 if name == "an_bf_incoming" else c["arcs_relaxed"])
    assert c["improving_relaxations"] <= c["arcs_relaxed"]


@needs_cuda
@pytest.mark.parametrize("solver_case", ["dense_coalesced_1", "dense_chunked_3", "edgelist_1",
                                         "incoming", "outgoing"])
def test_counters_on_a_hand_checked_graph(tiny_graph, solver_case):
    # Arcs (1-based): 1->2:7 1->3:1 1->4:9 2->4:2 3->4:4 3->2:3 4->1:0; vertex 5 unreachable.
    # From 1: iteration 1 relaxes 1's three arcs (mask {1}); iteration 2 the four arcs of
    # {2, 3, 4}, lowering 2 to 4 and 4 to 5; iteration 3 the two arcs of {2, 4} and changes
    # nothing. Whatever order the threads run in, that is 3 iterations and 3 + 4 + 2 = 9 arcs.
    name, params = SOLVER_CASES[solver_case]
    result = get_solver(name).prepare(tiny_graph, **params).solve(0, count=True)
    assert result.distances.tolist() == [0, 4, 1, 5, INF]
    c = result.counters
    assert (c["iterations"], c["arcs_relaxed"]) == (3, 9)
    assert (c["kernel_launches"], c["host_round_trips"]) == (6, 3)  # init + 3 relax + 2 swaps
    assert c["atomics"] == (0 if name == "an_bf_incoming" else 9)
    assert 5 <= c["improving_relaxations"] <= 6  # vertex 4 may improve once or twice


@needs_cuda
def test_source_without_out_arcs_and_single_vertex():
    g = CSRGraph.from_arcs(4, [0, 1, 2], [1, 2, 3], [1, 1, 1])
    for name in ("an_bf_dense", "an_bf_edgelist", "an_bf_incoming", "an_bf_outgoing"):
        result = get_solver(name).prepare(g).solve(3, count=True)
        assert result.distances.tolist() == [INF, INF, INF, 0]
        assert (result.counters["iterations"], result.counters["arcs_relaxed"]) == (1, 0)
        one = get_solver(name).prepare(DenseGraph(1)).solve(0)
        assert one.distances.tolist() == [0] and one.counters["iterations"] == 0  # |V|-1 = 0


@needs_cuda
def test_prepared_solver_is_reusable_across_sources():
    graph, _ = GRAPH_CASES["dense_sparse"]
    prepared = get_solver("an_bf_dense").prepare(graph, edges_per_thread="8", order="chunked")
    for source in (0, 23):
        result = prepared.solve(source)
        np.testing.assert_array_equal(result.distances, solve(graph, source))
        assert "arcs_relaxed" not in result.counters


@needs_cuda
@pytest.mark.parametrize("source", [0, 5, 11])  # first half, second half, last vertex
def test_two_stream_version_matches_reference(source):
    graph = DenseGraph(12, density=0.3, max_weight=9, seed=3)
    prepared = get_solver("an_bf_dense").prepare(graph, edges_per_thread=4, block_x=4, block_y=4)
    result = prepared.solve_two_streams(graph.matrix().copy(), source, count=True)
    np.testing.assert_array_equal(result.distances, solve(graph, source))
    c = result.counters
    assert 1 <= c["first_half_iterations"] <= c["iterations"]
    # both phases' loops, the activation between them, the one initialisation
    assert c["host_round_trips"] == c["iterations"]
    if source >= 6:  # the source's row is in the second half: the first phase relaxes nothing
        assert c["first_half_iterations"] == 1


@needs_cuda
@pytest.mark.parametrize("params, message", [
    ({"order": "diagonal"}, "order must be one of coalesced, chunked, transposed"),
    ({"edges_per_thread": 0}, "edges_per_thread must be at least 1"),
    ({"block_x": 64, "block_y": 32}, "1..1024 threads"),
])
def test_dense_solver_rejects_bad_parameters(params, message):
    with pytest.raises(InputError, match=message):
        get_solver("an_bf_dense").prepare(DenseGraph(4), **params)


def test_registry_lists_the_family():
    from graphrepro.solvers import all_solvers

    specs = {s.name: s for s in all_solvers() if s.document == "an2017"}
    assert set(specs) == {"an_bf_dense", "an_bf_edgelist", "an_bf_incoming", "an_bf_outgoing"}
    assert all(s.device == "gpu" for s in specs.values())
    assert specs["an_bf_incoming"].static_counters["atomic_statements"] == 0
    assert specs["an_bf_dense"].defaults == {"edges_per_thread": 1, "order": "coalesced",
                                             "block_x": 32, "block_y": 8}


# --- the transfer benchmark -------------------------------------------------------------------

def _case(graph, source):
    from graphrepro import verify

    return graph, source, verify.digest(solve(graph, source))


@needs_cuda
def test_transfer_benchmark_runs_and_verifies():
    from graphrepro.harness.transfers import COLUMNS, transfer_benchmark

    cases = [_case(DenseGraph(6, seed=1), 2), _case(random_digraph(8, 20, seed=2), 0)]
    table = transfer_benchmark(cases, trials=1, warmup=0, edges_per_thread=8, log=lambda m: None)
    assert list(table.columns) == COLUMNS
    assert set(table["status"]) == {"ok"}
    assert table["matrix_bytes"].tolist() == [144, 256]
    assert (table[["pageable_ms", "pinned_ms", "solve_ms", "two_stream_ms"]] >= 0).all().all()
    # the work: the second phase relaxes no more arcs than the basic version from scratch
    assert (table["second_phase_arcs_relaxed"] <= table["arcs_relaxed"]).all()
    assert (table["arcs_relaxed"] > 0).all()


@needs_cuda
def test_transfer_benchmark_checks_every_solve(monkeypatch):
    from graphrepro.harness import transfers

    checked = []

    def check(graph, source, got, *, solver, expected_digest=None, **kw):
        checked.append(solver)
        if "two streams" in solver:
            raise VerificationError("WRONG ANSWER: made up")

    monkeypatch.setattr(transfers.verify, "check", check)
    with pytest.raises(VerificationError, match="WRONG ANSWER"):
        transfers.transfer_benchmark([_case(DenseGraph(4, seed=1), 0)], trials=1, warmup=0,
                                     edges_per_thread=16, log=lambda m: None)
    assert checked == ["an_bf_dense (basic)", "an_bf_dense (two streams)"]


def test_transfer_benchmark_without_a_gpu(monkeypatch):
    from graphrepro.harness.measure import NOT_RUN_NO_GPU
    from graphrepro.harness import transfers

    monkeypatch.setattr(transfers.gpu, "cuda_available", lambda: False)
    table = transfers.transfer_benchmark([(DenseGraph(8), 0, "x")], log=lambda m: None)
    assert table["status"].tolist() == [NOT_RUN_NO_GPU]


def test_the_transfers_command_records_its_run_and_wall_time_with_the_table(tmp_path, monkeypatch):
    from graphrepro.cli import main, runs
    from graphrepro.harness import files, transfers

    monkeypatch.setattr(transfers.gpu, "cuda_available", lambda: False)
    monkeypatch.setattr(runs, "load_graph", lambda path: DenseGraph(8))
    monkeypatch.setattr(files, "read_sources", lambda *a: {"sources": [0], "digests": ["x"]})
    out = tmp_path / "an2017_transfers.csv"
    assert main(["transfers", "g.npz", "--sources", "s.json", "--output", str(out)]) == 0
    record = json.loads(out.with_suffix(".provenance.json").read_text())
    assert record["job"]["wall_s"] >= 0 and record["settings"]["graphs"] == ["g.npz"]
    assert len(pd.read_csv(out)) == 1
    # its anchors (issue 51): the CPU one timed, the transfer one skipped with no device here
    from graphrepro.harness import anchors

    assert record["anchors"]["cpu"]["before_ms"] > 0 and record["anchors"]["cpu"]["after_ms"] > 0
    assert record["anchors"]["transfer"]["skipped"] in (anchors.SIMULATED, anchors.NO_GPU)


# --- the targets' verdicts, from made-up run tables -----------------------------------------------

def _runs(rows):
    """A run table as the harness writes it: one row per (graph, variant, source, trial)."""
    from graphrepro.solvers import resolve

    out = []
    for graph, run_id, solve_ms, upload_ms in rows:
        spec, params = resolve(run_id)
        for source in (1, 2):
            out.append({"graph": graph, "solver": spec.name, "variant": run_id, "status": "ok",
                        "params": json.dumps(params, sort_keys=True), "source": source,
                        "trial": 0, "solve_ms": solve_ms, "upload_ms": upload_ms})
    return pd.DataFrame(out)


STATS = {"d1k": {"vertices": 1024}, "d4k": {"vertices": 4096}}


def judged(name, runs, **extra):
    """A target's table as the compare step writes it (verdicts from the ledger), and its rows."""
    from graphrepro.claims import fill_verdicts, judge_target
    from graphrepro.experiments import get_target, published

    t = get_target(name)
    rows = judge_target(t, runs, STATS, **extra)
    table = fill_verdicts(t.compare(runs, STATS, published("an2017"), **extra), rows)
    return table, rows.set_index("claim_id")["verdict"].to_dict()


def test_fig1_verdicts():
    from graphrepro.experiments.an2017 import dense_run

    times = {1: 9.0, 2: 6.0, 4: 5.0, 8: 5.5, 16: 7.0, 32: 9.0, 64: 12.0}
    rows = [(g, dense_run(k), t * scale, 1.0) for g, scale in (("d1k", 1), ("d4k", 4))
            for k, t in times.items()]
    rows[-1] = ("d4k", dense_run(64), 1.0, 1.0)  # at 4096 vertices, 64 edges per thread wins
    table, v = judged("an2017_fig1", _runs(rows))
    # pooled over the graphs, each relative to its own mean, 4 edges per thread is still best
    assert v["a.fig1.best"] == "reproduced"
    assert v["a.fig1.vertices"] == "not testable here"  # two sizes fit no trend
    assert set(table["verdict"]) == {"reproduced", "not testable here"}
    assert "falls then rises" in table.iloc[0]["note"]


def test_fig2_coalescing_and_transfer_verdicts():
    from graphrepro.experiments.an2017 import BASIC, dense_run

    runs = _runs([("d1k", BASIC, 2.0, 2.0), ("d1k", "an_bf_incoming", 5.0, 2.0),
                  ("d1k", "an_bf_outgoing", 50.0, 2.0), ("d1k", "an_bf_edgelist", 3.0, 2.0)])
    _, v = judged("an2017_fig2", runs)
    assert v == {"a.fig2.pull": "reproduced", "a.fig2.edge": "reproduced",
                 "a.fig2.atomics": "not testable here",  # its control did not run
                 "a.s43.edgelist": "reproduced"}  # the edge list's 3 ms against incoming's 5
    # with the control: outgoing 50, without atomics 10, incoming 5: 40 of the 45 the atomics'
    runs = _runs([("d1k", BASIC, 2.0, 2.0), ("d1k", "an_bf_incoming", 5.0, 2.0),
                  ("d1k", "an_bf_outgoing", 50.0, 2.0), ("d1k", "an_bf_edgelist", 3.0, 2.0),
                  ("d1k", "an_bf_outgoing@atomics=0", 10.0, 2.0)])
    _, v = judged("an2017_fig2", runs)
    assert v["a.fig2.atomics"] == "reproduced"

    runs = _runs([("d1k", dense_run(4), 2.0, 1.0), ("d1k", dense_run(4, "chunked"), 3.0, 1.0),
                  ("d1k", dense_run(4, "transposed"), 1.0, 1.0)])
    _, v = judged("an2017_coalescing", runs)
    assert v == {"a.coal": "not reproduced"}  # transposed beats coalesced on d1k

    bench = pd.DataFrame({"graph": ["d1k", "d4k"] * 2, "vertices": [1024, 4096] * 2,
                          "matrix_bytes": [4 << 20, 64 << 20] * 2, "status": ["ok"] * 4,
                          "pageable_ms": [1.0, 12.0, 1.1, 12.5], "pinned_ms": [0.5, 3.0] * 2,
                          "solve_ms": [2.0, 4.0] * 2,
                          # defect 5: d1k saves 0.3 ms in one trial and loses 0.2 in the other
                          "two_stream_ms": [2.2, 6.0, 2.7, 6.1]})
    runs = _runs([("d1k", BASIC, 2.0, 2.1), ("d4k", BASIC, 4.0, 12.0)])
    table, v = judged("an2017_transfers", runs, benchmarks={"an2017_transfers": bench})
    assert v["a.t41.share"] == "not reproduced"  # the largest share, 75%, against almost 50%
    assert v["a.t41.pinned"] == "reproduced"
    assert v["a.t41.grows"] == "not testable here"  # two sizes fit no trend
    assert v["a.t41.streams"] == "inconclusive"  # d1k's saving is inside its trials' spread
    assert v["a.t41.second_half"] == "not testable here"  # no second-phase counter
    assert "not counted" in table[table["claim_id"] == "a.t41.second_half"]["ours"].iloc[0]


def test_targets_say_not_run_without_a_gpu():
    from graphrepro.harness.measure import NOT_RUN_NO_GPU

    runs = pd.DataFrame([{"graph": "d1k", "solver": "an_bf_dense", "variant": "x",
                          "status": NOT_RUN_NO_GPU, "source": 1, "trial": None, "params": "{}"}])
    bench = pd.DataFrame([{"graph": "d1k", "vertices": 1024, "status": NOT_RUN_NO_GPU}])
    for name in ("an2017_fig1", "an2017_coalescing", "an2017_fig2", "an2017_transfers"):
        extra = {"benchmarks": {"an2017_transfers": bench}} if name == "an2017_transfers" else {}
        table, v = judged(name, runs, **extra)
        assert len(table) and set(table["verdict"]) == {"not testable here"}, name
        assert set(v.values()) == {"not testable here"}, name
        assert (table["ours"] == NOT_RUN_NO_GPU).all()
        assert (table["published"] != "").all(), name


def test_published_claims_are_transcribed_once():
    from graphrepro.experiments import all_targets, published

    pub = published("an2017")
    items = {t.item for t in all_targets() if t.document == "an2017"}
    assert set(pub["item"]) == items
    assert not [t for t in all_targets() if t.document == "an2017" and not t.ready]


# --- the workflow's dense-graph path, without a GPU ---------------------------------------------

CONFIG = """\
results: results
report: reports/index.html
reference: {reference}
seed: 1
measure: {{sources: 2, trials: 1, warmup: 0}}
graphs:
  dense_16:
    dense: {{vertices: 16, seed: 1}}
targets:
  an2017_transfers: {{graphs: [dense_16]}}
"""


@pytest.mark.slow
def test_workflow_makes_dense_descriptors_and_the_transfer_table(tmp_path):
    (tmp_path / "config.yaml").write_text(CONFIG.format(reference=tmp_path / "none"))
    # No simulator here: without a GPU the GPU steps write "not run" rows, which is what CI's main
    # job sees; on a GPU machine they measure, and the claims are judged
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0",
           "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
         "--cores", "2", "--configfile", str(tmp_path / "config.yaml"),
         "--replace-workflow-config"],
        capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    res = tmp_path / "results"
    assert is_dense_file(res / "graphs" / "dense_16.npz")
    assert not (res / "graphs" / "dense_16.gr").exists()
    sources = json.loads((res / "sources" / "dense_16.json").read_text())
    assert sources["stats"]["arcs"] == 16 * 15
    bench = pd.read_csv(res / "benchmarks" / "an2017_transfers.csv")
    assert bench["graph"].tolist() == ["dense_16"]
    transfers = pd.read_csv(res / "targets" / "an2017_transfers.csv")
    ledger = pd.read_csv(tmp_path / "reports" / "claims.csv")
    verdicts = set(ledger[ledger["target"] == "an2017_transfers"]["verdict"])
    if real_cuda_device():
        assert "not testable here" not in set(transfers["verdict"]) and verdicts <= set(VERDICTS)
    else:
        assert set(transfers["verdict"]) == verdicts == {"not testable here"}
    html = (tmp_path / "reports" / "index.html").read_text()
    assert "an2017_transfers" in html


# --- the no-atomics control (issue 30: "the gap is due to the atomic operations") --------------

@needs_cuda
@pytest.mark.parametrize("graph_case", list(GRAPH_CASES))
def test_outgoing_without_atomics_matches_reference(graph_case):
    graph, source = GRAPH_CASES[graph_case]
    result = get_solver("an_bf_outgoing").prepare(graph, atomics=0, threads_per_block=8).solve(
        source, count=True)
    np.testing.assert_array_equal(result.distances, solve(graph, source))
    c = result.counters
    assert c["atomics"] == 0 and c["arcs_relaxed"] > 0
    # the repair's pass from every vertex is counted: at least one round more than with atomics
    with_atomics = get_solver("an_bf_outgoing").prepare(graph, threads_per_block=8).solve(
        source, count=True).counters
    assert c["iterations"] >= with_atomics["iterations"] + 1
    assert c["host_round_trips"] == c["iterations"]


@needs_cuda
def test_outgoing_without_atomics_repairs_a_lost_update():
    """A plain write can leave a vertex above its distance (a larger candidate written over a
    smaller one); the simulator runs threads one by one, so the race is planted by hand: the
    repair's pass from every vertex must bring the distances back to Dijkstra's."""
    graph, source = GRAPH_CASES["dense_complete"]
    expected = solve(graph, source)
    prepared = get_solver("an_bf_outgoing").prepare(graph, atomics=0, threads_per_block=8)
    prepared.solve(source)
    lost = expected.copy()
    victims = [v for v in range(graph.num_vertices) if v != source][:3]
    lost[victims] += 7  # still path lengths' upper bounds, as a lost update leaves them
    prepared.dist.copy_to_device(lost, stream=prepared.stream)
    tally = {"iterations": 0, "kernel_launches": 0, "host_round_trips": 0}
    prepared.repair(prepared.stream, False, prepared.n, tally)
    np.testing.assert_array_equal(prepared.dist.copy_to_host(stream=prepared.stream), expected)
    assert tally["iterations"] >= 2  # the pass that found them, and the one that found nothing


def test_outgoing_atomics_parameter_is_checked():
    with pytest.raises(InputError, match="atomics must be 1"):
        get_solver("an_bf_outgoing").prepare(DenseGraph(4), atomics=2)
