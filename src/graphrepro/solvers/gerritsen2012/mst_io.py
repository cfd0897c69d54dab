"""Haverkort's I/O-efficient MST on a grid graph (gerritsen2012 chapter 2, section 3.5), with every
block transfer counted (``graphrepro.terrain.blockio``), so Table 3.6's O(scan(N)) is measured.

The grid is a converted ``.zgrid`` (section 1.5.1: padded power-of-two square, z-order, so each
aligned block is one contiguous read). Vertex ids are row-major over the padded square.

Phase 1 (the part chapter 3 moves to the GPU): for every block of side ``block`` (the start level),
one counted read of its values; the block's MST by a per-block step chosen by name
(``PER_BLOCK_MST``: "bgl", "tournament", "kruskal" here, "gpu_boruvka32"/"gpu_boruvka64" from the
GPU module); then a reduce step by name (``REDUCE``: "cpu" here, "gpu" from the GPU module) removes
dead ends (observation 3) and contracts paths (observation 4) with the block's perimeter cells kept.
Definite edges go to a side file; the reduced forest, each kept edge with the original grid edge
it stands for, and the block's perimeter values (for the separator edges) go to another.

Phase 2 (merging, level by level): a block of side s reads its four sub-blocks' reduced forests,
adds the separator edges between them (observation 2; weights from the stored perimeter values,
so the grid is never read again), computes the MST of that graph (Kruskal in the packed-key
order, the tie rule every step shares), reduces it with its own perimeter kept, and writes
definite edges and the reduced forest as before. At the top level (the whole grid) the MST of the
merged graph is final.

Phase 3 (the way back down): from the top level down to the start level, every side file of
definite edges is read back and written to the output. Expanding a contracted path needs no
further work at that point: when a path was contracted, all its edges but the maximum one were
written as definite (observation 4: only the maximum can leave the MST), and the surviving
contracted edge carries that maximum edge's identity, so the MST at the level above includes the
original edge exactly when it includes the contracted one. The output is one record per level,
or one per ``CHUNK`` blocks of a level with more (the whole 40 ft grid: 4,096 and 16,384).

A run with a fingerprint is resumable across processes (``mst_journal``: Table 3.8 on the whole
grid outlasts a 10-minute device call): each block of phase 1, level of phase 2 and output record
of phase 3 is journaled once its files are whole, and a later process goes on from the journal.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import InputError
from ...terrain.blockio import BlockStore, IOCounter, ZBlocks
from ...terrain.morton import decode1
from . import PER_BLOCK_MST, REDUCE, step
from .mst_blocks import _kruskal_sorted, packed_order
from .mst_journal import Journal, Stopped, io_sum
from .types import boundary_cells

# Figure 3.6's five parts of a block's time (ms)
PARTS = ("mst", "copy_back", "dead_ends", "contraction", "other")


@dataclass
class IOResult:
    u: np.ndarray  # the MST: row-major ids over the padded square, u < v
    v: np.ndarray
    w: np.ndarray
    side: int
    block: int
    phase_ms: dict = field(default_factory=dict)  # phase1, phase2, phase3
    io: dict = field(default_factory=dict)  # phase -> IOCounter.as_dict()
    blocks: list = field(default_factory=list)  # one dict per start-level block: PARTS + counters
    levels: list = field(default_factory=list)  # one dict per level: side, blocks, edges kept
    calls: list = field(default_factory=list)  # wall seconds of each process the run took
    resumed: dict = field(default_factory=dict)  # phase -> its units came from several processes

    @property
    def weight(self) -> int:
        return int(self.w.sum())


def _perimeter_mask(s: int) -> np.ndarray:
    mask = np.zeros((s, s), dtype=bool)
    mask[0, :] = mask[-1, :] = mask[:, 0] = mask[:, -1] = True
    return mask


def _on_perimeter(gid, side, s, bx, by):
    r, c = gid // side, gid % side
    return (r == by * s) | (r == by * s + s - 1) | (c == bx * s) | (c == bx * s + s - 1)


def _separator_edges(side, s, bx, by, per_ids, per_vals):
    """The grid edges between the four sub-blocks of the block (bx, by) of side s: between the two
    middle columns and between the two middle rows. Returns u < v, weights, from perimeter values."""
    h = s // 2
    r0, c0 = by * s, bx * s
    rows = np.arange(r0, r0 + s)
    cols = np.arange(c0, c0 + s)
    us, vs = [], []
    for dr in (-1, 0, 1):  # left middle column to right middle column
        r2 = rows + dr
        ok = (r2 >= r0) & (r2 < r0 + s)
        us.append(rows[ok] * side + (c0 + h - 1))
        vs.append(r2[ok] * side + (c0 + h))
    for dc in (-1, 0, 1):  # upper middle row to lower middle row
        c2 = cols + dc
        ok = (c2 >= c0) & (c2 < c0 + s)
        us.append((r0 + h - 1) * side + cols[ok])
        vs.append((r0 + h) * side + c2[ok])
    a, b = np.concatenate(us), np.concatenate(vs)
    a, b = np.minimum(a, b), np.maximum(a, b)
    pair = np.unique(np.stack([a, b], axis=1), axis=0)  # the two centre diagonals come twice
    a, b = pair[:, 0], pair[:, 1]
    ra, ca, rb, cb = a // side, a % side, b // side, b % side
    crossing = ((ra - r0 >= h) != (rb - r0 >= h)) | ((ca - c0 >= h) != (cb - c0 >= h))
    a, b = a[crossing], b[crossing]
    order = np.argsort(per_ids)
    ids, vals = per_ids[order], per_vals[order]
    va, vb = vals[np.searchsorted(ids, a)], vals[np.searchsorted(ids, b)]
    return a, b, np.maximum(va, vb)


def _key(kind, s, bx, by):
    return f"{kind}_{s}_{bx}_{by}"



def process_block(zb: ZBlocks, store: BlockStore, b: int, bx: int, by: int, block_mst, reducer,
                  per_block_params: dict, reduce_params: dict, *, whole: bool = False,
                  keep_arrays: bool = False) -> dict:
    """Phase 1 for one block: one counted read, its MST, dead ends and contraction with the
    perimeter kept, two counted side-file writes. Returns Figure 3.6's five parts (ms) and the
    steps' counters; with ``keep_arrays`` also the block's values and MST (for verification)."""
    side = zb.side
    local = np.arange(b * b, dtype=np.int64)
    gid = (by * b + local // b) * side + bx * b + local % b
    t0 = time.perf_counter()
    values = zb.read(b, bx, by)
    t_read = time.perf_counter() - t0
    bm = block_mst(values, **per_block_params)
    t1 = time.perf_counter()
    row = {"bx": bx, "by": by, **{p: float(bm.timings.get(p, 0.0)) for p in PARTS}}
    row["other"] += t_read * 1e3
    row.update({f"mst_{k}": v for k, v in bm.counters.items()})
    if keep_arrays:
        row["_values"], row["_mst"] = values, bm
    if whole:  # one block is the whole grid: its MST is the answer
        store.write(_key("def", b, bx, by), u=gid[bm.u], v=gid[bm.v], w=bm.w)
        row["other"] += (time.perf_counter() - t1) * 1e3
        return row
    per_local = boundary_cells(b)
    keep = np.zeros(b * b, dtype=bool)
    keep[per_local] = True
    red = reducer(b * b, bm.u, bm.v, bm.w, keep, **reduce_params)
    t2 = time.perf_counter()
    d = red.definite
    store.write(_key("def", b, bx, by), u=gid[bm.u[d]], v=gid[bm.v[d]], w=bm.w[d])
    store.write(_key("red", b, bx, by), u=gid[red.u], v=gid[red.v], w=red.w,
                ou=gid[bm.u[red.rep]], ov=gid[bm.v[red.rep]], ow=bm.w[red.rep],
                per_ids=gid[per_local], per_vals=values.ravel()[per_local].astype(np.int64))
    t3 = time.perf_counter()
    parts = {p: float(red.timings.get(p, 0.0)) for p in ("dead_ends", "contraction", "copy_back")}
    row["dead_ends"] += parts["dead_ends"]
    row["contraction"] += parts["contraction"]
    row["copy_back"] += parts["copy_back"]
    # what the reduce step spent beyond its parts (a GPU step's uploads), and the two writes
    row["other"] += max((t2 - t1) * 1e3 - sum(parts.values()), 0.0) + (t3 - t2) * 1e3
    row.update({f"reduce_{k}": v for k, v in red.counters.items()})
    row["kept_edges"] = len(red.u)
    row["definite_edges"] = len(d)
    if keep_arrays:
        row["_reduced"] = red
    return row


# Phase 3: definite-edge records per output record, a unit of a resumed run. 256 blocks of
# 256^2 make ~0.4 GB, seconds to write: a call overruns its deadline by at most one unit.
CHUNK = 256


def _io(records) -> dict:
    """The units' transfers added up, every counter present (a phase may have no unit)."""
    total = io_sum(records)
    return {k: total.get(k, 0) for k in IOCounter().as_dict()}


def _plain(row: dict) -> dict:
    """A block's row as JSON takes it (numpy scalars from the steps' counters)."""
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()
            if not k.startswith("_")}


def _expected(journal: Journal, side: int, b: int, chunk: int) -> set[str]:
    """The records the journaled units leave in the store: a level's reduced forests until the
    level above them is journaled, a level's definite edges until phase 3 has written them down,
    phase 3's output records."""
    names = set()
    merged = set(journal.done(2))
    written = set()
    for key in journal.done(3):
        s, c = (int(t) for t in key.split("_"))
        names.add(f"{_out_name(side, s, c, chunk)}.npz")
        written.update((s, k) for k in range(c * chunk, (c + 1) * chunk))
    for s, ks in [(b, journal.done(1))] + [(s, range((side // s) ** 2)) for s in merged]:
        for k in ks:
            x, y = decode1(k)
            if (s, k) not in written:
                names.add(f"{_key('def', s, int(x), int(y))}.npz")
            if s < side and 2 * s not in merged:
                names.add(f"{_key('red', s, int(x), int(y))}.npz")
    return names


def _out_name(side: int, s: int, c: int, chunk: int) -> str:
    # one record per level as before where a level has no more than `chunk` blocks
    return f"mst_{s}" if (side // s) ** 2 <= chunk else f"mst_{s}_{c}"


def io_mst(zgrid, workdir, *, block: int, per_block: str = "tournament",
           per_block_params: dict | None = None, reduce: str = "cpu",
           reduce_params: dict | None = None, log=None, fingerprint: dict | None = None,
           should_stop=None, chunk: int = CHUNK) -> IOResult:
    """The MST of the grid in ``zgrid`` by Haverkort's three phases, side files under ``workdir``.

    With a ``fingerprint`` (what the run's inputs and settings are) the run is resumable:
    ``workdir`` keeps a journal (``mst_journal``) of its finished units, a phase-1 block, a
    phase-2 level, ``chunk`` phase-3 records; a later call with the same fingerprint goes on
    from them, and a work directory of another run is refused. ``should_stop()`` is asked before
    every unit (a deadline): when it answers true, ``Stopped`` is raised with all finished work
    journaled. Each phase's time and transfers are the sums over its units, in every process."""
    per_block_params = dict(per_block_params or {})
    reduce_params = dict(reduce_params or {})
    counter = IOCounter()
    zb = ZBlocks(zgrid, counter)
    side = zb.side
    if not (block >= 1 and block & (block - 1) == 0 and block <= side):
        raise InputError(f"block side {block} must be a power of two <= the grid's padded side {side}")
    if block == 1 and side > 1:
        raise InputError("block side 1 has no interior: start at side 2 or more")
    block_mst = step(PER_BLOCK_MST, per_block)
    reducer = step(REDUCE, reduce)
    store = BlockStore(Path(workdir), counter)
    # phase 3's units are named by chunk: another chunk size must not read this journal
    journal = Journal(workdir, None if fingerprint is None else {**fingerprint, "chunk": chunk})
    try:
        result = _run(zb, store, journal, block, block_mst, reducer, per_block_params,
                      reduce_params, log, should_stop, chunk)
    finally:
        journal.stop()
    result.calls = [c["wall_s"] for c in journal.calls()]
    result.resumed = {f"phase{p}": journal.phase_calls(p) > 1 for p in (1, 2, 3)}
    return result


def _run(zb, store, journal, b, block_mst, reducer, per_block_params, reduce_params, log,
         should_stop, chunk) -> IOResult:
    side, counter = zb.side, zb.counter  # the store counts into the same counter
    result = IOResult(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                      side, b)
    if journal.path is not None:
        gone = journal.tidy(store.directory, _expected(journal, side, b, chunk))
        if log and (journal.done(1) or gone):
            log(f"resuming from {journal.directory}: {len(journal.done(1))} blocks, "
                f"{len(journal.done(2))} levels, {len(journal.done(3))} output records journaled; "
                f"{gone} unjournaled files removed")

    def unit(phase, key, work, fields):
        """One journaled unit: ``work()`` timed and its transfers counted, then its record
        (``fields(out)`` beside them) once its files are whole."""
        if should_stop is not None and should_stop():
            raise Stopped(f"stopped before phase {phase}'s unit {key}: {len(journal.done(1))} of "
                          f"{(side // b) ** 2} blocks, {len(journal.done(2))} levels, "
                          f"{len(journal.done(3))} output records journaled in "
                          f"{journal.directory}")
        before = counter.as_dict()
        t0 = time.perf_counter()
        out = work()
        ms = (time.perf_counter() - t0) * 1e3
        io = {k: v - before[k] for k, v in counter.as_dict().items()}
        journal.add(phase, key, ms, io, **fields(out))
        return out

    # --- phase 1: per-block MST, dead ends, contraction ---------------------------------------
    done = journal.done(1)
    for k, (bx, by) in enumerate(zb.zorder_blocks(b)):
        if k not in done:
            unit(1, k, lambda bx=bx, by=by: _plain(process_block(
                zb, store, b, bx, by, block_mst, reducer, per_block_params, reduce_params,
                whole=(b == side))), lambda row: {"row": row})
    done = journal.done(1)
    result.blocks = [done[k]["row"] for k in sorted(done)]
    result.phase_ms["phase1"] = sum(r["ms"] for r in done.values())
    result.io["phase1"] = _io(done.values())
    result.levels.append({"side": b, "blocks": (side // b) ** 2,
                          "kept_edges": sum(r.get("kept_edges", 0) for r in result.blocks)})
    if log:
        log(f"phase 1: {(side // b) ** 2} blocks of {b}^2, {result.phase_ms['phase1']:.0f} ms")

    # --- phase 2: merge four sub-blocks with their separator edges, level by level -------------
    done = journal.done(2)
    s = b
    while s < side:
        s *= 2
        if s not in done:
            unit(2, s, lambda s=s: _merge_level(store, reducer, reduce_params, side, s),
                 lambda kept: {"kept_edges": kept})
            # the level below goes only once this one is journaled: a cut-off level is redone
            # from it
            per = side // s
            for k in range(4 * per * per):
                x, y = decode1(k)
                store.delete(_key("red", s // 2, int(x), int(y)))
    done = journal.done(2)
    for s in sorted(done):
        result.levels.append({"side": s, "blocks": (side // s) ** 2,
                              "kept_edges": done[s]["kept_edges"]})
    result.phase_ms["phase2"] = sum(r["ms"] for r in done.values())
    result.io["phase2"] = _io(done.values())

    # --- phase 3: the way back down: definite edges of every level, top first --------------------
    done = journal.done(3)
    again = BlockStore(store.directory)  # a resumed run's journaled output, read back uncounted
    out_u, out_v, out_w = [], [], []
    s = side
    while s >= b:
        n = (side // s) ** 2
        for c in range((n + chunk - 1) // chunk):
            name, key = _out_name(side, s, c, chunk), f"{s}_{c}"
            ks = range(c * chunk, min(n, (c + 1) * chunk))
            if key in done:
                rec = again.read(name)
            else:
                rec = unit(3, key, lambda s=s, ks=ks, name=name: _write_down(store, s, ks, name),
                           lambda r: {"edges": int(len(r["u"]))})
                # written down and journaled: the side files go, so the whole grid's run holds
                # one copy of its definite edges on disk (~26 GB), not two
                for k in ks:
                    x, y = decode1(k)
                    store.delete(_key("def", s, int(x), int(y)))
            out_u.append(rec["u"])
            out_v.append(rec["v"])
            out_w.append(rec["w"])
        s //= 2
    done = journal.done(3)
    result.phase_ms["phase3"] = sum(r["ms"] for r in done.values())
    result.io["phase3"] = _io(done.values())
    result.io["total"] = _io({"io": result.io[p]} for p in ("phase1", "phase2", "phase3"))
    # one array at a time, each list let go once joined: the whole grid's tree is ~26 GB a copy
    result.u = np.concatenate(out_u).astype(np.int64, copy=False)
    out_u.clear()
    result.v = np.concatenate(out_v).astype(np.int64, copy=False)
    out_v.clear()
    result.w = np.concatenate(out_w).astype(np.int64, copy=False)
    out_w.clear()
    swap = result.u > result.v
    if swap.any():
        result.u[swap], result.v[swap] = result.v[swap], result.u[swap]
    return result


def _merge_level(store, reducer, reduce_params, side, s) -> int:
    """Phase 2 for the blocks of side s: each one's four sub-blocks' reduced forests and the
    separator edges between them, their MST, reduced with the block's perimeter kept. Returns
    the edges kept at this level."""
    per = side // s
    kept_total = 0
    for k in range(per * per):
        x, y = decode1(k)
        bx, by = int(x), int(y)
        parts = [store.read(_key("red", s // 2, 2 * bx + dx, 2 * by + dy))
                 for dy in (0, 1) for dx in (0, 1)]
        cat = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
        su, sv, sw = _separator_edges(side, s, bx, by, cat["per_ids"], cat["per_vals"])
        gu = np.concatenate([cat["u"], su])
        gv = np.concatenate([cat["v"], sv])
        gw = np.concatenate([cat["w"], sw])
        ou = np.concatenate([cat["ou"], su])
        ov = np.concatenate([cat["ov"], sv])
        ow = np.concatenate([cat["ow"], sw])
        verts = np.unique(np.concatenate([gu, gv]))
        lu, lv = np.searchsorted(verts, gu), np.searchsorted(verts, gv)
        chosen = _kruskal_sorted(len(verts), lu, lv, packed_order(gu, gv, gw))
        if s == side:
            store.write(_key("def", s, bx, by), u=ou[chosen], v=ov[chosen], w=ow[chosen])
            kept_total = 0
        else:
            keep = _on_perimeter(verts, side, s, bx, by)
            red = reducer(len(verts), lu[chosen], lv[chosen], gw[chosen], keep, **reduce_params)
            d = chosen[red.definite]
            store.write(_key("def", s, bx, by), u=ou[d], v=ov[d], w=ow[d])
            r = chosen[red.rep]
            on = _on_perimeter(cat["per_ids"], side, s, bx, by)
            store.write(_key("red", s, bx, by), u=verts[red.u], v=verts[red.v], w=red.w,
                        ou=ou[r], ov=ov[r], ow=ow[r], per_ids=cat["per_ids"][on],
                        per_vals=cat["per_vals"][on])
            kept_total += len(red.u)
    return int(kept_total)


def _write_down(store, s, ks, name) -> dict:
    """Phase 3 for the records ks of level s: their definite edges read back, written as one
    output record."""
    level_u, level_v, level_w = [], [], []
    for k in ks:
        x, y = decode1(k)
        rec = store.read(_key("def", s, int(x), int(y)))
        level_u.append(rec["u"])
        level_v.append(rec["v"])
        level_w.append(rec["w"])
    out = {"u": np.concatenate(level_u), "v": np.concatenate(level_v),
           "w": np.concatenate(level_w)}
    store.write(name, **out)
    return out


# --- as an `mst` solver: `python -m graphrepro mst DEM --solver gerritsen_io@block=64` ---------------

def _register_solver():
    from ...mst import MSTResult, register_mst

    @register_mst("gerritsen_io", document="gerritsen2012",
                  description="Haverkort's I/O-efficient MST (gerritsen2012 ch. 2, 3.5): per-block "
                              "MST by a named step, dead ends and contraction, merging level by "
                              "level, counted block I/O; DEM grids only",
                  defaults={"block": 64, "step": "tournament", "reduce": "cpu",
                            "deletion": "mark", "storage": "prealloc"})
    def gerritsen_io(edges, block, step, reduce, deletion, storage):
        if edges.grid is None:
            raise InputError(f"gerritsen_io works on a DEM grid (GRASS/ESRI ASCII, .npy, .zgrid); "
                             f"{edges.name or 'this input'} is a graph file without one")
        grid = edges.grid
        try:
            block = min(int(block), grid.shape[0])
        except ValueError:
            raise InputError(f"gerritsen_io: block must be an integer, not {block!r}") from None
        reduce_params = {"deletion": deletion, "storage": storage} if reduce == "cpu" else {}

        class Prepared:
            def solve(self):
                import tempfile

                from ...terrain import convert_array

                with tempfile.TemporaryDirectory(prefix="graphrepro-io-") as tmp:
                    z = Path(tmp) / "grid.zgrid"
                    dtype = "uint16" if int(grid.max(initial=0)) <= 65535 else "uint32"
                    convert_array(grid, z, source={"kind": "mst input"}, dtype=dtype)
                    res = io_mst(z, Path(tmp) / "blocks", block=block, per_block=step,
                                 reduce=reduce, reduce_params=reduce_params)
                counters = {f"io_{k}": v for k, v in res.io["total"].items()
                            if k.startswith(("block_", "bytes_"))}
                return MSTResult(res.u, res.v, res.w, sum(res.phase_ms.values()), counters)

        return Prepared()


_register_solver()
