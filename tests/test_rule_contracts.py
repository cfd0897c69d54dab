"""What every rule promises, read from a dry run of the default config: every job that times work
holds its timing tokens, says whether it needs a GPU, and asks for threads, memory and a runtime.
(tests/test_workflow.py checks the other half on a real run: every file a rule writes is declared.)
"""

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# the subcommands that time something: their jobs must not overlap another timed job's
TIMED_COMMANDS = ("run", "mst-blocks", "mst-io", "sssp-experiment", "transfers", "launch-floor")
TOKENS = 3  # --resources timing=3: a CPU-timed job takes all three, a GPU-timed one one


@functools.cache
def _dry_run_jobs() -> tuple:
    """(rule, the job's block, its shell command) of each job a dry run plans (planned once)."""
    return tuple(_planned_jobs())


def _planned_jobs():
    result = subprocess.run(
        # --forceall: every job, as on a fresh clone, whatever an earlier run (CI's main job)
        # left up to date in the repository
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(REPO), "-n",
         "--forceall", "-p", "--workflow-profile", "none", "--cores", "2", "--resources", f"timing={TOKENS}",
         "gpu=2", "--", "all", "launch_floor"],
        capture_output=True, text=True, timeout=300, cwd=REPO,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))})
    assert result.returncode == 0, result.stderr[-4000:]
    out = result.stdout + result.stderr
    for block in re.split(r"\n\s*\[\w{3} \w{3} [^\]]*\d{4}\][^\n]*\n", out):  # at each job's date
        rule = re.match(r"\s*(?:local)?rule (\w+):\n", block)
        shell = re.search(r"Shell command: (.*)", block)
        if rule and shell:
            yield rule[1], block, shell[1]


def test_every_job_that_times_work_holds_its_tokens_and_resources():
    timed = set()
    for rule, block, shell in _dry_run_jobs():
        command = re.search(r" -m graphrepro ([\w-]+)", shell)
        if not command or command[1] not in TIMED_COMMANDS:
            continue
        timed.add(rule)
        res = dict(kv.split("=", 1) for kv in re.search(r"resources: (.*)", block)[1].split(", "))
        for key in ("timing", "gpu", "mem_mb", "runtime"):
            assert key in res, f"{rule}: no {key}\n{block}"
        threads = int((re.search(r"threads: (\d+)", block) or [0, 1])[1])  # 1 is not shown
        # timed on the CPU (alone or beside its GPU phases): every token and every core (--cores
        # 2); timed on a GPU only: one token, one GPU, one host thread
        cpu_timed = res["timing"] == str(TOKENS)
        assert cpu_timed or (res["timing"] == "1" and res["gpu"] == "1"), f"{rule}: {res}"
        assert threads == (2 if cpu_timed else 1), f"{rule}: threads {threads}\n{block}"
    # the rules issue 36 found without them are among those checked
    assert {"terrain_blocks_mst", "terrain_blocks_sssp", "launch_floor", "run_solver"} <= timed


def test_gpu_rules_use_the_gpu_conda_env():
    """A rule that holds a GPU runs in envs/graphrepro-gpu.yaml (the CUDA libraries, cupy, nvcc)."""
    text = "\n".join(p.read_text() for p in (REPO / "workflow" / "rules").glob("*.smk"))
    for rule in re.split(r"\n(?=rule \w+:)", text):
        name = re.match(r"rule (\w+):", rule)
        if not name:
            continue
        if re.search(r"gpu=1\b|timed\(lambda w: \"(gpu|cpu\+gpu)\"", rule) or name[1] == "build_native_cuda":
            assert re.search(r"conda:\n\s+(CONDA_GPU_ENV|lambda w: conda_env)", rule), name[1]


def test_jobs_call_the_environments_python_not_this_hosts_path():
    """A job's command names `python`, found on the PATH of wherever the job runs (the workflow puts
    its own interpreter's directory first there), never the planning host's interpreter path."""
    shells = [shell for _, _, shell in _dry_run_jobs() if shell != "None"]  # None: rule all
    assert shells
    for shell in shells:
        assert re.match(r"python3?(\.\d+)? -m graphrepro ", shell), shell


def _localrules() -> set[str]:
    """The rules the `localrules:` directives name (a dry run plans every job as local, so the
    directives, not its printout, say which run on the submitting host)."""
    text = "\n".join(p.read_text() for p in sorted((REPO / "workflow" / "rules").glob("*.smk")))
    return {name for block in re.findall(r"^localrules:\n((?:[ \t]+\w+,?\n)+)", text, re.M)
            for name in re.findall(r"\w+", block)}


def test_downloads_are_local_and_their_parsing_is_submitted():
    """Issue 36: the host with the network (a login node) fetches, and parses nothing: the fetch
    is a local rule that writes its record and the folder holding the real file (issue 56: a
    declared output, so it reaches a node without a shared file system); parsing a graph and
    converting a DEM are submitted jobs, with their memory, that read those instead of the
    network."""
    local = _localrules()
    assert {"fetch_dataset", "dense_graph", "report"} <= local  # the directives were read
    assert not {"dataset_graph", "convert_dem"} & local
    jobs = {}
    for rule, block, shell in _dry_run_jobs():
        jobs.setdefault(rule, []).append((block, shell))
    for block, shell in jobs["fetch_dataset"]:
        assert " -m graphrepro fetch-record " in shell, shell
        assert re.search(r"output: \S+\.json, \S+\.files\n", block), block
    for rule in ("dataset_graph", "convert_dem"):
        assert jobs.get(rule), f"no {rule} job in the dry run"
        for block, shell in jobs[rule]:
            record = re.search(r" --fetched (\S+)", shell)
            assert record and re.search(rf"input: (.*, )?{re.escape(record[1])}\b", block), block
            name = re.search(r"wildcards: \w+=(\S+)", block)[1]
            kind = "graphs" if rule == "dataset_graph" else "terrain"
            assert record[1] == f"results/downloads/{kind}/{name}.json", block
            assert f"results/downloads/{kind}/{name}.files" in block, block
            assert "mem_mb=" in block, block


def test_no_job_declares_a_work_directory_as_output():
    """Snakemake deletes a job's declared outputs before it runs the job again, so a work
    directory declared as one would lose a resumable job's journal (Table 5.7, Table 3.8 on
    the whole grid: timeboxed.py's WORK); the commands remove their own once the table is made."""
    checked = 0
    for rule, block, _ in _dry_run_jobs():
        out = re.search(r"output: (.*)", block)
        if out:
            checked += 1
            assert "/work/" not in out[1] and not out[1].startswith("work/"), f"{rule}: {out[1]}"
    assert checked
