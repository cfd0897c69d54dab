"""The default workflow through a real SLURM (`--workflow-profile workflow/profiles/slurm`).

Needs a running cluster: `bash .ci/slurm-localhost` makes this machine one (slurm-wlm, munge,
slurmctld and slurmd, two stand-in GPUs); `.ci/run` does so and runs `pytest -m slurm`. Skipped,
saying why, where `sbatch` is missing or no node answers. The report's tables must equal those of
the same workflow run here without SLURM (timings aside), every GPU job must have seen exactly the
one GPU SLURM gave it, and the runs must have gone as group jobs (a sweep is a few sbatch calls).
Both runs leave GPU solvers "not run: no CUDA device" (no simulator: the CI's main job does the
same), so this tests the placement, not the kernels. GRAPHREPRO_LOCAL_RUN=DIR names a finished
local run of the default workflow to compare with (.ci/run: its main job) instead of running one.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]
# the module's fixture runs the whole workflow through SLURM (up to 30 min): past the default
# per-test timeout (pyproject)
pytestmark = [pytest.mark.slurm, pytest.mark.timeout(3600)]


def _cluster_up() -> str | None:
    if not shutil.which("sbatch"):
        return "slurm is not installed (sbatch not on PATH): run `bash .ci/slurm-localhost` as root"
    try:
        out = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return f"sinfo failed: {e}"
    if out.returncode != 0 or not re.search(r"idle|mixed|alloc", out.stdout):
        return f"no SLURM node is up (sinfo: {out.stdout.strip() or out.stderr.strip()})"
    return None


def _snakemake(workdir: Path, *args, timeout=900):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0", "PYTHONPATH": str(REPO / "src")}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    # the embedded default config, plus: no committed reference in the report (it would differ
    # with what is committed today); CPU-timed jobs that fit this machine's node (still alone on
    # it: --exclusive); GPU jobs not exclusive, so that two run at once, one on each stand-in GPU
    cfg = workdir / "site.yaml"
    cfg.write_text(f"reference: {workdir / 'no-reference'}\n"
                   f"cluster: {{cpu_threads: {os.cpu_count()}, timed_gpu: ''}}\n")
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
         *args, "--configfile", str(cfg)],
        capture_output=True, text=True, env=env, timeout=timeout)
    assert result.returncode == 0, f"stdout:\n{result.stdout[-5000:]}\nstderr:\n{result.stderr[-8000:]}"
    return result


# Columns that hold measured times or what follows from them (ratios, speedups, verdicts, notes
# quoting them; a claim's reason and interval quote them too): they differ between any two runs.
# Counts (iterations, arcs, vertices) stay.
TIMED = re.compile(r"ours|\(ms\)|\(s\)|\bs\)|min\)|us/|_ms\b|time|speedup|ratio|verdict|note|"
                   r"share|/ BGL|throughput|over workfront|better of the two|our run|goal|reason|interval", re.I)


def _tables(workdir: Path) -> dict[str, pd.DataFrame]:
    out = {}
    for path in sorted((workdir / "results" / "targets").glob("*.csv")):
        table = pd.read_csv(path)
        # "run" names the run that made each row (its day and commit): two runs differ there, and
        # a pair of runs either side of midnight differs by its day
        out[path.stem] = table.drop(columns=[c for c in table.columns
                                             if TIMED.search(c) or c == "run"])
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    why = _cluster_up()
    if why:
        pytest.skip(why)
    if os.environ.get("GRAPHREPRO_LOCAL_RUN"):  # .ci/run: its main job is the local run
        local = Path(os.environ["GRAPHREPRO_LOCAL_RUN"])
    else:
        local = tmp_path_factory.mktemp("local")
        _snakemake(local, "--cores", "2")
    cluster = tmp_path_factory.mktemp("slurm")
    # squeue: the test cluster keeps no accounting database for sacct (MinJobAge=600 keeps ended
    # jobs in squeue); status checks every few seconds rather than the plugin's 40 s
    result = _snakemake(cluster, "--workflow-profile", str(REPO / "workflow" / "profiles" / "slurm"),
                        "--jobs", "4", "--slurm-init-seconds-before-status-checks", "2",
                        "--slurm-status-command", "squeue", "--latency-wait", "5", "--retries", "0",
                        timeout=1800)
    return local, cluster, result


def test_slurm_run_tables_equal_the_local_run(runs):
    local, cluster, _ = runs
    mine, theirs = _tables(local), _tables(cluster)
    assert mine and sorted(mine) == sorted(theirs)
    for name in mine:
        pd.testing.assert_frame_equal(mine[name], theirs[name], obj=name)
    assert (cluster / "reports" / "index.html").stat().st_size > 0


def test_slurm_jobs_saw_their_own_gpu_and_sweeps_were_grouped(runs):
    _, cluster, result = runs
    gpu_runs = 0
    for prov in (cluster / "results" / "runs").glob("*/*.provenance.json"):
        record = json.loads(prov.read_text())
        place = record.get("placement") or {}
        assert place.get("slurm_job_id"), f"{prov}: did not run under SLURM"
        visible = place.get("cuda_visible_devices")
        if visible is not None:  # a GPU job: SLURM gave it one device, and it saw only that one
            gpu_runs += 1
            assert re.fullmatch(r"\d+", visible), f"{prov}: saw {visible!r}"
    assert gpu_runs > 0
    log = result.stdout + result.stderr
    submitted = len(re.findall(r"has been submitted with SLURM jobid", log))
    runs_done = len(list((cluster / "results" / "runs").glob("*/*.csv")))
    assert 0 < submitted < runs_done  # group jobs: many runs to one sbatch
    for rule in ("fetch_dataset", "dense_graph", "calibrate", "compare_target", "compare_table",
                 "report"):  # localrules: downloads and tiny steps stay here
        assert f"rule_{rule}/" not in log
    for rule in ("dataset_graph", "convert_dem"):  # what a download feeds is parsed there
        assert f"rule_{rule}/" in log
