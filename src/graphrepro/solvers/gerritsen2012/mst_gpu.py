"""GPU Boruvka on implicit 8-neighbour grids (gerritsen2012 section 3.1, Algorithms 1-5).

The graph is never stored: a kernel reads the values and computes each edge's weight
max(val(i), val(j)) on the fly. Every iteration each vertex picks its lightest edge to another
supervertex and folds it into its supervertex's slot with one atomicMin on a packed key; each
supervertex then hooks along its slot's edge, the hooks are shortcut to their roots, and every
vertex takes its root's colour.

The packed key (Figure 3.2) orders edges by weight, then by the lower endpoint's index, then by
the direction from the lower endpoint to the higher one (Figure 3.1: the eight neighbours are
numbered 0..7 in row-major order, NW N NE W E SW S SE, so 7 - d is the reverse direction and,
for a fixed lower endpoint, a smaller direction is a smaller other endpoint). That is a strict
total order on the edges, identical to sorting by (weight, min(u, v), max(u, v)); so supervertices
can only choose each other in pairs (the thesis's proof), no cycle check is needed, and the tree
is the unique MST under that order: the same edge set as a stable Kruskal on edges sorted by
(u, v), which is what ``graphrepro.mst.algorithms.kruskal`` is on ``mst.from_arrays`` input.

    bit  31..22  21..4  3..1       0            (32-bit, the thesis's)
         weight  index  direction  endpoint
    bit  62..36  35..4  3..1       0            (64-bit, beyond the thesis: int64, sign bit 0)

The 32-bit key holds weights 0..1023 and 2**18 vertices (blocks up to 512 x 512); the 64-bit key
weights below 2**27 and 2**32 vertices per block. The endpoint bit says whether the choosing
vertex is the lower endpoint (1) or the higher one (0); it never decides between two edges.

Drivers:
- ``launch="thesis"``: Algorithm 1's host loop, 16 x 16 threads per CUDA block as the thesis ran
  it, one launch per line 2-5 of Algorithm 1 and one host read of a "something hooked" word per
  iteration.
- ``launch="persistent"``: the whole loop in one cooperative kernel, grid-wide barriers between
  the phases, termination decided on the device: one launch, no host round trip.
Both run any number of independent (rows x cols) grids at once (``boruvka_blocks``), and the
persistent one is the whole-grid MST with no I/O blocking (``grid_mst_gpu``).

Timings (ms, CUDA events): "mst" (the solve: every launch, and in the thesis launch the flag
reads), "copy_back" (the root slots to the host), "other" (the upload of the values). The slots
are decoded into (u, v, w) on the host after that. Counters: launches, iterations, host round
trips, atomics (atomicMin on supervertex slots actually issued; a vertex whose key cannot lower
the slot as last seen skips it, so the count varies a little between runs), and for the persistent
kernel its resident blocks and grid barriers.

Where we depart from the letter, and why:
- Algorithm 4 shortcuts parents with ceil(log2 C) launches; here each old root walks to its
  root inside one launch, halving the path as it goes (walkers on one long chain shorten it for
  each other), and Algorithm 5 follows the last step or two from there. Parents only ever point
  to ancestors, so a stale read costs a step, never a wrong root.
- Algorithm 3 appends the chosen edge to the MST with an atomic; here a supervertex writes its
  edge into its own root's slot (a root hooks once in its life), so the tree needs no atomics and
  no counter: exactly n - (supervertices left) slots get filled.
- Algorithm 2's lines 25-28 pack the direction as seen from the higher endpoint (7 - dir when
  the choosing vertex is the lower one); the text says "from the lowest endpoint to the highest"
  and that edges to lower indices are picked first. Both are strict total orders, so both are
  cycle-free; we follow the text, whose order is (weight, min(u, v), max(u, v)), the tie rule the
  CPU steps share.
- A vertex none of whose neighbours lies in another supervertex is marked done and skipped from
  then on (supervertices only grow), and a vertex whose key cannot lower its supervertex's slot
  skips the atomic.

Where each part lives: the key layouts, packing and the host decoding in ``mst_gpu_key``; the
kernels in ``mst_gpu_kernels``; the CPU Kruskal the trees are verified against in
``mst_gpu_check``. This module is the host driver (workspaces, the two launches), the PER_BLOCK_MST
steps and the ``mst`` command's solvers, and re-exports the rest under ``mst_gpu.<name>``.
"""

from __future__ import annotations

import numpy as np

from ... import gpu
from ... import launch as launch_path  # "launch" is the thesis/persistent choice here
from ...errors import InputError
from ...mst import EdgeList, MSTResult, register_mst
from . import PER_BLOCK_MST, register_step
from .mst_gpu_check import grid_kruskal_cpu, verify_grid_tree  # noqa: F401  (re-exported)
from .mst_gpu_kernels import _compile
from .mst_gpu_key import (KEY32, KEY64, LAYOUTS, KeyLayout, decode_tree,  # noqa: F401  (re-exported)
                          direction, edge_key, layout, offset, pack_key, unpack_key)
from .types import BlockMST

THESIS_TILE = 16  # 16 x 16 threads per CUDA block (section 3.1)
PERSISTENT_THREADS = 256
LAUNCHES = ("thesis", "persistent")


# --- drivers --------------------------------------------------------------------------------------

def _check_values(values: np.ndarray, lay: KeyLayout, what: str) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 3 or values.shape[1] < 1 or values.shape[2] < 1:
        raise InputError(f"{what}: expected a (rows, cols) grid or (blocks, rows, cols) stack, "
                         f"got shape {values.shape}")
    if not np.issubdtype(values.dtype, np.integer):
        if not np.array_equal(values, np.round(values)):
            raise InputError(f"{what}: values must be integers (convert the DEM first)")
    nb, rows, cols = values.shape
    if values.size and values.min() < 0:
        raise InputError(f"{what}: values must be non-negative (unknown cells become 0 when a "
                         f"DEM is converted)")
    top = int(values.max()) if values.size else 0
    if top > lay.max_weight:
        raise InputError(f"{what}: the {lay.bits}-bit packed key holds weights up to "
                         f"{lay.max_weight}, this grid has {top}"
                         + ("; use the 64-bit key (gpu_boruvka64)" if lay.bits == 32 else ""))
    if rows * cols > lay.max_vertices:
        side = int(lay.max_vertices ** 0.5)
        raise InputError(f"{what}: the {lay.bits}-bit packed key indexes {lay.max_vertices} "
                         f"vertices per block ({side} x {side}), this block is {rows} x {cols}"
                         + ("; use the 64-bit key (gpu_boruvka64)" if lay.bits == 32 else ""))
    return np.ascontiguousarray(values, dtype=np.int32)


class _Workspace:
    """Device arrays for one shape; reused across calls on small blocks (10,000 blocks of one
    size must not pay 10,000 allocations)."""

    def __init__(self, cuda_mod, n: int, lay: KeyLayout):
        index = np.int32 if n < 2 ** 31 else np.int64
        per_vertex = 4 + 2 * np.dtype(index).itemsize + 2 * np.dtype(lay.dtype).itemsize + 1
        gpu.check_fits(n * per_vertex, f"Boruvka on {n:,} grid vertices")
        self.vals = cuda_mod.device_array(n, dtype=np.int32)
        self.comp = cuda_mod.device_array(n, dtype=index)
        self.parent = cuda_mod.device_array(n, dtype=index)
        self.best = cuda_mod.device_array(n, dtype=lay.dtype)
        self.chosen = cuda_mod.device_array(n, dtype=lay.dtype)
        self.done = cuda_mod.device_array(n, dtype=np.uint8)
        self.words = cuda_mod.to_device(np.zeros(3, dtype=np.int32))
        self.out = cuda_mod.to_device(np.zeros(2, dtype=np.int64))
        self.word_host = launch_path.host_buffer(1, np.int32)
        self.stream = cuda_mod.stream()
        self.rounds = {}  # prepared thesis-launch rounds, by shape
        self.timer = gpu.DeviceTimer(self.stream)


_workspaces: dict = {}
_CACHE_MAX = 1 << 22  # vertices: workspaces up to this size are kept between calls


def _workspace(cuda_mod, n: int, lay: KeyLayout) -> _Workspace:
    key = (n, lay.bits)
    if key in _workspaces:
        return _workspaces[key]
    ws = _Workspace(cuda_mod, n, lay)
    if n <= _CACHE_MAX:
        if len(_workspaces) > 8:
            _workspaces.clear()
        _workspaces[key] = ws
    return ws


_resident: dict = {}


def _cooperative(kernel, args, n: int):
    """(kernel specialised for these argument types, blocks): every block must be resident at
    once, so the grid is the smaller of what fits and what n vertices need. Unlike
    gpu.CooperativeLauncher, the block count is worked out per call (one process times a 256 x 256
    block and then the whole 40 ft grid) and the specialisation is cached per argument type."""
    if gpu.simulated():
        return kernel, 1  # the simulator's grid barrier only covers one block
    types = tuple(getattr(a, "dtype", type(a)) for a in args)
    key = (id(kernel), types)
    if key not in _resident:
        specialised = kernel.specialize(*args)
        overload = next(iter(specialised.overloads.values()))
        _resident[key] = (specialised, overload.max_cooperative_grid_blocks(PERSISTENT_THREADS))
    specialised, resident = _resident[key]
    return specialised, max(1, min(resident, gpu.blocks_for(n, PERSISTENT_THREADS)))


def _thesis_rounds(k, ws, tiles, threads, args):
    """The thesis launch's rounds per word slot, prepared once per workspace and shape: choose +
    hook + read of the slot's word (the first round), and jump + relabel of the round before +
    the same (every later round): the launches and reads of the loop as written, in its order."""
    key = (args, tiles, threads)
    if key not in ws.rounds:
        stream = ws.stream

        def prepared(name, *more):
            return launch_path.Launch(k[name], tiles, threads, stream, *args, *more)

        jump = prepared("jump", ws.comp, ws.parent, ws.best)
        relabel = prepared("relabel", ws.comp, ws.parent)
        choose = prepared("choose", ws.vals, ws.comp, ws.best, ws.done, ws.out)
        first, later = [], []
        for slot in (0, 1):
            hook = prepared("hook", ws.comp, ws.best, ws.parent, ws.chosen, ws.words, slot)
            read = {"read": ws.words[slot:slot + 1], "host": ws.word_host}
            first.append(launch_path.Round(stream, [choose, hook], **read))
            later.append(launch_path.Round(stream, [jump, relabel, choose, hook], **read))
        ws.rounds[key] = first, later
    return ws.rounds[key]


def _boruvka(values3: np.ndarray, bits: int, launch: str, what: str):
    """Run Boruvka on a (nb, rows, cols) stack; returns (block, u, v, w, timings, counters)."""
    if launch not in LAUNCHES:
        raise InputError(f"launch must be one of {', '.join(LAUNCHES)}, got {launch!r}")
    lay = layout(bits)
    vals = _check_values(values3, lay, what)
    nb, rows, cols = vals.shape
    n = vals.size
    if launch == "thesis" and (nb > 65535 or rows > 16 * 65535):
        raise InputError(f"{what}: the thesis launch tiles blocks along the grid's z and y axes, "
                         f"at most 65535 blocks of at most {16 * 65535} rows; use "
                         f"launch=\"persistent\"")
    cu = gpu.require_cuda()
    k = _compile(lay.bits)
    ws = _workspace(cu, n, lay)
    stream, timer = ws.stream, ws.timer
    with timer.measure() as up:
        ws.vals.copy_to_device(vals.reshape(-1), stream=stream)
        ws.out.copy_to_device(np.zeros(2, dtype=np.int64), stream=stream)
    counters = {"blocks": nb, "vertices": n}
    with timer.measure() as solve:
        if launch == "thesis":
            tiles = ((cols + THESIS_TILE - 1) // THESIS_TILE,
                     (rows + THESIS_TILE - 1) // THESIS_TILE, nb)
            threads = (THESIS_TILE, THESIS_TILE)
            args = (nb, rows, cols)
            ws.words.copy_to_device(np.zeros(3, dtype=np.int32), stream=stream)
            k["init"][tiles, threads, stream](*args, ws.comp, ws.parent, ws.best, ws.chosen,
                                               ws.done)
            first, later = _thesis_rounds(k, ws, tiles, threads, args)
            launches = 1
            iterations = 0
            slot = 0
            while True:  # choose, hook, read the slot's word; then jump, relabel unless done
                word = (later if iterations else first)[slot]()
                launches += 4 if iterations else 2
                iterations += 1
                if word[0] == 0:
                    break
                slot = 1 - slot
            counters.update(launches=launches, iterations=iterations,
                            host_round_trips=iterations, threads_per_block=THESIS_TILE ** 2)
        else:
            args = (nb, rows, cols, ws.vals, ws.comp, ws.parent, ws.best, ws.chosen, ws.done,
                    ws.words, ws.out)
            kernel, blocks = _cooperative(k["persistent"], args, n)
            kernel[blocks, PERSISTENT_THREADS, stream](*args)
            counters.update(launches=1, host_round_trips=0, resident_blocks=blocks,
                            threads_per_block=PERSISTENT_THREADS)
    with timer.measure() as back:
        chosen = ws.chosen.copy_to_host(stream=stream)
        out = ws.out.copy_to_host(stream=stream)
        stream.synchronize()
    blk, u, v, w = decode_tree(chosen, lay, cols, rows * cols)
    counters["atomics"] = int(out[0])
    if launch == "persistent":
        counters["iterations"] = int(out[1])
        counters["grid_syncs"] = 4 * int(out[1]) - 1
    counters["upload_us"] = int(round(up["ms"] * 1e3))
    timings = {"mst": solve["ms"], "copy_back": back["ms"], "other": up["ms"]}
    return blk, u, v, w, timings, counters


def _as_stack(values) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 2:
        raise InputError(f"expected a 2-d grid of values, got shape {values.shape}")
    return values[None]


def boruvka_block(values: np.ndarray, *, bits: int = 32, launch: str = "thesis") -> BlockMST:
    """The minimum spanning tree of one block's 8-neighbour grid (block-local row-major ids)."""
    _, u, v, w, timings, counters = _boruvka(_as_stack(values), bits, launch,
                                             f"gpu_boruvka{bits}")
    return BlockMST(u, v, w, timings, counters)


@register_step(PER_BLOCK_MST, "gpu_boruvka32")
def gpu_boruvka32(values: np.ndarray, *, launch: str = "thesis") -> BlockMST:
    """Algorithms 1-5 with the thesis's 32-bit key: weights <= 1023, blocks up to 512 x 512."""
    return boruvka_block(values, bits=32, launch=launch)


@register_step(PER_BLOCK_MST, "gpu_boruvka64")
def gpu_boruvka64(values: np.ndarray, *, launch: str = "thesis") -> BlockMST:
    """Algorithms 1-5 with the 64-bit key: weights < 2**27, blocks up to 2**32 vertices."""
    return boruvka_block(values, bits=64, launch=launch)


def boruvka_blocks(values: np.ndarray, *, bits: int = 64, launch: str = "persistent"
                   ) -> list[BlockMST]:
    """Every block of a (nb, b, b) stack in one launch sequence. Each BlockMST gets the batch's
    timings divided by nb (the per-block cost when blocks are batched) and the batch's counters."""
    values = np.asarray(values)
    if values.ndim != 3:
        raise InputError(f"boruvka_blocks expects (blocks, rows, cols), got shape {values.shape}")
    nb = values.shape[0]
    if nb == 0:
        return []
    blk, u, v, w, timings, counters = _boruvka(values, bits, launch, f"boruvka_blocks ({bits}-bit)")
    if nb == 1:
        blk = np.zeros(len(u), dtype=np.int64)
    share = {key: ms / nb for key, ms in timings.items()}
    cuts = np.searchsorted(blk, np.arange(nb + 1))
    return [BlockMST(u[cuts[i]:cuts[i + 1]], v[cuts[i]:cuts[i + 1]], w[cuts[i]:cuts[i + 1]],
                     dict(share), dict(counters)) for i in range(nb)]


def grid_mst_gpu(values2d: np.ndarray, *, bits: int = 64, launch: str = "persistent") -> BlockMST:
    """The whole grid's MST on the GPU, no I/O blocking: one cooperative launch (row-major ids)."""
    _, u, v, w, timings, counters = _boruvka(_as_stack(values2d), bits, launch, "grid_mst_gpu")
    return BlockMST(u, v, w, timings, counters)


# --- the `mst` command ----------------------------------------------------------------------------

def grid_of(edges: EdgeList, solver: str) -> np.ndarray:
    """The DEM grid an EdgeList was read from, or a one-line refusal."""
    grid = getattr(edges, "grid", None)
    if grid is None:
        raise InputError(f"{solver} runs on a DEM grid's implicit 8-neighbour graph; "
                         f"{edges.name or 'this input'} is a plain graph (give a DEM: .asc, "
                         f".txt or .npy)")
    grid = np.asarray(grid)
    if grid.ndim != 2 or grid.size != edges.num_vertices:
        raise InputError(f"{solver}: the grid metadata ({grid.shape}) does not match the "
                         f"graph's {edges.num_vertices} vertices")
    return grid


def _mst_factory(solver: str, bits: int):
    def factory(edges: EdgeList, launch: str):
        if launch not in LAUNCHES:
            raise InputError(f"{solver}: launch must be one of {', '.join(LAUNCHES)}, got "
                             f"{launch!r}")
        grid = grid_of(edges, solver)
        _check_values(grid[None], layout(bits), solver)  # refuse now, before any device work

        class Prepared:
            def solve(self):
                _, u, v, w, timings, counters = _boruvka(grid[None], bits, launch, solver)
                counters = {**counters, **{f"{key}_us": int(round(ms * 1e3))
                                           for key, ms in timings.items() if key != "mst"}}
                return MSTResult(u, v, w, timings["mst"], counters)

        return Prepared()

    return factory


register_mst("gerritsen_boruvka32", device="gpu", document="gerritsen2012",
             description="GPU Boruvka (Algorithms 1-5) on the DEM grid, the thesis's 32-bit "
                         "packed key (weights <= 1023, grids up to 512 x 512); launch=thesis: "
                         "16 x 16 threads, a launch per step and a flag read per iteration; "
                         "launch=persistent: one cooperative kernel",
             defaults={"launch": "thesis"})(_mst_factory("gerritsen_boruvka32", 32))
register_mst("gerritsen_boruvka64", device="gpu", document="gerritsen2012",
             description="GPU Boruvka (Algorithms 1-5) on the DEM grid with a 64-bit packed key "
                         "(weights < 2**27, any grid that fits); launch as gerritsen_boruvka32",
             defaults={"launch": "thesis"})(_mst_factory("gerritsen_boruvka64", 64))
register_mst("gerritsen_grid_gpu", device="gpu", document="gerritsen2012",
             description="whole-grid GPU Boruvka, 64-bit packed key, no I/O blocking: one "
                         "cooperative kernel, grid-wide barriers, no host round trip",
             defaults={"launch": "persistent"})(_mst_factory("gerritsen_grid_gpu", 64))
