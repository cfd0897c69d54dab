"""What a user reads in the terminal (issue 35): `graphrepro claims` as a table that fits 100
columns (or CSV, JSON), read from the one merged ledger; a line per finished step naming its
rule, graph and solver with the time left; how much a resumed run had already done; the line a
dry run of a GPU config ends with; `rerun` saying when a GPU target cannot be measured here."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from machine import real_cuda_device

from graphrepro.placement import candidate_devices
from graphrepro.plan import needs_line
from graphrepro.report.progress import (Progress, is_dry_run, job_estimates, planned_jobs,
                                        resume_line, step_name, stopped_line)

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "reports" / "reference"


def graphrepro(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "graphrepro", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_claims_prints_the_merged_ledger_in_100_columns_or_as_csv_and_json(tmp_path):
    empty = tmp_path / "results"  # nothing built here: every verdict is the reference run's
    out = graphrepro("claims", "--results", str(empty), "--output", str(tmp_path / "c.csv"))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[0].split()[:3] == ["claim", "verdict", "ours"]
    written = pd.read_csv(tmp_path / "c.csv", dtype=str, keep_default_na=False)
    reference = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    assert len(lines) == len(written) + 1 == len(reference) + 1
    tested = reference[reference["verdict"] != "not testable here"]
    # every verdict the reference run reached stands: nothing here overrides it
    mine = written.set_index("claim_id").loc[tested["claim_id"]]
    assert (mine["verdict"].to_numpy() == tested["verdict"].to_numpy()).all()
    assert set(mine["from_run"]) == {"reference run"}
    # by default `claims` reads the merged ledger the workflow wrote, and says so
    default = graphrepro("claims", "--ledger", str(tmp_path / "c.csv"), "--format", "json",
                         "--verdict", "reproduced")
    rows = json.loads(default.stdout)
    assert len(rows) == int((written["verdict"] == "reproduced").sum())
    assert {r["from_run"] for r in rows} == {"reference run"}
    as_csv = graphrepro("claims", "--ledger", str(tmp_path / "c.csv"), "--format", "csv")
    assert pd.read_csv(io.StringIO(as_csv.stdout)).shape[0] == len(written)
    wide = graphrepro("claims", "--ledger", str(tmp_path / "c.csv"), "--width", "140")
    assert wide.stdout.splitlines()[0].split()[-1] == "what"
    assert max(len(line) for line in wide.stdout.splitlines()) <= 140


def test_claims_fits_the_width_asked_and_COLUMNS_footer_included(tmp_path):
    """Finding 10 of issue 53: rows and footer within --width, else COLUMNS; and a value is never
    rounded away in the terminal either (finding 5: t2.lbr.trips' 0.2905 in [0.0015, 0.50] is
    not "0.3 [0.0, 0.5]")."""
    empty = str(tmp_path / "results")
    for args, env in ((["--width", "80"], {}), ([], {"COLUMNS": "72"}),
                      (["--width", "140"], {"COLUMNS": "72"})):
        out = subprocess.run([sys.executable, "-m", "graphrepro", "claims", "--results", empty,
                              *args], capture_output=True, text=True, cwd=REPO,
                             env={**os.environ, **env})
        assert out.returncode == 0, out.stderr
        width = int(args[1]) if args else 72
        lines = (out.stdout + out.stderr).splitlines()
        assert max(len(line) for line in lines) <= width, (args, env)
        assert "claims from" in out.stderr
    trips = next(line for line in out.stdout.splitlines() if line.startswith("t2.lbr.trips"))
    assert " 0.29 [0.0015, 0.50] " in trips


def test_progress_lines_say_the_step_the_count_and_the_time_left(tmp_path):
    now = [0.0]
    p = Progress(clock=lambda: now[0])
    p.total, p.done, now[0] = 4, 1, 30.0
    assert p.line(step_name("run_solver", {"solver": "harish", "graph": "ny"})) == (
        "[1/4] done: run_solver (graph ny, solver harish); 3 to go, about 1 min 30 s left")
    assert step_name("report", {}) == "report"
    assert stopped_line(p).startswith("graphrepro: stopped after 1 of 4 steps")
    assert stopped_line(None).startswith("graphrepro: stopped; what finished is kept")
    assert resume_line(str(tmp_path / "nowhere"), 3) is None
    assert resume_line(str(tmp_path), 3) is None  # an empty results folder: a fresh run
    (tmp_path / "runs").mkdir()
    assert resume_line(str(tmp_path), 75) == (f"graphrepro: resuming: earlier outputs in "
                                              f"{tmp_path} are kept where up to date; 75 steps "
                                              "to run.")


def test_the_time_left_is_the_plans_for_the_jobs_left_not_an_average_of_those_done():
    """Issue 53, finding 6: the short steps come first, so an average of the jobs done said 23
    min left when 57.5 remained. Here four quick jobs finish in a minute while the plan's hour
    of CPU timing is still to come."""
    from types import SimpleNamespace as Job

    from graphrepro.plan import PlannedRun

    runs = [PlannedRun("t", "ny", "harish", "gpu", 3.0, 0.5, "recorded", sources=10),
            PlannedRun("t", "ny", "dijkstra", "cpu", 10.0, 340.0, "recorded", sources=10),
            PlannedRun("t", "big", "lbr", "gpu", 3.0, 1.0, "recorded", shards=2, sources=10)]
    jobs = [Job(jobid=1, output=["results/graphs/ny.npz"]),
            Job(jobid=2, output=["results/runs/ny/harish.csv", "results/runs/ny/harish.provenance.json"]),
            Job(jobid=3, output=["results/runs/ny/dijkstra.csv"]),
            Job(jobid=4, output=["results/shards/big/lbr.1.csv"]),
            Job(jobid=5, output=["results/runs/big/lbr.csv"])]  # the shards' merge
    estimates = job_estimates(jobs, runs)
    assert estimates == {1: (3.0, "other"), 2: (8.0, "gpu"), 3: (3410.0, "cpu"),
                         4: (8.0, "gpu"), 5: (3.0, "other")}
    # the jobs the plugin expects before snakemake schedules any: one per planned file
    assert [j.jobid for j in planned_jobs(runs, "results")] == [
        "results/runs/ny/harish.csv", "results/runs/ny/dijkstra.csv",
        "results/shards/big/lbr.0.csv", "results/shards/big/lbr.1.csv"]
    pending = job_estimates([j for j in planned_jobs(runs, "results") if "lbr.0" not in j.jobid],
                            runs)
    now = [0.0]
    p = Progress(clock=lambda: now[0], estimates=pending, lanes={"gpu": 1, "cpu": 1, "other": 2})
    p.total, lines = 5, []

    def record(**fields):
        return Job(getMessage=lambda: "", **fields)

    for done, job in enumerate((1, 2, 4, 5), 1):  # what snakemake logs for each finished job
        now[0] += 15.0
        p.text(record(event="job_info", jobid=job, rule_name="r", wildcards={},
                      output=jobs[job - 1].output), str)
        p.text(record(event="job_finished", job_id=job), str)
        lines.append(p.text(record(event="progress", done=done, total=5), str))
    assert lines[0].endswith("4 to go, about 56 min 50 s left")  # the CPU lane's 3,410 s decide
    assert lines[-1].endswith("1 to go, about 56 min 50 s left")  # not 15 s (an average)


@pytest.mark.slow
def test_a_real_snakemake_run_through_the_logger_plugin_prints_the_steps_and_resumes(tmp_path):
    """Issue 56 item 7: the lines come from snakemake's own records of a real run, through the
    public logger-plugin interface (--logger graphrepro), not from records made up here."""
    (tmp_path / "Snakefile").write_text(f"""
import sys
sys.path.insert(0, {str(REPO / 'src')!r})
from graphrepro.report.progress import tell
rule all:
    input: expand("out/{{graph}}/{{solver}}.txt", graph=["ny", "col", "fla"], solver=["harish"])
rule run_solver:
    output: "out/{{graph}}/{{solver}}.txt"
    shell: "echo > {{output:q}}"
tell(results="out", rule_names=[r.name for r in workflow.rules])
""")
    (tmp_path / "out" / "ny").mkdir(parents=True)
    (tmp_path / "out" / "ny" / "harish.txt").write_text("\n")
    env = {**os.environ, "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "--logger",
                           "graphrepro"], cwd=tmp_path, capture_output=True, text=True, env=env)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-2000:]
    assert "graphrepro: resuming: earlier outputs in out are kept where up to date; 3 steps" in text
    steps = [line for line in text.splitlines() if line.startswith("[")]
    named = [s.split(";")[0] for s in steps]
    assert [n.split(" done: ")[0] for n in named] == ["[1/3]", "[2/3]", "[3/3]"], text
    assert sorted(n.split(" done: ")[1] for n in named) == [  # snakemake's order, either graph first
        "all", "run_solver (graph col, solver harish)", "run_solver (graph fla, solver harish)"]
    assert "2 to go, about" in steps[0]
    assert "Finished jobid" not in text and "steps (100%) done" not in text  # ours instead
    assert "Job stats" in text  # what the plugin does not replace, snakemake formats
    typo = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "run_solvr",
                           "--logger", "graphrepro"], cwd=tmp_path, capture_output=True,
                          text=True, env=env)
    assert typo.returncode != 0
    assert "unknown target 'run_solvr'; the closest: run_solver" in typo.stderr
    assert "MissingRuleException" not in typo.stdout + typo.stderr


def test_ctrl_c_in_plain_snakemake_exits_130_with_one_line(tmp_path):
    """The Snakefile's hooks in miniature: Ctrl-C while a step runs prints one line (no
    RuleException or WorkflowError block), exits 130, leaves no lock and no half-made output."""
    import signal
    import time

    (tmp_path / "Snakefile").write_text(f"""
import sys
sys.path.insert(0, {str(REPO / 'src')!r})
from graphrepro.report.progress import Interrupt, running, stopped_line
_RUN = {{"interrupt": Interrupt().install()}}
onstart:
    _RUN["interrupt"].scheduling = True
onerror:
    if _RUN["interrupt"].seen:
        _RUN["interrupt"].exit(running())
    print(stopped_line(running()))
rule all:
    input: "out/quick.txt", "out/slow.txt"
rule quick:
    output: "out/quick.txt"
    shell: "echo > {{output:q}}"
rule slow:
    output: "out/slow.txt"
    shell: "touch started; sleep 60; echo > {{output:q}}"
""")
    run = subprocess.Popen([sys.executable, "-m", "snakemake", "--cores", "1", "--logger",
                            "graphrepro"], cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           start_new_session=True, env={**os.environ, "HOME": str(tmp_path)})
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        os.killpg(run.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        text, _ = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130, text[-2000:]
    after = text[text.index("[1/3] done: quick"):]  # (the plugin names each step in one line)
    lines = [line for line in after.splitlines()[1:] if line.strip() and not line.startswith("  ")
             and not line.startswith(("Select jobs", "Execute "))]
    assert lines == ["graphrepro: interrupted (Ctrl-C) after 1 of 3 steps; what finished is kept: "
                     "the same command resumes from there."]
    assert "RuleException" not in text and "WorkflowError" not in text
    assert not (tmp_path / "out" / "slow.txt").exists()
    assert not list((tmp_path / ".snakemake" / "locks").glob("*"))


def test_rerun_waits_for_snakemake_through_a_ctrl_c():
    """`graphrepro rerun` gets the same Ctrl-C as its snakemake: it waits for snakemake's own
    one line and exit status 130 rather than kill it mid-cleanup (lock, half-made outputs)."""
    from graphrepro.cli.experiments import run_through_ctrl_c

    class Snakemake:
        waits = 0

        def wait(self):
            self.waits += 1
            if self.waits == 1:
                raise KeyboardInterrupt  # the terminal's Ctrl-C, seen by the parent first
            return 130

    child = Snakemake()
    assert run_through_ctrl_c(child) == 130 and child.waits == 2


def test_a_dry_run_of_a_gpu_config_says_what_it_needs_in_one_line():
    assert is_dry_run(["--cores", "1", "-n"]) and is_dry_run(["-np"]) and is_dry_run(["--dry-run"])
    assert not is_dry_run(["--cores", "all", "--notemp"]) and not is_dry_run(["-j", "4"])
    config = {"targets": {"a": {}, "b": {}, "c": {}}, "datasets": "paper",
              "offline_mirrors": ["../shared/realdata"], "graphs": {"ny": {"dataset": "ny"}}}
    p = {"gpus": 1, "cores": 4, "jobs": 3, "gpu_s": 60.0, "cpu_s": 0.0, "reference_cpu_s": 6.0,
         "wall_s": 120.0}
    line = needs_line(config, p, 0, {"a", "b"})
    assert line.startswith("graphrepro: this run needs a CUDA GPU for 2 of 3 targets (none here")
    assert "offline mirror (../shared/realdata)" in line and "USA-road-d.NY.gr.gz" in line
    assert "about 2 min on 1 GPU(s)" in line and "\n" not in line
    line = needs_line({"targets": {"c": {}}}, {**p, "gpu_s": 0.0}, 0, {"a"})
    assert "needs no GPU" in line and "stand-ins" in line
    # finding 6 of issue 53: no GPU here is said so, and the stand-ins' size is the config's
    line = needs_line({"targets": {"a": {}}, "graphs": {"ny": {"dataset": "ny", "scale": 0.001}}},
                      {**p, "gpus": 0}, 0, {"a"})
    assert "(1/1000-size stand-ins, built in place)" in line and "GPU(s)" not in line
    assert line.endswith("about 2 min with 4 cores and no GPU")
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile",
                          "config/h100.yaml"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    [needs] = [x for x in (out.stdout + out.stderr).splitlines() if x.startswith("graphrepro: this")]
    # where a GPU is, the line says what this run uses of it rather than what it lacks
    assert ("GPU(s) for" if real_cuda_device() else "CUDA GPU for") in needs
    assert "paper-size stand-ins" in needs and "timed jobs" in needs
    if not candidate_devices():  # the plan of this machine: no GPU, no GPU minutes in its wall
        assert "GPU(s)" not in needs and needs.endswith("with 2 cores and no GPU")


def test_rerun_says_a_gpu_target_cannot_be_measured_here_and_never_remakes_graphs():
    out = graphrepro("rerun", "safari2017_fig3", "--dry-run", "--cores", "1")
    assert out.returncode == 0, out.stderr[-2000:]
    [cmd] = [x for x in out.stderr.splitlines() if x.startswith("+ ")]
    assert "--rerun-triggers mtime" in cmd  # a recorded parameter never remakes a graph
    from graphrepro import gpu

    if not gpu.cuda_available():
        assert "rerun: safari2017_fig3 times GPU solvers and this machine has no CUDA device" \
            in out.stderr


def test_the_closing_lines_count_the_one_ledger(tmp_path):
    import time

    from graphrepro.report.summary import terminal_summary, write_summary

    started = time.time() - 1
    ledger = pd.DataFrame({"verdict": ["reproduced", "not testable here", "reproduced"],
                           "from_run": ["reference run", "this machine", "this machine"]})
    report = tmp_path / "index.html"
    write_summary(report, ledger, "reports/claims.csv", set())
    text = terminal_summary(str(report), started)
    assert "3 claims: 2 reproduced, 0 direction only" in text
    assert "(1 of the 3 from the committed reference run" in text


def test_the_page_its_summary_and_claims_read_one_ledger_and_agree(tmp_path):
    """The workflow's two steps by hand: `claims` writes the merged ledger, `report` reads it."""
    results, ledger = tmp_path / "results", tmp_path / "reports" / "claims.csv"
    out = graphrepro("claims", "--results", str(results), "--output", str(ledger))
    assert out.returncode == 0, out.stderr
    page = tmp_path / "reports" / "index.html"
    made = graphrepro("report", "--results", str(results), "--claims", str(ledger),
                      "--output", str(page))
    assert made.returncode == 0, made.stderr[-2000:]
    merged = pd.read_csv(ledger, dtype=str, keep_default_na=False)
    counts = merged["verdict"].value_counts().to_dict()
    summary = json.loads(page.with_name("index.summary.json").read_text())
    assert summary["source"] == str(ledger)
    assert {k: v for k, v in summary["claims"].items() if v} == counts
    text = page.read_text()
    headline = text[text.index('id="overview"'):text.index('id="contents"')]
    for verdict, n in counts.items():
        assert f"{n} {verdict}</span>" in headline
    printed = graphrepro("claims", "--ledger", str(ledger), "--format", "csv")
    assert pd.read_csv(io.StringIO(printed.stdout))["verdict"].value_counts().to_dict() == counts
