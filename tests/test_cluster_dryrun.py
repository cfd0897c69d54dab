"""A dry run of config/h100.yaml on the slurm profile: every timed job says what it needs.

No cluster needed (snakemake plans the sbatch jobs without submitting them). Every GPU- and
CPU-timed job must carry timing, gpu, mem_mb (known before its graph exists), runtime and the
sbatch options that keep it alone; CPU-timed jobs ask for cluster: cpu_threads; the 20480-vertex
dense graph's runs ask for more than its 1.7 GB matrix. (tests/test_slurm.py checks that the
localrules, downloads among them, are never submitted.)
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TIMED = {"run_solver", "gerritsen2012_mst_blocks", "gerritsen2012_mst_io_sweep",
         "gerritsen2012_mst_phases", "gerritsen2012_sssp_bench", "transfer_benchmark"}


@pytest.mark.slow
def test_h100_dry_run_on_the_slurm_profile_shows_every_timed_jobs_resources(tmp_path):
    pytest.importorskip("snakemake_executor_plugin_slurm")
    result = subprocess.run(
        # --cores: a dry run caps threads at it (so that they are shown); jobs are not run here
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path), "-n",
         "--workflow-profile", str(REPO / "workflow" / "profiles" / "slurm"), "--cores", "64",
         "--configfile", str(REPO / "config" / "h100.yaml")],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert result.returncode == 0, result.stderr[-4000:]
    blocks = re.split(r"\n\s*\[\w{3} \w{3} [^\]]*\d{4}\]\n", result.stdout + result.stderr)
    seen = {"gpu": 0, "cpu": 0}
    for block in blocks:
        rule = re.search(r"(local)?rule (\w+):", block)
        if not rule or rule[2] not in TIMED:
            continue
        res = dict(kv.split("=", 1) for kv in re.search(r"resources: (.*)", block)[1].split(", "))
        for key in ("timing", "gpu", "mem_mb", "runtime", "slurm_extra"):
            assert key in res and "TBD" not in res[key], f"{rule[2]}: {key} missing\n{block}"
        assert res["slurm_extra"] == "--exclusive"
        threads = re.search(r"threads: (\d+)", block)
        if res["gpu"] == "1":
            seen["gpu"] += 1
        else:
            seen["cpu"] += 1
            assert threads and int(threads[1]) == 8, block  # cluster: cpu_threads (default 8)
        if "dense_20480" in block:
            assert int(res["mem_mb"]) > 1700
    assert seen["gpu"] > 100 and seen["cpu"] > 20
