"""gerritsen2012 section 5.1: phase 1's GPU algorithm 1, the host side (Algorithms 6-8).

``gpu_alg1`` (the ``PHASE1`` step "gpu_alg1") drives the kernels of ``sssp_gpu_alg1_kernels``
launch for launch as the thesis wrote them, one I/O-block after another: part 1 the Harish loop
per GPU-block with a flag read per round, part 2 a tournament tree per boundary vertex with a
root read per step. ``alg1_launch_arithmetic`` is the thesis's count of those launches. What the
algorithm is and where we depart from the letter: ``sssp_gpu``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ... import gpu, launch
from ...errors import InputError
from . import PHASE1, register_step
from .sssp_gpu_alg1_kernels import (_alg6_init, _alg7_2d, _alg7_3d, _alg7_zorder, _alg8_2d, _alg8_3d,
                                    _alg8_zorder, _step_a, _step_b, _step_level, _tree_reset,
                                    _tree_seed)
from .sssp_gpu_common import INF, _check_values
from .types import Phase1Result, boundary_cells

VARIANTS = ("2d", "3d", "zorder")


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


gpu_alg1.reports_progress = True
