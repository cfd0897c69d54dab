"""What a run says while it runs: one line per finished step naming its rule, graph and solver,
with how many are left and about how long; where a run resumes, that it does; a target no rule
makes, the closest names; and the one line a dry run of a GPU config ends with.

Snakemake's own lines ("Finished jobid: 110 (Rule: run_solver)") name neither the graph nor the
solver and give no time left. Its log records carry the job's rule and wildcards (event
``job_info``), each finished job's id (``job_finished``) and the count done (``progress``), the
fields the public snakemake-interface-logger-plugins documents; :class:`Progress` turns them
into lines for the logger plugin (package snakemake_logger_plugin_graphrepro, ``--logger
graphrepro``, which the workflow's profiles name). The plugin starts before the Snakefile is
read; what only the Snakefile knows (the results folder, the rule names) it hands over through
:func:`tell`, in the same process.
"""

from __future__ import annotations

import os
import re
import sys
import time

# The wildcards a step is named by, in this order; others follow.
_NAMED = ("target", "graph", "solver", "dataset", "name")

# What the Snakefile tells the progress lines (tell); read when the run's plan is logged.
_WORKFLOW: dict = {"results": None, "rule_names": (), "plan": None}
_RUNNING: list = []  # the Progress of this process's run, once the plugin made it
_SILENCED: list = []  # set by a Ctrl-C (Interrupt): the terminal says nothing more of snakemake's


def tell(*, results: str | None = None, rule_names=(), plan=None) -> None:
    """The Snakefile's facts for the lines: its results folder (where earlier outputs would be),
    its rules' names (a mistyped target's closest names) and ``plan``, a function returning this
    config's planned runs on this machine and its lanes (:func:`planned_runs`), called once the
    run starts."""
    _WORKFLOW.update(results=results, rule_names=tuple(rule_names), plan=plan)


def silenced() -> bool:
    return bool(_SILENCED)


def running() -> Progress | None:
    """The progress of this run, where the graphrepro logger plugin is on (its onerror line)."""
    return _RUNNING[-1] if _RUNNING else None


def step_name(rule: str, wildcards: dict | None) -> str:
    wc = {k: v for k, v in (wildcards or {}).items() if v not in (None, "")}
    parts = [f"{k} {wc.pop(k)}" for k in _NAMED if k in wc]
    parts += [f"{k} {v}" for k, v in wc.items()]
    return rule + (f" ({', '.join(parts)})" if parts else "")


def duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, s = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {s:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class Progress:
    """One line per finished job: "[12/195] done: run_solver (graph ny, solver harish); 183 to
    go, about 4 min 10 s left". Given the plan (``tell(plan=...)``), the time left is the plan's
    for the jobs not yet finished: each planned run whose file is still missing when the run
    starts, by its lane (GPU, CPU timings, other steps) over the lane's width, the fullest lane
    deciding, and ``OTHER_STEP_S`` for each other step. An average of the jobs done would not
    do: the short steps (graphs, sources) come first and the long timed runs last (issue 53: it
    said 23 min left when 57.5 remained). Where the plan does not fit the run (more planned runs
    missing than the run has jobs: a single target asked for), the time so far over the jobs
    done, times those left (an estimate, said as one).

    :meth:`text` reads one snakemake log record: our line for it, "" to print nothing (a job's
    own block and snakemake's "Finished jobid" line: ours names the step instead), or None for
    snakemake's own formatting."""

    def __init__(self, *, clock=time.monotonic, estimates: dict | None = None,
                 lanes: dict | None = None):
        self.total, self.done, self.clock = 0, 0, clock
        self.started = clock()
        self.jobs: dict = {}
        self.finished: tuple = ("a step", None)
        # {planned output: (seconds, lane)} of the timed work still to come (job_estimates)
        self.pending = dict(estimates) if estimates is not None else None
        self.lanes = lanes or {}

    @classmethod
    def started_run(cls) -> Progress:
        _RUNNING.append(cls())
        return _RUNNING[-1]

    def text(self, record, formatted) -> str | None:
        """The text for ``record``; ``formatted(record)`` is snakemake's own formatting of it."""
        event = str(getattr(record, "event", "") or "")
        if event == "job_info":
            self.jobs[getattr(record, "jobid", None)] = (getattr(record, "rule_name", "?"),
                                                         getattr(record, "wildcards", None),
                                                         list(getattr(record, "output", None) or []))
            return ""
        if event == "job_finished":
            rule, wildcards, outputs = self.jobs.pop(getattr(record, "job_id", None),
                                                     ("a step", None, []))
            self.finished = (rule, wildcards)
            for path in outputs if self.pending is not None else ():
                self.pending.pop(os.path.normpath(str(path)), None)
            return ""
        if event == "progress":
            self.done = int(getattr(record, "done", self.done + 1))
            self.total = int(getattr(record, "total", self.total))
            return self.line(step_name(*self.finished))
        if event == "run_info":
            stats = getattr(record, "stats", None) or {}
            self.total = int(stats.get("total", getattr(record, "total_job_count", 0)) or 0)
            self.started = self.clock()
            self.plan()
            resuming = resume_line(_WORKFLOW["results"], self.total)
            return "\n".join(t for t in (formatted(record), resuming) if t)
        if event == "error" and getattr(record, "exception", None) == "MissingRuleException":
            asked = re.search(r"No rule to produce (\S+)", str(record.getMessage()))
            typo = unknown_targets([asked.group(1)], _WORKFLOW["rule_names"]) if asked else None
            return typo or None
        return None

    def plan(self) -> None:
        """The plan's timed work still to come: its runs whose files are missing now."""
        planner = _WORKFLOW["plan"]
        if planner is None or self.pending is not None:
            return
        runs, self.lanes = planner()
        missing = [job for job in planned_jobs(runs, _WORKFLOW["results"] or ".")
                   if not os.path.exists(job.jobid)]
        if len(missing) <= self.total:  # else the run is a part of the plan: no fit
            self.pending = job_estimates(missing, runs)

    def line(self, step: str) -> str:
        left = max(self.total - self.done, 0)
        text = f"[{self.done}/{self.total}] done: {step}"
        if left and self.pending is not None:
            text += f"; {left} to go, about {duration(self.planned_left(left))} left"
        elif left and self.done:
            spent = self.clock() - self.started
            text += f"; {left} to go, about {duration(spent / self.done * left)} left"
        return text

    def planned_left(self, left: int) -> float:
        """The plan's seconds for the jobs not yet finished: each lane's (GPU, CPU timings, the
        other steps) over the jobs it runs at once; the fullest lane decides."""
        by_lane = {"other": OTHER_STEP_S * max(0, left - len(self.pending))}
        for seconds, lane in self.pending.values():
            by_lane[lane] = by_lane.get(lane, 0.0) + seconds
        return max((s / max(1, self.lanes.get(lane, 1)) for lane, s in by_lane.items()),
                   default=0.0)


# A step the plan does not time (a graph's conversion, its sources, a table, a figure): seconds.
OTHER_STEP_S = 3.0
_RUN_FILE = re.compile(r"(?:^|/)runs/([^/]+)/([^/]+)\.csv$")
_SHARD_FILE = re.compile(r"(?:^|/)shards/([^/]+)/(repeat/)?([^/]+)\.(\d+)\.csv$")
_BLOCK_FILE = re.compile(r"(?:^|/)benchmarks/([^/]+)\.csv$")


def _run_key(path: str) -> tuple[tuple | None, tuple | None]:
    """(graph, run file id) and (shard, timed again) of a run file a job writes, or None."""
    if m := _SHARD_FILE.search(path):
        return (m[1], m[3]), (int(m[4]), bool(m[2]))
    if m := _RUN_FILE.search(path):
        return (m[1], m[2]), None
    if m := _BLOCK_FILE.search(path):
        return ("benchmarks", m[1]), None
    return None, None


def job_estimates(jobs, runs) -> dict:
    """{job id: (seconds, lane)} for snakemake's jobs (each with ``jobid`` and ``output``) from
    the plan's runs (``plan.PlannedRun``): a timed job by the run files it writes (a run, one
    shard of it, an interleaved group's runs, a chapter-3 block job), in the lane of its
    device ("gpu" or "cpu"); a merge of shards and every untimed step ``OTHER_STEP_S`` in
    lane "other"."""
    from ..solvers import run_file_id

    by_file = {(r.graph, run_file_id(r.run_id)): r for r in runs}
    out = {}
    for job in jobs:
        seconds, lane = 0.0, "other"
        for path in map(str, job.output):
            key, shard = _run_key(path)
            run = by_file.get(key)
            if run is None:
                continue
            if shard is not None:  # job_seconds: each shard's, then each repeated shard's
                i, again = shard
                at = run.shards + run.repeats.index(i) if again and i in run.repeats else i
                each = run.job_seconds()
                seconds, lane = seconds + each[min(at, len(each) - 1)], run.device
            elif run.shards == 1:  # the run itself; with shards this is their merge
                seconds, lane = seconds + sum(run.job_seconds()), run.device
        out[job.jobid] = (seconds or OTHER_STEP_S, lane)
    return out


def planned_jobs(runs, results: str) -> list:
    """The jobs of the plan's runs, each named (``jobid``) by the one file it writes under
    ``results``: a run's table, each shard's (and each repeated shard's), a block job's table.
    What :func:`job_estimates` reads, for jobs snakemake has not scheduled yet."""
    from types import SimpleNamespace

    from ..solvers import run_file_id

    paths = []
    for run in runs:
        name = run_file_id(run.run_id)
        if run.graph == "benchmarks":
            paths.append(os.path.join(results, "benchmarks", f"{name}.csv"))
        elif run.shards == 1:
            paths.append(os.path.join(results, "runs", run.graph, f"{name}.csv"))
        else:
            folder = os.path.join(results, "shards", run.graph)
            paths += [os.path.join(folder, f"{name}.{i}.csv") for i in range(run.shards)]
            paths += [os.path.join(folder, "repeat", f"{name}.{i}.csv") for i in run.repeats]
    return [SimpleNamespace(jobid=os.path.normpath(p), output=[p]) for p in dict.fromkeys(paths)]


def planned_runs(config: dict, reference, *, gpus: int, cores: int,
                 cpu_slots: int = 1) -> tuple[list, dict]:
    """This config's planned runs on this machine (``plan.plan_runs`` and ``plan_blocks``: the
    recorded or estimated seconds of each run; with no GPU a GPU run only records "not run"),
    and how many jobs each lane runs at once: what :class:`Progress` reads."""
    from pathlib import Path

    from ..plan import on_this_machine, plan_blocks, plan_runs

    runs = on_this_machine(plan_runs(config, Path(reference)) + plan_blocks(config, Path(reference)),
                           gpus)
    return runs, {"gpu": gpus, "cpu": cpu_slots, "other": cores}


def resume_line(results: str | None, to_run: int) -> str | None:
    """What a run that finds earlier outputs in its results folder says first (None on a fresh
    run: no such folder, or an empty one)."""
    try:
        kept = bool(results) and any(os.scandir(results))
    except OSError:
        kept = False
    if not kept:
        return None
    return (f"graphrepro: resuming: earlier outputs in {results} are kept where up to date; "
            f"{to_run} steps to run.")


class Interrupt:
    """Ctrl-C in plain ``snakemake``: one line and exit status 130, as every ``graphrepro``
    command ends (README, exit codes), not snakemake's RuleException and WorkflowError blocks
    and status 1. Snakemake has no hook for an interrupt, so this wraps Python's SIGINT handler
    (:meth:`install`, from the Snakefile): the first Ctrl-C marks the run interrupted and
    silences the terminal's lines from then on (the graphrepro logger plugin's; snakemake's log
    file under .snakemake/log/ keeps them), then raises KeyboardInterrupt as before, so snakemake stops its jobs and removes
    their incomplete outputs, and calls the workflow's ``onerror``, which prints the one line
    and exits 130 (:meth:`exit`; the lock is released on the way out). A Ctrl-C before any job
    was scheduled exits there."""

    def __init__(self, stream=None):
        self.stream = stream
        self.seen, self.scheduling = False, False

    def install(self) -> Interrupt:
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self.handle)
        return self

    def handle(self, signum, frame) -> None:
        if not self.seen:
            self.seen = True
            _SILENCED.append(True)  # the logger plugin prints nothing more (silenced())
        if not self.scheduling:
            self.exit(None)
        raise KeyboardInterrupt

    def exit(self, progress: Progress | None) -> None:
        """After a Ctrl-C: the one line, then exit status 130 (128 + SIGINT)."""
        print(stopped_line(progress).replace("stopped", "interrupted (Ctrl-C)", 1),
              file=self.stream or sys.stderr, flush=True)
        raise SystemExit(130)


def stopped_line(progress: Progress | None) -> str:
    if progress is None or not progress.total:
        return "graphrepro: stopped; what finished is kept: the same command resumes from there."
    return (f"graphrepro: stopped after {progress.done} of {progress.total} steps; what finished "
            "is kept: the same command resumes from there.")


def is_dry_run(argv) -> bool:
    """Whether snakemake was asked for a dry run (-n, --dry-run, or -n among short flags): its
    Snakefile is read before snakemake says so anywhere it can see."""
    return any(a in ("--dry-run", "--dryrun") or re.fullmatch(r"-[a-zA-Z]{0,4}n[a-zA-Z]{0,4}", a)
               and not a.startswith("--") for a in argv)


def unknown_targets(asked, rule_names) -> str | None:
    """The one line for targets asked for by name that no rule makes (a typo), naming the
    closest rules and targets, or None. What looks like a file (a path, a name with a suffix,
    one that exists) is left to snakemake's own error."""
    from ..experiments import all_targets, unknown_target

    names = set(rule_names) | {t.name for t in all_targets()}
    for t in sorted(asked):
        if t not in names and os.sep not in t and "." not in t and not os.path.exists(t):
            return unknown_target(t, sorted(names))
    return None
