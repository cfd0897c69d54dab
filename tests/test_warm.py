"""Fixed costs once per worker (issue 57, item 5): a job's GPU kernels compile on a thread of
their own while its graph loads, an error there fails the job by name, and every worker of a GPU
host's run shares one numba cache."""

from __future__ import annotations

import json

import pytest

from graphrepro import placement
from graphrepro.harness import warm


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(warm, "_COMPILED", set())
    monkeypatch.setenv("GRAPHREPRO_WARMUP", "once")
    # the simulator compiles nothing, so a run there skips the thread; here it is the subject
    monkeypatch.setattr(warm, "compiles_here", lambda: True)


def test_the_compile_thread_runs_joins_and_compiles_each_setting_once_a_process(fresh):
    # lbr: the GPU solver quickest under the simulator; dijkstra, a CPU one, compiles nothing
    job = warm.precompile([("lbr", {}), ("dijkstra", {})])
    assert job is not None and [r for r, *_ in job.todo] == ["lbr"]
    assert job.join() >= 0.0 and not job.thread.is_alive()
    assert job.compiled == ["lbr"] and job.seconds > 0
    again = warm.precompile([("lbr", {})])
    assert again.todo == [] and again.join() == pytest.approx(0.0, abs=0.01)
    assert [r for r, *_ in warm.Precompile([("lbr@k=2", {})]).todo] == ["lbr@k=2"]  # its own


def test_an_error_in_the_compile_thread_fails_the_job_naming_the_run(fresh, monkeypatch):
    monkeypatch.setattr(warm, "STANDIN_SIDE", 0)  # the stand-in cannot be made
    job = warm.precompile([("harish", {})])
    with pytest.raises(RuntimeError, match=r"compiling harish's kernels .* rows and cols must be "
                                           "positive"):
        job.join()
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
    out = tmp_path / "lbr.csv"
    assert main(["run", str(gr), "--solver", "lbr", "--sources", str(src), "--trials", "1",
                 "--warmup", "0", "--anchor-repeats", "0", "--shard", "0/3", "--count-sources", "0",
                 "--output", str(out)]) == 0
    job = json.loads(out.with_suffix(".provenance.json").read_text())["job"]
    assert job["precompiled"] == ["lbr"] and job["precompile_s"] > 0
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
