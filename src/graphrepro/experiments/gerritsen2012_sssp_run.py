"""gerritsen2012 chapter 5's experiment runner: ``python -m graphrepro sssp-experiment TABLE``
(rule ``gerritsen2012_sssp_bench``) measures one of the chapter's tables on a converted terrain
grid and writes its benchmark table (``results/benchmarks/gerritsen2012_<table>.csv``), which the
chapter's targets (``gerritsen2012_sssp``) read.

GPU algorithm 1's cells are timed on the I/O-blocks nearest the grid's centre and scaled to 2^20
vertices; a cell that runs past its time limit is stopped and extrapolated from its progress
(part 1, then the I/O-block boundary vertices done: ``extrapolate_alg1``), or kept as a lower
bound when it stopped inside part 1; "did not fit" where the device refuses the memory.

Every phase-1 result is checked: the CPU's against Dijkstra on each block's grid graph (two
boundary sources per block), every GPU result against the CPU's on the same blocks, and every full
run's distances against whole-grid Dijkstra. A mismatch raises and no table is written.
GPU steps are 11b's (``gpu_alg1``, ``gpu_alg2`` in the PHASE1 registry); without a CUDA device (or
without that code) their cells say so.

The steps every table shares (phase 1, checks, windows, rows) are ``gerritsen2012_sssp_steps``;
Table 5.7 is ``gerritsen2012_sssp_t57``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..terrain.blockio import bytes_under
from . import gerritsen2012_sssp_steps as steps
from .gerritsen2012_sssp_measured import VERTICES
from .gerritsen2012_sssp_t57 import measure_table5_7

TABLES = ("table5_1", "table5_2", "table5_3", "table5_4", "table5_5", "table5_7")
DEFAULTS = {
    "table5_1": {"blocks": [64, 128, 256, 512], "gpu_blocks": [64, 128, 256, 512],
                 "cpu_vertices": VERTICES, "gpu_io_blocks": 1, "gpu_timeout_s": 300,
                 # (M side, C side) cells beyond the table: section 5.1 counts the kernel
                 # launches of M = 64^2, C = 16^2 ("almost three million" per I/O-block)
                 "extra_cells": [],
                 # (M side, C side) cells let run to the end of their I/O-block under their own
                 # timeout: a finished time beside what the extrapolation said part way through
                 # it is what the stopped cells' extrapolations are judged by
                 "finish_cells": [], "finish_timeout_s": 600},
    # trials: the 2-D run and the variant alternate, their order reversed each trial, so a drift
    # of the machine (other jobs' load, clocks) hits both alike; each trial is a child process of
    # its own, with its own warm-up. also_variant: a third run in the same trials, for a claim
    # that sets two variants against each other (section 5.3.2's z-order against 3-D,
    # t53.vs_3d), which the two tables' separate jobs cannot decide
    "table5_2": {"block": 64, "gpu_block": 16, "io_blocks": 4, "variant": "3d", "gpu_timeout_s": 300,
                 "trials": 4, "also_variant": ""},
    "table5_3": {"block": 64, "gpu_block": 16, "io_blocks": 4, "variant": "zorder",
                 "gpu_timeout_s": 300, "trials": 4, "also_variant": "3d"},
    "table5_4": {"blocks": [8, 16, 32, 64], "vertices": VERTICES, "threads": None,
                 "gpu_timeout_s": 300},
    "table5_5": {"sides": [128, 256, 512], "blocks": [8, 16, 32]},
    "table5_7": {"window": 8192, "blocks": [16, 32, 64], "memory_mb": 238, "gpu_timeout_s": 600,
                 "phase2_gpu": True,
                 # > 0: the CPU phase 1 is timed on this many centre blocks and scaled to the
                 # window, and G' comes from GPU algorithm 2 (checked against the CPU on those
                 # blocks, and end to end by phases 2 and 3): windows whose CPU phase 1 would take
                 # longer than a device call
                 "cpu_phase1_blocks": 0},
}


def measure_table5_1(zgrid, s, workdir, log):
    rows = []
    for m in list(s["blocks"]) + [mm for mm, _ in s["extra_cells"] if mm not in s["blocks"]]:
        per = steps.blocks_per_side(zgrid, m)
        if per is None:
            rows.append({"table": "table5_1", "block": m, "impl": "cpu_dijkstra",
                         "status": "not run: grid smaller than the block"})
            continue
        cpu = steps.cpu_phase1(zgrid, m, max(1, s["cpu_vertices"] // (m * m)), workdir)
        rows.append(steps.bench_row("table5_1", m, "cpu_dijkstra", cpu))
        log(f"table 5.1: M = {m}^2 CPU {rows[-1]['seconds_per_2_20']:.3g} s per 2^20")
        extra = [c for mm, c in s["extra_cells"] if mm == m and c not in s["gpu_blocks"]]
        finish = {(int(mm), int(c)) for mm, c in s["finish_cells"]}
        for c in list(s["gpu_blocks"]) + extra:
            if c > m:
                continue
            timeout = s["finish_timeout_s"] if (m, c) in finish else s["gpu_timeout_s"]
            g = steps.gpu_phase1(zgrid, m, s["gpu_io_blocks"], "gpu_alg1",
                                 {"c": c, "variant": "2d"}, workdir, timeout)
            steps.check_same(g, cpu, f"GPU algorithm 1 (M = {m}^2, C = {c}^2)")
            rows.append({**steps.bench_row("table5_1", m, "gpu_alg1", g, c=c, variant="2d"),
                         **steps.alg1_parts(g)})
            log(f"table 5.1: M = {m}^2 C = {c}^2: {g['status']}")
    return rows


VARIANTS = ("3d", "zorder")  # GPU algorithm 1's launch variants beside the 2-D one


def trial_order(variants: list[str], trials: int) -> list[tuple[str, ...]]:
    """The order of the 2-D run and ``variants`` in each trial: reversed every other trial, so
    each pair of them takes turns going first."""
    arms = ("2d", *variants)
    return [arms if t % 2 == 0 else arms[::-1] for t in range(trials)]


def _arms(s) -> list[str]:
    return [s["variant"]] + ([s["also_variant"]] if s.get("also_variant") else [])


def _variant_table(name, zgrid, s, workdir, log):
    m, c, n, trials = s["block"], s["gpu_block"], s["io_blocks"], s["trials"]
    if steps.blocks_per_side(zgrid, m) is None:
        return [{"table": name, "block": m, "status": "not run: grid smaller than the block"}]
    cpu = steps.cpu_phase1(zgrid, m, n, workdir)
    rows = [steps.bench_row(name, m, "cpu_dijkstra", cpu)]
    order = trial_order(_arms(s), trials)
    done: dict[str, list] = {arm: [] for arm in order[0]}
    stopped: dict[str, dict] = {}
    for t, arms in enumerate(order):
        for variant in arms:
            if variant in stopped:
                continue
            g = steps.gpu_phase1(zgrid, m, n, "gpu_alg1", {"c": c, "variant": variant}, workdir,
                                 s["gpu_timeout_s"], per_block=True)
            steps.check_same(g, cpu, f"GPU algorithm 1 {variant} (M = {m}^2, C = {c}^2), trial {t + 1}")
            log(f"{name}: trial {t + 1}: {variant}: {g['status']}")
            if g["status"] == "ok":
                done[variant].append(g)
            else:  # stopped, failed or not run: no trial after it would differ
                stopped[variant] = g
        if stopped:
            break
    for variant, results in done.items():
        if variant in stopped or not results:
            res = stopped.get(variant, {"status": "not run"})
        else:  # the trials' mean per I/O-block; every trial's own mean kept beside it
            res = {**results[0], "step_ms": float(np.mean([r["step_ms"] for r in results])),
                   "batch_ms": np.mean([r["batch_ms"] for r in results], axis=0).tolist()}
        row = steps.bench_row(name, m, "gpu_alg1", res, c=c, variant=variant)
        row["trial_ms"] = json.dumps([float(np.mean(r["batch_ms"])) for r in results])
        row["trial_order"] = json.dumps([p[0] for p in order[:len(results)]])
        # part 1 alone, per trial and I/O-block: the part the 3-D and z-order variants change
        row["trial_part1_ms"] = json.dumps(
            [r.get("timings", {}).get("part1_ms", np.nan) / max(r.get("blocks") or 1, 1)
             for r in results])
        rows.append(row)
    return rows


def measure_table5_4(zgrid, s, workdir, log):
    rows = []
    for m in s["blocks"]:
        if steps.blocks_per_side(zgrid, m) is None:
            continue
        n = max(1, s["vertices"] // (m * m))
        cpu = steps.cpu_phase1(zgrid, m, n, workdir)
        rows.append(steps.bench_row("table5_4", m, "cpu_dijkstra", cpu))
        params = {"threads": s["threads"]} if s["threads"] else {}  # else the step's own choice
        g = steps.gpu_phase1(zgrid, m, n, "gpu_alg2", params, workdir, s["gpu_timeout_s"])
        steps.check_same(g, cpu, f"GPU algorithm 2 (block {m} x {m})")
        rows.append(steps.bench_row("table5_4", m, "gpu_alg2", g))
        log(f"table 5.4: {m} x {m}: CPU {rows[-2]['seconds_per_2_20']:.3g} s, GPU {g['status']}")
    return rows


def measure_table5_5(zgrid, s, workdir, log):
    from ..solvers.gerritsen2012 import sssp_io

    rows = []
    for side in s["sides"]:
        if side > steps.grid_side(zgrid):
            continue
        win = steps.window_zgrid(zgrid, side, workdir / f"window_{side}.zgrid")
        source = steps.seeded_source(win)
        for m in s["blocks"]:
            if m > side:
                continue
            r = sssp_io.io_sssp(win, source, m, workdir / f"t55_{side}_{m}")
            check = steps.check_more_sources(win, workdir / f"t55_{side}_{m}",
                                             steps.corner_and_edge(side),
                                             f"Table 5.5 N = {side}^2, M = {m}^2", log)
            io = r.io
            # the space its side files take when it ends (G', its records, the distances):
            # Table 5.5's O(N) space (t55.space)
            held = bytes_under(workdir / f"t55_{side}_{m}")
            rows.append({"table": "table5_5", "side": side, "N": side * side, "block": m,
                         "M": m * m, "status": "ok", "source": source,
                         "phase1_s": r.timings["phase1_ms"] / 1e3,
                         "phase2_s": r.timings["phase2_ms"] / 1e3,
                         "phase3_s": r.timings["phase3_ms"] / 1e3,
                         "baseline_s": r.timings["baseline_dijkstra_ms"] / 1e3,
                         "block_reads": io["block_reads"], "block_writes": io["block_writes"],
                         "bytes_read": io["bytes_read"], "bytes_written": io["bytes_written"],
                         "phase2_fetches": r.counters.get("phase2_fetches"), "work_bytes": held,
                         "check": check})
            shutil.rmtree(workdir / f"t55_{side}_{m}", ignore_errors=True)
            log(f"table 5.5: N = {side}^2, M = {m}^2: {r.timings['phase1_ms'] / 1e3:.2f} s phase 1")
    return rows


MEASURE = {"table5_1": measure_table5_1,
           "table5_2": lambda z, s, w, log: _variant_table("table5_2", z, s, w, log),
           "table5_3": lambda z, s, w, log: _variant_table("table5_3", z, s, w, log),
           "table5_4": measure_table5_4, "table5_5": measure_table5_5, "table5_7": measure_table5_7}


def terrain_data(zgrid) -> str:
    """What the grid is (real, or which stand-in), from the origin record beside it."""
    from ..datasets.origin import describe_origin, read_origin

    path = Path(zgrid)
    origin = path.with_name(path.name + ".origin.json")
    what = describe_origin(read_origin(origin), brief=True) if origin.is_file() \
        else f"file {path.name}"
    return f"{path.name.split('.')[0]}: {what}"


def settings_for(table: str, settings: dict) -> dict:
    """The table's settings: ``settings`` over its defaults, an unknown one refused."""
    if table not in MEASURE:
        raise InputError(f"unknown table {table!r}; known: {', '.join(TABLES)}")
    unknown = set(settings) - set(DEFAULTS[table]) - {"timeout_s", "cpu_threads"}
    if unknown:
        raise InputError(f"{table}: unknown setting(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(DEFAULTS[table])}")
    merged = {**DEFAULTS[table], **settings}
    trials = merged.get("trials", 1)
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise InputError(f"{table}: trials must be a whole number, at least 1, not {trials!r}")
    for key in ("variant", "also_variant"):
        value = merged.get(key)
        if value is not None and value not in VARIANTS and not (key == "also_variant" and value == ""):
            raise InputError(f"{table}: {key} must be one of {', '.join(VARIANTS)}"
                             f"{' or empty' if key == 'also_variant' else ''}, not {value!r}")
    if merged.get("also_variant") and merged["also_variant"] == merged.get("variant"):
        raise InputError(f"{table}: also_variant {merged['also_variant']!r} is the table's own variant")
    return merged


def run_experiment(table: str, zgrid, settings: dict, workdir, log=print) -> pd.DataFrame:
    """``workdir``: a directory, or a ``Work`` on one (a resumable table's journal, the
    call's deadline: gerritsen2012_sssp_work)."""
    from .gerritsen2012_sssp_work import Work

    s = settings_for(table, settings)
    work = workdir if isinstance(workdir, Work) else Work(workdir, table, s, zgrid, log=log)
    workdir = work.directory
    import numba

    from .. import gpu
    from ..solvers.gerritsen2012 import sssp_io

    if s.get("cpu_threads"):  # e.g. 1 for the thesis's one CPU core; default: every core
        numba.set_num_threads(min(int(s["cpu_threads"]), numba.config.NUMBA_NUM_THREADS))
    sssp_io.warm_up()  # compilation (or numba's cache) outside every timed section
    # a resumable table measures its units through the work directory's journal
    rows = MEASURE[table](Path(zgrid), s, workdir, log, **({"work": work} if work.resumable else {}))
    df = pd.DataFrame(rows)
    df["terrain"] = Path(zgrid).name.split(".")[0]
    df["data"] = terrain_data(zgrid)
    df["cpu_threads"] = numba.get_num_threads()
    df["device_name"] = gpu.device_name()
    df["settings"] = json.dumps(s)
    return df
