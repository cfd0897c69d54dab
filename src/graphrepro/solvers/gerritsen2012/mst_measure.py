"""The measurements behind gerritsen2012 chapter 3's tables (the `mst-blocks` and `mst-io` commands).

- ``measure_blocks``: Tables 3.1-3.5, 3.7 and Figure 3.6: phase 1 (per-block MST, dead ends,
  contraction, side-file writes) on the centre blocks of a converted grid, one variant (a
  per-block step and a reduce step, each a run id ``name@k=v``), the five parts timed per block.
  The thesis ran the 10,000 centre blocks of 256 x 256 of the 40 ft grid, 16 x 16 threads per GPU
  block; block side and count are arguments here, and a job may time one shard of them
  (``shard_blocks``; merged by ``harness.block_shards``).
- ``measure_io``: Tables 3.6 and 3.8: the whole I/O-efficient MST on a grid (or its centre
  crop), phase times and block transfers.

Every block's MST is verified (weight against the Kruskal reference, spanning, acyclic) and, for a
GPU step, compared edge for edge with the CPU "kruskal" step (the shared tie rule); every whole
MST is verified against Kruskal where it fits (``verify_max_vertices``), else checked to be a
spanning tree and its edge set digested, so CPU and GPU first phases can be compared. A failure
raises VerificationError: nothing is written, the workflow stops.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ... import atomic, gpu, mst, native
from ...bounded import load_json
from ...errors import InputError, VerificationError
from ...gpu import NOT_RUN_NO_GPU
from ...terrain.blockio import BlockStore, IOCounter, ZBlocks, bytes_under
from ...terrain.dem import grid_edges
from ..base import parse_run_id
from . import PER_BLOCK_MST, REDUCE, step
from .block_check import block_reference, verify_block  # noqa: F401 (verify_block: here too)
from .mst_io import PARTS, io_mst, process_block
from .mst_journal import FINGERPRINT, WorkDirMismatch, file_sha256

# Chapter 3's versions: (per-block step, reduce step). The thesis's baseline ran dead ends and
# contraction on the CPU with std::vector and real deletion; 3.3.2 marks instead of deleting;
# 3.3.3 preallocates; 3.3.4 moves dead ends and contraction to the GPU.
VARIANTS = {
    "cpu_baseline": ("bgl", "cpu@deletion=real,storage=growing"),
    "gpu_baseline": ("gpu_boruvka32", "cpu@deletion=real,storage=growing"),
    "cpu_tournament": ("tournament", "cpu@deletion=real,storage=growing"),
    "cpu_mark": ("tournament", "cpu@deletion=mark,storage=growing"),
    "gpu_mark": ("gpu_boruvka32", "cpu@deletion=mark,storage=growing"),
    "cpu_prealloc": ("tournament", "cpu@deletion=mark,storage=prealloc"),
    "gpu_prealloc": ("gpu_boruvka32", "cpu@deletion=mark,storage=prealloc"),
    "gpu_reduce": ("gpu_boruvka32", "gpu"),
    # beyond the thesis: the 64-bit key lifts the 10-bit weight and 512 x 512 block limits
    "gpu64_prealloc": ("gpu_boruvka64", "cpu@deletion=mark,storage=prealloc"),
    "gpu64_reduce": ("gpu_boruvka64", "gpu"),
}


def is_gpu(run_id: str) -> bool:
    return parse_run_id(run_id)[0].startswith("gpu")


def centre_blocks(rows: int, cols: int, side: int, b: int, count: int) -> list[tuple[int, int]]:
    """The ``count`` blocks of side b nearest the centre of the original rows x cols region (the
    thesis used the centre blocks, "because the most useful data is available in that part")."""
    per = side // b
    cy, cx = rows / 2 / b, cols / 2 / b
    by, bx = np.meshgrid(np.arange(per), np.arange(per), indexing="ij")
    dist = np.maximum(np.abs(by + 0.5 - cy), np.abs(bx + 0.5 - cx))
    order = np.lexsort((bx.ravel(), by.ravel(), np.hypot(by + 0.5 - cy, bx + 0.5 - cx).ravel(),
                        dist.ravel()))
    chosen = order[:count]
    return [(int(bx.ravel()[i]), int(by.ravel()[i])) for i in chosen]


def shard_blocks(count: int, shard: tuple[int, int]) -> range:
    """The indices (into the centre blocks, nearest first) that shard (I, N) times: every N-th
    from I. Strided, not contiguous as a run's source shards are (those are drawn at random):
    the blocks come in rings around the centre, and what a block costs follows its ring (the
    40 ft grid's 10,000 centre blocks of 256^2 reach past its 49 x 68 blocks into the padding,
    flat zeros), so each shard gets a like share of every ring: a difference between the devices
    or cores the shards ran on is not one between rings, and the shards take about as long."""
    i, n = shard
    return range(i, count, n)


def _resolve(run_id: str, table: dict):
    name, params = parse_run_id(run_id)
    return step(table, name), {k: _typed(v) for k, v in params.items()}


def _typed(v: str):
    try:
        return int(v)
    except ValueError:
        return v


def _chosen_blocks(zb: ZBlocks, b: int, blocks: int) -> list[tuple[int, int]]:
    """The centre blocks of side ``b`` a measurement (and its references) take, in order."""
    if b < 2 or b > zb.side or b & (b - 1):
        raise InputError(f"block side {b} must be a power of two in 2..{zb.side}")
    return centre_blocks(zb.rows, zb.cols, zb.side, b, blocks)


def measure_blocks(zgrid, *, variant: str | None = None, per_block: str | None = None,
                   reduce: str | None = None, block_side: int, blocks: int, trials: int = 1,
                   warmup: int = 1, shard: tuple[int, int] | None = None,
                   references: dict | None = None, log=print) -> pd.DataFrame:
    """One row per (block, trial); ``shard`` (I, N): only the blocks of ``shard_blocks``, each row
    keeping the block's index among all the chosen ones and saying its shard ("I/N"). Each
    block's first trial is checked against ``references`` {block index: (weight, digest)}
    (`block_references`), or against a reference made then. The table's
    ``attrs["timed_unix"]`` is when the first timed block began and the last ended."""
    if variant is not None:
        if variant not in VARIANTS:
            raise InputError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
        per_block, reduce = VARIANTS[variant]
    if per_block is None or reduce is None:
        raise InputError("give a variant, or both a per-block step and a reduce step")
    counter = IOCounter()
    zb = ZBlocks(zgrid, counter)
    b = block_side
    chosen = _chosen_blocks(zb, b, blocks)
    mine = list(enumerate(chosen))
    if shard is not None:
        mine = [mine[i] for i in shard_blocks(len(chosen), shard)]
        if not mine:  # no warm-up block, no rows: a config asking for more shards than blocks
            raise InputError(f"shard {shard[0]}/{shard[1]} of {len(chosen)} centre blocks is "
                             f"empty: at most {len(chosen)} shards")
    device = "gpu" if is_gpu(per_block) or is_gpu(reduce) else "cpu"
    base = {"variant": variant or f"{per_block}+{reduce}", "per_block": per_block,
            "reduce": reduce, "device": device, "block_side": b, "blocks": len(chosen),
            "grid": Path(zgrid).stem, "rows": zb.rows, "cols": zb.cols,
            **({"shard": f"{shard[0]}/{shard[1]}"} if shard is not None else {})}

    def not_run(status: str) -> pd.DataFrame:
        log(f"{base['variant']}: {status}")
        return pd.DataFrame([{**base, "status": status, "device_name": "none"}])

    if device == "gpu" and not gpu.cuda_available():
        return not_run(NOT_RUN_NO_GPU)
    if per_block == "bgl" and (why := native.unavailable_reason()):
        return not_run(why)
    try:
        block_mst, mst_params = _resolve(per_block, PER_BLOCK_MST)
        reducer, red_params = _resolve(reduce, REDUCE)
    except KeyError as e:
        return not_run(f"not run: step not built here ({e.args[0]})")
    device_name = gpu.device_name() if device == "gpu" else "cpu"
    rows = []
    with tempfile.TemporaryDirectory(prefix="graphrepro-blocks-") as tmp:
        store = BlockStore(Path(tmp), counter)

        def one(i, bx, by, check):
            row = process_block(zb, store, b, bx, by, block_mst, reducer, mst_params, red_params,
                                keep_arrays=check)
            if check:
                where = f"{per_block} on block ({bx}, {by}) of {Path(zgrid).name}"
                verify_block(row.pop("_values"), row.pop("_mst"), where=where,
                             tie_check=is_gpu(per_block), reference=(references or {}).get(i))
                red = row.pop("_reduced")
                # section 3.3.2's bound on a marking step's arrays: counted untimed, on each
                # block's first trial, from the arrays its timed call left
                if red.array_ends and red_params.get("deletion", "mark") == "mark":
                    row.update({f"reduce_{k}": x for k, x in red.array_ends().items()})
                both = np.sort(np.concatenate([red.rep, red.definite]))
                if not np.array_equal(both, np.arange(len(both))) or \
                        len(both) != b * b - 1:
                    raise VerificationError(f"WRONG ANSWER: {reduce} on block ({bx}, {by}): kept "
                                            f"and definite edges do not partition the block's MST")
            return row

        try:
            for _ in range(warmup):  # compiles, warms caches; verified, not recorded
                one(mine[0][0], *mine[0][1], True)
            timed_from = time.time()
            for i, (bx, by) in mine:
                for trial in range(trials):
                    row = one(i, bx, by, trial == 0)
                    row["total"] = sum(row[p] for p in PARTS)
                    rows.append({**base, "block": i, "trial": trial, "status": "ok",
                                 "device_name": device_name,
                                 **{(f"{k}_ms" if k in PARTS or k == "total" else k): v
                                    for k, v in row.items()}})
        except InputError as e:  # the step cannot represent this grid (e.g. weights > 10 bits)
            return not_run(f"refused: {e}")
    table = pd.DataFrame(rows)
    table.attrs["timed_unix"] = [timed_from, time.time()]
    avg = table.groupby("block")["total_ms"].median()
    which = f" (shard {base['shard']} of {len(chosen)})" if shard is not None else ""
    log(f"{base['variant']}: {len(mine)} blocks of {b}^2{which}, per block min {avg.min():.2f} "
        f"avg {avg.mean():.2f} max {avg.max():.2f} ms, verified")
    return table


# --- the blocks' references, made once for every version (block_check) -----------------------

def _references_of(zgrid, b: int, chosen: list) -> dict:
    zb = ZBlocks(zgrid, IOCounter())
    return {i: block_reference(zb.read(b, bx, by)) for i, (bx, by) in chosen}


def block_references(zgrid, *, block_side: int, blocks: int, jobs: int = 1, log=print) -> dict:
    """{block index: (weight, digest)} for the centre blocks `measure_blocks` chooses, made in
    ``jobs`` processes (every ``jobs``-th block each), and the grid they are of."""
    from concurrent.futures import ProcessPoolExecutor

    zb = ZBlocks(zgrid, IOCounter())
    b = block_side
    chosen = list(enumerate(_chosen_blocks(zb, b, blocks)))
    jobs = max(1, min(int(jobs), len(chosen)))
    started = time.time()
    if jobs == 1:
        refs = _references_of(zgrid, b, chosen)
    else:
        with ProcessPoolExecutor(jobs) as pool:
            parts = pool.map(_references_of, [zgrid] * jobs, [b] * jobs,
                             [chosen[k::jobs] for k in range(jobs)])
            refs = {i: r for part in parts for i, r in part.items()}
    log(f"{len(refs)} block references of {b}^2 in {time.time() - started:.1f} s ({jobs} "
        f"process(es))")
    return {"grid": Path(zgrid).stem, "rows": zb.rows, "cols": zb.cols, "block_side": b,
            "blocks": len(chosen),
            "references": {str(i): [int(w), d] for i, (w, d) in sorted(refs.items())}}


def load_block_references(path, zgrid, *, block_side: int, blocks: int) -> dict:
    """The references of `block_references` written to ``path``, for this grid and these blocks
    only (else InputError, naming what differs): {block index: (weight, digest)}."""
    try:
        record = load_json(Path(path))
        zb = ZBlocks(zgrid, IOCounter())
        want = {"grid": Path(zgrid).stem, "rows": zb.rows, "cols": zb.cols,
                "block_side": block_side, "blocks": len(_chosen_blocks(zb, block_side, blocks))}
        differ = [f"{k} {record.get(k)!r}, not {v!r}" for k, v in want.items() if record.get(k) != v]
        if differ:
            raise InputError(f"{path}: block references of another grid or choice of blocks: "
                             f"{'; '.join(differ)}")
        return {int(i): (int(w), str(d)) for i, (w, d) in record["references"].items()}
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise InputError(f"{path}: not a block references file ({e})") from None


# --- the whole framework ---------------------------------------------------------------------------

def edge_digest(u, v) -> str:
    """sha256 of the edge set: every smaller end, then every larger end, in (small, large) order."""
    a = np.minimum(u, v).astype(np.int64, copy=False)
    b = np.maximum(u, v).astype(np.int64, copy=False)
    h = hashlib.sha256()
    if len(a) and a.min() >= 0 and b.max() < 1 << 32:
        # the same bytes as the lexsort below, from one sorted 64-bit key: on the whole 40 ft
        # grid (1.07e9 edges) a lexsort takes minutes of the last device call, this a fraction,
        # and a fraction of the memory (no index, no two gathered copies)
        key = a.astype(np.uint64)
        del a
        key <<= np.uint64(32)
        key |= b.view(np.uint64)  # b >= 0: the same bits
        del b
        key.sort()
        piece = 1 << 24  # a bounded piece at a time, not a copy of all of it
        for i in range(0, len(key), piece):
            h.update((key[i:i + piece] >> np.uint64(32)).view(np.int64).tobytes())
        for i in range(0, len(key), piece):
            h.update((key[i:i + piece] & np.uint64(0xFFFFFFFF)).view(np.int64).tobytes())
        return h.hexdigest()[:16]
    order = np.lexsort((b, a))
    h.update(a[order].tobytes())
    h.update(b[order].tobytes())
    return h.hexdigest()[:16]


def crop_centre(zgrid, side: int, output) -> Path:
    """The centre side x side window of the grid's original region, converted anew (a size sweep
    on one terrain); the window may reach into the padding when the grid is small. Only the
    window's samples are gathered from the memory-mapped grid."""
    from ...terrain import convert_array, morton, open_zgrid

    z, meta = open_zgrid(zgrid)
    if side > meta["side"]:
        raise InputError(f"sweep side {side} is larger than the grid's padded side {meta['side']}")
    r0 = max(0, min(meta["rows"] // 2 - side // 2, meta["side"] - side))
    c0 = max(0, min(meta["cols"] // 2 - side // 2, meta["side"] - side))
    window = np.empty((side, side), dtype=z.dtype)
    xs = np.arange(c0, c0 + side, dtype=np.int64)
    for r in range(side):
        window[r] = z[morton.encode(xs, np.full(side, r0 + r, dtype=np.int64))]
    convert_array(window, output, dtype=meta["dtype"],
                  source={"crop_of": str(zgrid), "row0": int(r0), "col0": int(c0), "side": side})
    return Path(output)


def verify_whole(zgrid, res, *, verify_max_vertices: int) -> str:
    """Kruskal's weight where the grid fits the limit; otherwise a spanning-tree check only."""
    from ...terrain import open_zgrid, to_rows

    n = res.side * res.side
    if n <= verify_max_vertices:
        z, meta = open_zgrid(zgrid)
        grid = to_rows(z, meta, padded=True).astype(np.int64)
        u, v, w = grid_edges(grid)
        mst.check(mst.from_arrays(n, u, v, w, name=Path(zgrid).name),
                  mst.MSTResult(res.u, res.v, res.w, 0.0), solver="gerritsen_io")
        return "weight = Kruskal's, spanning, acyclic"
    if len(res.u) != n - 1 or mst.first_cycle_edge(n, res.u, res.v) >= 0:
        raise VerificationError(f"WRONG ANSWER: gerritsen_io on {zgrid}: {len(res.u)} edges or a "
                                f"cycle; a spanning tree of {n} vertices has {n - 1}")
    return (f"spanning tree checked; weight not checked against Kruskal ({n} vertices > "
            f"verify_max_vertices {verify_max_vertices}): compare the edge digests of the runs")


def clear_work_dir(work_dir) -> None:
    """Remove what ``measure_io`` kept in ``work_dir`` (its rows, each run's journal and side
    files) and the directory where that leaves it empty; nothing else in it is touched."""
    root = Path(work_dir)
    if not root.is_dir():
        return
    for p in root.iterdir():
        if p.is_file() and p.name.startswith("row_") and p.suffix == ".json":
            p.unlink()
        elif p.is_dir() and (p / FINGERPRINT).is_file():
            shutil.rmtree(p)
        elif p.is_dir() and not any(p.iterdir()):  # cut off before its fingerprint
            p.rmdir()
    try:
        root.rmdir()
    except OSError:  # something of someone else's is in it
        pass


def _canonical(fingerprint: dict) -> dict:
    return json.loads(json.dumps(fingerprint, sort_keys=True))


def _kept_row(row_file: Path, fingerprint: dict) -> dict:
    """The row an earlier process of this same run finished, or WorkDirMismatch (one line) for a
    row of another grid, other settings or another commit, or one without a fingerprint."""
    try:
        kept = load_json(row_file)
    except ValueError:  # bounded's refusal is a ValueError too
        kept = None
    have = kept.get("fingerprint") if isinstance(kept, dict) else None
    want = _canonical(fingerprint)
    if have != want or not isinstance(kept.get("row"), dict):
        diff = (sorted(k for k in set(want) | set(have) if have.get(k) != want.get(k))
                if isinstance(have, dict) else [])
        raise WorkDirMismatch(f"{row_file} is a row of another run (differs in: "
                              f"{', '.join(diff) or 'no fingerprint of this command'}): not used; "
                              f"remove it to start that run afresh, or give another --work-dir")
    return kept["row"]


def measure_io(zgrid, *, block: int, per_block: str, reduce: str, sides=(None,),
               trials: int = 1, warmup: int = 1, verify_max_vertices: int = 1 << 24,
               work_dir=None, should_stop=None, log=print, commit: str = "unknown") -> pd.DataFrame:
    """One row per (grid size, trial): the three phases' times and each phase's block transfers.

    With ``work_dir`` the measurement is resumable (Table 3.8 on the whole grid outlasts a
    device call): each (size, trial) keeps its side files and journal there, a finished one its
    row, so the same command goes on where the last process stopped (``should_stop``: see
    ``io_mst``). Its rows then also say how they were made: ``processes``, ``phaseN_resumed``
    (the phase's units came from several processes, caches cold after each restart) and
    ``call_wall_s`` (each process's seconds, ';'-separated); ``wall_ms`` is their sum. A finished
    row is kept with its fingerprint (the grid's digest, the settings, ``commit``) and used only
    by a run whose fingerprint is the same: another's is refused (``WorkDirMismatch``)."""
    device = "gpu" if is_gpu(per_block) or is_gpu(reduce) else "cpu"
    base = {"per_block": per_block, "reduce": reduce, "device": device, "block_side": block}
    if device == "gpu" and not gpu.cuda_available():
        log(f"{per_block}+{reduce}: {NOT_RUN_NO_GPU}")
        return pd.DataFrame([{**base, "status": NOT_RUN_NO_GPU, "device_name": "none"}])
    if per_block == "bgl" and (why := native.unavailable_reason()):
        log(f"{per_block}+{reduce}: {why}")
        return pd.DataFrame([{**base, "status": why, "device_name": "none"}])
    try:
        _, mst_params = _resolve(per_block, PER_BLOCK_MST)
        _, red_params = _resolve(reduce, REDUCE)
    except KeyError as e:
        return pd.DataFrame([{**base, "status": f"not run: step not built here ({e.args[0]})",
                              "device_name": "none"}])
    device_name = gpu.device_name() if device == "gpu" else "cpu"
    steps = {"per_block": parse_run_id(per_block)[0], "per_block_params": mst_params,
             "reduce": parse_run_id(reduce)[0], "reduce_params": red_params}
    work_root = Path(work_dir) if work_dir else None
    grid_id = None
    rows = []
    warmed = not warmup
    with tempfile.TemporaryDirectory(prefix="graphrepro-io-") as tmp:
        for s in sides:
            grid, check = None, None
            for trial in range(trials):
                name = f"{s or 'whole'}_t{trial}"
                row_file = work_root / f"row_{name}.json" if work_root else None
                fingerprint = None
                if work_root is not None:
                    if grid_id is None:
                        zb = ZBlocks(zgrid)
                        grid_id = {"grid_bytes": Path(zgrid).stat().st_size,
                                   "grid_sha256": file_sha256(zgrid),
                                   "grid_shape": [zb.rows, zb.cols, zb.side]}
                    fingerprint = {**grid_id, "per_block": per_block, "reduce": reduce,
                                   "block": block, "crop": s, "trial": trial, "commit": commit,
                                   "verify_max_vertices": verify_max_vertices}
                if row_file is not None and row_file.is_file():  # finished by an earlier process
                    rows.append(_kept_row(row_file, fingerprint))
                    continue
                if grid is None:
                    grid = crop_centre(zgrid, s, Path(tmp) / f"crop{s}.zgrid") if s else Path(zgrid)
                if not warmed:  # compile the steps outside the timed runs, on a crop
                    side = ZBlocks(grid).side
                    small = crop_centre(grid, min(side, 4 * block), Path(tmp) / "warmup.zgrid")
                    for _ in range(warmup):
                        io_mst(small, Path(tmp) / "warmup", block=min(block, side), **steps)
                    warmed = True
                work = work_root / name if work_root else Path(tmp) / f"blocks_{s}_{trial}"
                t0 = time.perf_counter()
                try:
                    res = io_mst(grid, work, block=min(block, s or block), **steps,
                                 fingerprint=fingerprint, should_stop=should_stop,
                                 log=log if work_root else None)
                except WorkDirMismatch:
                    raise  # not the step refusing the grid: a work directory of another run
                except InputError as e:
                    return pd.DataFrame([{**base, "status": f"refused: {e}", "device_name": "none"}])
                wall = (time.perf_counter() - t0) * 1e3
                if check is None:
                    check = verify_whole(grid, res, verify_max_vertices=verify_max_vertices)
                row = {**base, "grid": Path(zgrid).stem, "side": res.side,
                       "vertices": res.side * res.side, "trial": trial, "status": "ok",
                       "device_name": device_name, "weight": res.weight,
                       "edges_digest": edge_digest(res.u, res.v), "verified": check,
                       "wall_ms": wall, "levels": len(res.levels)}
                for phase, ms in res.phase_ms.items():
                    row[f"{phase}_ms"] = ms
                # the space its side files take when it ends (Table 3.6's O(N) space: t36.space)
                row["work_bytes"] = bytes_under(work)
                for phase, io in res.io.items():
                    for k in ("block_reads", "block_writes", "bytes_read", "bytes_written",
                              "read_seconds", "write_seconds"):
                        row[f"{phase}_{k}"] = io[k]
                if row_file is not None:
                    row["wall_ms"] = sum(res.calls) * 1e3
                    row["processes"] = len(res.calls)
                    for phase, again in res.resumed.items():
                        row[f"{phase}_resumed"] = again
                    row["call_wall_s"] = ";".join(f"{c:.1f}" for c in res.calls)
                    row = {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
                    atomic.write_text(row_file, json.dumps(
                        {"fingerprint": _canonical(fingerprint), "row": row}, indent=1) + "\n")
                rows.append(row)
                shutil.rmtree(work, ignore_errors=True)
                log(f"{per_block}+{reduce} on {res.side}^2 (block {res.block}): "
                    + ", ".join(f"{p} {ms:.0f} ms" for p, ms in res.phase_ms.items())
                    + f"; {res.io['total']['block_reads']} reads, "
                    f"{res.io['total']['block_writes']} writes; {check}"
                    + (f"; {len(res.calls)} processes" if len(res.calls) > 1 else ""))
    return pd.DataFrame(rows)
