"""Benchmark (not a test): do one-core CPU timings side by side disturb each other? (issue 31)

    python benchmarks/cpu_slots.py GRAPH.npz SOURCES.json --slots auto --solvers dijkstra \
        --shard 0/20 --trials 2 --out cpu-slots

The gpu-host profile may time the one-core CPU baselines side by side (`host_cpu_slots`), each
pinned to a core of its own spread over the cores kept for CPU timings. They still share the
last-level cache and the memory bus. This runs each solver alone on one slot core, then
`--slots` copies of it at once on the slot cores the workflow would choose (the same sources,
`graphrepro run`, every distance verified), and compares each source's median solve time side by
side against alone. It prints, per solver, the median ratio over sources with its range, and the
run-to-run spread of the alone runs (trial against trial) to hold it against.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from graphrepro import placement  # noqa: E402


def _runs(args, solver: str, copies: int, out: Path, cores: list[int]) -> list[Path]:
    locks = tempfile.mkdtemp(prefix="cpu-slots-locks-")
    env = {**os.environ, "GRAPHREPRO_PIN": "slot", "NUMBA_NUM_THREADS": "1",
           "GRAPHREPRO_SLOT_CPUS": placement.cpu_list_text(cores), "GRAPHREPRO_GPU_LOCKS": locks,
           "CUDA_VISIBLE_DEVICES": "", "GRAPHREPRO_GPUS": ""}
    tables = [out / f"{solver}-x{copies}-{i}.csv" for i in range(copies)]
    procs = [subprocess.Popen([sys.executable, "-m", "graphrepro", "run", args.graph,
                               "--solver", solver, "--sources", args.sources_file,
                               "--trials", str(args.trials), "--warmup", "1",
                               *(["--shard", args.shard] if args.shard else []),
                               "--output", str(t)], env=env) for t in tables]
    if any(p.wait() for p in procs):
        raise SystemExit(f"{solver}: a run failed (its distances are checked: see above)")
    return tables


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graph")
    ap.add_argument("sources_file")
    ap.add_argument("--solvers", nargs="+", default=["dijkstra"])
    ap.add_argument("--slots", default="auto",
                    help="copies side by side (default auto: as the gpu-host profile, every core "
                         "this host's GPU workers and the workflow leave)")
    ap.add_argument("--timed-cpus", help="the cores kept for CPU timings (default: as the "
                    "gpu-host profile keeps them for --slots)")
    ap.add_argument("--shard", help="I/N: a slice of the sources (fewer for a short call)")
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--out", default="cpu-slots")
    args = ap.parse_args(argv)
    import pandas as pd

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cpus = sorted(os.sched_getaffinity(0))
    if args.timed_cpus:  # every one of them timed, a slot each unless --slots says
        timed = placement.parse_cpu_list(args.timed_cpus)
        slots = len(timed) if args.slots == "auto" else int(args.slots)
    else:
        timed, _, slots, _ = placement.host_split(cpus, len(placement.candidate_devices()),
                                                  slots=args.slots)
    cores = placement.slot_cores(timed, slots)
    summary = {"timed_cpus": placement.cpu_list_text(timed), "slot_cpus": cores, "solvers": {}}
    lines = [f"slot cores {placement.cpu_list_text(cores)} of the timed {summary['timed_cpus']}"]
    for solver in args.solvers:
        t0 = time.time()
        alone = pd.read_csv(_runs(args, solver, 1, out, cores[:1])[0])
        side = pd.concat(pd.read_csv(t) for t in _runs(args, solver, len(cores), out, cores))
        per_alone = alone.groupby("source")["solve_ms"].median()
        ratio = (side.groupby("source")["solve_ms"].median() / per_alone).dropna()
        trials = alone.pivot_table(index="source", columns="trial", values="solve_ms")
        drift = (trials.max(axis=1) / trials.min(axis=1) - 1) if trials.shape[1] > 1 else None
        row = {"sources": int(len(ratio)), "copies": len(cores),
               "ratio_median": float(ratio.median()), "ratio_min": float(ratio.min()),
               "ratio_max": float(ratio.max()), "alone_median_ms": float(per_alone.median()),
               "alone_trial_spread_median": float(drift.median()) if drift is not None else None,
               "seconds": round(time.time() - t0, 1)}
        summary["solvers"][solver] = row
        lines.append(f"{solver}: {len(cores)} side by side / alone, median over {row['sources']} "
                     f"sources {row['ratio_median']:.3f} (range {row['ratio_min']:.3f}-"
                     f"{row['ratio_max']:.3f}); alone {row['alone_median_ms']:.1f} ms a solve, "
                     "trial-to-trial spread "
                     + (f"{100 * row['alone_trial_spread_median']:.1f}%" if drift is not None
                        else "(one trial)"))
    text = "\n".join(lines)
    print(text)
    (out / "cpu_slots.txt").write_text(text + "\n")
    (out / "cpu_slots.json").write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
