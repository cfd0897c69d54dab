"""The whole study on one GPU host (issue 31), tested without GPUs: cores split and pinned,
references in parallel, the plan, the deadline gate, the time-boxed resumable call, and every
documented SLURM `slurm_extra` through the SLURM plugin's own validator."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from graphrepro import placement, verify
from graphrepro.cli import main
from graphrepro.graph import generate
from graphrepro.harness import draw_sources
from graphrepro.plan import PlannedRun, plan, plan_runs, schedule

REPO = Path(__file__).resolve().parents[1]


# ---- cores ---------------------------------------------------------------------------------

def test_cpu_lists_round_trip_and_bad_ones_are_refused():
    assert placement.parse_cpu_list("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]
    assert placement.cpu_list_text([0, 1, 2, 3, 8, 10, 11]) == "0-3,8,10-11"
    for bad in ("a", "3-1", "1-x"):
        with pytest.raises(ValueError):
            placement.parse_cpu_list(bad)


def test_split_cores_keeps_the_last_for_timings_and_one_for_the_rest():
    timed, rest = placement.split_cores(range(64), 16)
    assert timed == list(range(48, 64)) and rest == list(range(48))
    assert placement.split_cores([0, 1], 8) == ([1], [0])  # at least one core each
    with pytest.raises(ValueError):
        placement.split_cores([0], 1)


def test_a_process_pins_itself_to_its_share(monkeypatch):
    allowed = sorted(os.sched_getaffinity(0))
    try:
        env = {"GRAPHREPRO_UNTIMED_CPUS": str(allowed[0]),
               "GRAPHREPRO_TIMED_CPUS": str(allowed[-1])}
        assert placement.pin_cpus(env) == [allowed[0]]
        assert os.sched_getaffinity(0) == {allowed[0]}
        os.sched_setaffinity(0, allowed)
        assert placement.pin_cpus({**env, "GRAPHREPRO_PIN": "timed"}) == [allowed[-1]]
        assert os.sched_getaffinity(0) == {allowed[-1]}
        assert placement.placement_record({})["cpu_affinity"] == str(allowed[-1])
        assert placement.pin_cpus({}) is None  # no split: nothing done
    finally:
        os.sched_setaffinity(0, allowed)
        placement._held.pop("pinned", None)


def test_the_hosts_tokens_let_every_gpu_and_every_cpu_slot_time_at_once():
    # each timed job holds one `timing` token (common.smk timed_resources); a build holds all
    for gpus, slots in ((2, 16), (2, 1), (0, 4), (8, 3)):
        tokens = placement.host_resources(gpus, slots)
        assert tokens == {"gpu": gpus, "timing": gpus + slots, "cpu_timed": slots}
        one_each = gpus * 1 + slots * 1  # every GPU job and every one-core shard side by side
        assert one_each <= tokens["timing"]
    assert placement.host_resources(2, 0)["cpu_timed"] == 1  # one CPU timing at the least


def test_one_core_timings_side_by_side_each_lock_a_core_of_their_own(tmp_path, monkeypatch):
    assert placement.slot_cores(range(48, 64), 4) == [48, 52, 56, 60]  # spread over the share
    assert placement.slot_cores([5, 6], 8) == [5, 6]  # at most one slot a core
    allowed = sorted(os.sched_getaffinity(0))
    monkeypatch.setenv("GRAPHREPRO_GPU_LOCKS", str(tmp_path))
    env = {"GRAPHREPRO_PIN": "slot", "GRAPHREPRO_SLOT_CPUS": placement.cpu_list_text(allowed)}
    # another process holds the first slot's lock: this one takes the next core
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
        "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"),
        str(tmp_path / f"cpu-{allowed[0]}.lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        if len(allowed) > 1:
            assert placement.pin_cpus(env) == [allowed[1]]
            assert os.sched_getaffinity(0) == {allowed[1]}
            assert placement.placement_record(env)["cpu_slots"] == len(allowed)
        else:
            with pytest.raises(RuntimeError, match="no free cpu among"):
                placement.pin_cpus(env, wait_s=0.3, poll_s=0.1)
    finally:
        holder.kill()
        os.sched_setaffinity(0, allowed)
        placement._held.pop("pinned", None)
        os.close(placement._held.pop("slot_fd", os.open(os.devnull, os.O_RDONLY)))
    assert placement.placement_record({})["cpu_slots"] is None


def test_only_the_parallel_cpu_baselines_take_every_timed_core():
    from graphrepro.solvers import all_solvers

    parallel = {s.name for s in all_solvers() if s.device == "cpu" and s.parallel}
    assert parallel == {"delta_stepping_par"}


# ---- references in parallel ------------------------------------------------------------------

def test_references_on_many_threads_are_the_serial_ones():
    graph = generate.road_grid(12, 12, keep=0.7, max_weight=50, seed=3)
    sources = [int(s) for s in draw_sources(graph, 9, seed=5)]
    serial, _ = verify.reference_digests(graph, sources, workers=1)
    parallel, ms = verify.reference_digests(graph, sources, workers=4)
    assert parallel == serial == [verify.digest(verify.reference_distances(graph, s))
                                  for s in sources]
    assert len(ms) == len(sources)


def test_the_sources_command_digests_the_same_with_workers(tmp_path):
    graph = generate.road_grid(10, 10, keep=0.8, max_weight=20, seed=1)
    path = tmp_path / "g.npz"
    graph.save(path)
    for w in (1, 3):
        assert main(["sources", str(path), "--count", "5", "--seed", "2", "--workers", str(w),
                     "--output", str(tmp_path / f"s{w}.json")]) == 0
    one, three = (json.loads((tmp_path / f"s{w}.json").read_text()) for w in (1, 3))
    assert one["digests"] == three["digests"] and one["sources"] == three["sources"]


# ---- the plan ----------------------------------------------------------------------------------

def _config(shards=1, sources=10):
    return {"results": "res", "measure": {"sources": sources, "trials": 2, "warmup": 1},
            "graphs": {"g": {"generate": {"kind": "road_grid", "rows": 4, "cols": 4},
                             "shards": shards}},
            "targets": {"safari2017_fig3": {"graphs": ["g"], "runs": ["harish", "dijkstra"]}}}


def _record(path: Path, wall, per_source, sources, shards=1):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("graph,solver,source,status\n")
    job = {"wall_s": wall, "sources": sources, "timed_s": per_source * sources, "count_s": 0.0,
           "verify_s": 0.0}
    rec = {"job": job} if shards == 1 else {"shards": [{"job": job}] * shards}
    path.with_suffix(".provenance.json").write_text(json.dumps(rec))


def test_plan_reads_recorded_wall_times_and_scales_them_by_sources_and_shards(tmp_path):
    res, ref = tmp_path / "res", tmp_path / "ref"
    _record(res / "runs/g/harish.csv", wall=12.0, per_source=1.0, sources=10)  # 2 s fixed
    runs = {r.run_id: r for r in plan_runs(_config(shards=2), ref, res)}
    harish = runs["harish"]
    assert harish.basis == "recorded" and harish.device == "gpu"
    assert harish.fixed_s == pytest.approx(2.0) and harish.per_source_s == pytest.approx(1.0)
    assert harish.job_seconds(10) == pytest.approx([7.0, 7.0])  # two shards of 5 sources
    assert runs["dijkstra"].basis == "unknown" and runs["dijkstra"].device == "cpu"


def test_a_graphs_own_sources_count_scales_its_runs_and_its_references(tmp_path):
    res, ref = tmp_path / "res", tmp_path / "ref"
    _record(res / "runs/g/harish.csv", wall=12.0, per_source=1.0, sources=10)
    config = _config()
    config["graphs"]["g"]["sources"] = 4  # a document's own sample on this graph
    harish = {r.run_id: r for r in plan_runs(config, ref, res)}["harish"]
    assert harish.sources == 4 and harish.job_seconds() == pytest.approx([6.0])
    assert plan(config, 1, 4, ref, res)["reference_cpu_s"] == pytest.approx(4 * 0.5)


def test_an_interleaved_group_is_one_job_whose_seconds_are_its_runs(tmp_path):
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import timeboxed

    res, ref = tmp_path / "res", tmp_path / "ref"
    _record(res / "runs/g/harish.csv", wall=12.0, per_source=1.0, sources=10)   # 12 s
    _record(res / "runs/g/lbr.csv", wall=23.0, per_source=2.0, sources=10)      # 23 s
    config = _config()
    config["targets"]["safari2017_fig3"].update(runs=["harish", "lbr"],
                                                interleave=["harish", "lbr"])
    est = timeboxed._estimates(config, res, ref)
    assert est[os.path.normpath(res / "runs/g/harish.csv")] == pytest.approx(35.0)
    config["graphs"]["g"]["shards"] = 2  # per shard: 2+5 and 3+10 s
    est = timeboxed._estimates(config, res, ref)
    assert est[os.path.normpath(res / "shards/g/harish.1.csv")] == pytest.approx(20.0)
    # the schedule runs the group as one job: on two GPUs it still takes 35 s
    assert plan({**_config(), "targets": config["targets"]}, 2, 8, ref, res)["gpu_end_s"] \
        == pytest.approx(35.0 + plan(_config(), 2, 8, ref, res)["prep_s"])


def test_a_resumed_call_builds_the_peers_first_where_a_peers_run_is_done(tmp_path):
    # built in the timed run instead, the build would be newer than those runs: all redone
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import timeboxed

    (tmp_path / "runs/g").mkdir(parents=True)
    (tmp_path / "runs/g/lbr@k=4+t=2.csv").write_text("x\n")
    assert timeboxed._builds(tmp_path) == []
    (tmp_path / "runs/g/adds.csv").write_text("x\n")
    assert timeboxed._builds(tmp_path) == [timeboxed.PEERS_BUILT]


def test_a_resumed_call_rebuilds_the_terrain_grid_finished_block_shards_read(tmp_path):
    # a grid remade inside the timed run would be newer than every shard made from it: all redone
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import timeboxed

    res = tmp_path / "res"
    (res / "shards/benchmarks").mkdir(parents=True)
    grid = str(res / "terrain/dem.zgrid")
    (res / "shards/benchmarks/m.0.provenance.json").write_text(json.dumps({"settings": {"zgrid": grid}}))
    (res / "shards/benchmarks/m.1.provenance.json").write_text(json.dumps({"settings": {"zgrid": grid}}))
    (res / "shards/benchmarks/damaged.provenance.json").write_text("{")
    (res / "shards/benchmarks/other.provenance.json").write_text(json.dumps({"settings": {"zgrid": "/x.zgrid"}}))
    assert timeboxed._terrains(res) == [grid]


def test_plan_estimates_from_a_committed_table_where_nothing_was_recorded(tmp_path):
    ref = tmp_path / "ref"
    (ref / "runs/g").mkdir(parents=True)
    pd.DataFrame({"graph": "g", "solver": "harish", "source": [1, 1, 2, 2], "trial": [0, 1, 0, 1],
                  "status": "ok", "solve_ms": [100.0, 300.0, 200.0, 200.0]}
                 ).to_csv(ref / "runs/g/harish.csv", index=False)
    harish = {r.run_id: r for r in plan_runs(_config(), ref, tmp_path / "res")}["harish"]
    assert harish.basis == "estimated"
    # median solve 0.2 s a source; 2 trials and the untimed counting pass of a GPU run
    assert harish.per_source_s == pytest.approx(0.6)


def test_the_schedule_spreads_gpu_jobs_over_the_gpus_and_cpu_jobs_on_their_cores():
    runs = [PlannedRun("t", "g", f"r{i}", "gpu", 0.0, 1.0, "recorded", sources=10)
            for i in range(4)]
    runs.append(PlannedRun("t", "g", "c", "cpu", 0.0, 0.5, "recorded", sources=10))
    one = schedule(runs, 1, 4, {"g": 8.0})
    four = schedule(runs, 4, 4, {"g": 8.0})
    assert one["prep_s"] == four["prep_s"] == pytest.approx(2.0)  # 8 CPU-s on 4 threads
    assert one["gpu_end_s"] - 2.0 == pytest.approx(40.0)
    assert four["gpu_end_s"] - 2.0 == pytest.approx(10.0)
    assert four["cpu_end_s"] == pytest.approx(7.0) and four["wall_s"] == pytest.approx(12.0)


def test_one_core_cpu_timings_share_the_slots_and_a_parallel_one_waits_for_all():
    runs = [PlannedRun("t", "g", f"c{i}", "cpu", 0.0, 1.0, "recorded", one_core=True,
                       sources=10) for i in range(4)]
    assert schedule(runs, 1, 4, {}, cpu_slots=1)["cpu_end_s"] == pytest.approx(40.0)
    assert schedule(runs, 1, 4, {}, cpu_slots=4)["cpu_end_s"] == pytest.approx(10.0)
    runs.append(PlannedRun("t", "g", "par", "cpu", 0.0, 0.5, "recorded", sources=10))  # all cores
    assert schedule(runs, 1, 4, {}, cpu_slots=4)["cpu_end_s"] == pytest.approx(15.0)
    assert schedule(runs, 1, 4, {}, cpu_slots=2)["cpu_end_s"] == pytest.approx(25.0)


def test_plan_command_prints_the_wall_time(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({"results": str(tmp_path / "res"),
                                   "measure": {"sources": 4}}))
    assert main(["plan", "--configfile", str(cfg), "--gpus", "2", "--cores", "8",
                 "--json", str(tmp_path / "p.json")]) == 0
    out = capsys.readouterr().out
    assert "expected wall time on 2 GPU(s), 8 cores" in out
    p = json.loads((tmp_path / "p.json").read_text())
    assert p["jobs"] > 0 and p["wall_s"] > 0 and p["gpus"] == 2
    total = plan(yaml.safe_load(cfg.read_text()) | {"targets": {}}, 1, 4, tmp_path)
    assert total["jobs"] == 0 and total["wall_s"] == 0


# ---- the deadline gate -------------------------------------------------------------------------

def test_a_run_that_cannot_end_before_the_deadline_is_not_started(tmp_path, monkeypatch, capsys):
    out = tmp_path / "runs" / "x.csv"
    est = tmp_path / "est.json"
    est.write_text(json.dumps({os.path.normpath(str(out)): 100.0}))
    monkeypatch.setenv("GRAPHREPRO_DEADLINE", str(time.time() + 10))
    monkeypatch.setenv("GRAPHREPRO_ESTIMATES", str(est))
    rc = main(["run", str(tmp_path / "missing.npz"), "--solver", "harish", "--sources",
               str(tmp_path / "s.json"), "--output", str(out)])
    assert rc == 75 and not out.exists()
    assert "not started" in capsys.readouterr().err


# ---- the time-boxed, resumable call --------------------------------------------------------------

def _timeboxed(workdir, *args, targets):
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "GRAPHREPRO_GPUS": "0,1",
           "NUMBA_ENABLE_CUDASIM": "0"}
    # --configfile last, as run 3's call script had it (a path after it is a config)
    return subprocess.run(
        [sys.executable, str(REPO / "workflow" / "scripts" / "timeboxed.py"), *args, "--",
         *targets, "-s", str(REPO / "Snakefile"), "--workflow-profile",
         str(REPO / "workflow" / "profiles" / "gpu-host"), "--cores", "2",
         "--configfile", "tiny.yaml"],
        cwd=workdir, capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.slow
def test_timeboxed_calls_stop_at_the_deadline_and_the_next_one_goes_on(tmp_path):
    (tmp_path / "tiny.yaml").write_text(
        f"results: res\nreport: rep/index.html\nreference: {tmp_path / 'slowref'}\n"
        "measure: {sources: 2, trials: 1, warmup: 0}\n")
    targets = ["res/runs/road_40x40/dijkstra.csv", "res/runs/road_40x40/bfs.csv"]
    # a reference whose records say each run took 10 minutes, and a deadline 2 minutes away:
    # the graph and its sources are made (with time to spare on a loaded machine: a 20 s
    # deadline failed there), and neither run is started
    # (every graph cache left out of the archive: the next call rebuilds it)
    for run in ("dijkstra", "bfs"):
        record = tmp_path / "slowref" / "runs" / "road_40x40" / f"{run}.provenance.json"
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps({"job": {"wall_s": 600.0, "sources": 2}}))
    first = _timeboxed(tmp_path, "--minutes", "2", "--grace-s", "30", "--archive",
                       "out/a.tar.gz", "--max-graph-mb", "0", targets=targets)
    text = first.stdout + first.stderr
    assert first.returncode == 0, text[-4000:]
    assert "(2 left out as too large)" in text  # the graph: its .gr and .npz
    assert "not started" in (tmp_path / "res/logs/runs/road_40x40/bfs.log").read_text()
    assert not (tmp_path / "res/runs/road_40x40/bfs.csv").exists()
    assert (tmp_path / "out/a.tar.gz").is_file() and "(call again with --resume)" in text
    # the next call, on a bare machine: unpack, make the runs, redo nothing done
    fresh = tmp_path / "next"
    fresh.mkdir()
    (fresh / "tiny.yaml").write_text((tmp_path / "tiny.yaml").read_text())
    # (estimates from nowhere: each run 30 s, well inside this call's 5 minutes)
    second = _timeboxed(fresh, "--minutes", "5", "--resume", str(tmp_path / "out/a.tar.gz"),
                        "--archive", "out/b.tar.gz", "--estimate-from", str(fresh / "none"),
                        targets=targets)
    text = second.stdout + second.stderr
    assert second.returncode == 0, text[-4000:]
    assert "rebuilding 2 file(s)" in text
    # the rebuild's own run makes the graph; the timed run after it only the runs
    rebuild, timed = re.findall(r"job\s+count\n[-\s]+\n(.*?)\ntotal", text, re.S)
    assert "run_solver" not in rebuild and "draw_sources" not in rebuild, rebuild
    assert set(re.findall(r"^(\w+)", timed, re.M)) == {"run_solver"}, timed
    for t in targets:
        table = pd.read_csv(fresh / t)
        assert (table["status"] == "ok").all() and table["source"].nunique() == 2
        prov = json.loads((fresh / t).with_suffix(".provenance.json").read_text())
        assert prov["placement"]["pinned"] == "timed"  # a CPU-timed run, on the timed cores
        assert prov["job"]["wall_s"] > 0


# ---- SLURM: every documented slurm_extra through the plugin's validator ------------------------

def _documented_slurm_extras() -> list[str]:
    """Every slurm_extra value the project documents: the README's site config (cluster:
    timed_cpu / timed_gpu), the workflow's defaults (common.smk CLUSTER), the profiles'."""
    found = []
    readme = (REPO / "README.md").read_text()
    found += re.findall(r'^\s*timed_(?:cpu|gpu):\s*"([^"]*)"', readme, re.M)
    common = (REPO / "workflow" / "rules" / "common.smk").read_text()
    cluster = re.search(r"CLUSTER = \{(.*?)\*\*", common, re.S)[1]
    found += re.findall(r'"timed_(?:cpu|gpu)": "([^"]*)"', cluster)
    for profile in (REPO / "workflow" / "profiles").glob("*/config.yaml"):
        found += re.findall(r"slurm_extra\s*[:=]\s*['\"]?([^'\"\n]*)", profile.read_text())
    return found


def _job(**resources):
    class Res(SimpleNamespace):
        def get(self, key, default=None):
            return getattr(self, key, default)

    return SimpleNamespace(resources=Res(**resources), threads=1)


def test_every_documented_slurm_extra_passes_the_plugins_validator():
    validation = pytest.importorskip("snakemake_executor_plugin_slurm.validation")
    extras = _documented_slurm_extras()
    assert "--gres-flags=enforce-binding" in extras and "--exclusive" in extras
    for extra in extras:
        validation.validate_slurm_extra(_job(slurm_extra=extra))
    # the validator is the real one: the old recipe's option is refused
    from snakemake_interface_common.exceptions import WorkflowError

    with pytest.raises(WorkflowError, match="CPUs-per-GPU|CPUs per GPU"):
        validation.validate_slurm_extra(_job(slurm_extra="--cpus-per-gpu=16"))


def test_cpus_per_gpu_goes_through_the_plugins_own_resource():
    jobstep = pytest.importorskip("snakemake_executor_plugin_slurm_jobstep")
    assert jobstep.get_cpu_setting(_job(gpu=1, cpus_per_gpu=16), True) == "--cpus-per-gpu=16"
    assert jobstep.get_cpu_setting(_job(gpu=1, cpus_per_gpu=0), True) == "--cpus-per-task=1"
    common = (REPO / "workflow" / "rules" / "common.smk").read_text()
    assert '"cpus_per_gpu": int(CLUSTER["cpus_per_gpu"])' in common
    readme = (REPO / "README.md").read_text()
    assert "--cpus-per-gpu=" not in "".join(re.findall(r'slurm_extra[^\n]*|timed_gpu:[^\n]*',
                                                        readme))


# ---- GPU workers (under the CUDA simulator) -------------------------------------------------------

def _tiny_run_files(tmp_path):
    graph = generate.road_grid(5, 5, keep=0.8, max_weight=20, seed=1)
    graph.save(tmp_path / "g.npz")
    assert main(["sources", str(tmp_path / "g.npz"), "--count", "2", "--seed", "3",
                 "--output", str(tmp_path / "s.json")]) == 0
    return tmp_path / "g.npz", tmp_path / "s.json"


def test_gpu_runs_go_to_one_worker_per_gpu_that_keeps_its_graph(tmp_path):
    graph, sources = _tiny_run_files(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "NUMBA_ENABLE_CUDASIM": "1",
           "GRAPHREPRO_GPUS": "0,1", "GRAPHREPRO_WORKER": "1",
           "GRAPHREPRO_GPU_LOCKS": str(tmp_path / "locks")}
    records = []
    try:
        for i in range(2):
            out = tmp_path / f"r{i}.csv"
            proc = subprocess.run([sys.executable, "-m", "graphrepro", "run", str(graph),
                                   "--solver", "lbr_persistent", "--sources", str(sources),
                                   "--trials", "1", "--warmup", "0", "--output", str(out)],
                                  env=env, capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr
            assert "verified" in proc.stderr  # the worker's log reaches the job's stderr
            assert (pd.read_csv(out)["status"] == "ok").all()
            records.append(json.loads(out.with_suffix(".provenance.json").read_text()))
        pids = {p.read_text().strip() for p in (tmp_path / "locks").glob("worker-*.pid")}
        assert len(pids) == 1  # one worker for the one device both jobs took in turn
        first, second = (r["job"] for r in records)
        assert second["graph_load_s"] < 0.01 and second["startup_s"] < first["startup_s"] + 1
        assert records[1]["placement"]["cuda_visible_devices"] == "0"
        assert records[1]["placement"]["bound_from"] == ["0", "1"]
    finally:
        for p in (tmp_path / "locks").glob("worker-*.pid"):
            os.kill(int(p.read_text()), 15)


@pytest.mark.slow
def test_a_host_run_starts_every_gpus_worker_with_it_and_stops_them_at_the_end(tmp_path):
    (tmp_path / "c.yaml").write_text(
        "results: results\nreport: reports/index.html\nreference: none\nseed: 1\n"
        "measure: {sources: 2, trials: 1, warmup: 0}\n"
        "graphs:\n  road_6x6: {generate: {kind: road_grid, rows: 6, cols: 6, keep: 0.8, "
        "max_weight: 100, seed: 1}}\n"
        "targets:\n  safari2017_table2: {graphs: [road_6x6], runs: [harish]}\n")
    locks = tmp_path / "locks"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "NUMBA_ENABLE_CUDASIM": "1",
           "GRAPHREPRO_GPUS": "0,1", "GRAPHREPRO_GPU_LOCKS": str(locks)}
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
         "results/runs/road_6x6/harish.csv", "--workflow-profile",
         str(REPO / "workflow" / "profiles" / "gpu-host"), "--cores", "2",
         "--replace-workflow-config", "--configfile", str(tmp_path / "c.yaml"),
         "--config", "host_gpus=2"], capture_output=True, text=True, env=env, timeout=600)
    try:
        assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
        # both GPUs' workers started with the run, though one job used one of them
        logs = sorted(p.name.split("-")[1] for p in locks.glob("worker-*.log"))
        assert logs == ["0", "1"], logs
        deadline = time.time() + 30
        while list(locks.glob("worker-*.pid")) and time.time() < deadline:
            time.sleep(0.2)  # the run's end sent each a SIGTERM
        assert not list(locks.glob("worker-*.pid"))
        record = json.loads((tmp_path / "results/runs/road_6x6/harish.provenance.json").read_text())
        assert record["placement"]["bound_from"] == ["0", "1"]
    finally:
        for p in locks.glob("worker-*.pid"):
            os.kill(int(p.read_text()), 15)


def test_the_client_refuses_past_the_deadline_and_leaves_help_to_the_command_line(
        tmp_path, monkeypatch, capsys):
    from graphrepro import client

    assert client.run_from_main(["run", "--help"]) is None
    assert client.run_from_main(["run", "g.npz", "--solver", "harish"]) is None  # no --output
    monkeypatch.setenv("GRAPHREPRO_DEADLINE", str(time.time() - 1))
    assert client.run_from_main(["run", "g.npz", "--output", str(tmp_path / "x.csv")]) == 75
    assert "not started" in capsys.readouterr().err and not (tmp_path / "x.csv").exists()


@pytest.mark.slow
@pytest.mark.parametrize("overlay", [[], ["h100-run3.yaml"]], ids=["h100", "run3"])
def test_a_dry_run_of_the_h100_config_says_what_it_needs_in_one_line(tmp_path, overlay):
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "GRAPHREPRO_GPUS": ""}
    configs = [str(REPO / "config" / name) for name in ["h100.yaml", *overlay]]
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
         "-n", "--cores", "16", "--configfile", *configs],
        capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    text = result.stdout + result.stderr
    lines = [ln for ln in text.splitlines() if ln.startswith("graphrepro: this run")]
    assert len(lines) == 1, lines
    assert "needs a CUDA GPU" in lines[0] and "timed jobs" in lines[0]
    # the plan of this machine (GRAPHREPRO_GPUS empty: none), not of 1 GPU it lacks (issue 53)
    assert lines[0].endswith("min with 16 cores and no GPU")
    if overlay:  # reference run 3: Western's interleaved Fig. 4 group in four shards, merged
        assert "run_interleaved_6" in text and "merge_run_shards" in text
        assert "offline mirror (.realdata, .peers)" in lines[0]


def _host_dry_run(tmp_path, *config, cores=None):
    """A dry run of the gpu-host profile; ``cores``: the host's cores as the workflow sees them
    (a dry run pins nothing, so a 2-core machine can plan a 16-core host)."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "GRAPHREPRO_GPUS": "0,1"}
    if cores:
        fake = tmp_path / "fake-cores"
        fake.mkdir()
        (fake / "sitecustomize.py").write_text(
            f"import os\nos.sched_getaffinity = lambda pid: set(range({cores}))\n")
        env["PYTHONPATH"] = f"{fake}{os.pathsep}{env['PYTHONPATH']}"
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
         "-n", "-p", "--workflow-profile", str(REPO / "workflow" / "profiles" / "gpu-host"),
         "--cores", "16", "--quiet", "progress", "--config", "host_gpus=auto", *config],
        capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.slow
def test_more_cpu_slots_than_timed_cores_are_refused(tmp_path):
    refused = _host_dry_run(tmp_path, "host_cpu_slots=5", cores=16)
    assert refused.returncode != 0
    assert ("host_cpu_slots=5: only 4 cores are kept for CPU timings"
            in refused.stdout + refused.stderr)


@pytest.mark.slow
def test_cpu_slots_time_one_core_baselines_side_by_side_on_a_core_each(tmp_path):
    result = _host_dry_run(tmp_path, "host_cpu_slots=4", cores=16)  # 4 cores kept for timings
    text = result.stdout + result.stderr
    assert result.returncode == 0, text[-3000:]
    blocks = [b for b in re.split(r"\n(?=\s*\[\w{3} \w{3} )", text) if "rule run_solver:" in b]
    cpu = [b for b in blocks if "cpu_timed=1" in b]
    assert cpu, text[-3000:]
    for block in cpu:
        shell = re.search(r"Shell command: (.*)", block)[1]
        assert shell.startswith("env GRAPHREPRO_PIN=slot NUMBA_NUM_THREADS=1 GRAPHREPRO_GPUS= "
                                "CUDA_VISIBLE_DEVICES= "), shell
        assert "threads: 1\n" in block or "threads:" not in block, block


@pytest.mark.slow
def test_the_gpu_host_profile_keeps_cpu_timings_on_their_cores_and_gpu_runs_in_workers(tmp_path):
    # under a time-boxed call the longest runs start first by the call's own estimates
    estimates = tmp_path / "estimates.json"
    estimates.write_text(json.dumps({"results/runs/road_40x40/lbr.csv": 777.4}))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "GRAPHREPRO_GPUS": "0,1,2,3",
           "GRAPHREPRO_ESTIMATES": str(estimates)}
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
         "-n", "-p", "--workflow-profile", str(REPO / "workflow" / "profiles" / "gpu-host"),
         "--cores", "16", "--quiet", "progress"],
        capture_output=True, text=True, timeout=600, env=env)
    text = result.stdout + result.stderr
    assert result.returncode == 0, text[-3000:]
    assert "this run uses 4 GPU(s)" in text
    seen = set()
    for block in re.split(r"\n(?=\s*\[\w{3} \w{3} )", text):
        if not re.search(r"rule run_solver:", block):
            continue
        res = dict(kv.split("=", 1) for kv in re.search(r"resources: (.*)", block)[1].split(", "))
        shell = re.search(r"Shell command: (.*)", block)[1]
        assert res["timing"] == "1"
        priority = re.search(r"priority: (\d+)", block)
        if "graph=road_40x40, solver=lbr\n" in block or re.search(r"runs/road_40x40/lbr\.csv", block):
            seen.add("estimated")
            assert priority and priority[1] == "777", block
        else:
            assert priority is None, block  # not in the estimates: the default, 0
        if res["gpu"] == "1":
            seen.add("gpu")
            assert res["cpu_timed"] == "0" and shell.startswith("env GRAPHREPRO_WORKER=1 ")
        elif shell.startswith("env GRAPHREPRO_PIN=slot NUMBA_NUM_THREADS=1 "):
            seen.add("cpu")  # a one-core timing in one of several slots (not on a 2-core host)
            assert res["cpu_timed"] == "1", block
        else:  # every core kept for CPU timings: as many numba threads, and every slot's token
            seen.add("cpu")
            pinned = re.match(r"env GRAPHREPRO_PIN=timed NUMBA_NUM_THREADS=(\d+) GRAPHREPRO_GPUS= "
                              r"CUDA_VISIBLE_DEVICES= ", shell)
            assert pinned and res["cpu_timed"] == pinned[1], block
    assert seen == {"gpu", "cpu", "estimated"}


def test_a_plan_without_a_gpu_counts_its_gpu_jobs_as_not_run(tmp_path):
    """Finding 6 of issue 53: on a machine with no GPU the estimate is this machine's (a GPU job
    only records "not run"), not the recorded GPU minutes on 1 GPU."""
    from graphrepro.plan import NOT_RUN_S

    res, ref = tmp_path / "res", tmp_path / "ref"
    _record(res / "runs/g/harish.csv", wall=612.0, per_source=60.0, sources=10)
    with_gpu, without = plan(_config(), 1, 4, ref, res), plan(_config(), 0, 4, ref, res)
    assert with_gpu["gpu_s"] == pytest.approx(612.0)
    assert without["gpu_s"] == pytest.approx(NOT_RUN_S) and without["gpus"] == 0
    assert without["wall_s"] < with_gpu["wall_s"] - 500
