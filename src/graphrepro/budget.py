"""What the plan does with a host and a budget: shards so that no job sets the wall, each
target's own share, and which targets fit in a number of minutes and which caps to lower.

``plan.plan`` estimates jobs from recorded walls; this module only re-plans those estimates:
- ``shard_for_share``: a graph's sources split into as many shards (each shard times every run
  of the graph, an interleaved group whole, on its own contiguous slice of the sources:
  harness/shards.py) as keep every GPU job under ``share`` of the plan's ideal wall (its GPU-s
  over its GPUs); block and benchmark jobs are not split here and are named if longer;
- ``fit``: the targets that fit a budget, cheapest-to-drop last (config order kept), and the
  largest source cap (on the graphs whose runs grow with sources) under which all of them fit.
"""

from __future__ import annotations

import math
from dataclasses import replace

from pathlib import Path

from .plan import (PlannedRun, as_jobs, expected_n, format_plan, host_threads, planned, reference_seconds,
                   schedule, summarize)


def ideal_wall(runs: list[PlannedRun], gpus: int) -> float:
    """A lower bound on any schedule's wall: the GPU-seconds spread evenly over the GPUs."""
    return sum(s for r in runs if r.device == "gpu" for s in r.job_seconds()) / max(1, gpus)


def _shards_needed(job: PlannedRun, limit: float) -> int:
    """The fewest shards that bring every one of the job's shards under ``limit`` seconds (at
    most one a source: a shard's fixed part cannot be split)."""
    if job.per_source_s <= 0 or job.sources <= 1:
        return job.shards
    room = limit - job.fixed_s
    if room <= job.per_source_s:
        return job.sources
    return max(job.shards, min(job.sources, math.ceil(job.sources * job.per_source_s / room)))


def shard_for_share(config: dict, runs: list[PlannedRun], gpus: int,
                    share: float) -> tuple[list[PlannedRun], dict]:
    """The runs with each graph's shards raised so that no GPU job is longer than ``share`` of
    the ideal wall, and {graph: shards} where they changed. Adding shards adds each shard's
    fixed part, so the limit is worked out again until it holds still."""
    shards: dict = {}
    for _ in range(5):
        limit = share * ideal_wall(runs, gpus)
        wanted = {}
        for job in as_jobs(config, runs):
            if job.kind == "run" and job.device == "gpu":
                need = _shards_needed(job, limit)
                wanted[job.graph] = max(wanted.get(job.graph, 1), need)
        grow = {g: k for g, k in wanted.items() if k > shards.get(g, 0) and k > 1}
        changed = {g: k for g, k in grow.items()
                   if k > max((r.shards for r in runs if r.graph == g), default=1)}
        if not changed:
            break
        shards.update(changed)
        runs = [replace(r, shards=changed[r.graph]) if r.graph in changed else r for r in runs]
    return runs, shards


def longest_jobs(config: dict, runs: list[PlannedRun], limit: float) -> list[tuple[str, float]]:
    """(job, seconds) of the GPU jobs still longer than ``limit``, longest first."""
    out = [(f"{j.graph}/{j.run_id}", s) for j in as_jobs(config, runs) if j.device == "gpu"
           for s in j.job_seconds() if s > limit]
    return sorted(set(out), key=lambda x: -x[1])


def target_wall(config: dict, runs: list[PlannedRun], gpus: int, prep_threads: int, refs: dict,
                cpu_slots: int) -> dict:
    """{target: the wall its jobs alone would take on the host}."""
    out = {}
    for name in dict.fromkeys(r.target for r in runs):
        mine = [r for r in runs if r.target == name]
        own = {g: s for g, s in refs.items() if any(r.graph == g for r in mine)}
        out[name] = schedule(as_jobs(config, mine), gpus, prep_threads, own, cpu_slots)["wall_s"]
    return out


def _capped(runs: list[PlannedRun], cap: int) -> list[PlannedRun]:
    return [replace(r, sources=min(r.sources, cap)) if r.kind == "run" else r for r in runs]


def fit(config: dict, runs: list[PlannedRun], budget_s: float, wall_of) -> dict:
    """Which targets fit ``budget_s`` (``wall_of(runs)``: the plan's wall of some runs) taken in
    the config's order, and the largest source cap under which every target fits (None where
    even one source a graph does not: the targets that do not fit name what to drop)."""
    names = list(dict.fromkeys(r.target for r in runs))
    fits, kept = [], []
    for name in names:
        trial = kept + [r for r in runs if r.target == name]
        if wall_of(trial) <= budget_s:
            fits.append(name)
            kept = trial
    most = max((r.sources for r in runs if r.kind == "run"), default=0)
    cap = None
    low, high = 1, most
    while low <= high:  # the wall grows with the cap: the largest cap that fits
        mid = (low + high) // 2
        if wall_of(_capped(runs, mid)) <= budget_s:
            cap, low = mid, mid + 1
        else:
            high = mid - 1
    lowered = sorted({r.graph for r in runs if r.kind == "run" and cap is not None
                      and r.sources > cap and r.per_source_s > 0})
    return {"budget_s": budget_s, "fit": fits, "over": [n for n in names if n not in fits],
            "cap": cap if cap is not None and cap < most else None, "cap_graphs": lowered,
            "capped_wall_s": wall_of(_capped(runs, cap)) if cap else None}


def format_fit(f: dict) -> str:
    minutes = f["budget_s"] / 60
    if not f["over"]:
        return f"budget {minutes:.0f} min: every target fits"
    lines = [f"budget {minutes:.0f} min: {len(f['fit'])} target(s) fit in config order: "
             f"{', '.join(f['fit']) or 'none'}; over it: {', '.join(f['over'])}"]
    if f["cap"]:
        lines.append(f"or every target, with the sources capped at {f['cap']} on "
                     f"{', '.join(f['cap_graphs'])} ({f['capped_wall_s'] / 60:.1f} min)")
    else:
        lines.append("no source cap alone brings every target under it (the block and benchmark "
                     "jobs do not shrink with sources)")
    return "\n".join(lines)


def plan_host(config: dict, gpus: int, cores: int, reference: Path, results: Path | None = None,
              timed_cores: int | None = None, targets=None, cpu_slots: int | None = 1,
              max_job_share: float | None = None, budget_min: float | None = None) -> dict:
    """``plan.plan`` with each target's own wall on the host, the shards that keep every GPU job
    under ``max_job_share`` of the plan (``shards``: the graphs whose shards it raised), and,
    with ``budget_min``, what fits in it (``fit``)."""
    runs = planned(config, gpus, reference, results, targets)
    shards = {}
    if max_job_share:
        runs, shards = shard_for_share(config, runs, gpus, max_job_share)
    p = summarize(config, runs, gpus, cores, reference, results, timed_cores, cpu_slots)
    _, prep, slots = host_threads(cores, gpus, timed_cores, cpu_slots)
    refs = reference_seconds(config, runs, reference, results)
    for name, wall in target_wall(config, runs, gpus, prep, refs, slots).items():
        p["targets"][name]["wall_s"] = wall
    for name, n in expected_n(p["targets"], results or Path(config.get("results", "results")),
                              reference).items():
        p["targets"][name]["n_expected"] = n
    p["shards"] = shards
    p["max_job_share"] = max_job_share
    if max_job_share:
        p["long_jobs"] = longest_jobs(config, runs, max_job_share * ideal_wall(runs, gpus))
    if budget_min is not None:
        p["fit"] = fit(config, runs, budget_min * 60, lambda rs: schedule(
            as_jobs(config, rs), gpus, prep, reference_seconds(config, rs, reference, results),
            slots)["wall_s"])
    return p


def format_host_plan(p: dict) -> str:
    """format_plan's table and lines, then the shards, the jobs still too long, and the fit."""
    lines = [format_plan(p)]
    if p.get("max_job_share"):
        raised = ", ".join(f"{g} {k}" for g, k in sorted(p["shards"].items())) or "none needed"
        lines.append(f"shards for no GPU job over {p['max_job_share']:.0%} of the plan: {raised}")
        for job, seconds in p.get("long_jobs", [])[:5]:
            lines.append(f"  still longer (not split by sources): {job} {seconds:.0f} s")
    if p.get("fit"):
        lines.append(format_fit(p["fit"]))
    return "\n".join(lines)


def shards_config(p: dict) -> dict:
    """A config to give after the others (``--configfile ... THIS``) that sets the shards."""
    return {"graphs": {g: {"shards": k} for g, k in sorted(p.get("shards", {}).items())}}


def _measured_s(results: Path, job: PlannedRun) -> float | None:
    """The recorded wall seconds of a planned job's every shard in this results folder (its
    tables' own records), or None where it was not made (or recorded no wall)."""
    from .bounded import load_json
    from .harness.shards import job_records
    from .solvers import run_file_id

    if job.kind == "run":
        path = results / "runs" / job.graph / f"{run_file_id(job.run_id)}.provenance.json"
    else:
        path = results / "benchmarks" / f"{job.run_id}.provenance.json"
    try:
        record = load_json(path) if path.is_file() else None
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    jobs = [r.get("job") for r in job_records(record) if isinstance(r.get("job"), dict)]
    walls = [j.get("wall_s_all") or j.get("wall_s") for j in jobs]
    return sum(walls) if walls and all(walls) else None


def measured_line(config: dict, results: Path, reference: Path, gpus: int, cores: int,
                  wall_s: float) -> str:
    """A run's last line: the jobs it made, their recorded seconds against what the plan, made
    from the reference's records alone, gave them, and its wall against the plan's."""
    jobs = planned(config, gpus, reference, reference)
    slots = config.get("host_cpu_slots", "auto")  # the gpu-host profile's, unless given
    p = summarize(config, jobs, gpus, cores, reference, reference,
                  cpu_slots=None if str(slots) == "auto" else int(slots))
    pairs = [(m, sum(j.job_seconds())) for j in jobs
             if (m := _measured_s(results, j)) is not None]
    measured, expected = sum(m for m, _ in pairs), sum(e for _, e in pairs)
    ratio = f" (x{measured / expected:.2f})" if expected else ""
    return (f"measured against planned: {len(pairs)} of {len(jobs)} timed jobs made here, "
            f"{measured:.0f} s of job time against {expected:.0f} s planned{ratio}; wall "
            f"{wall_s:.0f} s against {p['wall_s']:.0f} s planned for the whole config on "
            f"{gpus} GPU(s) and {cores} cores ({p['cpu_slots']} one-core CPU timing slots)")
