"""gerritsen2012 chapter 5's measuring steps, shared by the runner's tables
(``gerritsen2012_sssp_run``, Table 5.7's ``gerritsen2012_sssp_t57``): phase 1 on the CPU or a GPU
step (in a child process, stopped at its time limit and extrapolated: ``extrapolate_alg1``), the
checks of every result (against Dijkstra, the CPU's records, whole-grid Dijkstra), the terrain
windows and seeded sources, and a measured cell as a benchmark-table row.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from ..bounded import load_json
from ..errors import InputError
from ..harness.measure import NOT_RUN_NO_GPU
from .gerritsen2012_sssp_extrapolate import extrapolate_alg1, extrapolation_point
from .gerritsen2012_sssp_measured import VERTICES, has_time


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


def cpu_phase1(zgrid, m: int, nblocks: int, workdir: Path, against=None,
               min_batches: int = 1) -> dict:
    """CPU phase 1 timed on the ``nblocks`` centre blocks, checked against Dijkstra on them;
    ``against``: a whole G' (another step's) whose records for those blocks must be equal.
    ``min_batches``: time them in at least this many batches (each of up to 2^16 vertices), so
    that a value scaled from the sample carries the spread of its batches' per-block times; the
    result's ``batch_blocks`` says how many blocks each batch held."""
    from ..solvers.gerritsen2012 import sssp_io

    per = sssp_io.ZBlocks(zgrid).blocks_per_side(m)
    blocks = sssp_io.centre_blocks(per, min(nblocks, per * per))
    d = workdir / f"p1_cpu_{m}"
    in_batch = max(1, min((1 << 16) // (m * m), len(blocks) // max(min_batches, 1)))
    g = sssp_io.phase1(zgrid, d, m, only_blocks=blocks, warmup=True,
                       batch_vertices=in_batch * m * m)
    meta, dist = sssp_io.partial_bnd(d)
    grid = sssp_io.ZBlocks(zgrid)
    values = np.stack([grid.read(m, bx, by) for bx, by in blocks]).astype(np.int64)
    sssp_io.check_phase1(values, dist, what=f"CPU phase 1, M = {m}^2")
    if against is not None:
        compare_records(d, against, f"{against.meta['phase1']} phase 1 against the CPU's, M = {m}^2")
    shutil.rmtree(d, ignore_errors=True)
    return {"status": "ok", "blocks": len(blocks), "step_ms": g.meta["timings"]["step_ms"],
            "batch_ms": meta["batch_ms"], "counters": g.meta["counters"], "dist": dist,
            "batch_blocks": [min(in_batch, len(blocks) - i) for i in range(0, len(blocks), in_batch)],
            "check": "ok: two boundary sources a block equal Dijkstra on the block"}


def gpu_phase1(zgrid, m: int, nblocks: int | None, step_name: str, params: dict, workdir: Path,
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
        meta = compare_records(d, against, f"{step_name} phase 1, M = {m}^2")
        dist = None
    else:
        meta, dist = sssp_io.partial_bnd(d)
    shutil.rmtree(d, ignore_errors=True)
    return {"status": "ok", "blocks": len(meta["blocks"]), "step_ms": meta["timings"]["step_ms"],
            "batch_ms": meta["batch_ms"], "counters": meta["counters"], "dist": dist,
            "warmup": meta.get("warmup", ""), "partial": extrapolation_point(proc.stderr),
            "timings": meta["timings"]}


def compare_records(directory: Path, gprime, what: str, chunk: int = 4096) -> dict:
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


def bench_row(table, m, impl, res, *, c="", variant="", scale_to=VERTICES):
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


def alg1_parts(res) -> dict:
    """A finished GPU algorithm 1 cell's part 1 (the GPU blocks) and part 2 (the I/O-block's
    boundary) in ms per I/O-block, as the step timed them apart; none for a cell stopped part
    way, whose part 2 never ended."""
    t, n = res.get("timings") or {}, max(int(res.get("blocks") or 1), 1)
    if res.get("status") != "ok":
        return {}
    return {f"{p}_ms": float(t[f"{p}_ms"]) / n for p in ("part1", "part2") if f"{p}_ms" in t}


def check_same(gpu_res, cpu_res, what):
    if gpu_res["status"] == "ok":
        from ..solvers.gerritsen2012.sssp_io import check_distances

        n = min(len(gpu_res["dist"]), len(cpu_res["dist"]))
        check_distances(gpu_res["dist"][:n], cpu_res["dist"][:n], what=what)
        gpu_res["check"] = "ok: equals CPU phase 1 on the same blocks"


def blocks_per_side(zgrid, m):
    from ..terrain.blockio import ZBlocks

    side = ZBlocks(zgrid).side
    return side // m if m <= side else None


def seeded_source(zgrid, seed=20120901) -> int:
    """A seeded source in an interior cell of the data (not the padding)."""
    from ..terrain import open_zgrid

    _, meta = open_zgrid(zgrid)
    rng = np.random.default_rng(seed)
    r = int(rng.integers(meta["rows"] // 4, max(meta["rows"] // 4 + 1, 3 * meta["rows"] // 4)))
    c = int(rng.integers(meta["cols"] // 4, max(meta["cols"] // 4 + 1, 3 * meta["cols"] // 4)))
    return r * meta["side"] + c


def corner_and_edge(side: int) -> list[int]:
    """Sources in a corner block and in an edge block (row 0, middle column), beside the seeded
    interior one: the source-block special case is checked where blocks have fewer neighbours."""
    return [0, side // 2]


def check_more_sources(win, directory, sources, what, log):
    """Phases 2 and 3 again from each source (untimed), checked against whole-grid Dijkstra."""
    from ..solvers.gerritsen2012 import sssp_io

    values = sssp_io.grid_values(win)
    for src in sources:
        sssp_io.phases23(directory, src)
        ref, _ = sssp_io.whole_grid_dijkstra(values, src)
        sssp_io.check_distances(sssp_io.read_distances(directory), ref, what=f"{what}, source {src}")
    log(f"{what}: sources {sources} checked too")
    return f"ok: equals whole-grid Dijkstra (sources {', '.join(map(str, sources))} too)"


def phase2_gpu_status():
    from .. import gpu

    if gpu.simulated() or not gpu.cuda_available():
        return NOT_RUN_NO_GPU
    try:
        from ..solvers.gerritsen2012 import grid_sssp_gpu  # noqa: F401
    except ImportError:
        return "not run: phase2_gpu is not in this tree (issue 11, GPU part)"
    return None


def grid_side(zgrid) -> int:
    from ..terrain import open_zgrid

    return int(open_zgrid(zgrid)[1]["side"])
