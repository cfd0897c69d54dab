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
import time

# The wildcards a step is named by, in this order; others follow.
_NAMED = ("target", "graph", "solver", "dataset", "name")

# What the Snakefile tells the progress lines (tell); read when the run's plan is logged.
_WORKFLOW: dict = {"results": None, "rule_names": ()}
_RUNNING: list = []  # the Progress of this process's run, once the plugin made it


def tell(*, results: str | None = None, rule_names=()) -> None:
    """The Snakefile's facts for the lines: its results folder (where earlier outputs would be)
    and its rules' names (a mistyped target's closest names)."""
    _WORKFLOW.update(results=results, rule_names=tuple(rule_names))


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
    go, about 4 min 10 s left". The time left is the time so far over the jobs done, times those
    left (steps differ in length, so it is an estimate, said as one).

    :meth:`text` reads one snakemake log record: our line for it, "" to print nothing (a job's
    own block and snakemake's "Finished jobid" line: ours names the step instead), or None for
    snakemake's own formatting."""

    def __init__(self, *, clock=time.monotonic):
        self.total, self.done, self.clock = 0, 0, clock
        self.started = clock()
        self.jobs: dict = {}
        self.finished: tuple = ("a step", None)

    @classmethod
    def started_run(cls) -> Progress:
        _RUNNING.append(cls())
        return _RUNNING[-1]

    def text(self, record, formatted) -> str | None:
        """The text for ``record``; ``formatted(record)`` is snakemake's own formatting of it."""
        event = str(getattr(record, "event", "") or "")
        if event == "job_info":
            self.jobs[getattr(record, "jobid", None)] = (getattr(record, "rule_name", "?"),
                                                         getattr(record, "wildcards", None))
            return ""
        if event == "job_finished":
            self.finished = self.jobs.pop(getattr(record, "job_id", None), ("a step", None))
            return ""
        if event == "progress":
            self.done = int(getattr(record, "done", self.done + 1))
            self.total = int(getattr(record, "total", self.total))
            return self.line(step_name(*self.finished))
        if event == "run_info":
            stats = getattr(record, "stats", None) or {}
            self.total = int(stats.get("total", getattr(record, "total_job_count", 0)) or 0)
            self.started = self.clock()
            resuming = resume_line(_WORKFLOW["results"], self.total)
            return "\n".join(t for t in (formatted(record), resuming) if t)
        if event == "error" and getattr(record, "exception", None) == "MissingRuleException":
            asked = re.search(r"No rule to produce (\S+)", str(record.getMessage()))
            typo = unknown_targets([asked.group(1)], _WORKFLOW["rule_names"]) if asked else None
            return typo or None
        return None

    def line(self, step: str) -> str:
        left = max(self.total - self.done, 0)
        text = f"[{self.done}/{self.total}] done: {step}"
        if left and self.done:
            spent = self.clock() - self.started
            text += f"; {left} to go, about {duration(spent / self.done * left)} left"
        return text


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
