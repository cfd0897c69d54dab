"""Benchmark (not a test): issue 31's scaling run, the same sharded work on 1, 2 and 4 GPUs of a host.

    python benchmarks/host_scaling.py run --gpus 1 2 4 --budget-s 480 --out scaling-out
    python benchmarks/host_scaling.py check --out scaling-out      # the goals, from the tables

`run` builds the graph and its sources once (gpu-host profile, every GPU), then for each GPU count
N copies them into results-scaling-gN and runs the workflow there through
workflow/scripts/timeboxed.py with the gpu-host profile, `host_gpus=N` and the graph in N shards
(one per GPU), each pass with a deadline inside the budget. Before each pass with N > 1,
`graphrepro plan` predicts it from the one-GPU pass's recorded wall times. Then it times one
small job in a process of its own and the same job in a GPU worker (per-job overhead before and
after). `check` reads the passes' tables and provenance and prints:
- every pass verified (every row "ok", every source, every trial);
- the tables equal across passes except timings (columns that differ are named);
- each job saw only its own GPU (one device visible, PCI ids: N distinct in an N-GPU pass);
- per-GPU solve times against the one-GPU pass's (median ratio per run);
- the wall clock of each pass's timed part (first run job's start to the last one's end);
and the goals: 4 GPUs >= 3.5x faster than 1 on the timed part; per-job overhead < 1 s; plan within
20% of the measured wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "reports" / "reference" / "host-scaling" / "scaling.yaml"
TARGETS = ["safari2017_fig3", "safari2017_fig4"]
TIMING = ("upload_ms", "solve_ms", "download_ms", "device_name")
SPEEDUP_GOAL, OVERHEAD_GOAL_S, PLAN_GOAL = 3.5, 1.0, 0.20


def _config(base: Path) -> dict:
    sys.path.insert(0, str(ROOT / "src"))
    from graphrepro import configs

    return configs.load([base])


def _run_files(base: Path, graph: str, results: str) -> list[str]:
    from graphrepro.solvers import run_file_id

    config = _config(base)
    runs = []
    for t in TARGETS:
        for r in config["targets"][t].get("runs") or []:
            if r not in runs:
                runs.append(r)
    return [f"{results}/runs/{graph}/{run_file_id(r)}.csv" for r in runs]


def _smk(base: Path, extra: Path, gpus: int, cores: int) -> list[str]:
    return ["-s", str(ROOT / "Snakefile"), "--workflow-profile",
            str(ROOT / "workflow" / "profiles" / "gpu-host"), "--cores", str(cores),
            "--config", f"host_gpus={gpus}", "--configfile", str(base), str(extra)]


def _stop_workers() -> None:
    """The GPU workers this run started (their pid files), so each pass starts its own."""
    from graphrepro.placement import lock_dir

    for pid_file in lock_dir().glob("worker-*.pid"):
        try:
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
    time.sleep(1.0)


def _log(out: Path, text: str) -> None:
    print(text, flush=True)
    with open(out / "scaling.log", "a") as f:
        f.write(text + "\n")


def cmd_run(args) -> int:
    t0 = time.time()
    end = t0 + args.budget_s
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    base = Path(args.base).resolve()
    cores = args.cores or len(os.sched_getaffinity(0))
    py = sys.executable
    prep = "results-scaling-prep"
    sample = f"measure: {{sources: {args.sources}}}\n" if args.sources else ""
    (out / "prep.yaml").write_text(f"results: {prep}\n{sample}")
    cmd = [py, "-m", "snakemake", f"{prep}/sources/{args.graph}.json",  # (before --configfile)
           *_smk(base, out / "prep.yaml", max(args.gpus), cores)]
    t = time.time()
    rc = subprocess.run(cmd).returncode
    _log(out, f"prep: graph and {args.graph}'s sources in {time.time() - t:.1f} s (rc {rc})")
    if rc:
        return rc
    # each pass gets a share of what is left in proportion to its work a GPU (1/N), so pass 1
    # is not cut short because more passes follow it
    state = {"worker": not args.no_worker}
    for i, n in enumerate(args.gpus):
        weights = [1 / m for m in args.gpus[i:]]
        deadline = time.time() + (end - time.time()) * weights[0] / sum(weights)
        _one_pass(args, out, base, prep, n, cores, min(deadline, end), state)
        if state["worker"] and not any(Path(f"results-scaling-g{n}", "runs").rglob("*.csv")):
            # insurance for a one-shot device call: the same pass, each job a process of its own
            _log(out, f"pass {n}: no run table; again without the GPU workers")
            state["worker"] = False
            _one_pass(args, out, base, prep, n, cores, min(deadline + 60, end), state)
    if args.cpu_slots:
        _cpu_slots(args, out, prep, cores)
    if end - time.time() > 40:
        probe(out, base, args.graph, cores)
    _log(out, f"total {time.time() - t0:.1f} s")
    return 0


def _one_pass(args, out: Path, base: Path, prep: str, n: int, cores: int, deadline: float,
              state: dict) -> None:
    py = sys.executable
    res = f"results-scaling-g{n}"
    shutil.rmtree(res, ignore_errors=True)
    shutil.copytree(prep, res, symlinks=True)  # mtimes kept: nothing before the runs reruns
    shutil.rmtree(Path(res) / "logs", ignore_errors=True)
    extra = out / f"g{n}.yaml"
    shards = f", shards: {n}" if n > 1 else ""
    scale = _config(base)["graphs"][args.graph]
    spec = ", ".join(f"{k}: {json.dumps(v)}" for k, v in scale.items() if k != "shards")
    sample = f"measure: {{sources: {args.sources}}}\n" if args.sources else ""
    extra.write_text(f"results: {res}\nhost_worker: {str(state['worker']).lower()}\n{sample}"
                     f"graphs:\n  {args.graph}: {{{spec}{shards}}}\n")
    first = "results-scaling-g1"
    # after pass 1, its own recorded wall times; before it, the earlier call's if given
    estimate = first if n != 1 and Path(first, "runs").is_dir() else args.estimate_from
    if n != 1 and Path(first, "runs").is_dir():
        subprocess.run([py, "-m", "graphrepro", "plan", "--configfile", str(base), str(extra),
                        "--gpus", str(n), "--cores", str(cores), "--targets", *TARGETS,
                        "--reference", first, "--json", str(out / f"plan-g{n}.json")])
    _log(out, f"pass {n} GPU(s): deadline in {deadline - time.time():.0f} s, worker "
              f"{state['worker']}")
    t = time.time()
    rc = subprocess.run([py, str(ROOT / "workflow" / "scripts" / "timeboxed.py"),
                         "--deadline", str(deadline), "--grace-s", "20", "--no-pack",
                         *(["--estimate-from", estimate] if estimate else []),
                         "--", *_run_files(base, args.graph, res),
                         *_smk(base, extra, n, cores)]).returncode
    _log(out, f"pass {n} GPU(s): {time.time() - t:.1f} s (rc {rc})")
    _stop_workers()


def _cpu_slots(args, out: Path, prep: str, cores: int) -> None:
    """benchmarks/cpu_slots.py on the prepared graph: one-core CPU timings side by side."""
    t = time.time()
    rc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "cpu_slots.py"),
                         f"{prep}/graphs/{args.graph}.npz", f"{prep}/sources/{args.graph}.json",
                         "--slots", str(args.cpu_slots), "--solvers", *args.cpu_slot_solvers,
                         "--shard", args.cpu_slot_shard, "--trials", "2",
                         "--out", str(out / "cpu-slots")]).returncode
    _log(out, f"cpu slots: {time.time() - t:.1f} s (rc {rc})")


def probe(out: Path, base: Path, graph: str, cores: int) -> None:
    """One small GPU job (2 sources of lbr_persistent) in a process of its own, then twice in a
    GPU worker (the first starts it): the per-job overhead before and after."""
    res = "results-scaling-g1"
    py = sys.executable
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHREPRO_WORKER",)}
    env["GRAPHREPRO_GPUS"] = "0"
    base_cmd = [py, "-m", "graphrepro", "run", f"{res}/graphs/{graph}.npz", "--solver",
                "lbr_persistent", "--sources", f"{res}/sources/{graph}.json", "--trials", "1",
                "--warmup", "1", "--shard", "0/50"]
    for name, extra_env in (("process", {}), ("worker-cold", {"GRAPHREPRO_WORKER": "1"}),
                            ("worker-warm", {"GRAPHREPRO_WORKER": "1"})):
        t = time.time()
        subprocess.run([*base_cmd, "--output", str(out / f"probe-{name}.csv")],
                       env={**env, **extra_env})
        _log(out, f"probe {name}: {time.time() - t:.2f} s")
    _stop_workers()


# ---- check --------------------------------------------------------------------------------

def _jobs(res: Path) -> list[dict]:
    """Every timed job's provenance of a pass (the shards', or the runs' where unsharded)."""
    records = []
    for p in sorted((res / "runs").rglob("*.provenance.json")):
        rec = json.loads(p.read_text())
        for job in rec.get("shards") or [rec]:
            records.append({**job, "_run": p.name.removesuffix(".provenance.json")})
    return records


def cmd_check(args) -> int:
    import pandas as pd

    sys.path.insert(0, str(ROOT / "src"))
    out = Path(args.out)
    passes = {n: Path(f"results-scaling-g{n}") for n in args.gpus if Path(f"results-scaling-g{n}").is_dir()}
    summary, lines = {"passes": {}}, []
    tables = {}
    for n, res in passes.items():
        runs = {p.stem: pd.read_csv(p) for p in sorted((res / "runs").rglob("*.csv"))}
        tables[n] = runs
        jobs = _jobs(res)
        ok = all((t["status"] == "ok").all() for t in runs.values())
        complete = all(t.groupby("source")["trial"].count().nunique() == 1 for t in runs.values())
        seen = {j.get("devices_seen") for j in jobs}
        visible = {j.get("placement", {}).get("cuda_visible_devices") for j in jobs}
        pci = sorted({j.get("pci_bus_id") for j in jobs if j.get("pci_bus_id")})
        starts = [j["job"]["start_unix"] for j in jobs if "start_unix" in j.get("job", {})]
        ends = [j["job"]["end_unix"] for j in jobs if "end_unix" in j.get("job", {})]
        wall = max(ends) - min(starts) if starts else None
        over = [j["job"]["wall_s"] - sum(j["job"].get(k, 0) for k in
                                          ("warmup_s", "count_s", "timed_s", "verify_s"))
                for j in jobs if "job" in j]
        verify = [j["job"].get("verify_s", 0) for j in jobs if "job" in j]
        summary["passes"][n] = {
            "runs": len(runs), "jobs": len(jobs), "verified": ok, "complete": complete,
            "devices_seen": sorted(x for x in seen if x is not None), "visible": sorted(
                str(v) for v in visible), "pci_bus_ids": pci, "timed_wall_s": wall,
            "overhead_mean_s": sum(over) / len(over) if over else None,
            "overhead_max_s": max(over) if over else None,
            "verify_mean_s": sum(verify) / len(verify) if verify else None,
            "gpu": jobs[0].get("gpu") if jobs else None,
            "phases_mean": {k: sum(j["job"].get(k) or 0 for j in jobs) / len(jobs)
                            for k in ("startup_s", "graph_load_s", "sources_check_s",
                                      "prepare_s", "warmup_s", "verify_s",
                                      "provenance_write_s")} if jobs else {}}
        lines.append(f"{n} GPU(s): {len(runs)} runs in {len(jobs)} jobs, verified {ok}, complete "
                     f"{complete}; GPUs seen per job {summary['passes'][n]['devices_seen']}, "
                     f"visible {summary['passes'][n]['visible']}, {len(pci)} PCI ids {pci}; "
                     f"timed part {wall:.1f} s" if wall else f"{n} GPU(s): no timed jobs")
    one = tables.get(1, {})
    for n, runs in tables.items():
        if n == 1:
            continue
        diffs, ratios = {}, {}
        for name, t in runs.items():
            if name not in one:
                continue
            a, b = one[name].reset_index(drop=True), t.reset_index(drop=True)
            cols = [c for c in a.columns if c not in TIMING]
            same = len(a) == len(b) and list(a.columns) == list(b.columns)
            differ = ([c for c in cols if not a[c].equals(b[c])] if same else ["(shape)"])
            if differ:
                diffs[name] = differ
            m1 = a.groupby("source")["solve_ms"].median()
            mn = b.groupby("source")["solve_ms"].median()
            ratios[name] = float((mn / m1).median())
        summary["passes"][n]["differing_columns"] = diffs
        summary["passes"][n]["solve_ratio_vs_1gpu"] = ratios
        lines.append(f"{n} GPU(s) against 1: tables equal except timings"
                     + (f" and {diffs}" if diffs else "") + "; per-run median solve ratio "
                     + ", ".join(f"{k} {v:.3f}" for k, v in ratios.items()))
    goals = []
    w = {n: p.get("timed_wall_s") for n, p in summary["passes"].items()}
    top = max(w) if w else None
    same = top and set(tables.get(1, {})) == set(tables.get(top, {}))
    if w.get(1) and top and top > 1 and w.get(top) and not same:
        goals.append((f"{top} GPUs against 1: not comparable (runs {sorted(tables.get(1, {}))} "
                      f"against {sorted(tables.get(top, {}))}: a pass stopped at its deadline)",
                      False))
    elif w.get(1) and top and top > 1 and w.get(top):
        speed = w[1] / w[top]
        goals.append((f"{top} GPUs {speed:.2f}x faster than 1 on the timed part (goal >= "
                      f"{SPEEDUP_GOAL}x, for 4 GPUs)", speed >= SPEEDUP_GOAL))
    overs = [p["overhead_mean_s"] for p in summary["passes"].values() if p.get("overhead_mean_s")]
    if overs:
        goals.append((f"per-job overhead (wall less warm-up, solves and verification) mean "
                      f"{max(overs):.2f} s at most over passes (goal < {OVERHEAD_GOAL_S} s)",
                      max(overs) < OVERHEAD_GOAL_S))
    for n in summary["passes"]:
        plan_path = out / f"plan-g{n}.json"
        if plan_path.is_file() and w.get(n):
            p = json.loads(plan_path.read_text())
            predicted = p["gpu_end_s"] - p["prep_s"]
            err = predicted / w[n] - 1
            summary["passes"][n]["plan_timed_s"] = predicted
            goals.append((f"plan for {n} GPUs {predicted:.1f} s against {w[n]:.1f} s measured "
                          f"({err:+.0%}; goal within {PLAN_GOAL:.0%})", abs(err) <= PLAN_GOAL))
    for name in ("process", "worker-cold", "worker-warm"):
        prov = out / f"probe-{name}.provenance.json"
        if prov.is_file():
            job = json.loads(prov.read_text())["job"]
            fixed = job["wall_s"] - sum(job.get(k, 0) for k in ("warmup_s", "count_s", "timed_s",
                                                               "verify_s"))
            summary.setdefault("probe", {})[name] = {**job, "overhead_s": fixed}
            lines.append(f"probe {name}: overhead {fixed:.2f} s of {job['wall_s']:.2f} s "
                         f"(start-up {job.get('startup_s')}, graph {job.get('graph_load_s')}, "
                         f"sources check {job.get('sources_check_s')}, prepare "
                         f"{job.get('prepare_s')}, provenance+write {job.get('provenance_write_s')})")
    summary["goals"] = [{"goal": g, "met": bool(m)} for g, m in goals]
    lines += [("MET     " if m else "NOT MET ") + g for g, m in goals]
    text = "\n".join(lines)
    print(text)
    (out / "check.txt").write_text(text + "\n")
    (out / "check.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--gpus", type=int, nargs="+", default=[1, 2, 4])
    r.add_argument("--budget-s", type=float, default=480)
    r.add_argument("--cores", type=int, default=None)
    r.add_argument("--base", default=str(BASE))
    r.add_argument("--graph", default="western")
    r.add_argument("--sources", type=int, default=None,
                   help="sources per pass instead of the base config's (fewer fit one call)")
    r.add_argument("--out", default="scaling-out")
    r.add_argument("--estimate-from", help="a results folder (e.g. an earlier call's pass) whose "
                   "recorded wall times every pass's deadline gate reads (default: the one-GPU "
                   "pass's, after it)")
    r.add_argument("--cpu-slots", type=int, default=0,
                   help="then time one-core CPU baselines this many side by side against alone "
                        "(benchmarks/cpu_slots.py) on the same graph")
    r.add_argument("--cpu-slot-solvers", nargs="+", default=["dijkstra"])
    r.add_argument("--cpu-slot-shard", default="0/20", help="the slice of the sources they use")
    r.add_argument("--no-worker", action="store_true",
                   help="each GPU job in a process of its own (host_worker: false)")
    c = sub.add_parser("check")
    c.add_argument("--gpus", type=int, nargs="+", default=[1, 2, 4])
    c.add_argument("--out", default="scaling-out")
    args = ap.parse_args(argv)
    return cmd_run(args) if args.cmd == "run" else cmd_check(args)


if __name__ == "__main__":
    raise SystemExit(main())
