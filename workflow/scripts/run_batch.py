"""Run many of the workflow's run files in one process, with exactly the `run` rule's command.

Each run process of the workflow pays its imports and its kernels' JIT compilation again (5-8 s
on the H100 machine); a device call of 10 minutes then holds about 80 runs. This driver runs the
same `python -m graphrepro run` step for many files in one process, so imports and compilation are
paid once; every run still does its own warm-up trials, so no timed trial includes compilation.
Graphs and sources must exist (build them with snakemake first); run files that exist are kept.

    python workflow/scripts/run_batch.py --results results --trials 3 --warmup 1 \
        --stop-after 540 GRAPH/RUN_ID [GRAPH/RUN_ID ...]      # or --list FILE, one per line

It stops starting new runs once --stop-after seconds have passed, so a time-limited call leaves
only whole files; what it did not reach is printed, for the next call.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path


def main(argv=None) -> int:
    from graphrepro.cli import main as graphrepro

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*", help="GRAPH/RUN_ID (the path under RESULTS/runs without .csv)")
    ap.add_argument("--list", help="a file of GRAPH/RUN_ID lines")
    ap.add_argument("--results", default="results")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--stop-after", type=float, default=float("inf"), help="seconds")
    args = ap.parse_args(argv)
    todo = list(args.runs)
    if args.list:
        todo += [line.strip().removesuffix(".csv") for line in Path(args.list).read_text().splitlines()
                 if line.strip() and not line.startswith("#")]
    bad = [item for item in todo if "/" not in item.strip("/")]
    if bad:
        ap.error(f"each run is GRAPH/RUN_ID (a path under RESULTS/runs without .csv); got {bad[0]!r}")
    res = Path(args.results)
    start = time.perf_counter()
    failed, skipped = [], []
    for i, item in enumerate(todo):
        graph, run_id = item.split("/", 1)
        out = res / "runs" / graph / f"{run_id}.csv"
        if out.exists():
            continue
        if time.perf_counter() - start > args.stop_after:
            skipped = todo[i:]
            break
        t0 = time.perf_counter()
        cmd = ["run", str(res / "graphs" / f"{graph}.npz"), "--solver", run_id,
               "--sources", str(res / "sources" / f"{graph}.json"), "--trials", str(args.trials),
               "--warmup", str(args.warmup), "--output", str(out)]
        calibration = res / "calibration" / graph / "harish.json"
        if run_id.startswith("lbr") and calibration.exists():
            cmd += ["--calibration", str(calibration)]
        try:
            rc = graphrepro(cmd)
        except Exception:  # one run's failure must not lose the others: report it, go on
            traceback.print_exc()
            rc = 1
        print(f"[{time.perf_counter() - start:7.1f} s] {item}: rc {rc} in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        if rc:
            failed.append(item)
    for item in skipped:
        print(f"not reached: {item}")
    for item in failed:
        print(f"FAILED: {item}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
