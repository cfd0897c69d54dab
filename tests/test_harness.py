"""The measurement harness: seeded sources, tidy run tables, verification of every pass, provenance.

Harish runs in the CUDA simulator (conftest.py), so its graphs stay at a few dozen vertices.
"""

import datetime as dt
import re
import uuid

import numpy as np
import pytest

from graphrepro import gpu, verify
from graphrepro.errors import VerificationError
from graphrepro.graph.csr import CSRGraph
from graphrepro.graph.generate import road_grid
from graphrepro.harness import RunSpec, draw_sources, measure, provenance
from graphrepro.harness.measure import NOT_RUN_NO_GPU
from graphrepro.solvers import INF, base
from graphrepro.solvers.base import SolveResult


needs_cuda = pytest.mark.skipif(not gpu.cuda_available(),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not 1")

def run_spec(graph, solver, sources, **kwargs):
    """A RunSpec for internal-id sources, with the reference digests the workflow would store."""
    digests = [verify.digest(verify.reference_distances(graph, int(s))) for s in sources]
    return RunSpec(solver, [int(s) for s in sources], digests, **kwargs)


def quiet(_message):
    pass


# --- sources -----------------------------------------------------------------------------------

def test_draw_sources_is_deterministic_by_seed():
    graph = road_grid(10, 10, keep=0.7, seed=1)
    first = draw_sources(graph, 8, seed=42)
    assert np.array_equal(first, draw_sources(graph, 8, seed=42))
    assert not np.array_equal(first, draw_sources(graph, 8, seed=43))


def test_draw_sources_are_distinct_and_have_out_arcs():
    # Even vertices have an out-arc, odd ones none: asking for more sources than there are
    # candidates gives every candidate once, and never a vertex without an out-arc.
    n = 20
    graph = CSRGraph.from_arcs(n, np.arange(0, n, 2), np.arange(1, n, 2), np.ones(n // 2), base=1)
    sources = draw_sources(graph, 50, seed=0)
    assert len(sources) == n // 2
    assert len(set(sources.tolist())) == len(sources)
    assert np.all(graph.out_degrees()[sources] > 0)


def test_draw_sources_on_a_graph_without_arcs_falls_back_to_any_vertex():
    graph = CSRGraph.from_arcs(4, [], [], [], base=1)
    assert sorted(draw_sources(graph, 10, seed=0).tolist()) == [0, 1, 2, 3]


# --- measure -----------------------------------------------------------------------------------

def test_measure_dijkstra_gives_one_ok_row_per_trial_and_source(tiny_graph):
    sources = draw_sources(tiny_graph, 3, seed=5)
    table = measure(tiny_graph, run_spec(tiny_graph, "dijkstra", sources, trials=4, warmup=1),
                    log=quiet)
    assert len(table) == 4 * 3
    assert (table["status"] == "ok").all()
    assert (table[["graph", "solver", "device", "document"]].drop_duplicates().values.tolist()
            == [["tiny", "dijkstra", "cpu", "reference"]])
    # Sources are reported in the file's numbering (tiny counts from 1, as DIMACS does).
    assert table["source"].tolist() == np.repeat(sources + 1, 4).tolist()
    assert table["trial"].tolist() == [0, 1, 2, 3] * 3
    for column in ("upload_ms", "solve_ms", "download_ms"):
        assert (table[column] >= 0).all()
    assert (table["arcs_relaxed"] > 0).all()


@needs_cuda
def test_measure_harish_records_its_counters():
    graph = road_grid(5, 8, keep=0.8, seed=2, name="grid40")
    sources = draw_sources(graph, 2, seed=1)
    table = measure(graph, run_spec(graph, "harish", sources, trials=1, warmup=0), log=quiet)
    assert len(table) == 2
    assert (table["status"] == "ok").all()
    assert (table["device"] == "gpu").all()
    if gpu.simulated():
        assert (table["device_name"] == "CUDA simulator").all()
    # One initialisation launch, then two kernels and one read of the flag per iteration: what
    # safari2017 Table 2 charges Harish et al. with.
    assert (table["iterations"] >= 1).all()
    assert (table["kernel_launches"] == 1 + 2 * table["iterations"]).all()
    assert (table["host_round_trips"] == table["iterations"]).all()
    assert (table["arcs_relaxed"] > 0).all()
    assert (table["static_atomic_statements"] == 1).all()
    assert (table["static_kernels_per_iteration"] == 2).all()
    assert (table["device_bytes"] > graph.nbytes()).all()


def test_measure_without_cuda_marks_gpu_rows_not_run(monkeypatch, tiny_graph):
    monkeypatch.setattr(gpu, "cuda_available", lambda: False)
    sources = draw_sources(tiny_graph, 2, seed=0)
    messages = []
    table = measure(tiny_graph, run_spec(tiny_graph, "harish", sources, trials=3),
                    log=messages.append)
    assert len(table) == 2  # one row per source, no trials
    assert (table["status"] == NOT_RUN_NO_GPU).all()
    assert table["status"].iloc[0] == "not run: no CUDA device"
    assert (table["device_name"] == "none").all()
    assert table["source"].tolist() == (sources + 1).tolist()
    assert any(NOT_RUN_NO_GPU in m for m in messages)


def test_measure_without_cuda_still_runs_cpu_solvers(monkeypatch, tiny_graph):
    monkeypatch.setattr(gpu, "cuda_available", lambda: False)
    table = measure(tiny_graph, run_spec(tiny_graph, "dijkstra", [0], trials=1), log=quiet)
    assert table["status"].tolist() == ["ok"]


@pytest.fixture
def off_by_one_solver():
    """A registered CPU solver that answers one too much at the highest-numbered reachable vertex
    other than the source; removed from the registry afterwards so no other test sees it."""
    name = f"off_by_one_{uuid.uuid4().hex[:8]}"

    class Wrong:
        upload_ms = 0.0
        device_bytes = 0

        def __init__(self, graph):
            self.graph = graph

        def solve(self, source, *, count=False):
            dist = verify.reference_distances(self.graph, source).copy()
            reachable = np.flatnonzero((dist != INF) & (np.arange(len(dist)) != source))
            dist[reachable[-1]] += 1
            return SolveResult(dist, 0.0)

    base.register(name, device="cpu", document="reference",
                  description="deliberately wrong, for the harness tests")(Wrong)
    yield name
    base._REGISTRY.pop(name, None)


def test_a_wrong_answer_raises_naming_graph_source_vertex_expected_and_got(off_by_one_solver):
    # Labels that are not internal id + 1 show the message speaks the file's numbering.
    labels = [10, 20, 30, 40, 50]
    graph = CSRGraph.from_arcs(5, [0, 1, 2, 0], [1, 2, 3, 4], [5, 6, 7, 100], labels=labels,
                               name="labelled")
    # From 10: 20 at 5, 30 at 11, 40 at 18, 50 at 100; the wrong solver says 101 for 50.
    with pytest.raises(VerificationError) as caught:
        measure(graph, run_spec(graph, off_by_one_solver, [0], trials=1, warmup=0), log=quiet)
    message = str(caught.value)
    assert re.fullmatch(
        rf"WRONG ANSWER: {off_by_one_solver} on labelled, source 10: 1 of 5 distances differ; "
        r"first at vertex 50: expected 100, got 101", message), message


def test_a_wrong_answer_in_warmup_raises_too(off_by_one_solver, tiny_graph):
    spec = run_spec(tiny_graph, off_by_one_solver, [0], trials=0, warmup=1)
    with pytest.raises(VerificationError, match="WRONG ANSWER"):
        measure(tiny_graph, spec, log=quiet)


@pytest.fixture
def recording_solvers():
    """Two registered CPU solvers (right answers) that write each solve into one shared log."""
    calls, names = [], [f"rec_{c}_{uuid.uuid4().hex[:6]}" for c in "ab"]

    def make(name):
        class Recording:
            upload_ms = 0.0
            device_bytes = 0

            def __init__(self, graph):
                self.graph = graph

            def solve(self, source, *, count=False):
                calls.append((name, int(source)))
                return SolveResult(verify.reference_distances(self.graph, source), 1.0)

        return Recording

    for n in names:
        base.register(n, device="cpu", document="reference", description="records its calls")(make(n))
    yield names, calls
    for n in names:
        base._REGISTRY.pop(n, None)


def test_interleaved_runs_take_turns_per_source_and_trial(recording_solvers, tiny_graph):
    """Issue 30, item 4: trial t of each competing run back to back at each source (order
    rotated each trial), so a drift of the machine hits them alike."""
    from graphrepro.errors import InputError
    from graphrepro.harness import measure_interleaved

    (a, b), calls = recording_solvers
    sources = [0, 1]
    specs = [run_spec(tiny_graph, r, sources, trials=3, warmup=1) for r in (a, b)]
    tables = measure_interleaved(tiny_graph, specs, log=quiet)
    timed = calls[2:]  # after one warm-up each
    assert timed == [(a, 0), (b, 0), (b, 0), (a, 0), (a, 0), (b, 0),
                     (a, 1), (b, 1), (b, 1), (a, 1), (a, 1), (b, 1)]
    for r, table in zip((a, b), tables):
        assert list(table["variant"].unique()) == [r]
        assert list(zip(table["source"], table["trial"])) == [
            (int(tiny_graph.label_of(s)), t) for s in sources for t in range(3)]
        assert set(table["interleaved"]) == {f"{a}|{b}"}
    # one run alone is measure() as before: no interleaved column
    assert "interleaved" not in measure(tiny_graph, specs[0], log=quiet).columns
    with pytest.raises(InputError, match="share sources"):
        measure_interleaved(tiny_graph, [specs[0], run_spec(tiny_graph, b, [0], trials=3)], log=quiet)


def test_the_wrong_solver_is_gone_after_its_test():
    assert not [name for name in base._REGISTRY if name.startswith("off_by_one_")]


# --- verify ------------------------------------------------------------------------------------

def test_digest_is_stable():
    # Reference digests are committed with reference runs (sources JSON): a change in the hash,
    # its width or the byte layout would make every stored digest disagree.
    distances = np.array([0, 3, 1, 8, INF], dtype=np.int64)
    assert verify.digest(distances) == "7a34c7b8d2e0cef6dd90cba41e2478a3"
    # ... whatever the array's dtype, byte order or memory layout, for the same values
    assert verify.digest(distances.astype(">i8")) == verify.digest(distances)
    assert verify.digest(np.array([0, 3, 1, 8], dtype=np.int32)) == verify.digest(distances[:4])
    strided = np.repeat(distances, 2)[::2]
    assert not strided.flags["C_CONTIGUOUS"]
    assert verify.digest(strided) == verify.digest(distances)
    assert verify.digest(distances[:4]) != verify.digest(distances)


def test_check_accepts_a_right_answer_by_digest_or_by_recomputing(tiny_graph):
    right = verify.reference_distances(tiny_graph, 0)
    verify.check(tiny_graph, 0, right, solver="x", expected_digest=verify.digest(right))
    verify.check(tiny_graph, 0, right, solver="x")
    with pytest.raises(VerificationError, match="returned"):
        verify.check(tiny_graph, 0, right[:-1], solver="x")


def test_check_shows_inf_for_unreachable(tiny_graph):
    got = verify.reference_distances(tiny_graph, 0).copy()
    assert got[4] == INF  # nothing reaches vertex 5
    got[4] = 7
    with pytest.raises(VerificationError, match="first at vertex 5: expected inf, got 7"):
        verify.check(tiny_graph, 0, got, solver="x")


# --- provenance --------------------------------------------------------------------------------

def test_provenance_has_what_a_reader_needs():
    record = provenance({"trials": 3})
    for key in ("date", "host", "cpu", "gpu", "packages", "commit"):
        assert key in record
    assert dt.datetime.fromisoformat(record["date"]).tzinfo is not None
    assert {"graphrepro", "numpy", "numba"} <= set(record["packages"])
    assert record["commit"]
    assert record["config_hash"] == provenance({"trials": 3})["config_hash"]
    assert record["config_hash"] != provenance({"trials": 4})["config_hash"]
    if gpu.simulated():
        assert record["gpu"] == "CUDA simulator"


def test_provenance_commit_can_come_from_the_environment(monkeypatch):
    # A tree copied to a GPU machine without its .git still records where it came from.
    monkeypatch.setenv("GRAPHREPRO_COMMIT", "abc123")
    assert provenance()["commit"] == "abc123"


def test_a_runs_name_goes_into_every_record_and_names_its_rows(monkeypatch, tmp_path):
    # config `run_name` (the Snakefile puts it in the environment of every job it starts)
    import json

    from graphrepro.report.tables import load_runs

    assert provenance()["run_name"] is None
    monkeypatch.setenv("GRAPHREPRO_RUN_NAME", "run 3")
    record = provenance()
    assert record["run_name"] == "run 3"
    table = tmp_path / "runs" / "g" / "dijkstra.csv"
    table.parent.mkdir(parents=True)
    table.write_text("graph,solver,variant,device,document,params,source,trial,status,"
                     "device_name,solve_ms\ng,dijkstra,dijkstra,cpu,x,{},1,0,ok,cpu,1.0\n")
    table.with_suffix(".provenance.json").write_text(json.dumps(
        {**record, "date": "2026-11-26T16:00:00+00:00", "commit": "0123456789"}))
    assert load_runs([table])["run"].tolist() == ["run 3 2026-11-26 0123456"]
