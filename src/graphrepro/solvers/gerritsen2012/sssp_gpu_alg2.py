"""gerritsen2012 section 5.4: phase 1's GPU algorithm 2 (Algorithm 9), kernel and host side.

``gpu_alg2`` (the ``PHASE1`` step "gpu_alg2"): many I/O-blocks at once, one CUDA block per
I/O-block with its values in shared memory, one thread per boundary source, each with its own
tournament tree (32- or 64-bit nodes, ``_alg2_wide``). The kernel is specialised on the block
side, so warm-ups must use a real block. ``alg2_memory_bound`` is section 5.4's bound on
blockSize x threads for the device at hand. Where we depart from the letter: ``sssp_gpu``.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu
from ...errors import InputError
from . import PHASE1, register_step
from .sssp_gpu_common import _check_values, _max_weight
from .types import Phase1Result

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
