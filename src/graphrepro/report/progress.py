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
    4 min 10 s left". The time left is the time so far over the jobs done, times those left
    (steps differ in length, so it is an estimate, said as one)."""

    def __init__(self, total: int, *, stream=None, clock=time.monotonic):
        super().__init__(level=logging.INFO)
        self.total, self.done, self.clock = total, 0, clock
        self.started = clock()
        self.stream = stream
        self.jobs: dict = {}

    def emit(self, record: logging.LogRecord) -> None:
        event = str(getattr(record, "event", "") or "")
        if event == "job_info":
            self.jobs[getattr(record, "jobid", None)] = (getattr(record, "rule_name", "?"),
                                                         getattr(record, "wildcards", None))
        elif event == "job_finished":
            rule, wildcards = self.jobs.pop(getattr(record, "job_id", None), ("a step", None))
            self.done += 1
            print(self.line(step_name(rule, wildcards)), file=self.stream or sys.stderr,
                  flush=True)

    def line(self, step: str) -> str:
        left = max(self.total - self.done, 0)
        text = f"[{self.done}/{self.total}] done: {step}"
        if left and self.done:
            spent = self.clock() - self.started
            text += f"; {left} to go, about {duration(spent / self.done * left)} left"
        return text


def install(total: int, logger_name: str = "snakemake.logging") -> Progress:
    """The progress handler on snakemake's logger, and its terminal lines in place of snakemake's
    own "Finished jobid: 110 (Rule: run_solver)" and "n of m steps (x%) done": those two are
    dropped from the terminal only (the log file under .snakemake/log/ keeps them)."""
    log = logging.getLogger(logger_name)
    progress = Progress(total)
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
