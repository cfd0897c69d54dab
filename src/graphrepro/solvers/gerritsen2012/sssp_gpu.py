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

Where each part lives: algorithm 1's kernels in ``sssp_gpu_alg1_kernels`` and its host loop in
``sssp_gpu_alg1``; algorithm 2 in ``sssp_gpu_alg2``; the input check in ``sssp_gpu_common``.
This module re-exports them under ``sssp_gpu.<name>``.
"""

from __future__ import annotations

from .sssp_gpu_alg1 import VARIANTS, _leaf_maps, alg1_launch_arithmetic, gpu_alg1  # noqa: F401
from .sssp_gpu_alg2 import (ALG2_MAX_SIDE, _alg2_kernel, _alg2_wide,  # noqa: F401
                            alg2_bytes_per_block, alg2_memory_bound, gpu_alg2,
                            thesis_bytes_per_block)
from .sssp_gpu_common import BIG, INF, _check_values, _max_weight  # noqa: F401
