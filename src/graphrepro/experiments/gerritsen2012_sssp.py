"""gerritsen2012 chapter 5: the I/O-efficient SSSP's tables, measured on a converted terrain grid.

Each target reads one benchmark table (``results/benchmarks/gerritsen2012_<table>.csv``) that
``python -m graphrepro sssp-experiment TABLE`` measures (rule ``gerritsen2012_sssp_bench``):

- Table 5.1: phase 1 per 2^20 vertices, M x C, GPU algorithm 1 (2-D launch) vs the CPU. Cells
  are timed on the I/O-blocks nearest the grid's centre and scaled to 2^20 vertices, marked
  "extrapolated" when fewer than 2^20 vertices were timed (the thesis extrapolated too); a GPU cell
  that runs past its time limit is stopped and extrapolated from its progress (part 1, then the
  I/O-block boundary vertices done: ``extrapolate_alg1``), or reported as a lower bound when it
  stopped inside part 1; "did not fit" where the device refuses the memory.
- Tables 5.2 / 5.3: per-I/O-block time of the 3-D and z-order launch variants beside the 2-D one.
- Tables 5.4 / 5.6: block sides 8..64, CPU phase 1 vs GPU algorithm 2, seconds per 2^20 vertices.
- Table 5.7: the three phases on the middle window of the grid (8192^2 in the thesis), CPU and GPU
  algorithm 2 phase 1, phases 2 and 3 in a child process under a data-segment cap.
- Table 5.5: time and block I/O against N and M on a sweep of windows, with fitted growth.

Every phase-1 result is checked: the CPU's against Dijkstra on each block's grid graph (two
boundary sources per block), every GPU result against the CPU's on the same blocks, and every full
run's distances against whole-grid Dijkstra. A mismatch raises and no table is written.
GPU steps are 11b's (``gpu_alg1``, ``gpu_alg2`` in the PHASE1 registry); without a CUDA device (or
without that code) their cells say so.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..harness.measure import NOT_RUN_NO_GPU
from .registry import Target, target

VERTICES = 1 << 20  # the thesis's unit: seconds per 2^20 vertices
TABLES = ("table5_1", "table5_2", "table5_3", "table5_4", "table5_5", "table5_7")
DEFAULTS = {
    "table5_1": {"blocks": [64, 128, 256, 512], "gpu_blocks": [64, 128, 256, 512],
                 "cpu_vertices": VERTICES, "gpu_io_blocks": 1, "gpu_timeout_s": 300,
                 # (M side, C side) cells beyond the table: section 5.1 counts the kernel
                 # launches of M = 64^2, C = 16^2 ("almost three million" per I/O-block)
                 "extra_cells": []},
    "table5_2": {"block": 64, "gpu_block": 16, "io_blocks": 4, "variant": "3d", "gpu_timeout_s": 300},
    "table5_3": {"block": 64, "gpu_block": 16, "io_blocks": 4, "variant": "zorder", "gpu_timeout_s": 300},
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


def gpu_status(step_name: str) -> str | None:
    """None when the GPU step can run here, else the "not run" reason."""
    from .. import gpu
    from ..solvers.gerritsen2012 import PHASE1, step

    if gpu.simulated() or not gpu.cuda_available():
        return NOT_RUN_NO_GPU
    try:
        step(PHASE1, step_name)
    except KeyError:
        return f"not run: step {step_name} is not in this tree (issue 11, GPU part)"
    return None


# --- measuring ---------------------------------------------------------------------------------

def window_zgrid(zgrid, side: int, output) -> Path:
    """The middle side x side window of a converted grid's data, as its own .zgrid (a window
    larger than the data takes the padding's zeros); written once, streamed in bands."""
    from ..terrain import convert_array, open_zgrid
    from ..terrain.morton import encode

    output = Path(output)
    if output.is_file() and output.with_name(output.name + ".json").is_file():
        return output
    z, meta = open_zgrid(zgrid)
    if side > meta["side"]:
        raise InputError(f"{zgrid}: a {side} x {side} window does not fit its {meta['side']}^2 grid")
    r0 = min(max(0, (meta["rows"] - side) // 2), meta["side"] - side)
    c0 = min(max(0, (meta["cols"] - side) // 2), meta["side"] - side)
    out = np.empty((side, side), dtype=np.uint32)
    cols = np.arange(c0, c0 + side, dtype=np.int64)
    for r in range(side):
        out[r] = z[encode(cols, np.full(side, r0 + r, dtype=np.int64))]
    convert_array(out, output, source={"window_of": str(zgrid), "row0": r0, "col0": c0, "side": side})
    return output


def _cpu_phase1(zgrid, m: int, nblocks: int, workdir: Path, against=None) -> dict:
    """CPU phase 1 timed on the ``nblocks`` centre blocks, checked against Dijkstra on them;
    ``against``: a whole G' (another step's) whose records for those blocks must be equal."""
    from ..solvers.gerritsen2012 import sssp_io

    per = sssp_io.ZBlocks(zgrid).blocks_per_side(m)
    blocks = sssp_io.centre_blocks(per, min(nblocks, per * per))
    d = workdir / f"p1_cpu_{m}"
    g = sssp_io.phase1(zgrid, d, m, only_blocks=blocks, warmup=True,
                       batch_vertices=max(m * m, 1 << 16))
    meta, dist = sssp_io.partial_bnd(d)
    grid = sssp_io.ZBlocks(zgrid)
    values = np.stack([grid.read(m, bx, by) for bx, by in blocks]).astype(np.int64)
    sssp_io.check_phase1(values, dist, what=f"CPU phase 1, M = {m}^2")
    if against is not None:
        _compare_records(d, against, f"{against.meta['phase1']} phase 1 against the CPU's, M = {m}^2")
    shutil.rmtree(d, ignore_errors=True)
    return {"status": "ok", "blocks": len(blocks), "step_ms": g.meta["timings"]["step_ms"],
            "batch_ms": meta["batch_ms"], "counters": g.meta["counters"], "dist": dist,
            "check": "ok: two boundary sources a block equal Dijkstra on the block"}


def _gpu_phase1(zgrid, m: int, nblocks: int | None, step_name: str, params: dict, workdir: Path,
                timeout: float, per_block: bool = False, against=None) -> dict:
    """A GPU phase-1 step in a child process (``io-sssp --phases 1``), stopped at ``timeout``.
    ``against``: a whole CPU G' to compare with record by record (Table 5.7's whole window),
    instead of returning every boundary-pair record in memory. ``nblocks=None``: every block,
    as a whole G' (with its seams) that is kept for phases 2 and 3: the result's ``gprime``."""
    status = gpu_status(step_name)
    if status:
        return {"status": status}
    d = workdir / f"p1_{step_name}_{m}_{'_'.join(f'{k}{v}' for k, v in sorted(params.items()))}"
    out = d.with_suffix(".json")
    cmd = [sys.executable, "-m", "graphrepro", "io-sssp", str(zgrid), "--block", str(m),
           "--phases", "1", "--phase1", step_name, "--warmup",
           "--workdir", str(d), "--no-check", "--json", str(out)]
    if nblocks is not None:
        cmd += ["--centre-blocks", str(nblocks)]
    if per_block:
        cmd += ["--batch-vertices", str(m * m)]
    for k, v in params.items():
        cmd += ["--phase1-param", f"{k}={v}"]
    try:
        from ..solvers.gerritsen2012.sssp_io import child_env

        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=child_env())
    except subprocess.TimeoutExpired as e:
        killed = time.time()
        shutil.rmtree(d, ignore_errors=True)
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        starts = [float(line.split()[0]) for line in err.splitlines() if "timing starts" in line]
        if not starts:
            return {"status": f"stopped after {timeout:g} s, still compiling or warming up"}
        timed = killed - starts[-1]  # the timed part only: start-up and the warm-up excluded
        estimate = extrapolate_alg1(err, starts[-1])
        if estimate is not None:
            per_block_ms, basis = estimate
            return {"status": f"extrapolated from {basis} (stopped after {timed:.0f} s)",
                    "blocks": 1, "step_ms": per_block_ms, "batch_ms": [per_block_ms],
                    "counters": {}, "dist": None, "partial": extrapolation_point(err)}
        return {"status": f"stopped after {timed:.0f} s of timed work", "stopped_s": timed,
                "blocks": nblocks}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        low = last.lower()
        # gpu.check_fits: "... needs X GiB on the GPU but only ..."; a CUDA out-of-memory error
        fit = any(w in low for w in ("memory", "fit", "too big", "too large", "refuse",
                                     "gib on the gpu"))
        shutil.rmtree(d, ignore_errors=True)
        return {"status": f"{'did not fit' if fit else 'failed'}: {last}"}
    from ..solvers.gerritsen2012 import sssp_io

    if nblocks is None:
        g = sssp_io.Gprime.open(d)
        return {"status": "ok", "blocks": g.per * g.per, "step_ms": g.meta["timings"]["step_ms"],
                "batch_ms": g.meta["batch_ms"], "counters": g.meta["counters"], "dist": None,
                "warmup": g.meta.get("warmup", ""), "gprime": g}
    if against is not None:
        meta = _compare_records(d, against, f"{step_name} phase 1, M = {m}^2")
        dist = None
    else:
        meta, dist = sssp_io.partial_bnd(d)
    shutil.rmtree(d, ignore_errors=True)
    return {"status": "ok", "blocks": len(meta["blocks"]), "step_ms": meta["timings"]["step_ms"],
            "batch_ms": meta["batch_ms"], "counters": meta["counters"], "dist": dist,
            "warmup": meta.get("warmup", ""), "partial": extrapolation_point(proc.stderr)}


def extrapolation_point(stderr: str, fraction: float = 0.0):
    """The check of ``extrapolate_alg1`` on a child that finished an I/O-block: what it would
    have said had the child been stopped once ``fraction`` of that first block's boundary
    vertices were done (by default after the first, as early as a stopped cell can be
    extrapolated), beside the block's finished time: (estimate ms, finished ms), or None
    (no progress lines, or no block finished). The claims ledger trusts extrapolations only as
    far as these pairs agree (experiments.gerritsen2012_sssp_evidence.extrapolation_check)."""
    lines = (stderr or "").splitlines()
    starts = [i for i, line in enumerate(lines) if "timing starts" in line]
    if not starts:
        return None
    start = float(lines[starts[-1]].split()[0])
    cut = None
    for i, line in enumerate(lines[starts[-1]:], starts[-1]):
        f = line.split()
        if len(f) != 4 or f[1] != "progress" or f[2] != "part2":
            continue
        done, total = (int(x) for x in f[3].split("/"))
        if cut is None and fraction * total <= done < total:
            cut = i
        if done == total:
            if cut is None:
                return None
            estimate = extrapolate_alg1("\n".join(lines[:cut + 1]), start)
            if estimate is None or not estimate[1].startswith("part 1"):
                return None
            return estimate[0], (float(f[0]) - start) * 1e3
    return None


def extrapolate_alg1(stderr: str, timing_start: float):
    """(ms per I/O-block, what it rests on) from a stopped GPU algorithm 1 child's progress lines
    (``T progress part1|part2 DONE/TOTAL``, T the wall clock), or None when it had not got far
    enough: the mean of its whole I/O-blocks, else one block's part 1 plus its part 2 scaled from
    the boundary vertices done to all of them (the thesis: "we calculated the total time by
    extrapolating the time")."""
    start, part1_end, last = timing_start, None, None
    whole: list[float] = []
    for line in stderr.splitlines():
        f = line.split()
        if len(f) != 4 or f[1] != "progress":
            continue
        t = float(f[0])
        done, total = (int(x) for x in f[3].split("/"))
        if t < timing_start:
            continue
        if f[2] == "part1" and done == total:
            part1_end = t
        elif f[2] == "part2" and part1_end is not None:
            last = (t, done, total)
            if done == total:
                whole.append((t - start) * 1e3)
                start, part1_end, last = t, None, None
    if whole:
        return float(np.mean(whole)), f"{len(whole)} whole I/O-block{'s' if len(whole) > 1 else ''}"
    if last is None:
        return None
    t, done, total = last
    ms = ((part1_end - start) + (t - part1_end) * total / done) * 1e3
    return ms, f"part 1 and {done} of {total} boundary vertices of one I/O-block"


def _compare_records(directory: Path, gprime, what: str, chunk: int = 4096) -> dict:
    """Every boundary-pair record of a timing run's (partial) G' equals the whole ``gprime``'s
    records for the same blocks; a chunk at a time."""
    from ..solvers.gerritsen2012 import sssp_io

    meta = json.loads((directory / "gprime.json").read_text())
    m, per = int(meta["m"]), int(meta["per"])
    k = 4 * m - 4
    got = sssp_io.RecordFile(directory / "bnd.rec", (k, k), meta["dtype"], per * per,
                             sssp_io.IOCounter()).array
    want = gprime.records("bnd").array
    slot = sssp_io.slot_table(per)
    slots = np.array([slot[by, bx] for bx, by in meta["blocks"]], dtype=np.int64)
    for i in range(0, len(slots), chunk):
        s = np.sort(slots[i:i + chunk])
        sssp_io.check_distances(np.asarray(got[s], dtype=np.int64), np.asarray(want[s], dtype=np.int64),
                                what=f"{what}, blocks {i}..{i + len(s) - 1}")
    return meta


def _row(table, m, impl, res, *, c="", variant="", scale_to=VERTICES):
    row = {"table": table, "block": m, "gpu_block": c, "impl": impl, "variant": variant,
           "status": res["status"], "blocks": res.get("blocks", ""), "step_ms": "",
           "seconds_per_2_20": "", "extrapolated": "", "batch_ms": "", "counters": "", "check": "",
           "warmup": res.get("warmup", "")}
    if res.get("partial"):  # the extrapolation, checked on an I/O-block that finished
        row["partial_estimate_ms"], row["partial_finished_ms"] = res["partial"]
    if _has_time(res):
        timed = res["blocks"] * m * m
        row.update(step_ms=res["step_ms"], seconds_per_2_20=res["step_ms"] / 1e3 * scale_to / timed,
                   extrapolated=timed < scale_to or res["status"] != "ok",
                   batch_ms=json.dumps(res["batch_ms"]),
                   counters=json.dumps(res["counters"], default=str), check=res.get("check", ""))
    elif "stopped_s" in res:  # a lower bound: it had run this long on these blocks unfinished
        timed = res["blocks"] * m * m
        row.update(seconds_per_2_20=res["stopped_s"] * scale_to / timed, extrapolated=True)
    return row


UNCHECKED = ("not checked: stopped before its distances were written (GPU algorithm 1 is checked "
             "wherever a run finishes)")


def _has_time(r) -> bool:
    """A run (or row) that gives a time: finished, or stopped and extrapolated from its progress."""
    status = str(r.get("status", ""))
    return status == "ok" or status.startswith("extrapolated")


COMPILE_CAVEAT = ("timed before the warm-up fix (GPU algorithm 2 compiles a kernel per block side; "
                  "the warm-up used an 8 x 8 block), so this includes that compilation; "
                  "compile-free: benchmarks/gerritsen2012_sssp.py")
COMPILE_CAVEAT_PHASE2 = ("timed before the warm-up fix: the child's first run, so this includes "
                         "creating the CUDA context and compiling the near-far kernels")


def _timed_with_compiler(r) -> bool:
    """A GPU row measured before warm-ups matched what is timed (its benchmark table has no
    ``warmup`` column, or an empty one), so its time holds a compilation: GPU algorithm 2, whose
    kernel is compiled per block side, warmed on 8 x 8; GPU phases 2 and 3, not warmed at all.
    (reports/reference's Tables 5.4 and 5.7 were measured so until device call 8.)"""
    if str(r.get("warmup", "")) not in ("", "nan", "None"):
        return False
    if r.get("impl") == "gpu (uncapped)":
        return True
    side = pd.to_numeric(r.get("block"), errors="coerce")
    return r.get("impl") == "gpu_alg2" and not side <= 8  # the old warm-up compiled side 8


def _compile_caveat(r) -> str:
    return COMPILE_CAVEAT_PHASE2 if r.get("impl") == "gpu (uncapped)" else COMPILE_CAVEAT


def _same(gpu_res, cpu_res, what):
    if gpu_res["status"] == "ok":
        from ..solvers.gerritsen2012.sssp_io import check_distances

        n = min(len(gpu_res["dist"]), len(cpu_res["dist"]))
        check_distances(gpu_res["dist"][:n], cpu_res["dist"][:n], what=what)
        gpu_res["check"] = "ok: equals CPU phase 1 on the same blocks"


def measure_table5_1(zgrid, s, workdir, log):
    rows = []
    for m in list(s["blocks"]) + [mm for mm, _ in s["extra_cells"] if mm not in s["blocks"]]:
        per = _per(zgrid, m)
        if per is None:
            rows.append({"table": "table5_1", "block": m, "impl": "cpu_dijkstra",
                         "status": "not run: grid smaller than the block"})
            continue
        cpu = _cpu_phase1(zgrid, m, max(1, s["cpu_vertices"] // (m * m)), workdir)
        rows.append(_row("table5_1", m, "cpu_dijkstra", cpu))
        log(f"table 5.1: M = {m}^2 CPU {rows[-1]['seconds_per_2_20']:.3g} s per 2^20")
        extra = [c for mm, c in s["extra_cells"] if mm == m and c not in s["gpu_blocks"]]
        for c in list(s["gpu_blocks"]) + extra:
            if c > m:
                continue
            g = _gpu_phase1(zgrid, m, s["gpu_io_blocks"], "gpu_alg1", {"c": c, "variant": "2d"},
                            workdir, s["gpu_timeout_s"])
            _same(g, cpu, f"GPU algorithm 1 (M = {m}^2, C = {c}^2)")
            rows.append(_row("table5_1", m, "gpu_alg1", g, c=c, variant="2d"))
            log(f"table 5.1: M = {m}^2 C = {c}^2: {g['status']}")
    return rows


def _variant_table(name, zgrid, s, workdir, log):
    m, c, n = s["block"], s["gpu_block"], s["io_blocks"]
    if _per(zgrid, m) is None:
        return [{"table": name, "block": m, "status": "not run: grid smaller than the block"}]
    cpu = _cpu_phase1(zgrid, m, n, workdir)
    rows = [_row(name, m, "cpu_dijkstra", cpu)]
    for variant in ("2d", s["variant"]):
        g = _gpu_phase1(zgrid, m, n, "gpu_alg1", {"c": c, "variant": variant}, workdir,
                        s["gpu_timeout_s"], per_block=True)
        _same(g, cpu, f"GPU algorithm 1 {variant} (M = {m}^2, C = {c}^2)")
        rows.append(_row(name, m, "gpu_alg1", g, c=c, variant=variant))
        log(f"{name}: {variant}: {g['status']}")
    return rows


def measure_table5_4(zgrid, s, workdir, log):
    rows = []
    for m in s["blocks"]:
        if _per(zgrid, m) is None:
            continue
        n = max(1, s["vertices"] // (m * m))
        cpu = _cpu_phase1(zgrid, m, n, workdir)
        rows.append(_row("table5_4", m, "cpu_dijkstra", cpu))
        params = {"threads": s["threads"]} if s["threads"] else {}  # else the step's own choice
        g = _gpu_phase1(zgrid, m, n, "gpu_alg2", params, workdir, s["gpu_timeout_s"])
        _same(g, cpu, f"GPU algorithm 2 (block {m} x {m})")
        rows.append(_row("table5_4", m, "gpu_alg2", g))
        log(f"table 5.4: {m} x {m}: CPU {rows[-2]['seconds_per_2_20']:.3g} s, GPU {g['status']}")
    return rows


def _per(zgrid, m):
    from ..terrain.blockio import ZBlocks

    side = ZBlocks(zgrid).side
    return side // m if m <= side else None


def _source(zgrid, seed=20120901) -> int:
    """A seeded source in an interior cell of the data (not the padding)."""
    from ..terrain import open_zgrid

    _, meta = open_zgrid(zgrid)
    rng = np.random.default_rng(seed)
    r = int(rng.integers(meta["rows"] // 4, max(meta["rows"] // 4 + 1, 3 * meta["rows"] // 4)))
    c = int(rng.integers(meta["cols"] // 4, max(meta["cols"] // 4 + 1, 3 * meta["cols"] // 4)))
    return r * meta["side"] + c


def _corner_and_edge(side: int) -> list[int]:
    """Sources in a corner block and in an edge block (row 0, middle column), beside the seeded
    interior one: the source-block special case is checked where blocks have fewer neighbours."""
    return [0, side // 2]


def _check_more_sources(win, directory, sources, what, log):
    """Phases 2 and 3 again from each source (untimed), checked against whole-grid Dijkstra."""
    from ..solvers.gerritsen2012 import sssp_io

    values = sssp_io.grid_values(win)
    for src in sources:
        sssp_io.phases23(directory, src)
        ref, _ = sssp_io.whole_grid_dijkstra(values, src)
        sssp_io.check_distances(sssp_io.read_distances(directory), ref, what=f"{what}, source {src}")
    log(f"{what}: sources {sources} checked too")
    return f"ok: equals whole-grid Dijkstra (sources {', '.join(map(str, sources))} too)"


def measure_table5_7(zgrid, s, workdir, log):
    from ..solvers.gerritsen2012 import sssp_io

    win = window_zgrid(zgrid, min(s["window"], _side(zgrid)), workdir / f"window_{s['window']}.zgrid")
    side = _side(win)
    source = _source(win)
    t0 = time.perf_counter()
    ref, base = sssp_io.whole_grid_dijkstra(sssp_io.grid_values(win), source)
    log(f"table 5.7: {side}^2 window, source {source}, reference {time.perf_counter() - t0:.1f} s")
    rows = [{"table": "table5_7", "block": "", "phase": "whole grid", "impl": "dijkstra (in memory)",
             "status": "ok", "seconds": base["dijkstra_ms"] / 1e3, "window": side, "source": source,
             "check": "the reference"}]
    sample = int(s.get("cpu_phase1_blocks") or 0)
    for m in s["blocks"]:
        if sample:
            # G' from GPU algorithm 2 (kept), the CPU phase 1 timed on centre blocks and scaled
            gres = _gpu_phase1(win, m, None, "gpu_alg2", {}, workdir, s["gpu_timeout_s"])
            gpu_row = _phase1_gpu_row(m, gres, side, source)
            if gres["status"] != "ok":
                rows += [gpu_row, {"table": "table5_7", "block": m, "phase": "phase 1",
                                   "impl": "cpu_dijkstra", "window": side, "source": source,
                                   "status": f"not run: no G' (GPU phase 1: {gres['status']})"}]
                log(f"table 5.7: M = {m}^2 GPU phase 1: {gres['status']}")
                continue
            g = gres["gprime"]
            d = g.directory
            cpu = _cpu_phase1(win, m, sample, workdir, against=g)
            total = g.per * g.per
            gpu_row["check"] = (f"ok: equals CPU phase 1 on the {cpu['blocks']} timed blocks; "
                                "end to end by phases 2 and 3")
            rows.append({"table": "table5_7", "block": m, "phase": "phase 1", "impl": "cpu_dijkstra",
                         "status": "ok", "seconds": cpu["step_ms"] / 1e3 * total / cpu["blocks"],
                         "window": side, "source": source,
                         "extrapolated": f"from {cpu['blocks']} of {total} blocks (step time, "
                                         f"{cpu['counters'].get('threads', 1)} threads)",
                         "counters": json.dumps(cpu["counters"], default=str),
                         "check": cpu["check"]})
            log(f"table 5.7: M = {m}^2 GPU phase 1 (whole window) and CPU phase 1 "
                f"({cpu['blocks']} blocks): ok")
        else:
            d = workdir / f"t57_{m}"
            counter = sssp_io.IOCounter()
            t0 = time.perf_counter()
            g = sssp_io.phase1(win, d, m, counter=counter)
            p1 = time.perf_counter() - t0
            io1 = counter.as_dict()
            rows.append({"table": "table5_7", "block": m, "phase": "phase 1", "impl": "cpu_dijkstra",
                         "status": "ok", "seconds": p1, "window": side, "source": source,
                         "block_reads": io1["block_reads"], "block_writes": io1["block_writes"],
                         "bytes": io1["bytes_read"] + io1["bytes_written"],
                         "counters": json.dumps(g.meta["counters"], default=str)})
        for impl in ("cpu",) + (("gpu",) if s.get("phase2_gpu") else ()):
            if impl == "gpu" and (why := _phase2_gpu_status()):
                rows.append({"table": "table5_7", "block": m, "phase": "phase 2", "impl": "gpu phase 2",
                             "status": why, "window": side, "source": source})
                continue
            # GPU phase 2 gets G' as one CSR in host memory first (about 16 bytes per arc,
            # some 60 arcs per boundary vertex): far beyond the thesis's cap, so it runs uncapped
            rec = sssp_io.run_capped(win, d, source, budget_mb=s["memory_mb"] if impl == "cpu" else None,
                                     phase2=impl, timeout=s.get("timeout_s"))
            if rec["status"] == "ok":
                sssp_io.check_distances(sssp_io.read_distances(d), ref,
                                        what=f"Table 5.7 M = {m}^2, phase 2 {impl}, source {source}")
            cap = rec.get("memory_cap") or {}
            for phase in ("phase2", "phase3"):
                io = rec.get("counters", {}).get(f"{phase}_io", {})
                rows.append({"table": "table5_7", "block": m, "phase": phase.replace("phase", "phase "),
                             "impl": f"{impl} (capped)" if impl == "cpu" else "gpu (uncapped)",
                             "status": rec["status"],
                             "seconds": rec.get("timings", {}).get(f"{phase}_ms", np.nan) / 1e3,
                             "window": side, "source": source,
                             "block_reads": io.get("block_reads", ""),
                             "block_writes": io.get("block_writes", ""),
                             "bytes": io.get("bytes_read", 0) + io.get("bytes_written", 0) if io else "",
                             "cap": json.dumps(cap), "max_rss_mib": rec.get("max_rss_mib", ""),
                             "warmup": rec.get("warmup", "compiled beforehand (sssp_io.warm_up)"),
                             "check": "ok: equals whole-grid Dijkstra" if rec["status"] == "ok" else ""})
            log(f"table 5.7: M = {m}^2 phases 2+3 ({impl}): {rec['status']}")
        more = _check_more_sources(win, d, _corner_and_edge(side), f"Table 5.7 M = {m}^2", log)
        for row in rows:
            if row.get("block") == m and row.get("check", "").startswith("ok: equals whole-grid"):
                row["check"] = more
        if sample:
            rows.append(gpu_row)
        else:
            gres = _gpu_phase1(win, m, _per(win, m) ** 2, "gpu_alg2", {}, workdir,
                               s["gpu_timeout_s"], against=g)
            rows.append(_phase1_gpu_row(m, gres, side, source))
            log(f"table 5.7: M = {m}^2 GPU phase 1: {gres['status']}")
        shutil.rmtree(d, ignore_errors=True)
    return rows


def _phase1_gpu_row(m, gres, side, source) -> dict:
    return {"table": "table5_7", "block": m, "phase": "phase 1", "impl": "gpu_alg2",
            "status": gres["status"], "window": side, "source": source,
            "seconds": gres["step_ms"] / 1e3 if gres["status"] == "ok" else
            gres.get("stopped_s", np.nan),
            "counters": json.dumps(gres.get("counters", {}), default=str),
            "check": "ok: equals CPU phase 1" if gres["status"] == "ok" else "",
            "warmup": gres.get("warmup", "")}


def _phase2_gpu_status():
    from .. import gpu

    if gpu.simulated() or not gpu.cuda_available():
        return NOT_RUN_NO_GPU
    try:
        from ..solvers.gerritsen2012 import grid_sssp_gpu  # noqa: F401
    except ImportError:
        return "not run: phase2_gpu is not in this tree (issue 11, GPU part)"
    return None


def _side(zgrid) -> int:
    from ..terrain import open_zgrid

    return int(open_zgrid(zgrid)[1]["side"])


def measure_table5_5(zgrid, s, workdir, log):
    from ..solvers.gerritsen2012 import sssp_io

    rows = []
    for side in s["sides"]:
        if side > _side(zgrid):
            continue
        win = window_zgrid(zgrid, side, workdir / f"window_{side}.zgrid")
        source = _source(win)
        for m in s["blocks"]:
            if m > side:
                continue
            r = sssp_io.io_sssp(win, source, m, workdir / f"t55_{side}_{m}")
            check = _check_more_sources(win, workdir / f"t55_{side}_{m}", _corner_and_edge(side),
                                        f"Table 5.5 N = {side}^2, M = {m}^2", log)
            io = r.io
            rows.append({"table": "table5_5", "side": side, "N": side * side, "block": m,
                         "M": m * m, "status": "ok", "source": source,
                         "phase1_s": r.timings["phase1_ms"] / 1e3,
                         "phase2_s": r.timings["phase2_ms"] / 1e3,
                         "phase3_s": r.timings["phase3_ms"] / 1e3,
                         "baseline_s": r.timings["baseline_dijkstra_ms"] / 1e3,
                         "block_reads": io["block_reads"], "block_writes": io["block_writes"],
                         "bytes_read": io["bytes_read"], "bytes_written": io["bytes_written"],
                         "phase2_fetches": r.counters.get("phase2_fetches"), "check": check})
            shutil.rmtree(workdir / f"t55_{side}_{m}", ignore_errors=True)
            log(f"table 5.5: N = {side}^2, M = {m}^2: {r.timings['phase1_ms'] / 1e3:.2f} s phase 1")
    return rows


MEASURE = {"table5_1": measure_table5_1,
           "table5_2": lambda z, s, w, log: _variant_table("table5_2", z, s, w, log),
           "table5_3": lambda z, s, w, log: _variant_table("table5_3", z, s, w, log),
           "table5_4": measure_table5_4, "table5_5": measure_table5_5, "table5_7": measure_table5_7}


def terrain_data(zgrid) -> str:
    """What the grid is (real, or which stand-in), from the origin record beside it."""
    from ..datasets.origin import describe_origin

    path = Path(zgrid)
    origin = path.with_name(path.name + ".origin.json")
    what = describe_origin(json.loads(origin.read_text()), brief=True) if origin.is_file() \
        else f"file {path.name}"
    return f"{path.name.split('.')[0]}: {what}"


def run_experiment(table: str, zgrid, settings: dict, workdir, log=print) -> pd.DataFrame:
    if table not in MEASURE:
        raise InputError(f"unknown table {table!r}; known: {', '.join(TABLES)}")
    unknown = set(settings) - set(DEFAULTS[table]) - {"timeout_s", "cpu_threads"}
    if unknown:
        raise InputError(f"{table}: unknown setting(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(DEFAULTS[table])}")
    s = {**DEFAULTS[table], **settings}
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    import numba

    from .. import gpu
    from ..solvers.gerritsen2012 import sssp_io

    if s.get("cpu_threads"):  # e.g. 1 for the thesis's one CPU core; default: every core
        numba.set_num_threads(min(int(s["cpu_threads"]), numba.config.NUMBA_NUM_THREADS))
    sssp_io.warm_up()  # compilation (or numba's cache) outside every timed section
    rows = MEASURE[table](Path(zgrid), s, workdir, log)
    df = pd.DataFrame(rows)
    df["terrain"] = Path(zgrid).name.split(".")[0]
    df["data"] = terrain_data(zgrid)
    df["cpu_threads"] = numba.get_num_threads()
    df["device_name"] = gpu.device_name()
    df["settings"] = json.dumps(s)
    return df


# --- the target tables -------------------------------------------------------------------------

COLUMNS = ["row", "column", "published", "ours", "claim_id", "note", "where"]


def _pub(published, item, row, column):
    cell = published[(published["item"] == item) & (published["row"] == row)
                     & (published["column"] == column)]
    if cell.empty:
        return "", ""
    r = cell.iloc[0]
    return f"{r['value']} {r['unit']}".strip(), r["where"]


def _text(v) -> str:
    """A cell as text: empty for missing values (pandas reads empty cells as NaN)."""
    return "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)


def _threads(b) -> str:
    n = b["cpu_threads"].iloc[0] if "cpu_threads" in b and len(b) else None
    return f"CPU: numba, {int(n)} thread(s)" if n is not None else "CPU: numba"


def _bench(benchmarks, table):
    df = (benchmarks or {}).get(f"gerritsen2012_{table}")
    return df if df is not None else pd.DataFrame()


def _secs(row) -> str:
    v = row.get("seconds_per_2_20")
    if row.get("status") == "ok":
        flag = " (extrapolated)" if str(row.get("extrapolated")) == "True" else ""
        return f"{float(v):.3g} s{flag}"
    if _has_time(row):
        return f"{float(v):.3g} s ({row['status']})"
    if str(row.get("status", "")).startswith("stopped") and pd.notna(pd.to_numeric(v, errors="coerce")):
        return f"> {float(v):.3g} s (extrapolated lower bound; {row['status']})"
    return str(row.get("status"))


def launch_arithmetic(m: int, c: int) -> int:
    """Section 5.1's count of kernel launches per I/O-block: each of the (m/c)^2 (4c - 4) GPU-block
    boundary vertices starts 2 + ceil(log2 of their number) kernels, once per I/O-block boundary
    vertex (4m - 4). M = 64^2, C = 16^2: 960 x 12 x 252 = 2,903,040."""
    g = (m // c) ** 2 * (4 * c - 4)
    return g * (2 + math.ceil(math.log2(g))) * (4 * m - 4)


def compare_table5_1(runs, stats, published, benchmarks=None):
    b = _bench(benchmarks, "table5_1")
    out = []
    extra_rows: list[dict] = []
    for m, grp in b.groupby("block", sort=True):
        m = int(m)
        cpu = grp[grp["impl"] == "cpu_dijkstra"]
        cpu_s = float(cpu["seconds_per_2_20"].iloc[0]) if len(cpu) and cpu["status"].iloc[0] == "ok" else None
        pub, where = _pub(published, "Table 5.1", f"M={m}^2", "CPU")
        out.append({"row": f"M = {m}^2", "column": "CPU", "published": pub,
                    "ours": _secs(cpu.iloc[0]) if len(cpu) else "not run",
                    "claim_id": "t51.cpu_growth" if m >= 64 else "",
                    "note": f"seconds per 2^20 vertices; {_threads(b)}; "
                            + (_text(cpu["check"].iloc[0]) if len(cpu) else ""),
                    "where": where})
        for _, r in grp[grp["impl"] == "gpu_alg1"].iterrows():
            c = int(float(r["gpu_block"]))
            pub, where = _pub(published, "Table 5.1", f"M={m}^2", f"GPU C={c}^2")
            launches = ""
            if r["status"] == "ok":
                cnt = json.loads(r["counters"])
                shown = ", ".join(f"{k} {float(v) / float(r['blocks']):,.0f}" for k, v in cnt.items()
                                  if isinstance(v, (int, float)) and not isinstance(v, bool))
                launches = f"; per I/O-block: {shown}" if shown else ""
                key = next((k for k in cnt if "launch" in k), None)
                if key is not None:
                    ours = float(cnt[key]) / float(r["blocks"])
                    thesis = launch_arithmetic(m, c)
                    pub_l, where_l = (_pub(published, "Table 5.1", "M=64^2 C=16^2",
                                           "kernel launches per I/O-block") if (m, c) == (64, 16)
                                      else ("", "section 5.1, p. 52"))
                    ratio = ours / thesis
                    extra_rows.append({
                        "row": f"M = {m}^2", "column": f"kernel launches per I/O-block, C = {c}^2",
                        "published": pub_l or f"{thesis:,} (the thesis's arithmetic)",
                        "ours": f"{ours:,.0f}",
                        "claim_id": "t51.launches" if (m, c) == (64, 16) else "",
                        "note": f"the thesis's arithmetic for this M, C: {thesis:,} "
                                f"(GPU-block boundary vertices x (2 + log2 of them) x I/O-block "
                                f"boundary vertices); ours / that = {ratio:.2f}",
                        "where": where_l})
            out.append({"row": f"M = {m}^2", "column": f"GPU C = {c}^2", "published": pub,
                        "ours": _secs(r), "claim_id": "t51.cpu_faster" if cpu_s is not None else "",
                        "note": "thesis: the CPU is faster in every case" + launches
                                + (f"; {r['check']}" if _text(r.get("check")) else
                                   f"; {UNCHECKED}" if _has_time(r) else ""),
                        "where": where})
    return pd.DataFrame(out + extra_rows, columns=COLUMNS)


def _compare_variant(table, item, benchmarks, published):
    b = _bench(benchmarks, table)
    out = []
    g = b[b["impl"] == "gpu_alg1"] if len(b) else b
    two = g[g["variant"] == "2d"] if len(g) else g
    var = g[g["variant"] != "2d"] if len(g) else g
    ok = len(two) and len(var) and _has_time(two.iloc[0]) and _has_time(var.iloc[0])
    if ok:
        t2 = np.array(json.loads(two["batch_ms"].iloc[0]))
        tv = np.array(json.loads(var["batch_ms"].iloc[0]))
        stats = {"Maximum": (t2.max(), tv.max()), "Minimum": (t2.min(), tv.min()),
                 "Average": (t2.mean(), tv.mean())}
    why = (str(var["status"].iloc[0]) if len(var) else "not in this config")
    noise = _two_d_variation(benchmarks)
    slower, avg = {"table5_2": ("t52.slower", "t52.avg"), "table5_3": ("t53.slower", "t53.avg")}[table]
    for what in ("Maximum", "Minimum", "Average"):
        pub, where = _pub(published, item, what, "running time GPU")
        pub_sp, _ = _pub(published, item, what, "speedup compared to 2D grids")
        if ok:
            a, v = stats[what]
            speed = 100 * (a - v) / a
            basis = "; ".join(f"{name}: {st}" for name, st in
                              (("2-D", two["status"].iloc[0]), (var["variant"].iloc[0], var["status"].iloc[0]))
                              if st != "ok")
            basis += f" ({UNCHECKED})" if basis else ""
            out.append({"row": what, "column": "running time GPU (per I/O-block)", "published": pub,
                        "ours": f"{v:.4g} ms (2-D: {a:.4g} ms)",
                        "claim_id": slower if what == "Average" else "", "note": basis,
                        "where": where})
            note = "thesis: the variant is slower than 2-D; (2-D - variant) / 2-D"
            if noise is not None:
                note += (f"; the same 2-D run timed in Tables 5.2 and 5.3 differs by "
                         f"{100 * noise:.0f} %")
            out.append({"row": what, "column": "speedup compared to 2D grids", "published": pub_sp,
                        "ours": f"{speed:.0f} %", "claim_id": avg if what == "Average" else "",
                        "note": note,
                        "where": where})
        else:
            out.append({"row": what, "column": "running time GPU (per I/O-block)", "published": pub,
                        "ours": why, "claim_id": slower if what == "Average" else "",
                        "note": "", "where": where})
    three = _bench(benchmarks, "table5_2")
    t3 = three[(three["impl"] == "gpu_alg1") & (three["variant"] == "3d")] if len(three) else three
    if table == "table5_3" and ok and len(t3) and _has_time(t3.iloc[0]):
        d3 = float(np.mean(json.loads(t3["batch_ms"].iloc[0])))
        out.append({"row": "Average", "column": "against the 3-D version (Table 5.2's run)",
                    "published": "slower (6740 against 956 ms)",
                    "ours": f"{tv.mean():.4g} ms vs {d3:.4g} ms", "claim_id": "t53.vs_3d",
                    "note": "timed in different runs", "where": "section 5.3.2, p. 55"})
    if len(b):
        s = json.loads(b["settings"].iloc[0])
        out.append({"row": "setting", "column": "M, C, I/O-blocks", "published": "not stated",
                    "ours": f"M = {s['block']}^2, C = {s['gpu_block']}^2, {s['io_blocks']} blocks",
                    "claim_id": "", "note": "", "where": ""})
    return pd.DataFrame(out, columns=COLUMNS)


def _two_d_variation(benchmarks):
    """Tables 5.2 and 5.3 each time the 2-D variant on the same blocks: how far apart the two
    average per-block times are (relative to the smaller), or None unless both have one."""
    times = []
    for table in ("table5_2", "table5_3"):
        b = _bench(benchmarks, table)
        two = b[(b["impl"] == "gpu_alg1") & (b["variant"] == "2d")] if len(b) else b
        if not len(two) or not _has_time(two.iloc[0]):
            return None
        times.append((json.loads(b["settings"].iloc[0]).get("block"),
                      float(np.mean(json.loads(two["batch_ms"].iloc[0])))))
    (m2, a), (m3, c) = times
    return abs(a - c) / min(a, c) if m2 == m3 else None


def compare_table5_4(runs, stats, published, benchmarks=None):
    b = _bench(benchmarks, "table5_4")
    out = []
    for m, grp in b.groupby("block", sort=True):
        m = int(m)
        label = f"{m}x{m}"
        cpu = grp[grp["impl"] == "cpu_dijkstra"].iloc[0]
        gpu = grp[grp["impl"] == "gpu_alg2"]
        compiled = len(gpu) > 0 and _timed_with_compiler(gpu.iloc[0])
        for col, r in (("CPU", cpu), ("GPU algorithm 2", gpu.iloc[0] if len(gpu) else None)):
            pub, where = _pub(published, "Table 5.4", label, col)
            note = "seconds per 2^20 vertices" + (f"; {_threads(b)}" if col == "CPU" else "")
            if col != "CPU" and compiled:
                note += "; " + COMPILE_CAVEAT
            out.append({"row": label, "column": col, "published": pub,
                        "ours": _secs(r) if r is not None else "not in this config",
                        "claim_id": "",
                        "note": note, "where": where})
        pub, where = _pub(published, "Table 5.4", label, "speedup")
        if len(gpu) and gpu["status"].iloc[0] == "ok":
            c, g = float(cpu["seconds_per_2_20"]), float(gpu["seconds_per_2_20"].iloc[0])
            sp = 100 * (c - g) / c
            claim = {8: "t54.cpu_8", 16: "t54.gpu_16_32", 32: "t54.speedup32"}.get(m, "")
            out.append({"row": label, "column": "speedup", "published": pub, "ours": f"{sp:.0f} %",
                        "claim_id": claim, "note": f"(CPU - GPU) / CPU; x{c / g:.2f}; issue goal: "
                                                    "GPU >= 10x CPU at 32 x 32", "where": where})
    return pd.DataFrame(out, columns=COLUMNS)


def _fit(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = (x > 0) & (y > 0)
    if ok.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


def compare_table5_5(runs, stats, published, benchmarks=None):
    b = _bench(benchmarks, "table5_5")
    out = []
    bound_io, where = _pub(published, "Table 5.5", "number of I/Os", "all")
    bound_t, _ = _pub(published, "Table 5.5", "running time", "CPU")
    if b.empty:
        return pd.DataFrame(out, columns=COLUMNS)
    b = b[b["status"] == "ok"]
    for m, grp in b.groupby("block", sort=True):
        grp = grp.sort_values("N")
        total = grp["phase1_s"] + grp["phase2_s"] + grp["phase3_s"]
        io = grp["block_reads"] + grp["block_writes"]
        moved = grp["bytes_read"] + grp["bytes_written"]
        k_io, k_t, k_b = _fit(grp["N"], io), _fit(grp["N"], total), _fit(grp["N"], moved)
        pts = ", ".join(f"N={n}: {t:.3g} s, {i} I/Os" for n, t, i in zip(grp["N"], total, io))
        out.append({"row": f"M = {int(m)}^2", "column": "block I/Os against N", "published": bound_io,
                    "ours": f"~ N^{k_io:.2f}", "claim_id": "",
                    "note": f"fitted log-log slope; the bound grows as N (scan) plus N/sqrt(M) "
                            f"log N (sort); {pts}", "where": where})
        out.append({"row": f"M = {int(m)}^2", "column": "bytes moved against N", "published": bound_io,
                    "ours": f"~ N^{k_b:.2f}", "claim_id": "t55.io",
                    "note": "fitted log-log slope: the model's I/Os move a fixed B bytes each",
                    "where": where})
        out.append({"row": f"M = {int(m)}^2", "column": "running time against N", "published": bound_t,
                    "ours": f"~ N^{k_t:.2f}", "claim_id": "t55.time",
                    "note": "fitted log-log slope of the three phases' total; the bound is N log N "
                            "+ N sqrt(M) log M (slope ~1 plus a log factor)", "where": where})
    for n, grp in b.groupby("N", sort=True):
        total = grp["phase1_s"] + grp["phase2_s"] + grp["phase3_s"]
        out.append({"row": f"N = {int(n)}", "column": "whole-grid Dijkstra (in memory) vs the "
                    "three phases", "published": "", "ours": f"{grp['baseline_s'].median():.3g} s vs "
                    + ", ".join(f"{t:.3g} s (M = {int(m)})" for m, t in zip(grp["M"], total)),
                    "claim_id": "", "note": "the baseline holds the grid and a CSR copy in memory",
                    "where": ""})
        if grp["M"].nunique() < 2:
            continue
        kio = _fit(grp["M"], grp["block_reads"] + grp["block_writes"])
        out.append({"row": f"N = {int(n)}", "column": "block I/Os against M", "published": bound_io,
                    "ours": f"~ M^{kio:.2f}", "claim_id": "",
                    "note": "records moved: phase 1 and 3 ~ N / M each, phase 2 ~ 7 per cluster "
                            "fetch ~ N / sqrt(M); the model's blocks of B bytes are not ours "
                            "(bytes are in the benchmark table)", "where": where})
        k1 = _fit(grp["M"], grp["phase1_s"])
        out.append({"row": f"N = {int(n)}", "column": "phase 1 time against M", "published": bound_t,
                    "ours": f"~ M^{k1:.2f}",
                    "claim_id": "t55.phase1_m",
                    "note": "the CPU bound's N sqrt(M) log M term: slope 0.5 plus a log factor",
                    "where": where})
        k2 = _fit(grp["M"], grp["phase2_fetches"].astype(float))
        out.append({"row": f"N = {int(n)}", "column": "phase 2 cluster fetches against M",
                    "published": "N / sqrt(M) steps (section 4.1)", "ours": f"~ M^{k2:.2f}",
                    "claim_id": "",
                    "note": "fetches of a cluster from the queue; each reads its G' records",
                    "where": "section 4.1, p. 47"})
    return pd.DataFrame(out, columns=COLUMNS)


def _compile_note(compiled: bool) -> str:
    return "the GPU phase 1 here was timed with its compilation (see its row)" if compiled else ""


def _row_claim57(m: int, phase: str, impl: str) -> str:
    """The claim a Table 5.7 cell's row stands for, if one."""
    if phase == "phase 1" and impl == "cpu_dijkstra":
        return "t57.cpu_p1_trend"
    if phase == "phase 2" and impl == "cpu (capped)":
        return "t57.p2_faster_m"
    return ""


def compare_table5_7(runs, stats, published, benchmarks=None):
    from .gerritsen2012_sssp_evidence import cap_check  # the evidence module imports this one

    b = _bench(benchmarks, "table5_7")
    out = []
    if b.empty:
        return pd.DataFrame(out, columns=COLUMNS)
    window = int(b["window"].iloc[0])
    ref = b[b["phase"] == "whole grid"]
    if len(ref):
        out.append({"row": f"{window}^2 window", "column": "whole-grid Dijkstra (in memory)",
                    "published": "", "ours": f"{float(ref['seconds'].iloc[0]):.3g} s",
                    "claim_id": "", "note": f"source {int(ref['source'].iloc[0])}; the baseline and "
                                           "the check", "where": ""})
    cpu_totals = {}
    compiled_57: set = set()
    for m, grp in b[b["phase"] != "whole grid"].groupby("block", sort=True):
        m = int(float(m))
        label = f"M={m}^2"
        cells = {}
        for _, r in grp.iterrows():
            col = {"cpu_dijkstra": "CPU", "gpu_alg2": "GPU algorithm 2", "cpu (capped)": "CPU",
                   "gpu (uncapped)": "GPU phase 2 (beyond the thesis)",
                   "gpu phase 2": "GPU phase 2 (beyond the thesis)"}[r["impl"]]
            ours = (f"{float(r['seconds']):.3g} s" if r["status"] == "ok"
                    else (f"> {float(r['seconds']):.3g} s ({r['status']})"
                          if str(r["status"]).startswith("stopped") else str(r["status"])))
            if r["status"] == "ok" and _text(r.get("extrapolated")):
                ours += f" (extrapolated {r['extrapolated']})"
            if r["status"] == "ok":
                cells[(r["phase"], col)] = float(r["seconds"])
            note = []
            if str(r.get("block_reads", "")) not in ("", "nan"):
                note.append(f"{int(float(r['block_reads']))} block reads, "
                            f"{int(float(r['block_writes']))} writes")
            if str(r.get("cap", "")) not in ("", "nan", "{}"):
                cap = json.loads(r["cap"])
                note.append(f"cap {cap['rlimit']} = {cap['baseline_mib']} MiB start-up + "
                            f"{cap['budget_mib']:g} MiB; max RSS {r['max_rss_mib']} MiB")
            if str(r.get("check", "")) not in ("", "nan"):
                note.append(str(r["check"]))
            if _timed_with_compiler(r):
                note.append(_compile_caveat(r))
                if r["impl"] == "gpu_alg2":  # the claims below compare GPU phase 1 only
                    compiled_57.add(m)
            pub, where = (_pub(published, "Table 5.7", f"{label} {r['phase']}", col)
                          if col in ("CPU", "GPU algorithm 2") else ("", ""))
            out.append({"row": f"M = {m}^2, {r['phase']}", "column": col, "published": pub,
                        "ours": ours, "claim_id": _row_claim57(m, r["phase"], r["impl"]),
                        "note": "; ".join(note), "where": where})
        p23 = cells.get(("phase 2", "CPU"), np.nan) + cells.get(("phase 3", "CPU"), np.nan)
        for col, p1 in (("CPU", cells.get(("phase 1", "CPU"))),
                        ("GPU algorithm 2", cells.get(("phase 1", "GPU algorithm 2")))):
            pub, where = _pub(published, "Table 5.7", f"{label} total", col)
            if p1 is None or np.isnan(p23):
                continue
            if col == "CPU":
                cpu_totals[m] = p1 + p23
            out.append({"row": f"M = {m}^2, total", "column": col, "published": pub,
                        "ours": f"{p1 + p23:.3g} s", "claim_id": "",
                        "note": "phase 1 + capped phases 2 and 3", "where": where})
        p1c, p2 = cells.get(("phase 1", "CPU")), cells.get(("phase 2", "CPU"))
        p1g = cells.get(("phase 1", "GPU algorithm 2"))
        if p1g is not None and p2 is not None:
            out.append({"row": f"M = {m}^2", "column": "phase 2 (capped CPU) against the GPU's phase 1",
                        "published": "phase 2 longer at M = 16^2, 32^2",
                        "ours": f"{p2:.3g} s vs {p1g:.3g} s",
                        "claim_id": "t57.p2_dominates" if m <= 32 else "",
                        "note": _compile_note(m in compiled_57), "where": "section 5.6.2, p. 62"})
        if p1c is not None and p1g is not None:
            out.append({"row": f"M = {m}^2", "column": "CPU phase 1 / GPU phase 1",
                        "published": "GPU faster at M = 16^2, 32^2; slower at 64^2",
                        "ours": f"x{p1c / p1g:.2f}",
                        "claim_id": "t57.gpu_p1_faster" if m <= 32 else "t57.gpu64_slower",
                        "note": _compile_note(m in compiled_57), "where": "Table 5.7, p. 62"})
    caps = [json.loads(c) for c in b.get("cap", pd.Series(dtype=str)).map(_text) if c not in ("", "{}")]
    if caps:
        pub, where = _pub(published, "Table 5.7", "memory", "cap")
        c = caps[0]
        rss = pd.to_numeric(b.get("max_rss_mib"), errors="coerce").max()
        out.append({"row": "phases 2 and 3", "column": "memory cap", "published": pub,
                    "ours": f"{c['budget_mib']:g} MiB above start-up ({c['rlimit']} "
                            f"{c['limit_mib']:g} MiB in all)",
                    "claim_id": "", "where": where,
                    "note": f"enforced with setrlimit in a child process after start-up (Python, "
                            f"numpy, numba's compiled kernels and threads: {c['baseline_mib']:g} "
                            f"MiB of data segment) so the budget bounds the algorithm's own heap; "
                            f"the grid and G' are memory-mapped files, whose pages count as resident "
                            f"memory and are not capped: peak RSS {rss:g} MiB"
                            + (f"; so {why}" if (why := cap_check(b)) else "")})
    if len(cpu_totals) > 1:
        best = min(cpu_totals, key=cpu_totals.get)
        out.append({"row": "all M", "column": "the fastest M for the CPU version (three phases)",
                    "published": "64^2 (25.5 min)", "ours": f"{best}^2 ("
                    + ", ".join(f"{m}^2: {t:.3g} s" for m, t in sorted(cpu_totals.items())) + ")",
                    "claim_id": "t57.cpu_best_m",
                    "note": "total of the three phases, CPU phase 1", "where": "section 5.6.2, p. 62"})
    return pd.DataFrame(out, columns=COLUMNS)


def _no_data(ax, why):
    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    ax.figure.set_size_inches(5, 0.6)


def _thesis_per_2_20(published, item: str) -> dict[str, list[tuple[int, float]]]:
    """The thesis's seconds per 2^20 vertices by I/O-block side m, per column of Table 5.1/5.4."""
    import re

    out: dict[str, list[tuple[int, float]]] = {}
    if published is None:
        return out
    rows = published[(published["item"] == item) & published["unit"].isin(["s", "min"])]
    for _, r in rows.iterrows():
        m = re.match(r"(?:M=)?(\d+)(?:\^2|x\d+)$", str(r["row"]).strip())
        try:
            value = float(r["value"]) * (60.0 if r["unit"] == "min" else 1.0)
        except ValueError:  # "xx": the thesis gives no value
            continue
        if m:
            out.setdefault(str(r["column"]), []).append((int(m.group(1)), value))
    return out


def figure_per_2_20(table):
    """Seconds per 2^20 vertices by block side, one line per implementation (Tables 5.1, 5.4)."""
    def draw(runs, ax, benchmarks=None, published=None):
        """Phase 1's seconds per 2^20 vertices against the I/O-block side m, one line per
        implementation, ours (circles) and the thesis's (black diamonds, dashed)"""
        b = _bench(benchmarks, table)
        ok = b[b["status"] == "ok"] if len(b) else b
        if ok.empty:
            _no_data(ax, "no measurement in this config")
            return
        gpu_block = ok["gpu_block"].map(lambda v: "" if _text(v) == "" else str(int(float(v))))
        for (impl, c), grp in ok.groupby([ok["impl"], gpu_block], sort=True):
            label = impl + (f", C = {c}^2" if c else "")
            grp = grp.sort_values("block")
            ax.plot(grp["block"].astype(int), grp["seconds_per_2_20"].astype(float), marker="o",
                    label=label)
        item = "Table " + table.removeprefix("table").replace("_", ".")
        for i, (column, points) in enumerate(sorted(_thesis_per_2_20(published, item).items())):
            points.sort()
            ax.plot([m for m, _ in points], [v for _, v in points], marker="D", color="black",
                    linestyle=("--", ":", "-.", (0, (5, 1)))[i % 4], markersize=4, lw=0.9,
                    label=f"thesis: {column}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("I/O-block side m (M = m^2)")
        ax.set_ylabel("phase 1, s per 2^20 vertices")
        ax.legend(fontsize=7)
    return draw


def figure_table5_7(runs, ax, benchmarks=None):
    """Seconds per phase for each M: CPU phase 1 + capped phases 2 and 3, and GPU phase 1."""
    b = _bench(benchmarks, "table5_7")
    ok = b[(b["status"] == "ok") & (b["phase"] != "whole grid")] if len(b) else b
    if ok.empty:
        _no_data(ax, "no measurement in this config")
        return
    ms = sorted(int(float(m)) for m in ok["block"].unique())
    x = np.arange(len(ms))
    bottom = np.zeros(len(ms))
    for phase, impl in (("phase 1", "cpu_dijkstra"), ("phase 2", "cpu (capped)"),
                        ("phase 3", "cpu (capped)")):
        sel = ok[(ok["phase"] == phase) & (ok["impl"] == impl)]
        h = np.array([float(sel[sel["block"].astype(float) == m]["seconds"].sum()) for m in ms])
        ax.bar(x - 0.2, h, 0.4, bottom=bottom, label=f"CPU {phase}")
        bottom += h
    g = ok[ok["impl"] == "gpu_alg2"]
    if len(g):
        h = np.array([float(g[g["block"].astype(float) == m]["seconds"].sum()) for m in ms])
        ax.bar(x + 0.2, h, 0.4, label="GPU algorithm 2, phase 1")
    ax.set_xticks(x, [f"M = {m}^2" for m in ms])
    ax.set_ylabel("seconds")
    ax.set_title(f"middle {int(b['window'].iloc[0])}^2 window", fontsize=9)
    ax.legend(fontsize=7)


def figure_table5_5(runs, ax, benchmarks=None):
    b = _bench(benchmarks, "table5_5")
    ok = b[b["status"] == "ok"] if len(b) else b
    if ok.empty:
        _no_data(ax, "no measurement in this config")
        return
    fig = ax.figure
    ax.remove()
    left, right = fig.subplots(1, 2)
    for m, grp in ok.groupby("block", sort=True):
        grp = grp.sort_values("N")
        left.plot(grp["N"], grp["phase1_s"] + grp["phase2_s"] + grp["phase3_s"], marker="o",
                  label=f"M = {int(m)}^2")
        right.plot(grp["N"], grp["block_reads"] + grp["block_writes"], marker="o",
                   label=f"M = {int(m)}^2")
    for a, y in ((left, "three phases, s"), (right, "block reads + writes")):
        a.set_xscale("log", base=2)
        a.set_yscale("log")
        a.set_xlabel("N (vertices)")
        a.set_ylabel(y)
        a.legend(fontsize=7)


def _with_data(compare, name):
    """The table, with the terrain each number was measured on (real data or a stand-in)."""
    def wrapped(runs, stats, published, benchmarks=None):
        table = compare(runs, stats, published, benchmarks=benchmarks)
        b = (benchmarks or {}).get(name)
        if b is not None and "data" in b and len(b):
            table.insert(len(table.columns) - 1, "data", str(b["data"].iloc[0]))
        return table
    return wrapped


_FIGURES = {"gerritsen2012_table5_1": figure_per_2_20("table5_1"),
            "gerritsen2012_table5_4": figure_per_2_20("table5_4"),
            "gerritsen2012_table5_5": figure_table5_5,
            "gerritsen2012_table5_7": figure_table5_7}

# Evidence for the one rule; imported here, after what it uses from this module is defined.
from .gerritsen2012_sssp_evidence import (  # noqa: E402
    evidence_table5_1,
    evidence_table5_2,
    evidence_table5_3,
    evidence_table5_4,
    evidence_table5_5,
    evidence_table5_7,
)

for _name, _item, _desc, _fn, _evidence in [
    ("gerritsen2012_table5_1", "Table 5.1", "phase 1 for 2^20 vertices: GPU algorithm 1 (M x C) vs "
     "the CPU (Dijkstra from each boundary vertex), on a few I/O-blocks scaled; GPU cells stopped "
     "at a time limit give a lower bound and, where they got past part 1, an extrapolation",
     compare_table5_1, evidence_table5_1),
    ("gerritsen2012_table5_2", "Table 5.2", "GPU algorithm 1 with a 3-D grid launch vs 2-D, one run "
     "each on the same I/O-blocks",
     lambda r, s, p, benchmarks=None: _compare_variant("table5_2", "Table 5.2", benchmarks, p),
     evidence_table5_2),
    ("gerritsen2012_table5_3", "Table 5.3", "GPU algorithm 1 with z-order block indices vs 2-D, one "
     "run each on the same I/O-blocks",
     lambda r, s, p, benchmarks=None: _compare_variant("table5_3", "Table 5.3", benchmarks, p),
     evidence_table5_3),
    ("gerritsen2012_table5_4", "Table 5.4", "GPU algorithm 2 (many I/O-blocks at once) vs CPU phase "
     "1, blocks 8x8..64x64, seconds per 2^20 vertices (Table 5.6 repeats it)", compare_table5_4,
     evidence_table5_4),
    ("gerritsen2012_table5_5", "Table 5.5", "measured time and block I/O against N and M beside the "
     "bounds", compare_table5_5, evidence_table5_5),
    ("gerritsen2012_table5_7", "Table 5.7", "all three phases on the middle window the config names "
     "(the thesis: 8192^2), CPU and GPU phase 1; phases 2 and 3 with their heap capped by "
     "RLIMIT_DATA, while the memory-mapped grid and G' stay uncapped", compare_table5_7,
     evidence_table5_7),
]:
    target(Target(_name, "gerritsen2012", _item, _desc, compare=_with_data(_fn, _name),
                  figure=_FIGURES.get(_name), evidence=_evidence,
                  # Tables 5.2 and 5.3 each time the 2-D variant: together they show its variation
                  benchmarks=(("gerritsen2012_table5_2", "gerritsen2012_table5_3")
                              if _name in ("gerritsen2012_table5_2", "gerritsen2012_table5_3")
                              else (_name,))))
