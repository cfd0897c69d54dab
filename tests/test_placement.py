"""One GPU per job on one host, tested without GPUs: the device locks and the source shards.

Several real processes start at once on a pretend 3-GPU host (CUDA_VISIBLE_DEVICES=0,1,2, as
snakemake's --resources gpu=3 would run them) and each must end up alone on its own device; a
fourth waits until one ends. Shards of a run merge into the table a whole run writes.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from graphrepro import placement
from graphrepro.cli import main
from graphrepro.errors import InputError
from graphrepro.harness.shards import parse_shard, shard_slice

SRC = Path(__file__).resolve().parents[1] / "src"

CHILD = """
import json, os, sys, time
from graphrepro.placement import bind_gpu
t0 = time.time()
device = bind_gpu(wait_s=float(sys.argv[2]), poll_s=0.05)
print(json.dumps({"device": device, "env": os.environ["CUDA_VISIBLE_DEVICES"],
                  "start": time.time(), "waited": time.time() - t0}), flush=True)
time.sleep(float(sys.argv[1]))
print(json.dumps({"end": time.time()}), flush=True)
"""


def _spawn(tmp_path, hold_s, wait_s=30.0, devices="0,1,2"):
    env = {**os.environ, "PYTHONPATH": str(SRC), "CUDA_VISIBLE_DEVICES": devices,
           "GRAPHREPRO_GPU_LOCKS": str(tmp_path / "locks")}
    env.pop("GRAPHREPRO_GPUS", None)
    return subprocess.Popen([sys.executable, "-c", CHILD, str(hold_s), str(wait_s)], env=env,
                            stdout=subprocess.PIPE, text=True)


def _result(proc):
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    lines = getattr(proc, "first_line", "") + out
    first, last = (json.loads(line) for line in lines.splitlines())
    return {**first, **last}


def _holding(proc):
    """Wait until the child holds its device (its first line), however slowly it started."""
    proc.first_line = proc.stdout.readline()
    return proc


def test_concurrent_jobs_each_get_their_own_device(tmp_path):
    procs = [_spawn(tmp_path, hold_s=1.5) for _ in range(3)]
    results = [_result(p) for p in procs]
    assert sorted(r["device"] for r in results) == ["0", "1", "2"]
    assert all(r["env"] == r["device"] for r in results)  # each process sees one device only


def test_a_job_beyond_the_devices_waits_for_one_to_come_free(tmp_path):
    # different holds, so which device comes free first is not a race between two exits
    holders = [_spawn(tmp_path, hold_s=hold, devices="0,1") for hold in (1.5, 3.5)]
    holders = [_holding(p) for p in holders]  # both hold their locks now, on a loaded machine too
    late = _spawn(tmp_path, hold_s=0.0, devices="0,1")
    first = [_result(p) for p in holders]
    third = _result(late)
    assert sorted(r["device"] for r in first) == ["0", "1"]
    freed = min(r["end"] for r in first)
    assert third["start"] >= freed - 0.1  # it ran only once a holder had ended
    assert third["device"] == min(first, key=lambda r: r["end"])["device"]


def test_no_free_device_in_time_says_why(tmp_path):
    holder = _holding(_spawn(tmp_path, hold_s=3.0, devices="0,1"))
    other = _holding(_spawn(tmp_path, hold_s=3.0, devices="0,1"))
    late = _spawn(tmp_path, hold_s=0.0, wait_s=0.3, devices="0,1")
    late.communicate(timeout=60)
    assert late.returncode != 0
    for p in (holder, other):
        _result(p)


def test_one_visible_device_is_left_alone(monkeypatch):
    env = {"CUDA_VISIBLE_DEVICES": "3"}  # SLURM allocated one GPU: nothing to choose
    monkeypatch.setattr(placement, "_held", {})
    assert placement.bind_gpu(env) is None
    assert env == {"CUDA_VISIBLE_DEVICES": "3"}


def test_shard_slices_cover_the_sources_once_in_order():
    for count in (0, 1, 5, 6, 100):
        for n in (1, 2, 3, 7):
            parts = [list(range(count))[shard_slice(count, (i, n))] for i in range(n)]
            assert sum(parts, []) == list(range(count))
            assert max(map(len, parts)) - min(map(len, parts)) <= 1
    with pytest.raises(InputError):
        parse_shard("2/2")


def test_merged_shards_equal_a_whole_run_timings_aside(tmp_path):
    gr = tmp_path / "g.gr"
    assert main(["generate", "road_grid", "--rows", "6", "--cols", "6", "--keep", "0.8",
                 "--max-weight", "50", "--seed", "1", "--output", str(gr)]) == 0
    src = tmp_path / "sources.json"
    assert main(["sources", str(gr), "--count", "4", "--seed", "3", "--output", str(src)]) == 0
    common = ["run", str(gr), "--solver", "dijkstra", "--sources", str(src), "--trials", "2",
              "--warmup", "1"]
    assert main([*common, "--output", str(tmp_path / "whole.csv")]) == 0
    shards = []
    for i in range(3):
        shards.append(tmp_path / f"s.{i}.csv")
        assert main([*common, "--shard", f"{i}/3", "--output", str(shards[-1])]) == 0
    merged = tmp_path / "merged.csv"
    assert main(["merge-runs", *map(str, shards), "--output", str(merged)]) == 0
    whole, got = pd.read_csv(tmp_path / "whole.csv"), pd.read_csv(merged)
    timing = [c for c in whole.columns if c.endswith("_ms") or "time" in c]
    pd.testing.assert_frame_equal(whole.drop(columns=timing), got.drop(columns=timing))
    prov = json.loads(merged.with_suffix(".provenance.json").read_text())
    assert [s["config_hash"] is not None for s in prov["shards"]] == [True] * 3
    assert "placement" in prov


@pytest.mark.slow
def test_workflow_shards_runs_over_two_pretend_gpus(tmp_path):
    """`--resources gpu=2 timing=2` with `shards: 2`: each shard a timed job bound to one device
    (GRAPHREPRO_GPUS=0,1 pretends two GPUs; kernels run in the simulator), merged tables equal to
    an unsharded run's, timings aside; an interleaved group is one job per shard, merged alike."""
    repo = SRC.parent
    base = """\
results: results
report: reports/index.html
reference: {ref}
run_name: run t
seed: 1
measure: {{sources: 4, trials: 1, warmup: 0}}
graphs:
  road_6x6:
    generate: {{kind: road_grid, rows: 6, cols: 6, keep: 0.8, max_weight: 100, seed: 1}}
{shards}
targets:
  safari2017_table2: {{graphs: [road_6x6], runs: [harish]}}
  safari2017_fig4: {{graphs: [road_6x6], runs: [harish, "harish@threads_per_block=64"],
                    interleave: [harish, "harish@threads_per_block=64"]}}
"""
    tables = {}
    for name, shards in (("whole", ""), ("sharded", "    shards: 2")):
        work = tmp_path / name
        work.mkdir()
        cfg = work / "config.yaml"
        cfg.write_text(base.format(ref=work / "none", shards=shards))
        env = {**os.environ, "PYTHONPATH": str(SRC), "GRAPHREPRO_GPUS": "0,1",
               "GRAPHREPRO_GPU_LOCKS": str(tmp_path / "locks")}
        result = subprocess.run(
            [sys.executable, "-m", "snakemake", "-s", str(repo / "Snakefile"), "-d", str(work),
             "results/targets/safari2017_table2.csv",
             "results/runs/road_6x6/harish@threads_per_block=64.csv", "--cores", "2", "--resources", "gpu=2",
             "timing=2", "--replace-workflow-config", "--configfile", str(cfg)],
            capture_output=True, text=True, env=env, timeout=600)
        assert result.returncode == 0, result.stderr[-4000:]
        tables[name] = {p.stem: pd.read_csv(p) for p in (work / "results" / "runs" / "road_6x6").glob("*.csv")}
    # (GPU runs only: without the gpu-host profile a CPU timing on a host of two GPUs refuses)
    assert sorted(tables["whole"]) == sorted(tables["sharded"]) == [
        "harish", "harish@threads_per_block=64"]
    for run, whole in tables["whole"].items():
        # timings, and improving atomics: which of two racing atomicMins lands first is up to
        # the scheduler (real threads here in the simulator, warps on a GPU)
        timing = [c for c in whole.columns if c.endswith("_ms") or "time" in c
                  or c in ("device_name", "improving_atomics")]
        pd.testing.assert_frame_equal(whole.drop(columns=timing),
                                      tables["sharded"][run].drop(columns=timing), obj=run)
    shard_dir = tmp_path / "sharded" / "results" / "shards" / "road_6x6"
    seen = []
    for prov in sorted(shard_dir.glob("harish.*.provenance.json")):
        record = json.loads(prov.read_text())
        assert record["run_name"] == "run t"  # the config's, through the Snakefile to each job
        place = record["placement"]
        assert place["bound_from"] == ["0", "1"] and place["cuda_visible_devices"] in ("0", "1")
        seen.append(place["cuda_visible_devices"])
    assert len(seen) == 2
    for run in ("harish", "harish@threads_per_block=64"):  # timed interleaved, shard by shard
        assert {p.name for p in shard_dir.glob(f"{run}.?.csv")} == {f"{run}.0.csv", f"{run}.1.csv"}
        assert set(tables["sharded"][run]["interleaved"]) == {"harish|harish@threads_per_block=64"}


# ---- placement from the profile, whatever --config says (issue 56 item 1) --------------------

REPO = SRC.parent
GPU_HOST = REPO / "workflow" / "profiles" / "gpu-host"


def test_the_profiles_host_settings_are_read_from_its_own_file(tmp_path):
    argv = ["-n", "--workflow-profile", "workflow/profiles/gpu-host", "--config", "seed=1"]
    # found from the shell's directory although `-d` moved snakemake elsewhere
    assert placement.profile_host_settings(argv, [tmp_path], env={"PWD": str(REPO)}) == {
        "host_gpus": "auto"}
    assert placement.profile_host_settings([f"--workflow-profile={GPU_HOST}"], []) == {
        "host_gpus": "auto"}
    # snakemake's own lookup: a name under profiles/ beside the Snakefile
    assert placement.profile_host_settings(["--workflow-profile", "gpu-host"], [REPO],
                                           env={}) == {"host_gpus": "auto"}
    assert placement.profile_host_settings(["--workflow-profile", "none"], [REPO], env={}) == {}
    assert placement.profile_host_settings(["-n"], [REPO], env={}) == {}
    with pytest.raises(InputError, match="workflow profile nowhere: no config.yaml found"):
        placement.profile_host_settings(["--workflow-profile", "nowhere"], [tmp_path], env={})
    # a global profile from the user's snakemake folder, read as snakemake reads it (the
    # config.vN+.yaml of the highest N), then the workflow profile over it
    mine = tmp_path / "xdg" / "snakemake" / "mine"
    mine.mkdir(parents=True)
    (mine / "config.yaml").write_text("config: [host_gpus=1]\n")
    (mine / "config.v8+.yaml").write_text("config: [host_gpus=2, host_cpu_slots=3, seed=4]\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "SNAKEMAKE_PROFILE": "mine"}
    assert placement.profile_host_settings([], [REPO], env=env) == {"host_gpus": 2,
                                                                   "host_cpu_slots": 3}
    assert placement.profile_host_settings(["--workflow-profile", str(GPU_HOST)], [REPO],
                                           env=env) == {"host_gpus": "auto", "host_cpu_slots": 3}
    # one snakemake finds where this does not look is left to snakemake
    assert placement.profile_host_settings(["--profile", "elsewhere"], [tmp_path], env={}) == {}


def _bench_cpu_dry_run(tmp_path, *args, gpus="0,1"):
    env = {**os.environ, "PYTHONPATH": str(SRC), "GRAPHREPRO_GPUS": gpus}
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
         "-n", "-p", "bench_cpu", "--cores", "4", "--quiet", "progress", *args],
        capture_output=True, text=True, timeout=600, env=env, cwd=REPO)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.slow  # three dry runs, ~15 s each on 2 busy cores
def test_a_config_on_the_command_line_keeps_the_profiles_placement(tmp_path):
    pinned = "env GRAPHREPRO_PIN=timed NUMBA_NUM_THREADS=1 GRAPHREPRO_GPUS= CUDA_VISIBLE_DEVICES= "
    for extra in ([], ["--config", "seed=1"]):
        rc, text = _bench_cpu_dry_run(tmp_path, "--workflow-profile", str(GPU_HOST), *extra)
        assert rc == 0, text[-3000:]
        runs = [ln.split("Shell command:")[-1].strip() for ln in text.splitlines()
                if " -m graphrepro run " in ln]
        assert runs and all(run.startswith(pinned) for run in runs), (extra, runs[:3])
    # the same host without the profile: its timed jobs refuse, in one line saying why
    rc, text = _bench_cpu_dry_run(tmp_path, "--config", "seed=1")
    assert rc != 0
    said = [ln.strip() for ln in text.splitlines() if "refused:" in ln]
    assert said == [placement.unplaced_refusal(2)], text[-3000:]
