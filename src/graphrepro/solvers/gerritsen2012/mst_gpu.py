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
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu
from ... import launch as launch_path  # "launch" is the thesis/persistent choice here
from ..._jit import sized
from ...errors import InputError, VerificationError
from ...mst import EdgeList, MSTResult, register_mst
from . import PER_BLOCK_MST, register_step
from .types import BlockMST

THESIS_TILE = 16  # 16 x 16 threads per CUDA block (section 3.1)
PERSISTENT_THREADS = 256
LAUNCHES = ("thesis", "persistent")


@dataclass(frozen=True)
class KeyLayout:
    bits: int
    wshift: int  # weight bits start here; index bits are [4, wshift)
    max_weight: int
    max_vertices: int  # per grid (block): vertices the index field can name
    dtype: type
    inf: int

    @property
    def index_mask(self) -> int:
        return (1 << (self.wshift - 4)) - 1


KEY32 = KeyLayout(32, 22, 1023, 1 << 18, np.uint32, 0xFFFFFFFF)
KEY64 = KeyLayout(64, 36, (1 << 27) - 1, 1 << 32, np.int64, (1 << 63) - 1)
LAYOUTS = {32: KEY32, 64: KEY64}


def layout(bits: int) -> KeyLayout:
    try:
        return LAYOUTS[int(bits)]
    except (KeyError, ValueError):
        raise InputError(f"packed key bits must be 32 or 64, got {bits!r}") from None


# --- the key, on the host (tests, decoding) -------------------------------------------------------

def direction(dr, dc):
    """Figure 3.1's number (0..7) of the neighbour at row/column offset (dr, dc)."""
    p = (np.asarray(dr) + 1) * 3 + (np.asarray(dc) + 1)
    return np.where(p < 4, p, p - 1)


def offset(d):
    """(dr, dc) of direction d: the inverse of :func:`direction`."""
    d = np.asarray(d)
    p = np.where(d < 4, d, d + 1)
    return p // 3 - 1, p % 3 - 1


def pack_key(w, index, d, endpoint, bits: int = 32):
    """Figure 3.2's packed key(s) as int64 (a 32-bit key is the low 32 bits)."""
    lay = layout(bits)
    w, index, d, endpoint = (np.asarray(x, dtype=np.int64) for x in (w, index, d, endpoint))
    return (w << lay.wshift) | (index << 4) | (d << 1) | endpoint


def unpack_key(key, bits: int = 32):
    """(weight, index, direction, endpoint) of packed key(s)."""
    lay = layout(bits)
    key = np.asarray(key).astype(np.int64)
    return key >> lay.wshift, (key >> 4) & lay.index_mask, (key >> 1) & 7, key & 1


def edge_key(values: np.ndarray, u, v, bits: int = 32):
    """The key of grid edges (u, v) (row-major ids over ``values``), as the lower endpoint packs
    it: weight, lower index, direction lower -> higher, endpoint bit 1."""
    rows, cols = values.shape
    u, v = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
    a, b = np.minimum(u, v), np.maximum(u, v)
    d = direction(b // cols - a // cols, b % cols - a % cols)
    flat = values.reshape(-1).astype(np.int64)
    return pack_key(np.maximum(flat[a], flat[b]), a, d, 1, bits)


# --- kernels --------------------------------------------------------------------------------------

_kernels: dict[int, dict] = {}


def _compile(bits: int) -> dict:
    if bits in _kernels:
        return _kernels[bits]
    lay = layout(bits)
    WSHIFT = lay.wshift
    IMASK = lay.index_mask
    INF = lay.inf
    KEY = np.uint32 if bits == 32 else np.int64

    @cuda.jit(device=True)
    def block_base(g, nb, bb):
        """First global id of g's grid; 32-bit division where it fits (64-bit division is a
        long instruction sequence on the GPU)."""
        if nb == 1:
            return np.int64(0)
        if nb * bb <= 0xFFFFFFFF:
            return np.int64(np.uint32(g) // np.uint32(bb)) * bb
        return (g // bb) * bb

    @cuda.jit(device=True)
    def choose(g, base, vals, comp, best, done, rows, cols):
        """Algorithm 2 for vertex g (of the grid starting at global id base): its lightest edge
        to another supervertex, folded into the supervertex's slot. 1 when it did the atomicMin."""
        if done[g] != 0:
            return 0
        local = g - base
        r = np.int64(np.uint32(local) // np.uint32(cols))  # local < 2**32: the key's index field
        c = local - r * cols
        cv = comp[g]
        vv = np.int64(vals[g])
        kmin = np.int64(INF)
        for d in range(8):
            p = d if d < 4 else d + 1
            dr = p // 3 - 1
            dc = p % 3 - 1
            nr = r + dr
            nc = c + dc
            if nr >= 0 and nr < rows and nc >= 0 and nc < cols:
                step = dr * cols + dc
                if comp[g + step] != cv:
                    w = max(vv, np.int64(vals[g + step]))
                    if d < 4:  # the neighbour is the lower endpoint; 7 - d points back at us
                        key = (w << WSHIFT) | ((local + step) << 4) | ((7 - d) << 1)
                    else:
                        key = (w << WSHIFT) | (local << 4) | (d << 1) | 1
                    if key < kmin:
                        kmin = key
        if kmin == INF:
            done[g] = 1  # every neighbour is in our supervertex, now and forever
            return 0
        if kmin < np.int64(best[cv]):
            cuda.atomic.min(best, cv, KEY(kmin))
            return 1
        return 0

    @cuda.jit(device=True)
    def hook(c, base, comp, best, parent, chosen, cols):
        """Algorithms 3 and 4 (first part) for supervertex root c: hook along the chosen edge,
        unless the other side chose the same edge and has the larger id. 1 when it hooked."""
        if comp[c] != c:
            return 0
        k = np.int64(best[c])
        if k == INF:
            parent[c] = c
            return 0
        a = (k >> 4) & IMASK
        d = (k >> 1) & 7
        p = d if d < 4 else d + 1
        lower = base + a
        higher = lower + (p // 3 - 1) * cols + (p % 3 - 1)
        other = higher if (k & 1) == 1 else lower
        c2 = comp[other]
        if (np.int64(best[c2]) >> 1) == (k >> 1) and c < c2:
            parent[c] = c  # the pair's smaller root stays a root; its partner records the edge
            return 0
        parent[c] = c2
        chosen[c] = best[c]
        return 1

    @cuda.jit(device=True)
    def jump(c, comp, parent, best):
        """Algorithm 4's shortcutting for an old root c, in one pass: walk to the root halving
        the path on the way (each visited node skips to its grandparent), so walkers sharing a
        long chain shorten it for each other; then c points at the root. Every write names an
        ancestor of the written node, so concurrent walkers never lose the root. Also resets
        c's slot for the next iteration (only roots' slots are ever written)."""
        if comp[c] != c:
            return
        best[c] = KEY(INF)
        x = c
        while True:
            p = parent[x]
            pp = parent[p]
            if pp == p:
                break
            parent[x] = pp
            x = pp
        parent[c] = p

    @cuda.jit(device=True)
    def relabel(v, comp, parent):
        """Algorithm 5: v takes its new root's colour. The root is followed, not read in one
        step: a walker's halving write can land on a node after that node's own walker pointed
        it at the root, leaving it one or two steps short. Nothing writes parents now."""
        cv = comp[v]
        root = parent[cv]
        if root != cv:
            while True:
                up = parent[root]
                if up == root:
                    break
                root = up
            comp[v] = root

    @cuda.jit(device=True)
    def tile_index(nb, rows, cols):
        """(global vertex id or -1) of this thread in the 16 x 16 tiling, z = grid number."""
        x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        z = cuda.blockIdx.z
        if x < cols and y < rows and z < nb:
            return np.int64(z) * rows * cols + y * cols + x
        return np.int64(-1)

    @cuda.jit(cache=True)
    def init_k(nb, rows, cols, comp, parent, best, chosen, done):
        g = tile_index(nb, rows, cols)
        if g >= 0:
            comp[g] = g
            parent[g] = g
            best[g] = KEY(INF)
            chosen[g] = KEY(INF)
            done[g] = 0

    @cuda.jit(cache=True)
    def choose_k(nb, rows, cols, vals, comp, best, done, tally):
        g = tile_index(nb, rows, cols)
        issued = 0
        if g >= 0:
            issued = choose(g, np.int64(cuda.blockIdx.z) * rows * cols, vals, comp, best, done,
                            rows, cols)
        total = cuda.syncthreads_count(issued)
        if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0 and total > 0:
            cuda.atomic.add(tally, 0, total)

    @cuda.jit(cache=True)
    def hook_k(nb, rows, cols, comp, best, parent, chosen, words, slot):
        g = tile_index(nb, rows, cols)
        if g == 0:
            words[1 - slot] = 0  # the next iteration's word; the host has read it already
        if g >= 0 and hook(g, np.int64(cuda.blockIdx.z) * rows * cols, comp, best, parent, chosen,
                           cols) == 1:
            words[slot] = 1

    @cuda.jit(cache=True)
    def jump_k(nb, rows, cols, comp, parent, best):
        g = tile_index(nb, rows, cols)
        if g >= 0:
            jump(g, comp, parent, best)

    @cuda.jit(cache=True)
    def relabel_k(nb, rows, cols, comp, parent):
        g = tile_index(nb, rows, cols)
        if g >= 0:
            relabel(g, comp, parent)

    @cuda.jit(cache=True)
    def persistent_k(nb, rows, cols, vals, comp, parent, best, chosen, done, words, out):
        grid = cuda.cg.this_grid()
        n = comp.shape[0]
        bb = rows * cols
        tid = cuda.grid(1)
        stride = cuda.gridsize(1)
        for g in range(tid, n, stride):
            comp[g] = g
            parent[g] = g
            best[g] = KEY(INF)
            chosen[g] = KEY(INF)
            done[g] = 0
        if tid == 0:
            for s in range(3):
                words[s] = 0
        grid.sync()
        atomics = 0
        it = 0
        while True:
            slot = it % 3
            if tid == 0:
                words[(it + 1) % 3] = 0  # last read two iterations ago, barriers since
            for g in range(tid, n, stride):
                atomics += choose(g, block_base(g, nb, bb), vals, comp, best, done, rows, cols)
            grid.sync()
            hooked = 0
            for g in range(tid, n, stride):
                hooked |= hook(g, block_base(g, nb, bb), comp, best, parent, chosen, cols)
            if hooked:
                words[slot] = 1
            grid.sync()
            it += 1
            if words[slot] == 0:
                break
            for g in range(tid, n, stride):
                jump(g, comp, parent, best)
            grid.sync()
            for g in range(tid, n, stride):
                relabel(g, comp, parent)
            grid.sync()
        if atomics > 0:
            cuda.atomic.add(out, 0, atomics)
        if tid == 0:
            out[1] = it

    _kernels[bits] = dict(init=init_k, choose=choose_k, hook=hook_k, jump=jump_k,
                          relabel=relabel_k, persistent=persistent_k)
    return _kernels[bits]


# --- decoding on the host -------------------------------------------------------------------------

@sized
def _decode(chosen, inf, wshift, imask, cols, bb, chunks):
    """The tree edges held in the root slots: (grid number, lower id, higher id, weight), ids
    local to each grid, in slot order (so grid numbers ascend; no grid numbers for a single grid,
    whose 40 ft size would make them 1.8 GB of zeros). Two passes over ``chunks`` slices: count,
    then fill."""
    n = chosen.shape[0]
    size = (n + chunks - 1) // chunks
    counts = np.zeros(chunks + 1, dtype=np.int64)
    for t in numba.prange(chunks):
        found = 0
        for i in range(t * size, min(n, (t + 1) * size)):
            if np.int64(chosen[i]) != inf:
                found += 1
        counts[t + 1] = found
    starts = np.cumsum(counts)
    total = starts[chunks]
    blk = np.empty(total if bb < n else 0, dtype=np.int64)  # one grid: every edge is grid 0
    u = np.empty(total, dtype=np.int64)
    v = np.empty(total, dtype=np.int64)
    w = np.empty(total, dtype=np.int64)
    for t in numba.prange(chunks):
        j = starts[t]
        first = t * size
        block = first // bb
        next_block = (block + 1) * bb
        for i in range(first, min(n, first + size)):
            if i == next_block:
                block += 1
                next_block += bb
            k = np.int64(chosen[i])
            if k != inf:
                a = (k >> 4) & imask
                d = (k >> 1) & 7
                p = d if d < 4 else d + 1
                if bb < n:
                    blk[j] = block
                u[j] = a
                v[j] = a + (p // 3 - 1) * cols + (p % 3 - 1)
                w[j] = k >> wshift
                j += 1
    return blk, u, v, w


def decode_tree(chosen: np.ndarray, lay: KeyLayout, cols: int, bb: int):
    return _decode(len(chosen), chosen, lay.inf, lay.wshift, lay.index_mask, cols, bb,
                   max(1, min(256, len(chosen) >> 16)))


# --- a CPU reference on the implicit grid ---------------------------------------------------------

@numba.njit(cache=True, nogil=True)
def _grid_kruskal(vals, top):
    """Kruskal on the implicit grid with edges in packed-key order (weight, lower id, higher id):
    a counting sort by weight of the edges generated in (lower id, direction) order, which is
    (lower, higher) order. Returns the total weight and, per vertex, a bit for each of its forward
    directions E, SW, S, SE (4..7) whose edge is in the tree."""
    rows, cols = vals.shape
    n = rows * cols
    counts = np.zeros(top + 2, dtype=np.int64)
    for a in range(n):
        r = a // cols
        c = a - r * cols
        for d in range(4, 8):
            dr = (d + 1) // 3 - 1
            dc = (d + 1) % 3 - 1
            if r + dr < rows and 0 <= c + dc < cols:
                counts[max(vals[r, c], vals[r + dr, c + dc]) + 1] += 1
    for i in range(1, top + 2):
        counts[i] += counts[i - 1]
    order = np.empty(counts[top + 1], dtype=np.int64)
    for a in range(n):
        r = a // cols
        c = a - r * cols
        for d in range(4, 8):
            dr = (d + 1) // 3 - 1
            dc = (d + 1) % 3 - 1
            if r + dr < rows and 0 <= c + dc < cols:
                w = max(vals[r, c], vals[r + dr, c + dc])
                order[counts[w]] = a * 4 + d - 4
                counts[w] += 1
    parent = np.arange(n)
    mask = np.zeros(n, dtype=np.uint8)
    total = 0
    joined = 0
    for code in order:
        if joined == n - 1:
            break
        a = code // 4
        d = code - a * 4 + 4
        b = a + ((d + 1) // 3 - 1) * cols + (d + 1) % 3 - 1
        ra = a
        while parent[ra] != ra:
            parent[ra] = parent[parent[ra]]
            ra = parent[ra]
        rb = b
        while parent[rb] != rb:
            parent[rb] = parent[parent[rb]]
            rb = parent[rb]
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
            mask[a] |= np.uint8(1 << (d - 4))
            total += max(vals[a // cols, a % cols], vals[b // cols, b % cols])
            joined += 1
    return total, mask


@numba.njit(cache=True, nogil=True)
def _forward_mask(n, lower, d):
    mask = np.zeros(n, dtype=np.uint8)
    for i in range(len(lower)):
        mask[lower[i]] |= np.uint8(1 << (d[i] - 4))
    return mask


def grid_kruskal_cpu(values2d: np.ndarray):
    """(total weight, forward-edge bit mask) of the packed-key MST of a grid, on the CPU."""
    values2d = np.ascontiguousarray(values2d, dtype=np.int32)
    return _grid_kruskal(values2d, int(values2d.max()) if values2d.size else 0)


def verify_grid_tree(values2d: np.ndarray, tree, what: str = "GPU MST", reference=None) -> int:
    """Raise VerificationError unless ``tree`` is exactly the packed-key MST of the grid (the same
    edges as grid_kruskal_cpu, hence spanning, acyclic and of minimum weight). Returns its weight.
    ``reference``: grid_kruskal_cpu's answer, when the caller checks several trees of one grid."""
    values2d = np.asarray(values2d)
    rows, cols = values2d.shape
    want_weight, want = reference if reference is not None else grid_kruskal_cpu(values2d)
    u, v, w = (np.asarray(x, dtype=np.int64) for x in (tree.u, tree.v, tree.w))
    problem = None
    if len(u) != values2d.size - 1:
        problem = (f"{len(u)} edges, a spanning tree of {values2d.size} vertices has "
                   f"{values2d.size - 1}")
    else:
        a, b = np.minimum(u, v), np.maximum(u, v)
        dr, dc = b // cols - a // cols, b % cols - a % cols
        ok = (a >= 0) & (b < values2d.size) & (dr >= 0) & (dr <= 1) & (np.abs(dc) <= 1) & (a != b)
        flat = values2d.reshape(-1)
        if not ok.all():
            problem = "an edge is not a grid edge"
        elif not np.array_equal(np.maximum(flat[a], flat[b]), w):
            problem = "an edge's weight is not max(val(u), val(v))"
        else:
            got = _forward_mask(values2d.size, a, direction(dr, dc))
            if not np.array_equal(got, want):
                problem = "its edges differ from Kruskal's in packed-key order"
            elif int(w.sum()) != int(want_weight):
                problem = f"total weight {int(w.sum())}, the minimum is {int(want_weight)}"
    if problem:
        raise VerificationError(f"WRONG ANSWER: {what} on a {rows} x {cols} grid: {problem}")
    return int(want_weight)


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
