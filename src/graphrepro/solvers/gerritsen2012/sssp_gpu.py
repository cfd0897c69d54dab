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
- Algorithm 1's "sqrt(C) + 5 threads" cannot give one thread to each of a GPU-block's 4 sqrt(C) - 4
  boundary vertices; we launch sqrt(C) + 5 threads as written and let each of the first sqrt(C)
  take every sqrt(C)-th boundary vertex.
- Algorithm 6 copies each GPU-block to the GPU; we copy the I/O-block once and index into it
  (the copies are a few kilobytes; the launches are what the thesis measured).
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu
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

    @cuda.jit
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
def gpu_alg2(values, threads: int = 0, **_unused) -> Phase1Result:
    """Boundary-to-boundary distances of every block, threads^2 blocks per launch."""
    t_start = time.perf_counter()
    cuda_mod = gpu.require_cuda()
    values = _check_values(values)
    nb, m, _ = values.shape
    if m > ALG2_MAX_SIDE:
        raise InputError(f"gpu_alg2 keeps an I/O-block in shared memory: side <= {ALG2_MAX_SIDE}, "
                         f"got {m}")
    k = 4 * m - 4
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
