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
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..bounded import load_json
from ..errors import InputError
from ..harness.measure import NOT_RUN_NO_GPU
from .gerritsen2012_sssp_extrapolate import extrapolate_alg1, extrapolation_point
from .gerritsen2012_sssp_measured import VERTICES, has_time

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
    # trials: the 2-D run and the variant alternate, the first of each pair swapped each trial,
    # so a drift of the machine (other jobs' load, clocks) hits both alike; each trial is a
    # child process of its own, with its own warm-up
    "table5_2": {"block": 64, "gpu_block": 16, "io_blocks": 4, "variant": "3d", "gpu_timeout_s": 300,
                 "trials": 4},
    "table5_3": {"block": 64, "gpu_block": 16, "io_blocks": 4, "variant": "zorder",
                 "gpu_timeout_s": 300, "trials": 4},
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
            "warmup": meta.get("warmup", ""), "partial": extrapolation_point(proc.stderr),
            "timings": meta["timings"]}


def _compare_records(directory: Path, gprime, what: str, chunk: int = 4096) -> dict:
    """Every boundary-pair record of a timing run's (partial) G' equals the whole ``gprime``'s
    records for the same blocks; a chunk at a time."""
    from ..solvers.gerritsen2012 import sssp_io

    meta = load_json((directory / "gprime.json"))
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
    if has_time(res):
        timed = res["blocks"] * m * m
        row.update(step_ms=res["step_ms"], seconds_per_2_20=res["step_ms"] / 1e3 * scale_to / timed,
                   extrapolated=timed < scale_to or res["status"] != "ok",
                   batch_ms=json.dumps(res["batch_ms"]),
                   counters=json.dumps(res["counters"], default=str), check=res.get("check", ""))
    elif "stopped_s" in res:  # a lower bound: it had run this long on these blocks unfinished
        timed = res["blocks"] * m * m
        row.update(seconds_per_2_20=res["stopped_s"] * scale_to / timed, extrapolated=True)
    return row


def _parts(res) -> dict:
    """A finished GPU algorithm 1 cell's part 1 (the GPU blocks) and part 2 (the I/O-block's
    boundary) in ms per I/O-block, as the step timed them apart; none for a cell stopped part
    way, whose part 2 never ended."""
    t, n = res.get("timings") or {}, max(int(res.get("blocks") or 1), 1)
    if res.get("status") != "ok":
        return {}
    return {f"{p}_ms": float(t[f"{p}_ms"]) / n for p in ("part1", "part2") if f"{p}_ms" in t}


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
        finish = {(int(mm), int(c)) for mm, c in s["finish_cells"]}
        for c in list(s["gpu_blocks"]) + extra:
            if c > m:
                continue
            timeout = s["finish_timeout_s"] if (m, c) in finish else s["gpu_timeout_s"]
            g = _gpu_phase1(zgrid, m, s["gpu_io_blocks"], "gpu_alg1", {"c": c, "variant": "2d"},
                            workdir, timeout)
            _same(g, cpu, f"GPU algorithm 1 (M = {m}^2, C = {c}^2)")
            rows.append({**_row("table5_1", m, "gpu_alg1", g, c=c, variant="2d"), **_parts(g)})
            log(f"table 5.1: M = {m}^2 C = {c}^2: {g['status']}")
    return rows


def trial_order(variant: str, trials: int) -> list[tuple[str, str]]:
    """Which of the 2-D run and ``variant`` goes first in each trial: they take turns."""
    return [("2d", variant) if t % 2 == 0 else (variant, "2d") for t in range(trials)]


def _variant_table(name, zgrid, s, workdir, log):
    m, c, n, trials = s["block"], s["gpu_block"], s["io_blocks"], s["trials"]
    if _per(zgrid, m) is None:
        return [{"table": name, "block": m, "status": "not run: grid smaller than the block"}]
    cpu = _cpu_phase1(zgrid, m, n, workdir)
    rows = [_row(name, m, "cpu_dijkstra", cpu)]
    order = trial_order(s["variant"], trials)
    done: dict[str, list] = {"2d": [], s["variant"]: []}
    stopped: dict[str, dict] = {}
    for t, pair in enumerate(order):
        for variant in pair:
            if variant in stopped:
                continue
            g = _gpu_phase1(zgrid, m, n, "gpu_alg1", {"c": c, "variant": variant}, workdir,
                            s["gpu_timeout_s"], per_block=True)
            _same(g, cpu, f"GPU algorithm 1 {variant} (M = {m}^2, C = {c}^2), trial {t + 1}")
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
        row = _row(name, m, "gpu_alg1", res, c=c, variant=variant)
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


def measure_table5_7(zgrid, s, workdir, log, work=None):
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
    for m in s["blocks"]:
        # one unit of a resumable run (gerritsen2012_sssp_work): each block size whole in one process
        def measure(m=m):
            return _table5_7_block(win, m, s, workdir, source, ref, log)

        rows += work.unit(m, measure) if work is not None else measure()
    return rows


def _table5_7_block(win, m, s, workdir, source, ref, log) -> list[dict]:
    """Table 5.7's rows of block size M = m^2 on the window ``win``, every one checked."""
    from ..solvers.gerritsen2012 import sssp_io

    side = _side(win)
    sample = int(s.get("cpu_phase1_blocks") or 0)
    rows = []
    if sample:
        # G' from GPU algorithm 2 (kept), the CPU phase 1 timed on centre blocks and scaled
        gres = _gpu_phase1(win, m, None, "gpu_alg2", {}, workdir, s["gpu_timeout_s"])
        gpu_row = _phase1_gpu_row(m, gres, side, source)
        if gres["status"] != "ok":
            rows += [gpu_row, {"table": "table5_7", "block": m, "phase": "phase 1",
                               "impl": "cpu_dijkstra", "window": side, "source": source,
                               "status": f"not run: no G' (GPU phase 1: {gres['status']})"}]
            log(f"table 5.7: M = {m}^2 GPU phase 1: {gres['status']}")
            return rows
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
