"""Phase 1 of the I/O-efficient SSSP on the GPU: gerritsen2012's two algorithms (chapter 5).

Phase 1 asks, for every I/O-block (side m) of the grid, the distance between every pair of its
boundary cells using only the block's own cells (weights |val(i) - val(j)|, 8 neighbours, zeros
allowed). Both algorithms are registered as PHASE1 steps and return a ``Phase1Result``.

``gpu_alg1`` (section 5.1, Algorithms 6-8), as written, launch for launch:
- Each I/O-block is cut into GPU-blocks of side c. For each GPU-block in turn the host runs the
  multi-source Harish loop of Algorithm 6: Algorithm 7 (relax into C_ua, atomicMin) and
  Algorithm 8 (fold C_ua into C_a, raise the flag) over the 2-D arrays M_a / C_a / C_ua, one row
  per boundary vertex of the GPU-block, then reads the terminate flag back: two launches and one
  host round trip per round; then C_a comes back to the host (line 11).
- Then, per boundary cell s of the I/O-block, a tournament tree over the boundary cells of all
  GPU-blocks (leaves grouped per GPU-block) is run from the host: per step a kernel of sqrt(C)+5
  threads finalises the root's vertex and lists the leaves to touch (its GPU-block's boundary and
  the <= 5 cells across a GPU-block border), a second updates those leaves and lists their parents
  (deduplicated), then one launch per tree level recomputes the listed nodes and lists theirs, up
  to the root; the host reads the root back to know whether the tree is empty. That is the
  thesis's 2 + ceil(log2(leaves)) launches per step ("about three million kernels per I/O-block
  for M = 64, C = 16"); the counters give the exact count, ``alg1_launch_arithmetic`` the thesis's.
- ``variant`` picks the launch shape of Algorithms 7/8 (sections 5.3.1, 5.3.2): "2d" one thread
  per cell looping over the boundary vertices; "3d" a third grid dimension for the boundary
  vertex, 8 threads per dimension (Table 5.2); "zorder" a 2-D grid whose x is the cell's Morton
  index inside the GPU-block and whose y is the boundary vertex (Table 5.3).
- ``limit_blocks`` stops after that many I/O-blocks (the thesis stopped long runs and
  extrapolated); ``dist`` then holds those blocks only and ``counters['blocks_done']`` says so.

``gpu_alg2`` (section 5.4, Algorithm 9): many I/O-blocks at once, one tournament-tree Dijkstra per
thread. One CUDA block per I/O-block, one thread per boundary source (the thesis looped over the
sources on the host; here they run side by side, which the memory of an H100 allows); the block's
values sit in shared memory; each thread owns a tournament tree of 2 m^2 packed (distance, vertex)
nodes, stored node-major so a warp's threads touch neighbouring words, 32-bit when the block's
distances fit and 64-bit otherwise. ``threads`` is the thesis's parameter: threads^2 I/O-blocks
per launch (0: as many as fit); ``alg2_memory_bound`` derives the bound on blockSize x threads
the thesis derives for its 200 MB, for the device at hand.

Where we depart from the letter, and why:
- Algorithm 9's ``done`` array is not kept: a settled vertex's leaf holds a SETTLED marker
  instead, which is what ``done`` was read for.
- Section 5.1's "sqrt(C) + 5 threads" cannot give one thread to each of a GPU-block's
  4 sqrt(C) - 4 boundary vertices; we launch sqrt(C) + 5 threads as written and let each of the
  first sqrt(C) take every sqrt(C)-th boundary vertex.
- The set c_i of nodes to recompute is deduplicated with a stamp per node (the first thread to
  raise a node's stamp to the current stage lists it), so it halves per level as the thesis says;
  each level's launch is sized by a bound on the list (a contiguous run's ancestors plus <= 5).
- Algorithm 1's times are host wall-clock (launches, read-backs and all): its cost is the host
  driving the GPU, which CUDA events between two points on the stream would not see.
- Algorithm 6 copies each GPU-block to the GPU; we copy the I/O-block once and index into it
  (the copies are a few kilobytes; the launches are what the thesis measured).
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu, launch
from ...errors import InputError
from . import PHASE1, register_step
from .types import Phase1Result, boundary_cells

INF = np.iinfo(np.int64).max
BIG = np.int64(1) << 62  # "not reached" inside kernels: BIG + any weight cannot overflow
VARIANTS = ("2d", "3d", "zorder")


def _check_values(values) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 3 or values.shape[1] != values.shape[2]:
        raise InputError(f"phase 1 takes I/O-blocks as an array (blocks, m, m), got shape {values.shape}")
    if values.shape[1] < 2:
        raise InputError("an I/O-block needs side >= 2")
    if not np.issubdtype(values.dtype, np.integer):
        raise InputError(f"elevations must be integers, got {values.dtype}")
    if values.size and (values.min() < 0 or values.max() > np.iinfo(np.int32).max):
        raise InputError("elevations must lie in 0..2^31-1 (the thesis's conversion makes them so)")
    return np.ascontiguousarray(values, dtype=np.int32)


def _max_weight(values: np.ndarray) -> int:
    """An upper bound on any edge weight in the blocks: the spread of their values."""
    return int(values.max()) - int(values.min()) if values.size else 0


# ---------------------------------------------------------------------------------------------
# GPU algorithm 1 (section 5.1, Algorithms 6-8)
# ---------------------------------------------------------------------------------------------
_alg1_kernels = {}


@cuda.jit(device=True)
def _boundary_cell(j, c):
    """Local row-major id of the j-th boundary cell of a c x c block (boundary_cells order)."""
    if j < c:
        return j
    if j < c + 2 * (c - 2):
        return (1 + (j - c) // 2) * c + (0 if (j - c) % 2 == 0 else c - 1)
    return (c - 1) * c + (j - c - 2 * (c - 2))


@cuda.jit(device=True)
def _morton_decode(z):
    """(row, column) of Morton index z: the column takes the even bits (terrain.morton's rule)."""
    x = 0
    y = 0
    for b in range(16):
        x |= ((z >> (2 * b)) & 1) << b
        y |= ((z >> (2 * b + 1)) & 1) << b
    return y, x


@cuda.jit(device=True)
def _relax_cell(block, y0, x0, c, vi, idx, m_a, c_a, c_ua):
    """Algorithm 7's body for one (boundary vertex, cell) pair."""
    if m_a[vi, idx] == 0:
        return
    m_a[vi, idx] = 0
    iy = idx // c
    ix = idx % c
    here = c_a[vi, idx]
    val = block[y0 + iy, x0 + ix]
    for ny in range(max(iy - 1, 0), min(iy + 2, c)):
        for nx in range(max(ix - 1, 0), min(ix + 2, c)):
            if ny != iy or nx != ix:
                cuda.atomic.min(c_ua, (vi, ny * c + nx), here + abs(val - block[y0 + ny, x0 + nx]))


@cuda.jit(device=True)
def _fold_cell(vi, idx, m_a, c_a, c_ua, flag):
    """Algorithm 8's body for one (boundary vertex, cell) pair."""
    if c_a[vi, idx] > c_ua[vi, idx]:
        c_a[vi, idx] = c_ua[vi, idx]
        m_a[vi, idx] = 1
        flag[0] = 1
    c_ua[vi, idx] = c_a[vi, idx]


@cuda.jit(cache=True)
def _alg6_init(c, m_a, c_a, c_ua):
    """Algorithm 6 line 1: M_a true and C_a = 0 exactly at (v, v) for each boundary vertex v."""
    idx, vi = cuda.grid(2)
    if vi < m_a.shape[0] and idx < c * c:
        own = _boundary_cell(vi, c) == idx
        m_a[vi, idx] = 1 if own else 0
        c_a[vi, idx] = 0 if own else BIG
        c_ua[vi, idx] = c_a[vi, idx]


@cuda.jit(cache=True)
def _alg7_2d(block, y0, x0, c, m_a, c_a, c_ua, flag):
    ix, iy = cuda.grid(2)
    if ix == 0 and iy == 0:
        flag[0] = 0  # on the device, so a round has one host round trip: the read
    if ix < c and iy < c:
        for vi in range(m_a.shape[0]):
            _relax_cell(block, y0, x0, c, vi, iy * c + ix, m_a, c_a, c_ua)


@cuda.jit(cache=True)
def _alg8_2d(c, m_a, c_a, c_ua, flag):
    ix, iy = cuda.grid(2)
    if ix < c and iy < c:
        for vi in range(m_a.shape[0]):
            _fold_cell(vi, iy * c + ix, m_a, c_a, c_ua, flag)


@cuda.jit(cache=True)
def _alg7_3d(block, y0, x0, c, m_a, c_a, c_ua, flag):
    ix, iy, vi = cuda.grid(3)
    if ix == 0 and iy == 0 and vi == 0:
        flag[0] = 0
    if ix < c and iy < c and vi < m_a.shape[0]:
        _relax_cell(block, y0, x0, c, vi, iy * c + ix, m_a, c_a, c_ua)


@cuda.jit(cache=True)
def _alg8_3d(c, m_a, c_a, c_ua, flag):
    ix, iy, vi = cuda.grid(3)
    if ix < c and iy < c and vi < m_a.shape[0]:
        _fold_cell(vi, iy * c + ix, m_a, c_a, c_ua, flag)


@cuda.jit(cache=True)
def _alg7_zorder(block, y0, x0, c, m_a, c_a, c_ua, flag):
    z, vi = cuda.grid(2)
    if z == 0 and vi == 0:
        flag[0] = 0
    if z < c * c and vi < m_a.shape[0]:
        iy, ix = _morton_decode(z)
        _relax_cell(block, y0, x0, c, vi, iy * c + ix, m_a, c_a, c_ua)


@cuda.jit(cache=True)
def _alg8_zorder(c, m_a, c_a, c_ua, flag):
    z, vi = cuda.grid(2)
    if z < c * c and vi < m_a.shape[0]:
        iy, ix = _morton_decode(z)
        _fold_cell(vi, iy * c + ix, m_a, c_a, c_ua, flag)


@cuda.jit(cache=True)
def _tree_reset(tree, final, dist):
    i = cuda.grid(1)
    if i < tree.shape[0]:
        tree[i] = INF
    if i < final.shape[0]:
        final[i] = 0
        dist[i] = BIG


@cuda.jit(cache=True)
def _tree_seed(tree, dist, leaves, leaf):
    """The source's leaf gets key 0, propagated to the root (one thread)."""
    if cuda.grid(1) == 0:
        dist[leaf] = 0
        i = leaves + leaf
        while i >= 1:
            tree[i] = leaf  # packed (0, leaf)
            i >>= 1


@cuda.jit(device=True)
def _claim(stamp, node, stage, lists, sizes, out):
    """Put node on list `out` once per stage: the first thread to raise its stamp adds it."""
    if node >= 1 and cuda.atomic.max(stamp, node, stage) < stage:
        lists[out, cuda.atomic.add(sizes, out, 1)] = node


@cuda.jit(cache=True)
def _step_a(tree, final, dist, bits, c, kc, m, leaf_cell, cell_leaf, gb_side, lists, sizes):
    """Finalise the root's vertex; list its GPU-block's boundary leaves and the <= 5 leaves
    across a GPU-block border from it (sqrt(C) + 5 threads)."""
    t = cuda.grid(1)
    root = tree[1]
    u = root & ((1 << bits) - 1)
    dist[u] = root >> bits
    final[u] = 1
    if t == 0:
        sizes[0] = kc + 5
        sizes[1] = 0  # step B appends to list 1
    gb = u // kc
    if t < c:
        for j in range(t, kc, c):
            lists[0, j] = gb * kc + j
    elif t < c + 5:
        e = t - c
        cell = leaf_cell[u]
        uy = cell // m
        ux = cell % m
        found = 0
        lists[0, kc + e] = -1
        for ny in range(max(uy - 1, 0), min(uy + 2, m)):
            for nx in range(max(ux - 1, 0), min(ux + 2, m)):
                if (ny // c) * gb_side + nx // c != gb:
                    if found == e:
                        lists[0, kc + e] = cell_leaf[ny * m + nx]
                    found += 1


@cuda.jit(device=True)
def _update_leaf(j, u, du, gb, tree, final, dist, bits, kc, leaves, block, leaf_cell, m, dg,
                 lists, sizes, stamp, stage):
    w = lists[0, j]
    if w < 0:
        return
    if w == u:
        tree[leaves + w] = INF  # finalised: out of the tournament
    elif final[w] == 0:
        if w // kc == gb:  # same GPU-block: its distance from part 1
            weight = dg[gb, u - gb * kc, w - gb * kc]
        else:  # across a GPU-block border: the grid edge
            a = leaf_cell[u]
            b = leaf_cell[w]
            weight = abs(block[a // m, a % m] - block[b // m, b % m])
        candidate = du + weight
        if candidate < dist[w]:
            dist[w] = candidate
            tree[leaves + w] = (candidate << bits) | w
    _claim(stamp, (leaves + w) >> 1, stage, lists, sizes, 1)


@cuda.jit(cache=True)
def _step_b(tree, final, dist, bits, c, kc, leaves, block, leaf_cell, m, dg, lists, sizes, stamp,
            stage):
    """Update the listed leaves from the finalised vertex (sqrt(C) + 5 threads); list their
    parents, each once."""
    t = cuda.grid(1)
    root = tree[1]
    u = root & ((1 << bits) - 1)
    du = root >> bits
    gb = u // kc
    if t == 0:
        sizes[2] = 0  # the first level appends to list 2
    if t < c:
        for j in range(t, kc, c):
            _update_leaf(j, u, du, gb, tree, final, dist, bits, kc, leaves, block, leaf_cell, m,
                         dg, lists, sizes, stamp, stage)
    elif t < c + 5:
        _update_leaf(kc + t - c, u, du, gb, tree, final, dist, bits, kc, leaves, block, leaf_cell,
                     m, dg, lists, sizes, stamp, stage)


@cuda.jit(cache=True)
def _step_level(tree, level, lists, sizes, stamp, stage):
    """Recompute the nodes on list level % 3 from their children; list their parents on the
    next list, each once. Three lists rotate so a launch zeroes the one the next appends to."""
    t = cuda.grid(1)
    which = level % 3
    if t == 0:
        sizes[(level + 2) % 3] = 0
    if t < sizes[which]:
        node = lists[which, t]
        left = tree[2 * node]
        right = tree[2 * node + 1]
        tree[node] = left if left < right else right
        _claim(stamp, node >> 1, stage, lists, sizes, (level + 1) % 3)


def alg1_launch_arithmetic(m: int, c: int) -> dict:
    """The thesis's count of part-2 launches per I/O-block (section 5.1, after Table 5.1): each
    of the (m/c)^2 (4c - 4) GPU-block boundary vertices costs 2 + ceil(log2 of that) launches,
    for each of the 4m - 4 boundary vertices of the I/O-block."""
    leaves = (m // c) ** 2 * (4 * c - 4)
    per_step = 2 + math.ceil(math.log2(leaves))
    return {"leaves": leaves, "launches_per_step": per_step,
            "launches_per_source": leaves * per_step,
            "launches_per_block": leaves * per_step * (4 * m - 4)}


def _leaf_maps(m: int, c: int):
    """Leaves grouped per GPU-block (row-major GPU-blocks, boundary_cells order inside):
    cell (I/O-block row-major) of each leaf, and leaf of each cell (-1 inside a GPU-block)."""
    side = m // c
    local = boundary_cells(c)
    leaf_cell = np.empty(side * side * len(local), dtype=np.int64)
    for gb in range(side * side):
        gy, gx = divmod(gb, side)
        leaf_cell[gb * len(local):(gb + 1) * len(local)] = \
            (gy * c + local // c) * m + gx * c + local % c
    cell_leaf = np.full(m * m, -1, dtype=np.int64)
    cell_leaf[leaf_cell] = np.arange(len(leaf_cell))
    return leaf_cell, cell_leaf


@register_step(PHASE1, "gpu_alg1")
def gpu_alg1(values, c: int = 16, variant: str = "2d", limit_blocks: int = 0,
             progress=None) -> Phase1Result:
    """Boundary-to-boundary distances, GPU algorithm 1, one I/O-block after another.

    ``progress(part, done, total)`` is called after each GPU-block of part 1 and each I/O-block
    boundary vertex of part 2: runs that take hours are stopped and extrapolated from it, as the
    thesis extrapolated Table 5.1 (every part-2 source walks the same tournament tree, so the
    time per boundary vertex is steady)."""
    t_start = time.perf_counter()
    cuda_mod = gpu.require_cuda()
    values = _check_values(values)
    nb, m, _ = values.shape
    c, limit_blocks, variant = int(c), int(limit_blocks), str(variant)  # run ids give strings
    if variant not in VARIANTS:
        raise InputError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    if c < 2 or c & (c - 1) or m % c or c > 512:
        raise InputError(f"GPU-block side c must be a power of two in 2..512 (sqrt(C) + 5 threads "
                         f"in one CUDA block) dividing the I/O-block side {m}, got {c}")
    if limit_blocks < 0:
        raise InputError(f"limit_blocks must be >= 0 (0: every block), got {limit_blocks}")
    todo = nb if limit_blocks == 0 else min(nb, limit_blocks)
    k = 4 * m - 4
    kc = 4 * c - 4
    gb_side = m // c
    leaves = gb_side * gb_side * kc
    levels = max(1, (leaves - 1).bit_length())
    padded = 1 << levels
    bits = max(1, (leaves - 1).bit_length())
    part1_bytes = kc * c * c * (1 + 8 + 8)
    part2_bytes = (gb_side * gb_side * kc * kc * 8 + 2 * padded * 8 * 2 + leaves * 9
                   + 3 * (kc + 5) * 8 + m * m * 12)
    gpu.check_fits(part1_bytes + part2_bytes + m * m * 4,
                   f"gpu_alg1 with M = {m}^2, C = {c}^2 (C_a, C_ua, M_a of {kc} x {c * c})")
    io_boundary = boundary_cells(m)
    leaf_cell, cell_leaf = _leaf_maps(m, c)
    source_leaves = cell_leaf[io_boundary]
    local_boundary = boundary_cells(c)
    d_leaf_cell = cuda_mod.to_device(leaf_cell)
    d_cell_leaf = cuda_mod.to_device(cell_leaf)
    m_a = cuda_mod.device_array((kc, c * c), dtype=np.uint8)
    c_a = cuda_mod.device_array((kc, c * c), dtype=np.int64)
    c_ua = cuda_mod.device_array((kc, c * c), dtype=np.int64)
    flag = cuda_mod.device_array(1, dtype=np.int32)
    tree = cuda_mod.device_array(2 * padded, dtype=np.int64)
    stamp = cuda_mod.to_device(np.zeros(2 * padded, dtype=np.int64))
    final = cuda_mod.device_array(leaves, dtype=np.uint8)
    dist_leaf = cuda_mod.device_array(leaves, dtype=np.int64)
    lists = cuda_mod.device_array((3, kc + 5), dtype=np.int64)
    sizes = cuda_mod.to_device(np.zeros(3, dtype=np.int64))
    pinned = gpu.simulated() or not hasattr(cuda_mod, "pinned_array")
    flag_host = np.zeros(1, np.int32) if pinned else cuda_mod.pinned_array(1, np.int32)
    root_host = np.zeros(1, np.int64) if pinned else cuda_mod.pinned_array(1, np.int64)
    dist_host = np.empty(leaves, np.int64)
    c_a_host = np.empty((kc, c * c), np.int64)
    # launch shapes of Algorithms 7/8 (and their initialisation)
    if variant == "2d":
        tpb7 = (min(c, 16), min(c, 16))
        grid7 = (-(-c // tpb7[0]), -(-c // tpb7[1]))
        alg7, alg8 = _alg7_2d, _alg8_2d
    elif variant == "3d":
        tpb7 = (min(c, 8), min(c, 8), 8)  # Table 5.2: 8 threads in every direction
        grid7 = (-(-c // tpb7[0]), -(-c // tpb7[1]), -(-kc // 8))
        alg7, alg8 = _alg7_3d, _alg8_3d
    else:
        tpb7 = (min(c * c, 64), 8)  # Morton index along x, boundary vertex along y
        grid7 = (-(-(c * c) // tpb7[0]), -(-kc // 8))
        alg7, alg8 = _alg7_zorder, _alg8_zorder
    init_tpb = (min(c * c, 64), 8)
    init_grid = (-(-(c * c) // init_tpb[0]), -(-kc // 8))
    reset_grid = gpu.blocks_for(2 * padded, 256)
    step_threads = c + 5  # "sqrt(C) + 5 threads", as written
    # Every launch and read of the loops below prepared once (graphrepro.launch): the loops are
    # then only launches, at native cost. The I/O-block and its G' live in buffers made once,
    # so the prepared launches keep their pointers; the arguments that change (the GPU-block's
    # corner, the source leaf, the stage stamp) are rewritten in place before each launch.
    block = cuda_mod.device_array(values.shape[1:], dtype=values.dtype)
    d_dg = cuda_mod.device_array((gb_side * gb_side, kc, kc), dtype=np.int64)
    init_k = launch.Launch(_alg6_init, init_grid, init_tpb, None, c, m_a, c_a, c_ua)
    alg7_k = launch.Launch(alg7, grid7, tpb7, None, block, 0, 0, c, m_a, c_a, c_ua, flag)
    alg8_k = launch.Launch(alg8, grid7, tpb7, None, c, m_a, c_a, c_ua, flag)
    read_flag = launch.Read(None, flag, flag_host)
    reset_k = launch.Launch(_tree_reset, reset_grid, 256, None, tree, final, dist_leaf)
    seed_k = launch.Launch(_tree_seed, 1, 1, None, tree, dist_leaf, padded, 0)
    step_a_k = launch.Launch(_step_a, 1, step_threads, None, tree, final, dist_leaf, bits, c, kc,
                             m, d_leaf_cell, d_cell_leaf, gb_side, lists, sizes)
    step_b_k = launch.Launch(_step_b, 1, step_threads, None, tree, final, dist_leaf, bits, c, kc,
                             padded, block, d_leaf_cell, m, d_dg, lists, sizes, stamp, 0)
    root = tree[1:2]
    read_root = launch.Read(None, root, root_host)
    level_k = []
    width = kc + 5
    for level in range(1, levels + 1):  # one launch per tree level, to the root
        # the listed nodes: a contiguous run's ancestors and <= 5 others'
        width = min(-(-width // 2) + 6, padded >> level)
        level_k.append(launch.Launch(_step_level, gpu.blocks_for(width, 256), min(256, width),
                                     None, tree, level, lists, sizes, stamp, 0))
    dist = np.empty((todo, k, k), dtype=np.int64)
    counters = {"kernel_launches": 0, "host_round_trips": 0, "rounds": 0,
                "part1_launches": 0, "part2_launches": 0, "tree_steps": 0,
                "copies_to_device": 4, "copies_to_host": 0}
    timings = {"part1": 0.0, "part2": 0.0}
    stage = 0
    for b in range(todo):
        t0 = time.perf_counter()
        block.copy_to_device(values[b])
        counters["copies_to_device"] += 1
        dg = np.empty((gb_side * gb_side, kc, kc), dtype=np.int64)
        launches = 0
        for gb in range(gb_side * gb_side):  # Algorithm 6, one GPU-block at a time
            alg7_k.set(1, (gb // gb_side) * c)
            alg7_k.set(2, (gb % gb_side) * c)
            init_k()
            launches += 1
            for _ in range(c * c + 1):  # Bellman-Ford needs at most c^2 - 1 improving rounds
                alg7_k()
                alg8_k()
                launches += 2
                counters["rounds"] += 1
                flag_now = read_flag()
                counters["host_round_trips"] += 1
                if flag_now[0] == 0:
                    break
            else:
                raise RuntimeError(f"gpu_alg1: Harish did not settle in {c * c + 1} rounds")
            c_a.copy_to_host(c_a_host)  # Algorithm 6 line 11
            counters["copies_to_host"] += 1
            dg[gb] = c_a_host[:, local_boundary]
            if progress is not None:
                progress("part1", gb + 1, gb_side * gb_side)
        counters["part1_launches"] += launches
        counters["kernel_launches"] += launches
        t1 = time.perf_counter()
        timings["part1"] += (t1 - t0) * 1e3
        d_dg.copy_to_device(dg)
        counters["copies_to_device"] += 1
        launches = 0
        for s, leaf in enumerate(source_leaves):  # the tournament tree, per boundary vertex
            seed_k.set(3, int(leaf))
            reset_k()
            seed_k()
            launches += 2
            for _ in range(leaves + 1):  # each leaf is finalised once; then the tree is empty
                root_now = read_root()
                counters["host_round_trips"] += 1
                if root_now[0] == INF:
                    break
                counters["tree_steps"] += 1
                step_a_k()
                stage += 1
                step_b_k.set(14, stage)
                step_b_k()
                launches += 2
                for kernel in level_k:
                    stage += 1
                    kernel.set(5, stage)
                    kernel()
                launches += levels
            else:
                raise RuntimeError(f"gpu_alg1: the tournament tree was not empty after {leaves} "
                                   f"steps")
            dist_leaf.copy_to_host(dist_host)
            counters["copies_to_host"] += 1
            dist[b, s] = dist_host[source_leaves]
            if progress is not None:
                progress("part2", s + 1, len(source_leaves))
        counters["part2_launches"] += launches
        counters["kernel_launches"] += launches
        timings["part2"] += (time.perf_counter() - t1) * 1e3
    timings["total"] = (time.perf_counter() - t_start) * 1e3
    counters.update(blocks_done=todo, blocks_total=nb, gpu_blocks_per_io_block=gb_side ** 2,
                    leaves=leaves, tree_levels=levels,
                    thesis_launches_per_block=alg1_launch_arithmetic(m, c)["launches_per_block"])
    return Phase1Result(dist, timings, counters)


# ---------------------------------------------------------------------------------------------
# GPU algorithm 2 (section 5.4, Algorithm 9)
# ---------------------------------------------------------------------------------------------
_alg2_kernels = {}
ALG2_MAX_SIDE = 64  # the block's values live in shared memory (16 KiB at 64 x 64)


def _alg2_kernel(m: int, wide: bool):
    """The kernel for I/O-blocks of side m; ``wide``: 64-bit tree nodes, else 32-bit."""
    key = (m, wide)
    if key in _alg2_kernels:
        return _alg2_kernels[key]
    n = m * m
    bits = max(1, (n - 1).bit_length())
    mask = (1 << bits) - 1
    top = (1 << 63) - 1 if wide else (1 << 31) - 1
    settled_mark = top  # a settled vertex's leaf: never popped again, never relaxed
    unreached = top - 1  # larger than every packed (distance, vertex)
    k = 4 * m - 4
    depth = bits if n == 1 << bits else 0  # leaves n..2n-1 all at one depth when n is 2^bits

    @cuda.jit(device=True)
    def boundary_index(r, c):
        if r == 0:
            return c
        if r == m - 1:
            return m + 2 * (m - 2) + c
        if c == 0:
            return m + 2 * (r - 1)
        if c == m - 1:
            return m + 2 * (r - 1) + 1
        return -1

    @cuda.jit(cache=True)
    def dijkstra_per_source(values, first, tree, out):
        shared_values = cuda.shared.array(n, np.int32)
        b = cuda.blockIdx.x
        block = first + b
        s = cuda.threadIdx.x
        for i in range(s, n, cuda.blockDim.x):
            shared_values[i] = values[block, i // m, i % m]
        cuda.syncthreads()
        if s >= k:
            return
        t = b * k + s  # this thread's column in the node-major tree array
        for i in range(1, 2 * n):
            tree[i, t] = unreached
        # the s-th boundary cell, in boundary_cells(m) order
        if s < m:
            src = s
        elif s < m + 2 * (m - 2):
            src = (1 + (s - m) // 2) * m + (0 if (s - m) % 2 == 0 else m - 1)
        else:
            src = (m - 1) * m + (s - m - 2 * (m - 2))
        i = n + src
        while i >= 1:  # distance 0, up to the root
            tree[i, t] = src
            i >>= 1
        for _ in range(n):
            root = tree[1, t]
            if root >= unreached:
                break
            u = root & mask
            du = root >> bits
            ur = u // m
            uc = u % m
            j = boundary_index(ur, uc)
            if j >= 0:
                out[b, s, j] = du
            # pop: the leaf leaves the tournament, its path to the root is replayed
            i = n + u
            tree[i, t] = settled_mark
            best = settled_mark
            if depth > 0:  # every leaf at one depth: a fixed trip count the compiler unrolls
                for _ in range(depth):
                    other = tree[i ^ 1, t]
                    if other < best:
                        best = other
                    i >>= 1
                    tree[i, t] = best
            else:
                while i > 1:
                    other = tree[i ^ 1, t]
                    if other < best:
                        best = other
                    i >>= 1
                    tree[i, t] = best
            vu = shared_values[u]
            for r in range(max(ur - 1, 0), min(ur + 2, m)):
                for c in range(max(uc - 1, 0), min(uc + 2, m)):
                    if r == ur and c == uc:
                        continue
                    v = r * m + c
                    leaf = tree[n + v, t]
                    if leaf == settled_mark:
                        continue
                    candidate = ((du + abs(vu - shared_values[v])) << bits) | v
                    if candidate < leaf:  # decrease-key: climb while the parent is larger
                        i = n + v
                        while i >= 1 and tree[i, t] > candidate:
                            tree[i, t] = candidate
                            i >>= 1

    _alg2_kernels[key] = dijkstra_per_source
    return dijkstra_per_source


def _alg2_wide(m: int, max_weight: int) -> bool:
    """64-bit tree nodes unless every packed (distance, vertex) fits 31 bits.

    A king-move straight path joins any two cells of an m x m block in m - 1 steps, so no
    shortest distance inside the block exceeds (m - 1) * max_weight."""
    bits = max(1, (m * m - 1).bit_length())
    return ((m - 1) * max_weight) >= ((1 << 31) - 2) >> bits


def alg2_bytes_per_block(m: int, wide: bool = True) -> int:
    """Device bytes our Algorithm 9 holds per I/O-block in flight: trees, values, output."""
    k = 4 * m - 4
    return k * 2 * m * m * (8 if wide else 4) + m * m * 4 + k * k * 8


def thesis_bytes_per_block(m: int) -> int:
    """Section 5.4's four structures per block: block (int), done (bool), dists (int) and a
    tournament tree of 2 m^2 - 1 nodes holding idx (int), key (int) and infinite (bool)."""
    return m * m * (4 + 1 + 4) + (2 * m * m - 1) * (4 + 4 + 1)


def alg2_memory_bound(block_size: int, free_bytes: int | None = None) -> dict:
    """The bound on blockSize x threads (section 5.4) for memory ``free_bytes`` (default: what
    the current GPU has free).

    The thesis keeps threads^2 blocks on the GPU at once, each with its four structures, so
    threads^2 * thesis_bytes_per_block(blockSize) <= memory. It found blockSize x threads <= 1024
    on its ~200 MB. We also give the bound for our implementation, which runs every boundary
    source of a block at once (one tree per source)."""
    m = int(block_size)
    if free_bytes is None:
        if gpu.simulated() or not gpu.cuda_available():
            raise InputError("alg2_memory_bound needs a GPU to ask for its free memory "
                             "(or pass free_bytes)")
        free_bytes, _ = cuda.current_context().get_memory_info()
    thesis_blocks = free_bytes // thesis_bytes_per_block(m)
    thesis_threads = math.isqrt(int(thesis_blocks))
    ours_blocks = free_bytes // alg2_bytes_per_block(m, wide=True)
    ours_threads = math.isqrt(int(ours_blocks))
    return {"block_size": m, "memory_bytes": int(free_bytes),
            "thesis_bytes_per_block": thesis_bytes_per_block(m),
            "thesis_threads": thesis_threads, "thesis_blocksize_x_threads": m * thesis_threads,
            "thesis_vertices_at_once": (m * thesis_threads) ** 2,
            "ours_bytes_per_block": alg2_bytes_per_block(m, wide=True),
            "ours_threads": ours_threads, "ours_blocksize_x_threads": m * ours_threads,
            "ours_vertices_at_once": (m * ours_threads) ** 2}


@register_step(PHASE1, "gpu_alg2")
def gpu_alg2(values, threads: int = 0) -> Phase1Result:
    """Boundary-to-boundary distances of every block, threads^2 blocks per launch."""
    t_start = time.perf_counter()
    cuda_mod = gpu.require_cuda()
    values = _check_values(values)
    nb, m, _ = values.shape
    if m > ALG2_MAX_SIDE:
        raise InputError(f"gpu_alg2 keeps an I/O-block in shared memory: side <= {ALG2_MAX_SIDE}, "
                         f"got {m}")
    k = 4 * m - 4
    threads = int(threads)  # run ids give strings
    wide = _alg2_wide(m, _max_weight(values))
    per_block = alg2_bytes_per_block(m, wide)
    if threads < 0:
        raise InputError(f"threads must be >= 0 (0: as many blocks as fit), got {threads}")
    if threads == 0:
        if gpu.simulated():
            batch = nb
        else:
            free, _ = cuda_mod.current_context().get_memory_info()
            batch = max(1, int(free * 0.8) // per_block)
        batch = max(1, min(nb, batch))
    else:
        batch = max(1, min(nb, threads * threads))
    gpu.check_fits(batch * per_block + values.nbytes, f"gpu_alg2 with {batch} blocks of {m} x {m}")
    kernel = _alg2_kernel(m, wide)
    stream = cuda_mod.stream()
    dist = np.empty((nb, k, k), dtype=np.int64)
    timings = {"upload": 0.0, "kernel": 0.0, "download": 0.0}
    arrays, timings["upload"] = gpu.upload(cuda_mod, {"values": values}, stream=stream)
    d_values = arrays["values"]
    tree = cuda_mod.device_array((2 * m * m, batch * k), dtype=np.int64 if wide else np.int32,
                                 stream=stream)
    out = cuda_mod.device_array((batch, k, k), dtype=np.int64, stream=stream)
    launches = 0
    for first in range(0, nb, batch):
        count = min(batch, nb - first)
        with gpu.DeviceTimer(stream).measure() as t:
            kernel[count, max(32, -(-k // 32) * 32), stream](d_values, first, tree, out)
        timings["kernel"] += t["ms"]
        launches += 1
        with gpu.DeviceTimer(stream).measure() as t:
            out[:count].copy_to_host(dist[first:first + count], stream=stream)
            stream.synchronize()
        timings["download"] += t["ms"]
    timings["total"] = (time.perf_counter() - t_start) * 1e3
    return Phase1Result(dist, timings, {
        "kernel_launches": launches, "host_round_trips": launches, "rounds": launches,
        "blocks_per_launch": batch, "threads_per_launch": batch * k,
        "tree_bytes": int(tree.nbytes), "node_bits": 64 if wide else 32,
        "dijkstras": nb * k})


# its kernel is specialised on the block side (and node width): warm-ups must use a real block
gpu_alg2.specialises_on_side = True
gpu_alg1.reports_progress = True
