"""What a config costs on a host, before it runs: jobs, GPU- and CPU-seconds per target, wall time.

Each timed run's seconds come from the best record there is, said in its `basis`:
- `recorded`: the job's own wall time in the provenance beside its run table (``job`` in
  ``results/runs/GRAPH/RUN.provenance.json``, every shard's for a sharded run), split into a fixed
  part (start-up, graph, warm-up) and a part per source, so a run of another number of sources or
  shards is scaled by sources;
- `estimated`: a committed run table under the reference folder (no wall time recorded there):
  its median solve per source times the passes the config asks for, plus a fixed part;
- `unknown`: neither; a default per job, counted and said.
gerritsen2012 chapter 3's per-block jobs (``plan_blocks``) are planned alike, their blocks in
place of sources: recorded in the provenance of their shards (``results/shards/benchmarks/``),
else estimated from a committed per-block table; the shards timed twice (``block_repeat_shards``)
are jobs again.
A graph's preparation is its reference distances (the sources record's `reference_ms`, spread
over the preparation threads). The wall time is a list schedule: GPU jobs on the GPUs, longest
first once their graph is ready; CPU-timed jobs one at a time on their own cores.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from pathlib import Path

from .bounded import load_json, read_csv

FIXED_S = 3.0        # a timed job's start-up, graph load and warm-up where nothing was recorded
UNKNOWN_S = 30.0     # a timed run no table knows
UNKNOWN_REF_MS = 500.0  # a reference Dijkstra no sources record knows


@dataclass
class PlannedRun:
    target: str
    graph: str
    run_id: str
    device: str          # "gpu" or "cpu" (what the run's timing holds)
    fixed_s: float       # per job
    per_source_s: float  # per source, all passes
    basis: str           # recorded, estimated or unknown
    shards: int = 1
    one_core: bool = False  # a CPU timing on one core: host_cpu_slots may run several at once
    sources: int = 6        # its graph's sources (configs.sources_of); a block job's blocks
    kind: str = "run"       # or "blocks": a chapter-3 block job (graph "benchmarks", no references)
    members: tuple = ()     # an interleaved group's run ids (as_jobs), else none
    repeats: tuple = ()     # a block job's shards timed again (block_repeat_shards): more jobs

    def job_seconds(self, sources: int | None = None) -> list[float]:
        """The seconds of each of the run's jobs (one per shard, then one per shard timed
        again), over its graph's sources."""
        from .harness.shards import shard_slice

        sources = self.sources if sources is None else sources
        return [self.fixed_s + self.per_source_s * len(range(sources)[shard_slice(sources, (i, self.shards))])
                for i in (*range(self.shards), *self.repeats)]


def _rates_from_job(jobs: list[dict], per: str = "sources") -> tuple[float, float] | None:
    """(fixed seconds per job, seconds per source, or per ``per``) from recorded ``job``
    records."""
    jobs = [j for j in jobs if isinstance(j, dict) and j.get("wall_s") and j.get(per)]
    if not jobs:
        return None
    per_source = [(j.get("count_s", 0) + j.get("timed_s", 0) + j.get("verify_s", 0)) / j[per]
                  for j in jobs]
    fixed = [j["wall_s"] - p * j[per] for j, p in zip(jobs, per_source)]
    return sum(fixed) / len(fixed), sum(per_source) / len(per_source)


def _recorded(path: Path):
    prov = path.with_suffix(".provenance.json")
    if not prov.is_file():
        return None
    try:
        record = load_json(prov)
    except (OSError, ValueError):
        return None
    shards = record.get("shards") or [record]
    return _rates_from_job([s.get("job") for s in shards if isinstance(s, dict)])


def _table(path: Path):
    """A committed table to estimate from, or None where it is missing or unreadable."""
    if not path.is_file():
        return None

    try:
        return read_csv(path)
    except (OSError, ValueError):
        return None


def _estimated(path: Path, device: str, trials: int, warmup: int):
    """From a committed run table: the median solve of each source, times the passes."""
    import pandas as pd

    if (df := _table(path)) is None:
        return None
    ok = df[df.get("status", pd.Series(dtype=str)) == "ok"] if "status" in df else df.iloc[0:0]
    if ok.empty or "solve_ms" not in ok:
        return None
    per_solve = float(ok.groupby("source")["solve_ms"].median().mean()) / 1e3
    passes = trials + (1 if device == "gpu" else 0)  # a GPU run's untimed counting pass
    return FIXED_S + warmup * per_solve, passes * per_solve


def interleaved_groups(config: dict) -> list[tuple[str, tuple[str, ...]]]:
    """(graph, run ids) of every target's `interleave:` runs: each one timed job per graph (per
    shard on a sharded graph), whose seconds are the sum of its runs'."""
    return sorted({(g, tuple(t["interleave"])) for t in (config.get("targets") or {}).values()
                   if t and t.get("interleave") for g in t.get("graphs") or []})


def expected_n(targets, results: Path, reference: Path) -> dict:
    """{target: the most sources any of its claims needed} where its last ledger rows (this
    run's, else the reference's) were judged sequentially (``sampled``: "decided at 20 sources",
    "cap (100 sources)"; a claim on run tables sampled apart, each table's reason: "decided at
    20 sources; cap (100 sources)"): what a sampled run expects to time."""
    import re

    from .bounded import read_csv

    out = {}
    for name in targets:
        for folder in (results, reference):
            path = folder / "targets" / f"{name}.claims.csv"
            try:
                rows = read_csv(path, dtype=str, keep_default_na=False) if path.is_file() else None
            except (OSError, ValueError):
                rows = None
            if rows is None or "sampled" not in rows:
                continue
            counts = [int(n) for text in rows["sampled"]
                      for n in re.findall(r"(\d+) sources", str(text))]
            if counts:
                out[name] = max(counts)
                break
    return out


def expected_sources(config: dict, graph: str, run_id: str, results: Path,
                     reference: Path) -> int:
    """The sources a run times: every one the config gives its graph (``configs.sources_of``),
    or, where the config samples (``sampling:``, run jobs in batches: claims/batches.py), the
    most the claims of the targets reading it needed in their last ledger (``expected_n``), the
    cap where a target has none, and the design's eye sources (else its first look) where no
    target reading it has claims."""
    from .configs import sampling_design, sources_of, targets_reading

    count, design = sources_of(config, graph), sampling_design(config)
    if design is None:
        return count
    deciding = targets_reading(config, graph, run_id, with_claims=True)
    if not deciding:
        eye = (config.get("sampling") or {}).get("eye_sources")
        return min(count, int(eye or design.first))
    cap = min(count, design.cap or count)
    needed = expected_n(deciding, results, reference)
    return cap if set(deciding) - set(needed) else min(cap, max(needed.values()))


def plan_runs(config: dict, reference: Path, results: Path | None = None,
              targets=None) -> list[PlannedRun]:
    """Every timed run file the config's ready targets (or those named) need, once each, with
    its cost."""
    from .experiments import get_target
    from .solvers import resolve, run_file_id

    measure = config.get("measure", {})
    trials, warmup = int(measure.get("trials", 3)), int(measure.get("warmup", 1))
    results = Path(results or config.get("results", "results"))
    graphs = config.get("graphs") or {}
    seen, out = set(), []
    for name, tcfg in (config.get("targets") or {}).items():
        target = get_target(name)
        if not target.ready or (targets and name not in targets):
            continue
        tcfg = tcfg or {}
        run_ids = tcfg.get("runs") or list(target.solvers)
        pairs = [(g, r) for g in tcfg.get("graphs") or [] for r in run_ids]
        pairs += [(g, r) for g, rs in (tcfg.get("also") or {}).items() for r in rs]
        for graph, run_id in pairs:
            key = (graph, run_file_id(run_id))
            if key in seen:
                continue
            seen.add(key)
            spec = resolve(run_id)[0]
            device = "gpu" if spec.device == "gpu" else "cpu"
            rel = Path("runs") / graph / f"{run_file_id(run_id)}.csv"
            old = Path("runs") / graph / f"{run_id}.csv"  # committed tables kept the commas
            rates, basis = _recorded(results / rel), "recorded"
            for path in (reference / rel, reference / old):
                rates = rates or _recorded(path)
            for path in (reference / rel, reference / old):
                if rates is None:
                    rates, basis = _estimated(path, device, trials, warmup), "estimated"
            if rates is None:
                rates, basis = (UNKNOWN_S, 0.0), "unknown"
            shards = int((graphs.get(graph) or {}).get("shards", 1))
            out.append(PlannedRun(name, graph, run_id, device, rates[0], rates[1], basis, shards,
                                  spec.device == "cpu" and not spec.parallel,
                                  expected_sources(config, graph, run_id, results, reference)))
    return out


# A block's first trial is verified (Kruskal on the block, and a GPU step's tie check), outside
# its timed parts: about a fifth of its time more (0.84 s of parts over the ten versions, about
# 1 s a block in all on the GPU host).
VERIFY_SHARE = 0.2


def _block_jobs(results: Path, reference: Path, name: str) -> list[dict]:
    """The recorded ``job`` of every shard of benchmark ``name``, in this run and the reference
    (a results folder, with --estimate-from): finished shards (the rest of a resumed run's are
    predicted from them) and merged tables' records."""
    paths = []
    for folder in (results, reference):
        paths += sorted((folder / "shards" / "benchmarks").glob(f"{name}.*.provenance.json"))
        paths.append(folder / "benchmarks" / f"{name}.provenance.json")
    jobs = []
    for path in paths:
        try:
            record = load_json(path) if path.is_file() else {}
        except (OSError, ValueError):
            continue
        jobs += [s.get("job") for s in (record.get("shards") or [record]) if isinstance(s, dict)]
    return [j for j in jobs if isinstance(j, dict)]


def _block_estimate(path: Path, side: int, trials: int):
    """From a committed per-block table of the same block side: its mean per-block time times
    the trials, and the verification of the first."""
    if (df := _table(path)) is None:
        return None
    if "total_ms" not in df or "status" not in df:
        return None
    ok = df[(df["status"] == "ok") & (df["block_side"] == side)]
    if ok.empty:
        return None
    per_block = float(ok.groupby("block")["total_ms"].median().mean()) / 1e3
    per_block *= trials + VERIFY_SHARE
    return FIXED_S + per_block, per_block  # the warm-up: one block, verified


def plan_blocks(config: dict, reference: Path, results: Path | None = None,
                targets=None) -> list[PlannedRun]:
    """gerritsen2012 chapter 3's per-block jobs (`mst-blocks`), one per version a ready target
    reads, in ``block_shards`` shards: a shard's seconds are a fixed part and its share of the
    blocks, so the version's estimate over N and each shard's start-up and warm-up."""
    from .configs import block_repeats
    from .experiments import get_target
    from .solvers.gerritsen2012.mst_measure import VARIANTS, is_gpu

    g12 = config.get("gerritsen2012_mst") or {}
    # the rule's defaults (workflow/rules/gerritsen2012.smk)
    side, blocks = int(g12.get("block_side", 32)), int(g12.get("blocks", 16))
    trials, shards = int(g12.get("trials", 1)), int(g12.get("block_shards", 1))
    results = Path(results or config.get("results", "results"))
    repeats = tuple(i for i in block_repeats(config) if 0 <= i < shards)
    seen, out, misses = set(), [], {"gpu": [], "cpu": []}
    for name, tcfg in (config.get("targets") or {}).items():
        target = get_target(name)
        if not target.ready or (targets and name not in targets):
            continue
        for bench in target.benchmarks:
            variant = bench.removeprefix("gerritsen2012_mst_")
            if variant not in VARIANTS or bench in seen:
                continue
            seen.add(bench)
            device = "gpu" if any(is_gpu(r) for r in VARIANTS[variant]) else "cpu"
            jobs = [j for j in _block_jobs(results, reference, bench)
                    if j.get("block_side") == side and j.get("trials") == trials]
            rates, basis = _rates_from_job(jobs, per="blocks"), "recorded"
            estimate = _block_estimate(reference / "benchmarks" / f"{bench}.csv", side, trials)
            if rates is None:
                rates, basis = estimate, "estimated"
            elif estimate is not None:
                misses[device].append(rates[1] / estimate[1])
            if rates is None:
                rates, basis = (UNKNOWN_S, 0.0), "unknown"
            out.append(PlannedRun(name, "benchmarks", bench, device, rates[0], rates[1], basis,
                                  shards, one_core=device == "cpu" and shards > 1,
                                  sources=blocks, kind="blocks", repeats=repeats))
    return [_scaled_by_misses(job, misses[job.device]) for job in out]


def _bench_record(results: Path, reference: Path, name: str) -> dict | None:
    """A benchmark table's own record (this run's, else the reference's), or None."""
    for folder in (results, reference):
        path = folder / "benchmarks" / f"{name}.provenance.json"
        try:
            record = load_json(path) if path.is_file() else None
        except (OSError, ValueError):
            record = None
        if isinstance(record, dict):
            return record
    return None


def plan_benchmarks(config: dict, reference: Path, results: Path | None = None,
                    targets=None, skip=frozenset()) -> list[PlannedRun]:
    """Every other benchmark table a ready target reads (an2017's transfers, chapter 5's tables,
    Table 3.8's whole-grid phases and its reference weight, ...), one job each (``skip``: those
    planned already), its seconds the job's recorded wall time (all its processes' where it was
    resumed across calls), on a GPU where its record held one."""
    from .experiments import get_target

    results = Path(results or config.get("results", "results"))
    seen, out = set(skip), []
    for name, tcfg in (config.get("targets") or {}).items():
        target = get_target(name)
        if not target.ready or (targets and name not in targets):
            continue
        also = [b for b in target.also_reads if b in (config.get("targets") or {})]
        for bench in (*target.benchmarks, *also):
            if bench in seen:
                continue
            seen.add(bench)
            record = _bench_record(results, reference, bench) or {}
            job = record.get("job") if isinstance(record.get("job"), dict) else {}
            wall = job.get("wall_s_all") or job.get("wall_s")
            placement = record.get("placement") if isinstance(record.get("placement"), dict) else {}
            # nothing recorded: on a GPU, as most of them are (a guess the basis says)
            device = "gpu" if placement.get("cuda_visible_devices") or not record else "cpu"
            out.append(PlannedRun(name, "benchmarks", bench, device, float(wall or UNKNOWN_S),
                                  0.0, "recorded" if wall else "unknown", sources=1,
                                  kind="bench"))
    return out


def _scaled_by_misses(job: PlannedRun, misses: list[float]) -> PlannedRun:
    """A version estimated from the reference tables, scaled by how far those estimates missed
    this run's recorded versions of the same kind (the median ratio): another host, or other
    code, moves every version alike, and a deadline gate fed the raw estimate starts shards it
    must then kill."""
    if job.basis != "estimated" or not misses:
        return job
    ratio = statistics.median(misses)
    return replace(job, fixed_s=job.fixed_s * ratio, per_source_s=job.per_source_s * ratio,
                   basis=f"estimated x{ratio:.2f} (as this run's recorded {job.device} versions)")


def reference_seconds(config: dict, runs: list[PlannedRun], reference: Path,
                      results: Path | None = None) -> dict:
    """{graph: CPU-seconds of its reference distances} for every graph a planned run uses."""
    results = Path(results or config.get("results", "results"))
    out = {}
    for run in runs:
        if run.graph in out or run.kind != "run":
            continue
        ms = None
        for folder in (results, reference):
            path = folder / "sources" / f"{run.graph}.json"
            try:
                ms = load_json(path).get("reference_ms") if path.is_file() else None
            except (OSError, ValueError):
                ms = None
            if ms:
                break
        mean_ms = sum(ms) / len(ms) if ms else UNKNOWN_REF_MS
        out[run.graph] = run.sources * mean_ms / 1e3
    return out


def schedule(runs: list[PlannedRun], gpus: int, prep_threads: int,
             reference_s: dict, cpu_slots: int = 1) -> dict:
    """Expected wall time: graphs' references one after another on the preparation threads,
    then each graph's GPU jobs on the free GPU (longest first among those whose graph is
    ready) and its CPU-timed jobs on their own cores: one-core ones on the first of
    ``cpu_slots`` free slots, parallel ones alone once every slot is free."""
    ready, t = {}, 0.0
    for graph in dict.fromkeys(r.graph for r in runs if r.kind == "run"):  # in their order
        t += reference_s.get(graph, 0.0) / max(1, prep_threads)
        ready[graph] = t
    ready = {r.graph: ready.get(r.graph, 0.0) for r in runs}  # a block job: no references
    gpu_jobs = sorted(((ready[r.graph], -s, s) for r in runs if r.device == "gpu"
                       for s in r.job_seconds()))
    free = [0.0] * max(1, gpus)
    pending = list(gpu_jobs)
    while pending:
        i = min(range(len(free)), key=free.__getitem__)
        now = free[i]
        avail = [j for j in pending if j[0] <= now] or [min(pending)]
        job = min(avail, key=lambda j: j[1])  # the longest of the ready ones
        pending.remove(job)
        free[i] = max(now, job[0]) + job[2]
    slots = [0.0] * max(1, cpu_slots)
    for start, s, one_core in sorted((ready[r.graph], s, r.one_core) for r in runs
                                     if r.device == "cpu" for s in r.job_seconds()):
        if one_core:
            i = min(range(len(slots)), key=slots.__getitem__)
            slots[i] = max(slots[i], start) + s
        else:
            slots = [max(max(slots), start) + s] * len(slots)
    cpu_end = max(slots)
    prep_end = max(ready.values(), default=0.0)
    return {"prep_s": prep_end, "gpu_end_s": max(free) if gpu_jobs else 0.0,
            "cpu_end_s": cpu_end, "wall_s": max(prep_end, max(free) if gpu_jobs else 0.0, cpu_end)}


def as_jobs(config: dict, runs: list[PlannedRun]) -> list[PlannedRun]:
    """The runs as the schedule sees them: an interleaved group is one job (per shard), its
    ``members`` the group's run ids, started under the first one's output."""
    by_key = {(r.graph, r.run_id): r for r in runs}
    grouped = []
    for graph, ids in interleaved_groups(config):
        members = [by_key.pop((graph, r)) for r in ids if (graph, r) in by_key]
        if members:
            # one-core only where every member is: the group is timed whole in one slot
            grouped.append(replace(members[0], run_id="+".join(ids), members=tuple(ids),
                                   fixed_s=sum(m.fixed_s for m in members),
                                   per_source_s=sum(m.per_source_s for m in members),
                                   one_core=all(m.one_core for m in members)))
    return list(by_key.values()) + grouped


# What a GPU job costs on a machine without one: the job starts, finds no CUDA device and writes
# its "not run" rows (seconds: the interpreter and the solvers' imports).
NOT_RUN_S = 4.0


def on_this_machine(runs: list[PlannedRun], gpus: int) -> list[PlannedRun]:
    """The runs as a machine with ``gpus`` GPUs makes them: with none, a GPU run only records
    "not run", a job start's seconds each."""
    if gpus:
        return runs
    return [replace(r, fixed_s=NOT_RUN_S, per_source_s=0.0) if r.device == "gpu" else r
            for r in runs]


def plan(config: dict, gpus: int, cores: int, reference: Path, results: Path | None = None,
         timed_cores: int | None = None, targets=None, cpu_slots: int | None = 1) -> dict:
    """The whole plan: per target its jobs and seconds, the totals and the expected wall time.
    ``gpus`` 0: this machine has none, and its GPU jobs only record "not run"; ``cpu_slots``
    None: the host's own (host_threads)."""
    return summarize(config, planned(config, gpus, reference, results, targets), gpus, cores,
                     reference, results, timed_cores, cpu_slots)


def planned(config: dict, gpus: int, reference: Path, results: Path | None = None,
            targets=None) -> list[PlannedRun]:
    """Every job the config's ready targets (or those named) need: runs, block jobs and the
    other benchmark tables, with their seconds on a host of ``gpus`` GPUs."""
    runs = plan_runs(config, reference, results, targets)
    blocks = plan_blocks(config, reference, results, targets)
    runs += blocks + plan_benchmarks(config, reference, results, targets,
                                     {b.run_id for b in blocks})
    return on_this_machine(runs, gpus)


def host_threads(cores: int, gpus: int, timed_cores: int | None, cpu_slots: int | None):
    """(cores kept for CPU timings, preparation threads, one-core slots) on a host;
    ``cpu_slots`` None: the host's own, as the gpu-host profile splits it (every core the GPU
    workers and the workflow leave, a slot each: placement.host_split)."""
    if cpu_slots is None:
        from .placement import host_split

        kept, _, slots, _ = host_split(range(max(2, cores)), gpus, timed_cores or "auto")
        timed_cores = len(kept)
    else:
        timed_cores = timed_cores or max(1, min(16, cores // 4))
        slots = max(1, min(int(cpu_slots), timed_cores))
    return timed_cores, max(1, cores - timed_cores - gpus), slots


def summarize(config: dict, runs: list[PlannedRun], gpus: int, cores: int, reference: Path,
              results: Path | None = None, timed_cores: int | None = None,
              cpu_slots: int | None = 1) -> dict:
    """Per target its jobs, sources, GPU- and CPU-seconds, the totals and the expected wall."""
    sources = int(config.get("measure", {}).get("sources", 6))
    timed_cores, prep_threads, cpu_slots = host_threads(cores, gpus, timed_cores, cpu_slots)
    refs = reference_seconds(config, runs, reference, results)
    per_target: dict = {}
    for r in runs:
        row = per_target.setdefault(r.target, {"jobs": 0, "n": 0, "gpu_s": 0.0, "cpu_s": 0.0,
                                               "basis": set()})
        secs = r.job_seconds()
        row["jobs"] += len(secs)
        row["n"] = max(row["n"], r.sources if r.kind == "run" else 0)
        row["gpu_s" if r.device == "gpu" else "cpu_s"] += sum(secs)
        row["basis"].add(r.basis)
    for row in per_target.values():
        row["basis"] = ",".join(sorted(row["basis"]))
    sched = schedule(as_jobs(config, runs), gpus, prep_threads, refs, cpu_slots)
    return {"gpus": gpus, "cores": cores, "timed_cores": timed_cores, "cpu_slots": cpu_slots,
            "prep_threads": prep_threads,
            "sources": sources, "targets": per_target,
            "jobs": sum(r["jobs"] for r in per_target.values()),
            "gpu_s": sum(r["gpu_s"] for r in per_target.values()),
            "cpu_s": sum(r["cpu_s"] for r in per_target.values()),
            "reference_cpu_s": sum(refs.values()),
            "estimated": sorted({r.graph + "/" + r.run_id for r in runs if r.basis != "recorded"}),
            **sched}


def format_plan(p: dict) -> str:
    alone = any("wall_s" in row for row in p["targets"].values())
    wall = f" {'wall-s':>8s}" if alone else ""
    lines = [f"{'target':32s} {'jobs':>5s} {'n':>4s} {'GPU-s':>9s} {'CPU-s':>9s}{wall}  from"]
    for name, row in p["targets"].items():
        own = f" {row.get('wall_s', 0):8.0f}" if alone else ""
        n = row.get("n_expected") or row.get("n") or ""  # a sampled run's, where one was made
        lines.append(f"{name:32s} {row['jobs']:5d} {n:>4} {row['gpu_s']:9.1f} "
                     f"{row['cpu_s']:9.1f}{own}  {row['basis']}")
    lines.append(f"{'total':32s} {p['jobs']:5d} {'':>4s} {p['gpu_s']:9.1f} {p['cpu_s']:9.1f}"
                 + (f" {p['wall_s']:8.0f}" if alone else ""))
    lines.append(f"references: {p['reference_cpu_s']:.0f} CPU-s on {p['prep_threads']} threads "
                 f"({p['prep_s']:.0f} s)")
    # the timed CPU-seconds divide over the slots (a parallel timing takes them all)
    side = (f", {p['cpu_slots']} one-core timings at once: {p['cpu_s']:.0f} CPU-s over "
            f"{p['cpu_slots']} slots" if p.get("cpu_slots", 1) > 1 else "")
    lines.append(f"expected wall time on {p['gpus']} GPU(s), {p['cores']} cores "
                 f"({p['timed_cores']} for CPU timings{side}): {p['wall_s']:.0f} s "
                 f"({p['wall_s'] / 60:.1f} min; GPUs busy until {p['gpu_end_s']:.0f} s, CPU "
                 f"timings until {p['cpu_end_s']:.0f} s)")
    if p["estimated"]:
        lines.append(f"{len(p['estimated'])} run(s) estimated (no wall time recorded: from the "
                     "committed run tables' solve times, or a default where none)")
    return "\n".join(lines)


def needs_line(config: dict, p: dict, gpus_here: int, gpu_targets: set[str] = frozenset()) -> str:
    """The one line `snakemake -n` prints about a run before it starts: whether it needs a GPU
    (and for how many of its targets: `gpu_targets` names those that time a GPU), which real
    files it reads (registry datasets, from the offline mirrors or a download), about how long."""
    from .datasets import load_registry

    names = list(config.get("targets") or {})
    on_gpu = [t for t in names if t in gpu_targets]
    gpu_jobs = p["gpu_s"] > 0 or bool(on_gpu)
    share = f" for {len(on_gpu)} of {len(names)} targets" if on_gpu else ""
    need = (f"needs a CUDA GPU{share} (none here: its GPU runs would record 'not run')"
            if gpu_jobs and not gpus_here
            else f"uses {p['gpus']} GPU(s){share}" if gpu_jobs else "needs no GPU")
    files = []
    if config.get("datasets") == "paper":
        registry = load_registry(config.get("registry"))
        for g in (config.get("graphs") or {}).values():
            ds = registry.get((g or {}).get("dataset", ""))
            if ds is not None and ds.filename and ds.filename not in files:
                files.append(ds.filename)
    mirrors = ", ".join(map(str, config.get("offline_mirrors") or [])) or "none set"
    data = (f"real files from an offline mirror ({mirrors}) or a download: {', '.join(files)}"
            if files else f"no downloads ({standin_sizes(config)}, built in place)")
    return f"graphrepro: this run {need}; {data}; " + one_line(p)


def standin_sizes(config: dict) -> str:
    """The size of the config's stand-ins for the documents' graphs, from their ``scale``
    ("1/1000-size stand-ins"; "paper-size stand-ins" at scale 1)."""
    from fractions import Fraction

    scales = sorted({float((g or {}).get("scale", 1)) for g in (config.get("graphs") or {}).values()
                     if isinstance(g, dict) and g.get("dataset")})
    if not scales:
        return "synthetic graphs" if config.get("graphs") else "stand-ins"

    def size(x: float) -> str:
        if x >= 1:
            return "paper"
        f = Fraction(x).limit_denominator(1_000_000)
        return f"{f.numerator}/{f.denominator}"

    span = size(scales[0]) if len(scales) == 1 else f"{size(scales[0])}- to {size(scales[-1])}"
    return f"{span}-size stand-ins"


def one_line(p: dict) -> str:
    """The plan's totals in one line."""
    if p["gpus"]:
        timed, where = (f"{p['gpu_s'] / 60:.0f} GPU-min and {p['cpu_s'] / 60:.0f} CPU-min timed",
                        f"on {p['gpus']} GPU(s) with {p['cores']} cores")
    else:  # no GPU here: its GPU jobs time nothing
        timed, where = (f"{p['cpu_s'] / 60:.0f} CPU-min timed (the GPU jobs only record 'not "
                        "run')", f"with {p['cores']} cores and no GPU")
    return (f"graphrepro plan: {p['jobs']} timed jobs, {timed}, {p['reference_cpu_s'] / 60:.0f} "
            f"CPU-min of references; about {p['wall_s'] / 60:.0f} min {where}")
