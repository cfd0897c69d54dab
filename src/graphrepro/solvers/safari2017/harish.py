"""Harish et al.'s two-kernel SSSP, as safari2017 restates it (Section 2.4, Algorithms 3-5).

One thread per vertex. Kernel 1 relaxes the out-arcs of every flagged vertex into ``up`` with one
atomicMin (the paper's single atomic statement); kernel 2 folds ``up`` into ``d``, flags the
vertices that improved and raises ``f``. The host launches both kernels and reads ``f`` back each
iteration: two launches and one host round trip per iteration, the costs Table 2 charges it with.
The two launches and the read of ``f`` are captured once as a CUDA graph and replayed each
iteration (``graphrepro.launch``): the same launches and read, at a native host loop's cost.

Where we depart from the letter of Alg. 3, and why:
- ``f := false`` is done on the device by kernel 1 (its first thread) rather than by a host write,
  so each iteration still has exactly one host round trip, the read of ``f``.
- Distances are int64 (the paper's arrays are 32-bit) so that no path sum can overflow; the space
  this costs is reported beside Table 2's 4V+2A.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, types  # module level: the CUDA simulator swaps `cuda` inside kernels

from ... import gpu, launch
from ..base import INF, SolveResult, register

THREADS_PER_BLOCK = 256
_kernels = {}


# Alg. 5 (kernel 2) needs no counters, so one compiled copy serves both modes and the launch
# floor's Harish round (harness.launch_floor) times this very kernel.
@cuda.jit(cache=True)
def update(d, up, fa, f):
    v = cuda.grid(1)
    if v < d.shape[0]:
        if d[v] > up[v]:
            d[v] = up[v]
            fa[v] = 1
            f[0] = 1
        up[v] = d[v]


def _compile(count: bool):
    """Kernels for one mode; ``count`` adds the instrumentation that costs time."""
    if count in _kernels:
        return _kernels[count]

    @cuda.jit(cache=True)
    def initialise(d, up, fa, source):
        v = cuda.grid(1)
        if v < d.shape[0]:
            d[v] = INF
            up[v] = INF
            fa[v] = 0
            if v == source:
                d[v] = 0
                up[v] = 0
                fa[v] = 1

    @cuda.jit(cache=True)
    def kernel1(indptr, indices, weights, d, up, fa, f, counters):
        # Counting mode tallies in registers, then in the block's shared memory, and adds the
        # block's sums to its own column of `counters` (2 x blocks, no global atomics): one
        # global counter that every active thread hit (twice per improving arc) made a counting
        # pass five times a timed solve on western (1.3e9 same-address atomics a solve).
        tally = cuda.shared.array(2, types.int64)
        if count:
            if cuda.threadIdx.x == 0:
                tally[0] = 0
                tally[1] = 0
            cuda.syncthreads()
        u = cuda.grid(1)
        if u == 0:
            f[0] = 0  # Alg. 3 line 3, on the device: kernel 2 runs after this whole kernel
        relaxed = 0
        improving = 0
        if u < d.shape[0] and fa[u] != 0:
            fa[u] = 0
            du = d[u]
            start = indptr[u]
            stop = indptr[u + 1]
            for e in range(start, stop):
                old = cuda.atomic.min(up, indices[e], du + weights[e])
                if count and du + weights[e] < old:
                    improving += 1
            relaxed = stop - start
        if count:
            if relaxed:
                cuda.atomic.add(tally, 0, relaxed)
            if improving:
                cuda.atomic.add(tally, 1, improving)
            cuda.syncthreads()
            if cuda.threadIdx.x == 0 and (tally[0] or tally[1]):
                counters[0, cuda.blockIdx.x] += tally[0]  # this block's column: no race
                counters[1, cuda.blockIdx.x] += tally[1]

    _kernels[count] = (initialise, kernel1, update)
    return _kernels[count]


# The arrays the algorithm keeps on the device, as safari2017's Table 2 counts space (one word
# an entry, whatever dtype we chose: int64 distances, a byte mask), by what each is indexed by:
# "V" per vertex (the CSR offsets count as one, their extra entry aside), "A" per arc, "1" a
# constant. The counters array is our instrumentation, not the algorithm's.
# tests/test_space_words.py checks these against the arrays a prepared solver holds.
DEVICE_ARRAYS = {"indptr": "V", "indices": "A", "weights": "A", "d": "V", "up": "V", "fa": "V",
                 "f": "1"}


class _Harish:
    def __init__(self, graph, threads_per_block: int):
        gpu.require_cuda()
        self.n = graph.num_vertices
        self.threads = threads_per_block
        self.blocks = gpu.blocks_for(self.n, threads_per_block)
        state_bytes = self.n * (8 + 8 + 1)  # d, up, fa
        self.device_bytes = graph.nbytes() + state_bytes + 8 + 16 * self.blocks  # + counters
        self.stream, (self.indptr, self.indices, self.weights), self.upload_ms = gpu.upload_graph(
            cuda, graph, self.device_bytes)
        self.d = cuda.device_array(self.n, dtype=np.int64, stream=self.stream)
        self.up = cuda.device_array(self.n, dtype=np.int64, stream=self.stream)
        self.fa = cuda.device_array(self.n, dtype=np.uint8, stream=self.stream)
        self.f = cuda.device_array(1, dtype=np.int32, stream=self.stream)
        self.counters = cuda.to_device(np.zeros((2, self.blocks), dtype=np.int64), stream=self.stream)
        self.f_host = launch.host_buffer(1, np.int32)
        self._rounds = {}

    def _round(self, count: bool) -> launch.Round:
        """Kernel 1, kernel 2 and the read of f: one round, prepared once per mode."""
        if count not in self._rounds:
            _, kernel1, kernel2 = _compile(count)
            s, grid = self.stream, (self.blocks, self.threads)
            self._rounds[count] = launch.Round(s, [
                launch.Launch(kernel1, *grid, s, self.indptr, self.indices, self.weights, self.d,
                              self.up, self.fa, self.f, self.counters),
                launch.Launch(kernel2, *grid, s, self.d, self.up, self.fa, self.f)],
                read=self.f, host=self.f_host)
        return self._rounds[count]

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        s, grid = self.stream, (self.blocks, self.threads)
        initialise = _compile(count)[0]
        round_ = self._round(count)
        if count:
            self.counters.copy_to_device(np.zeros((2, self.blocks), dtype=np.int64), stream=s)
        iterations = 0
        with gpu.DeviceTimer(s).measure() as solve_time:
            initialise[grid[0], grid[1], s](self.d, self.up, self.fa, source)
            while True:  # two launches and the host's read of f, every iteration
                f = round_()
                iterations += 1
                if f[0] == 0:
                    break
        with gpu.DeviceTimer(s).measure() as download_time:
            distances = self.d.copy_to_host(stream=s)
            s.synchronize()
        counters = {"iterations": iterations, "kernel_launches": 1 + 2 * iterations,
                    "host_round_trips": iterations}
        if count:
            per_block = self.counters.copy_to_host(stream=s)
            s.synchronize()
            arcs, improving = per_block.sum(axis=1)
            counters.update(arcs_relaxed=int(arcs), atomics=int(arcs), improving_atomics=int(improving))
        return SolveResult(distances, solve_time["ms"], download_time["ms"], counters)


@register("harish", device="gpu", document="safari2017",
          description="Harish et al. two-kernel SSSP, thread per vertex, flag read back each "
                      "iteration (safari2017 Alg. 3-5)",
          defaults={"threads_per_block": THREADS_PER_BLOCK},
          static_counters={"kernels_per_iteration": 2, "atomic_statements": 1})
def harish(graph, threads_per_block: int = THREADS_PER_BLOCK):
    return _Harish(graph, threads_per_block)
