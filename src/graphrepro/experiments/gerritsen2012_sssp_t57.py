"""gerritsen2012 Table 5.7 (the three phases on a window of the grid under the thesis's memory
cap), measured a block size at a time: each block size is one unit of a resumable run
(``gerritsen2012_sssp_work``), its phase 1 on the CPU and GPU algorithm 2, its phases 2 and 3
capped on the CPU (and uncapped on the GPU), every distance checked against whole-grid Dijkstra.
"""

from __future__ import annotations

import json
import shutil
import time

import numpy as np

from . import gerritsen2012_sssp_steps as steps

# the CPU phase 1 sampled on centre blocks is timed in at least this many batches: the per-block
# times of 8 batches give the scaled value a sampling interval (t57.gpu_p1_faster, cpu_m128)
SAMPLE_BATCHES = 8


def measure_table5_7(zgrid, s, workdir, log, work=None):
    from ..solvers.gerritsen2012 import sssp_io

    win = steps.window_zgrid(zgrid, min(s["window"], steps.grid_side(zgrid)),
                             workdir / f"window_{s['window']}.zgrid")
    side = steps.grid_side(win)
    source = steps.seeded_source(win)
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

    side = steps.grid_side(win)
    sample = int(s.get("cpu_phase1_blocks") or 0)
    rows = []
    if sample:
        # G' from GPU algorithm 2 (kept), the CPU phase 1 timed on centre blocks and scaled
        gres = steps.gpu_phase1(win, m, None, "gpu_alg2", {}, workdir, s["gpu_timeout_s"])
        gpu_row = _phase1_gpu_row(m, gres, side, source)
        if gres["status"] != "ok":
            rows += [gpu_row, {"table": "table5_7", "block": m, "phase": "phase 1",
                               "impl": "cpu_dijkstra", "window": side, "source": source,
                               "status": f"not run: no G' (GPU phase 1: {gres['status']})"}]
            log(f"table 5.7: M = {m}^2 GPU phase 1: {gres['status']}")
            return rows
        g = gres["gprime"]
        d = g.directory
        # in batches enough that the scaled value's interval holds the spread of its blocks
        cpu = steps.cpu_phase1(win, m, sample, workdir, against=g, min_batches=SAMPLE_BATCHES)
        total = g.per * g.per
        gpu_row["check"] = (f"ok: equals CPU phase 1 on the {cpu['blocks']} timed blocks; "
                            "end to end by phases 2 and 3")
        rows.append({"table": "table5_7", "block": m, "phase": "phase 1", "impl": "cpu_dijkstra",
                     "status": "ok", "seconds": cpu["step_ms"] / 1e3 * total / cpu["blocks"],
                     "window": side, "source": source,
                     "extrapolated": f"from {cpu['blocks']} of {total} blocks (step time, "
                                     f"{cpu['counters'].get('threads', 1)} threads)",
                     "counters": json.dumps(cpu["counters"], default=str),
                     # the sample each scaled value rests on: each batch's ms and blocks, and
                     # the window's blocks (gerritsen2012_sssp_measured.scaled_sample)
                     "batch_ms": json.dumps(cpu["batch_ms"]),
                     "batch_blocks": json.dumps(cpu["batch_blocks"]), "blocks_total": total,
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
        if impl == "gpu" and (why := steps.phase2_gpu_status()):
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
    more = steps.check_more_sources(win, d, steps.corner_and_edge(side), f"Table 5.7 M = {m}^2", log)
    for row in rows:
        if row.get("block") == m and row.get("check", "").startswith("ok: equals whole-grid"):
            row["check"] = more
    if sample:
        rows.append(gpu_row)
    else:
        gres = steps.gpu_phase1(win, m, steps.blocks_per_side(win, m) ** 2, "gpu_alg2", {}, workdir,
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
