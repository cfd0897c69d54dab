"""Warm-up once per worker and kernel (harness/warm.py, issue 57 items 3 and 5): a worker asked to
(GRAPHREPRO_WARMUP=once) warms each solver setting on a graph in its first job only; a job's GPU
kernels compile on a thread of their own while its graph loads, an error there fails the job by
name, and every worker of a GPU host's run shares one numba cache."""

import json
import threading

import pytest

from graphrepro import placement, verify
from graphrepro.graph.generate import road_grid
from graphrepro.harness import RunSpec, measure
from graphrepro.harness import warm


def _job(graph, solver="dijkstra"):
    sources = [0, 5]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in sources]
    phases: dict = {}
    logged = []
    measure(graph, RunSpec(solver, sources, digests, trials=1, warmup=1), log=logged.append,
            phases=phases)
    return phases, logged


def test_a_worker_warms_each_setting_once_and_says_so(monkeypatch):
    monkeypatch.setattr(warm, "_WARMED", set())
    graph = road_grid(6, 6, seed=1, name="warm_grid")
    monkeypatch.setenv("GRAPHREPRO_IN_WORKER", "1")
    monkeypatch.setenv("GRAPHREPRO_WARMUP", "once")
    first, _ = _job(graph)
    second, logged = _job(graph)
    assert "warmup_reused" not in first and first["warmup_s"] > 0
    assert second["warmup_reused"] == 1 and second["warmup_s"] == 0
    assert any("warm-up reused" in line for line in logged)
    other, _ = _job(graph, "bellman_ford")  # another kernel: its own warm-up
    assert "warmup_reused" not in other


def test_outside_a_worker_or_unasked_every_job_warms_up(monkeypatch):
    monkeypatch.setattr(warm, "_WARMED", set())
    graph = road_grid(6, 6, seed=1, name="warm_grid")
    monkeypatch.setenv("GRAPHREPRO_WARMUP", "once")
    monkeypatch.delenv("GRAPHREPRO_IN_WORKER", raising=False)
    _job(graph)
    assert "warmup_reused" not in _job(graph)[0]
    monkeypatch.setenv("GRAPHREPRO_IN_WORKER", "1")
    monkeypatch.delenv("GRAPHREPRO_WARMUP")
    assert "warmup_reused" not in _job(graph)[0]


def test_the_counting_pass_runs_only_for_the_sources_asked(monkeypatch):
    from graphrepro import gpu
    from graphrepro.solvers import base
    from graphrepro.solvers.base import SolveResult

    class Counted:
        """A GPU solver stand-in (the simulator is too slow here): its counters come only from
        a counting pass."""
        upload_ms, device_bytes = 0.0, 0
        passes: list = []

        def __init__(self, graph):
            self.graph = graph

        def solve(self, source, *, count=False):
            Counted.passes.append((source, count))
            return SolveResult(verify.reference_distances(self.graph, source), 1.0,
                               counters={"arcs_relaxed": 7} if count else {})

    monkeypatch.setattr(gpu, "cuda_available", lambda: True)
    monkeypatch.setattr(gpu, "device_name", lambda: "stand-in")
    base.load_all()
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))  # this test's solver: its own
    base.register("counted_stand_in", device="gpu", document="reference",
                  description="a GPU stand-in for the counting-pass test")(Counted)
    graph = road_grid(6, 6, seed=1, name="count_grid")
    sources = [0, 5, 9]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in sources]
    table = measure(graph, RunSpec("counted_stand_in", sources, digests, trials=1, warmup=0,
                                   count_sources=1), log=lambda m: None)
    assert (table["status"] == "ok").all()
    assert table["arcs_relaxed"].notna().tolist() == [True, False, False]
    assert [s for s, count in Counted.passes if count] == [0]  # one counting pass in all



class Compiled:
    """A GPU solver stand-in (the simulator is too slow here) that says which thread solved."""
    upload_ms, device_bytes = 0.0, 0
    threads: list = []

    def __init__(self, graph, fail=0):
        if fail:
            raise RuntimeError("no such kernel")
        self.graph = graph

    def solve(self, source, *, count=False):
        from graphrepro.solvers.base import SolveResult

        Compiled.threads.append(threading.current_thread().name)
        return SolveResult(verify.reference_distances(self.graph, source), 1.0)


@pytest.fixture
def fresh(monkeypatch):
    from graphrepro import gpu
    from graphrepro.solvers import base

    monkeypatch.setattr(warm, "_COMPILED", set())
    monkeypatch.setenv("GRAPHREPRO_WARMUP", "once")
    # the simulator compiles nothing, so a run there skips the thread; here it is the subject
    monkeypatch.setattr(warm, "compiles_here", lambda: True)
    monkeypatch.setattr(gpu, "cuda_available", lambda: True)
    monkeypatch.setattr(gpu, "device_name", lambda: "stand-in")
    base.load_all()
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))  # this test's solver: its own
    base.register("compiled_stand_in", device="gpu", document="reference", defaults={"fail": 0},
                  description="a GPU stand-in for the compile thread's tests")(Compiled)
    Compiled.threads = []


def test_the_compile_thread_runs_joins_and_compiles_each_setting_once_a_process(fresh):
    # dijkstra, a CPU solver, compiles nothing
    job = warm.precompile([("compiled_stand_in", {}), ("dijkstra", {})])
    assert job is not None and [r for r, *_ in job.todo] == ["compiled_stand_in"]
    assert job.join() >= 0.0 and not job.thread.is_alive()
    assert job.compiled == ["compiled_stand_in"] and Compiled.threads == ["graphrepro-precompile"]
    again = warm.precompile([("compiled_stand_in", {})])
    assert again.todo == [] and again.join() == pytest.approx(0.0, abs=0.01)
    assert Compiled.threads == ["graphrepro-precompile"]  # once a process


def test_an_error_in_the_compile_thread_fails_the_job_naming_the_run(fresh, monkeypatch):
    job = warm.precompile([("compiled_stand_in@fail=1", {})])
    with pytest.raises(RuntimeError, match=r"compiling compiled_stand_in@fail=1's kernels on a "
                                           r"6x6 stand-in graph .* no such kernel"):
        job.join()
    monkeypatch.setattr(warm, "STANDIN_SIDE", 0)  # the stand-in itself cannot be made
    with pytest.raises(RuntimeError, match="compiling compiled_stand_in's kernels .* rows and "
                                           "cols must be positive"):
        warm.precompile([("compiled_stand_in", {})]).join()
    assert warm._COMPILED == set()


def test_off_unless_asked_and_off_under_the_simulator(monkeypatch):
    monkeypatch.setenv("GRAPHREPRO_WARMUP", "each")
    assert warm.precompile([("harish", {})]) is None
    monkeypatch.setenv("GRAPHREPRO_WARMUP", "once")
    from graphrepro import gpu

    monkeypatch.setattr(gpu, "cuda_available", lambda: True)
    monkeypatch.setattr(gpu, "simulated", lambda: True)
    assert warm.precompile([("harish", {})]) is None


def test_a_workers_first_job_compiles_every_gpu_run_of_the_config(fresh, monkeypatch):
    monkeypatch.setenv("GRAPHREPRO_PRECOMPILE", json.dumps(["harish", "lbr@k=2"]))
    assert warm.worker_runs() == []  # a job of its own: its own runs only
    monkeypatch.setenv("GRAPHREPRO_IN_WORKER", "1")
    job = warm.Precompile([("lbr@k=2", {}), *warm.worker_runs()])
    assert [r for r, *_ in job.todo] == ["lbr@k=2", "harish"]  # each setting once
    assert [r for r, *_ in warm.Precompile([("lbr@k=4", {}), ("lbr", {})]).todo] == ["lbr@k=4"]
    monkeypatch.setenv("GRAPHREPRO_PRECOMPILE", "harish")
    with pytest.raises(ValueError, match="GRAPHREPRO_PRECOMPILE: not a JSON list"):
        warm.worker_runs()


def test_a_run_records_what_it_compiled_while_its_graph_loaded(fresh, tmp_path):
    from graphrepro.cli import main
    from test_hostile_input import _graph_and_sources

    gr, src = _graph_and_sources(tmp_path, 1, "g")
    out = tmp_path / "stand_in.csv"
    assert main(["run", str(gr), "--solver", "compiled_stand_in", "--sources", str(src),
                 "--trials", "1", "--warmup", "0", "--anchor-repeats", "0",
                 "--output", str(out)]) == 0
    job = json.loads(out.with_suffix(".provenance.json").read_text())["job"]
    assert job["precompiled"] == ["compiled_stand_in"] and job["precompile_s"] > 0
    assert Compiled.threads[0] == "graphrepro-precompile"  # before the job's own solves
    assert job["precompile_wait_s"] >= 0


def test_every_worker_of_a_gpu_hosts_run_shares_one_numba_cache(monkeypatch, tmp_path):
    from graphrepro import client

    env = {"GRAPHREPRO_GPUS": "0,1"}
    timed, rest, slots, why = placement.host_split(range(8), 2)
    placement.export_host_split(env, 2, timed, rest, slots, why)
    assert env["NUMBA_CACHE_DIR"] == str(placement.numba_cache_dir())
    assert env["GRAPHREPRO_WARMUP"] == "once"
    for key in ("NUMBA_CACHE_DIR", "GRAPHREPRO_WARMUP"):
        monkeypatch.setenv(key, env[key])
    started = []
    monkeypatch.setattr(client.subprocess, "Popen", lambda argv, env, **kw: started.append(env))
    for device in ("0", "1"):
        client.start_worker(device, tmp_path / f"worker-{device}.sock")
    assert [e["NUMBA_CACHE_DIR"] for e in started] == [env["NUMBA_CACHE_DIR"]] * 2
    assert all(e["GRAPHREPRO_IN_WORKER"] == "1" and e["GRAPHREPRO_WARMUP"] == "once"
               for e in started)
