"""gerritsen2012 chapter 5 / section 5.6, phase 1 of the I/O-efficient SSSP: G' from the grid.

Per I/O-block, the distances between all its boundary vertices inside the block (a ``PHASE1``
step by name; "cpu_dijkstra" here, Dijkstra from each boundary vertex as the thesis ran it; the
GPU algorithms are in ``sssp_gpu_alg1`` / ``sssp_gpu_alg2``), written as one boundary-pair record
per block, then the seams: each block's right and bottom records of grid edges into its
neighbours (Figure 5.1). ``phase1`` drives it over a whole grid or, for timing runs, a few blocks
(``centre_blocks``, read back with ``partial_bnd``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numba
import numpy as np

from ... import atomic
from ...bounded import load_json
from ...errors import InputError, VerificationError
from ...terrain.blockio import IOCounter, ZBlocks
from . import PHASE1, register_step, step
from .sssp_io_blocks import (
    GPRIME_FORMAT,
    MISSING,
    Gprime,
    RecordFile,
    _block_dijkstra,
    _distance_dtype,
    block_layout,
    slot_table,
)
from .types import Phase1Result, boundary_cells


def _phase1_cpu_body(values, bcells, parts, out, relaxed):
    """Each block's k sources in ``parts`` runs of consecutive sources; a run allocates its
    work arrays once (many small blocks: one run per block; few big ones: the sources of a block
    spread over the cores)."""
    nb, m, _ = values.shape
    k = len(bcells)
    n = m * m
    per_part = (k + parts - 1) // parts
    for t in numba.prange(nb * parts):
        b = t // parts
        first = (t - b * parts) * per_part
        last = min(k, first + per_part)
        if first >= last:
            continue
        vals = values[b].ravel()
        dist = np.empty(n, dtype=np.int64)
        done = np.empty(n, dtype=np.bool_)
        cap = 8 * n + 2
        heap_key = np.empty(cap, dtype=np.int64)
        heap_vertex = np.empty(cap, dtype=np.int64)
        zero = np.zeros(1, dtype=np.int64)
        count = 0
        for i in range(first, last):
            count += _block_dijkstra(vals, m, bcells[i:i + 1], zero, dist, done, heap_key,
                                     heap_vertex)
            for j in range(k):
                out[b, i, j] = dist[bcells[j]]
        relaxed[t] = count


_phase1_cpu_parallel = numba.njit(parallel=True, cache=True)(_phase1_cpu_body)
_phase1_cpu_serial = numba.njit(cache=True)(_phase1_cpu_body)


@register_step(PHASE1, "cpu_dijkstra")
def phase1_cpu_dijkstra(values: np.ndarray, *, parallel: bool = True) -> Phase1Result:
    """Phase 1 on the CPU as the thesis ran it: Dijkstra from each boundary vertex of each block
    (numba; the blocks x boundary vertices runs are spread over the cores when ``parallel``)."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    if values.ndim != 3 or values.shape[1] != values.shape[2]:
        raise InputError(f"phase 1 wants (blocks, m, m) values, got shape {values.shape}")
    nb, m, _ = values.shape
    bcells = boundary_cells(m)
    k = len(bcells)
    out = np.empty((nb, k, k), dtype=np.int64)
    fn = _phase1_cpu_parallel if parallel and nb * k * m * m >= (1 << 16) else _phase1_cpu_serial
    threads = numba.get_num_threads() if fn is _phase1_cpu_parallel else 1
    parts = min(k, -(-4 * threads // nb))  # about four runs per core, at least one per block
    relaxed = np.zeros(nb * parts, dtype=np.int64)
    t0 = time.perf_counter()
    fn(values, bcells, parts, out, relaxed)
    ms = (time.perf_counter() - t0) * 1e3
    return Phase1Result(out, timings={"phase1": ms},
                        counters={"dijkstra_runs": nb * k, "arcs_relaxed": int(relaxed.sum()),
                                  "threads": numba.get_num_threads() if fn is _phase1_cpu_parallel else 1})


# --- the seams: edges between neighbouring blocks -------------------------------------------

@numba.njit(cache=True, inline="always")
def _seam_record(border, bpos, m, s, t, before, after, first, stride, before_cell, out):
    """One seam record of block s: for each of its m cells along the seam (cell first + i *
    stride) the weights to the three cells facing it across the seam, i - 1, i, i + 1 along the
    neighbour t's facing side (cell i * stride there); the ends reach into the blocks ``before``
    (its cell ``before_cell``) and ``after`` (its cell 0), MISSING where those are -1 (off the
    grid)."""
    for i in range(m):
        a = np.int64(border[s, bpos[first + i * stride]])
        for d in range(3):
            j = i + d - 1
            if j < 0:
                if before < 0:
                    out[i, d] = MISSING
                    continue
                b = np.int64(border[before, bpos[before_cell]])
            elif j >= m:
                if after < 0:
                    out[i, d] = MISSING
                    continue
                b = np.int64(border[after, bpos[0]])
            else:
                b = np.int64(border[t, bpos[j * stride]])
            out[i, d] = a - b if a > b else b - a


@numba.njit(cache=True)
def _seams(border, slot, m, bpos, right, bottom, has_right, has_bottom):
    """Right and bottom records of every block from the blocks' boundary values (``border``:
    slot x k). Returns the number of border records read (own and neighbours', once each per
    block)."""
    per = slot.shape[0]
    reads = 0
    for by in range(per):
        for bx in range(per):
            s = slot[by, bx]
            reads += 1
            if bx + 1 < per:
                has_right[s] = True
                t = slot[by, bx + 1]
                reads += 1
                if by > 0:
                    reads += 1
                if by + 1 < per:
                    reads += 1
                # the right column against the next block's left column; the ends reach the
                # up-right block's bottom-left cell and the down-right block's top-left one
                _seam_record(border, bpos, m, s, t, slot[by - 1, bx + 1] if by > 0 else -1,
                             slot[by + 1, bx + 1] if by + 1 < per else -1, m - 1, m,
                             (m - 1) * m, right[s])
            if by + 1 < per:
                has_bottom[s] = True
                t = slot[by + 1, bx]
                reads += 1
                if bx > 0:
                    reads += 1
                # (the down-right block's border, if any, was read for the right record)
                # the bottom row against the lower block's top row; the ends reach the
                # down-left block's top-right cell and the down-right block's top-left one
                _seam_record(border, bpos, m, s, t, slot[by + 1, bx - 1] if bx > 0 else -1,
                             slot[by + 1, bx + 1] if bx + 1 < per else -1, (m - 1) * m, 1,
                             m - 1, bottom[s])
    return reads


def phase1(zgrid, directory, m: int, *, step_name: str = "cpu_dijkstra", params: dict | None = None,
           batch_vertices: int = 1 << 20, counter: IOCounter | None = None, log=None,
           only_blocks: list | None = None, warmup: bool = False) -> Gprime:
    """Phase 1 over the whole grid: G' written under ``directory``. Blocks go to the step in
    batches of about ``batch_vertices`` vertices (GPU algorithm 2 runs many blocks at once).

    ``only_blocks`` [(bx, by), ...] times the step on those blocks alone (the thesis's tables
    time a few blocks and extrapolate): the G' is then partial and phases 2 and 3 refuse it.
    ``warmup`` first runs the step once, untimed: on a real block of side m for steps compiled per
    side (``specialises_on_side``: GPU algorithm 2), else on an 8 x 8 block (kernel compilation; GPU
    algorithm 1 with C = 4^2 there)."""
    counter = counter if counter is not None else IOCounter()
    grid = ZBlocks(zgrid, counter)
    per = grid.blocks_per_side(m)
    if m < 2:
        raise InputError("an I/O-block needs side >= 2")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "gprime.json").unlink(missing_ok=True)  # a half-made G' must not look complete
    max_value = int(grid.meta.get("max", np.iinfo(grid.z.dtype).max))
    meta = {"format": GPRIME_FORMAT, "m": m, "per": per, "side": grid.side,
            "dtype": np.dtype(_distance_dtype(max_value, m)).name, "zgrid": str(Path(zgrid).resolve()),
            "phase1": step_name, "params": params or {}}
    try:
        fn = step(PHASE1, step_name)
    except KeyError as e:
        raise InputError(f"phase 1: {e.args[0]}") from None
    g = Gprime(directory, meta, counter)
    bnd, border = g.records("bnd", create=True), g.records("border", create=True)
    bcells, bpos = block_layout(m)
    slot = slot_table(per)
    batch = max(1, batch_vertices // (m * m))
    timings = {"step_ms": 0.0, "read_ms": 0.0, "write_ms": 0.0, "seams_ms": 0.0}
    counters: dict = {}
    order = list(grid.zorder_blocks(m)) if only_blocks is None else [tuple(b) for b in only_blocks]
    batch_ms = []
    if warmup and order:
        if getattr(fn, "specialises_on_side", False):
            # its kernels are compiled per block side (GPU algorithm 2): warm up on a real block
            # of this side, or the first timed batch would include the compiler
            bx, by = order[0]
            fn(grid.read(m, bx, by)[None].astype(np.int64), **(params or {}))
            meta["warmup"] = f"one {m} x {m} block (kernels compiled per side)"
        else:
            # kernels compile per type, not per size: a small block warms them in moments, where
            # the first real block could take as long as the timed run (GPU algorithm 1)
            w = min(m, 8)
            small = dict(params or {})
            if "c" in small:
                small["c"] = min(int(small["c"]), w // 2) if w >= 4 else w
            fn(grid.read(w, 0, 0)[None].astype(np.int64), **small)
            meta["warmup"] = f"one {w} x {w} block (kernels compiled per type)"
    progress = {}
    if log and getattr(fn, "reports_progress", False):
        progress["progress"] = lambda part, done, total: log(f"progress {part} {done}/{total}")
    if log:
        log(f"phase 1: timing starts ({len(order)} blocks)")
    for start in range(0, len(order), batch):
        chunk = order[start:start + batch]
        t0 = time.perf_counter()
        values = np.stack([grid.read(m, bx, by) for bx, by in chunk]).astype(np.int64)
        timings["read_ms"] += (time.perf_counter() - t0) * 1e3
        t0 = time.perf_counter()
        res = fn(values, **(params or {}), **progress)
        batch_ms.append((time.perf_counter() - t0) * 1e3)
        timings["step_ms"] += batch_ms[-1]
        # a step that times its own parts (GPU algorithm 1: part 1, the GPU blocks, and part 2,
        # the I/O-block's boundary): kept, so a variant of one part can be judged on it
        for part, ms in (getattr(res, "timings", None) or {}).items():
            if part.startswith("part"):
                timings[f"{part}_ms"] = timings.get(f"{part}_ms", 0.0) + float(ms)
        if res.dist.shape != (len(chunk), len(bcells), len(bcells)):
            raise VerificationError(f"phase-1 step {step_name} returned shape {res.dist.shape} "
                                    f"for {len(chunk)} blocks of side {m}")
        for key, value in res.counters.items():
            if isinstance(value, (int, np.integer)) and key != "threads":
                counters[key] = counters.get(key, 0) + int(value)
            else:
                counters[key] = value
        t0 = time.perf_counter()
        for b, (bx, by) in enumerate(chunk):
            s = slot[by, bx]
            bnd.write(s, res.dist[b])
            border.write(s, values[b].ravel()[bcells])
        timings["write_ms"] += (time.perf_counter() - t0) * 1e3
        if log:
            log(f"phase 1: {min(start + batch, len(order))}/{len(order)} blocks")
    bnd.flush()
    border.flush()
    meta.update(batch_ms=batch_ms, blocks=[list(map(int, b)) for b in order] if only_blocks else None)
    if only_blocks is not None:
        meta.update(partial=True, timings=timings, counters=counters)
        atomic.write_text(directory / "gprime.json", json.dumps(meta, indent=1) + "\n")
        return g
    t0 = time.perf_counter()
    right, bottom = g.records("right", create=True), g.records("bottom", create=True)
    has_right = np.zeros(per * per, dtype=np.bool_)
    has_bottom = np.zeros(per * per, dtype=np.bool_)
    reads = _seams(border.array, slot, m, bpos, right.array, bottom.array, has_right, has_bottom)
    border.count_reads(reads)
    # one counted write per record that exists ("if blocks don't exist we don't save anything")
    for rec, has in ((right, has_right), (bottom, has_bottom)):
        n = int(has.sum())
        counter.block_writes += n
        counter.bytes_written += n * rec.record_bytes
        rec.flush()
    timings["seams_ms"] = (time.perf_counter() - t0) * 1e3
    meta.update(timings=timings, counters=counters)
    atomic.write_text(directory / "gprime.json", json.dumps(meta, indent=1) + "\n")
    return g


def centre_blocks(per: int, n: int) -> list[tuple[int, int]]:
    """The n blocks nearest the grid's centre (bx, by): where a timing run samples real terrain
    rather than the padding of the power-of-two square."""
    c = (per - 1) / 2
    cells = sorted(((bx - c) ** 2 + (by - c) ** 2, by, bx) for by in range(per) for bx in range(per))
    return [(bx, by) for _, by, bx in cells[:max(1, n)]]


def partial_bnd(directory) -> tuple[dict, np.ndarray]:
    """A timing run's G' metadata and the boundary-pair records of its blocks, in its order."""
    directory = Path(directory)
    meta = load_json((directory / "gprime.json"))
    m, per = int(meta["m"]), int(meta["per"])
    k = 4 * m - 4
    rec = RecordFile(directory / "bnd.rec", (k, k), meta["dtype"], per * per, IOCounter())
    slot = slot_table(per)
    blocks = meta["blocks"] or [(bx, by) for by in range(per) for bx in range(per)]
    return meta, np.stack([np.asarray(rec.array[slot[by, bx]], dtype=np.int64) for bx, by in blocks])
