"""What a run says while it runs: one line per finished step naming its rule, graph and solver,
with how many are left and about how long; where a run resumes, how much was already done; and
the one line a dry run of a GPU config ends with, saying what it needs.

Snakemake's own lines ("Finished jobid: 110 (Rule: run_solver)") name neither the graph nor the
solver and give no time left. Its log records carry the job's rule and wildcards (``event``
``job_info``) and each finished job's id (``job_finished``); :class:`Progress` is a logging handler
on snakemake's logger that reads them (the Snakefile installs it in ``onstart``, once the plan
is made).
"""

from __future__ import annotations

import logging
import re
import sys
import time

# The wildcards a step is named by, in this order; others follow.
_NAMED = ("target", "graph", "solver", "dataset", "name")


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


class Progress(logging.Handler):
    """One line per finished job: "[12/195] done: run_solver (graph ny, solver harish); about
    4 min 10 s left". Given the plan's estimate of each job (``estimates``: {job id: (seconds,
    lane)}, :func:`job_estimates`) and how many jobs each lane runs at once (``lanes``), the time
    left is the plan's for the jobs not yet finished: the fullest lane's seconds over its width.
    An average of the jobs done would not do: the short steps (graphs, sources) come first and
    the long timed runs last (issue 53: it said 23 min left when 57.5 remained). Without a plan,
    the time so far over the jobs done, times those left."""

    def __init__(self, total: int, *, stream=None, clock=time.monotonic,
                 estimates: dict | None = None, lanes: dict | None = None):
        super().__init__(level=logging.INFO)
        self.total, self.done, self.clock = total, 0, clock
        self.started = clock()
        self.stream = stream
        self.jobs: dict = {}
        self.pending = dict(estimates) if estimates is not None else None
        self.lanes = lanes or {}

    def emit(self, record: logging.LogRecord) -> None:
        event = str(getattr(record, "event", "") or "")
        if event == "job_info":
            self.jobs[getattr(record, "jobid", None)] = (getattr(record, "rule_name", "?"),
                                                         getattr(record, "wildcards", None))
        elif event == "job_finished":
            job_id = getattr(record, "job_id", None)
            rule, wildcards = self.jobs.pop(job_id, ("a step", None))
            if self.pending is not None:
                self.pending.pop(job_id, None)
            self.done += 1
            print(self.line(step_name(rule, wildcards)), file=self.stream or sys.stderr,
                  flush=True)

    def line(self, step: str) -> str:
        left = max(self.total - self.done, 0)
        text = f"[{self.done}/{self.total}] done: {step}"
        if left and self.pending is not None:
            text += f"; {left} to go, about {duration(self.planned_left())} left"
        elif left and self.done:
            spent = self.clock() - self.started
            text += f"; {left} to go, about {duration(spent / self.done * left)} left"
        return text

    def planned_left(self) -> float:
        """The plan's seconds for the jobs not yet finished: each lane's (GPU, CPU timings, the
        other steps) over the jobs it runs at once; the fullest lane decides."""
        by_lane: dict = {}
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


def plan_estimates(config: dict, jobs, reference, *, gpus: int, cores: int,
                   cpu_slots: int = 1) -> tuple[dict, dict]:
    """The estimates and lanes :class:`Progress` reads, from this config's plan on this
    machine (``plan.plan_runs`` and ``plan_blocks``: the recorded or estimated seconds of each
    run; with no GPU a GPU run only records "not run")."""
    from pathlib import Path

    from ..plan import on_this_machine, plan_blocks, plan_runs

    runs = on_this_machine(plan_runs(config, Path(reference)) + plan_blocks(config, Path(reference)),
                           gpus)
    return job_estimates(jobs, runs), {"gpu": gpus, "cpu": cpu_slots, "other": cores}


def install(total: int, logger_name: str = "snakemake.logging", *, estimates: dict | None = None,
            lanes: dict | None = None) -> Progress:
    """The progress handler on snakemake's logger, and its terminal lines in place of snakemake's
    own "Finished jobid: 110 (Rule: run_solver)" and "n of m steps (x%) done": those two are
    dropped from the terminal only (the log file under .snakemake/log/ keeps them)."""
    log = logging.getLogger(logger_name)
    progress = Progress(total, estimates=estimates, lanes=lanes)
    for handler in log.handlers:
        if isinstance(handler, logging.StreamHandler) and not isinstance(handler,
                                                                         logging.FileHandler):
            handler.addFilter(_not_snakemakes_progress)
    log.addHandler(progress)
    return progress


def _not_snakemakes_progress(record: logging.LogRecord) -> bool:
    return str(getattr(record, "event", "") or "") not in ("job_finished", "progress")


def resume_line(total_jobs: int, to_run: int) -> str | None:
    """What a run that finds earlier outputs says first (None on a fresh run)."""
    done = total_jobs - to_run
    if done <= 0:
        return None
    return (f"graphrepro: resuming: {done} of {total_jobs} steps were already done (their outputs "
            f"are up to date and kept); {to_run} to run.")


class Interrupt:
    """Ctrl-C in plain ``snakemake``: one line and exit status 130, as every ``graphrepro``
    command ends (README, exit codes), not snakemake's RuleException and WorkflowError blocks
    and status 1. Snakemake has no hook for an interrupt, so this wraps Python's SIGINT handler
    (:meth:`install`, from the Snakefile): the first Ctrl-C marks the run interrupted and
    silences snakemake's terminal lines from then on (its log file under .snakemake/log/ keeps
    them), then raises KeyboardInterrupt as before, so snakemake stops its jobs and removes
    their incomplete outputs, and calls the workflow's ``onerror``, which prints the one line
    and exits 130 (:meth:`exit`; the lock is released on the way out). A Ctrl-C before any job
    was scheduled exits there."""

    def __init__(self, logger_name: str = "snakemake.logging", stream=None):
        self.logger_name, self.stream = logger_name, stream
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
            for handler in logging.getLogger(self.logger_name).handlers:
                if isinstance(handler, logging.StreamHandler) and not isinstance(
                        handler, logging.FileHandler):
                    handler.addFilter(lambda record: False)
        if not self.scheduling:
            self.exit(None)
        raise KeyboardInterrupt

    def exit(self, progress: Progress | None) -> None:
        """After a Ctrl-C: the one line, then exit status 130 (128 + SIGINT)."""
        print(stopped_line(progress).replace("stopped", "interrupted (Ctrl-C)", 1),
              file=self.stream or sys.stderr, flush=True)
        raise SystemExit(130)


def stopped_line(progress: Progress | None) -> str:
    if progress is None:
        return "graphrepro: stopped before any step ran."
    return (f"graphrepro: stopped after {progress.done} of {progress.total} steps; what finished "
            "is kept: the same command resumes from there.")


def is_dry_run(argv) -> bool:
    """Whether snakemake was asked for a dry run (-n, --dry-run, or -n among short flags): its
    Snakefile is read before snakemake says so anywhere it can see."""
    import re

    return any(a in ("--dry-run", "--dryrun") or re.fullmatch(r"-[a-zA-Z]{0,4}n[a-zA-Z]{0,4}", a)
               and not a.startswith("--") for a in argv)


def unknown_targets(argv, rule_names) -> str | None:
    """The one line for targets snakemake was asked for by name that no rule makes (a typo),
    naming the closest rules and targets, or None. What looks like a file (a path, a name with a
    suffix, one that exists) is left to snakemake. Read from ``argv`` with snakemake's own parser:
    the workflow does not know its targets while its Snakefile is read."""
    import os

    from snakemake.cli import get_argument_parser

    from ..experiments import all_targets, unknown_target

    try:
        asked = get_argument_parser().parse_known_args(list(argv))[0].targets or ()
    except (SystemExit, Exception):  # noqa: BLE001  (an argv snakemake reads otherwise)
        return None
    names = set(rule_names) | {t.name for t in all_targets()}
    for t in sorted(asked):
        if t not in names and os.sep not in t and "." not in t and not os.path.exists(t):
            return unknown_target(t, sorted(names))
    return None
