"""Locality-based relaxation (safari2017 Section 3.2, Algorithms 6-9), and a variant with no host
round trip at all.

``lbr``: Algorithm 6 as written. Each flagged vertex starts a wave of relaxation: an iterative DFS
to depth ``k`` with an explicit per-thread stack (Alg. 7); an arc that is "already relaxed"
(``d[v] <= d[w] + w(w, v)``) is not followed, which is Alg. 7's backtrack; a vertex reached at
depth ``k`` is flagged for the next launch. Each thread owns ``t`` consecutive vertices (the
paper's ``startV[2t], startV[2t+1]`` is t = 2). Two flag arrays alternate so a launch only reads
one and only writes the other (the paper's race-freedom argument). The host launches Kernel1
``N`` times without looking back, then Kernel2 until its flag says no vertex was flagged.

``lbr_persistent``: the paper's own hypothesis ("fewer host round trips pay") taken to its end on
today's hardware: one cooperative kernel does every round, separated by grid-wide barriers, and
decides termination on the device. One launch, no host round trip until the distances come back.

Why the relaxation is exact without locks: ``d`` only decreases, by atomicMin. A thread whose
atomicMin lowered ``d[v]`` owns the consequences: it either expands v's out-arcs itself (depth < k)
or flags v for the next round (depth k). If another thread lowered ``d[v]`` further meanwhile,
that thread owns the newer value in the same way. So every decrease is propagated, and the loop
ends only when a round flags nothing, i.e. no arc can be relaxed.

Where we depart from the letter, and why:
- ``N`` (blind Kernel1 launches) comes from calibration as the paper does it (minimum Harish
  iteration count over the sources, divided by k; the workflow's ``calibrate`` rule) or is given.
- Kernel2's ``Flag`` is two device words used alternately: the launch that sets one clears the
  other, so no host write (and no race with the setters) is needed between launches.
- Distances are int64 so no path sum overflows; Table 2's space column is measured, not assumed.
"""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu, launch
from ...errors import InputError
from ..base import INF, SolveResult, register

THREADS_PER_BLOCK = 256
STAGE = 2048  # worklist entries a block stages in shared memory per round (8 KiB)
MAX_DEPTH = 8  # the per-thread DFS stack lives in registers/local memory: a compile-time size
ARCS, ATOMICS, IMPROVING, EXPANDED = range(4)  # count-mode tallies
_kernels = {}


def _compile(count: bool, queue: bool = False):
    """The kernels for one mode. ``count`` adds the tallies that cost time; ``queue`` makes a
    vertex flagged at depth k also join a worklist (deduplicated by an atomic exchange on its
    flag), so the persistent kernel's rounds visit the frontier instead of scanning every flag."""
    if (count, queue) in _kernels:
        return _kernels[count, queue]

    @cuda.jit(device=True)
    def relax_locality(u, k, flag_in, flag_out, indptr, indices, weights, d, tally, worklist,
                       sizes, slot, stage, staged):
        """Algorithm 7 for vertex u: True when it flagged a vertex for the next round."""
        if flag_in[u] == 0:
            return False
        flag_in[u] = 0
        stack_vertex = cuda.local.array(MAX_DEPTH, np.int32)
        stack_next = cuda.local.array(MAX_DEPTH, np.int64)
        stack_stop = cuda.local.array(MAX_DEPTH, np.int64)
        stack_vertex[0] = u
        stack_next[0] = indptr[u]
        stack_stop[0] = indptr[u + 1]
        top = 0
        flagged = False
        if count:
            tally[EXPANDED] += 1
        while top >= 0:
            e = stack_next[top]
            if e == stack_stop[top]:
                top -= 1  # all of this vertex's arcs done: back to its parent
                continue
            stack_next[top] = e + 1
            v = indices[e]
            candidate = d[stack_vertex[top]] + weights[e]
            if count:
                tally[ARCS] += 1
            if d[v] <= candidate:
                continue  # (w, v) already relaxed: backtrack (Alg. 7 line 6)
            old = cuda.atomic.min(d, v, candidate)  # Relax(w, v): the one atomic statement
            if count:
                tally[ATOMICS] += 1
            if old <= candidate:
                continue  # another thread lowered d[v] first; it owns v's consequences
            if count:
                tally[IMPROVING] += 1
            if top + 1 == k:  # depth k: picked up by the next round (Alg. 7 line 9)
                if queue:
                    if flag_out[v] == 0 and cuda.atomic.exch(flag_out, v, 1) == 0:
                        # Staged in the block's shared memory: one global atomic per block and
                        # round instead of one per vertex on a single, contended counter.
                        p = cuda.atomic.add(staged, 0, 1)
                        if p < STAGE:
                            stage[p] = v
                        else:
                            worklist[cuda.atomic.add(sizes, slot, 1)] = v
                else:
                    flag_out[v] = 1
                flagged = True
            else:
                top += 1
                stack_vertex[top] = v
                stack_next[top] = indptr[v]
                stack_stop[top] = indptr[v + 1]
        return flagged

    @cuda.jit(device=True)
    def relax_owned(first, t, k, flag_in, flag_out, indptr, indices, weights, d, tally):
        """Alg. 8/9 body: thread-vertex affinity, t consecutive vertices from ``first``."""
        n = d.shape[0]
        flagged = False
        for j in range(t):
            u = first + j
            if u < n:
                if relax_locality(u, k, flag_in, flag_out, indptr, indices, weights, d, tally,
                                  indptr, indptr, 0, indptr, indptr):  # no worklist: flags only
                    flagged = True
        return flagged

    @cuda.jit(device=True)
    def flush(tally, counters):
        if count:
            for c in range(4):
                if tally[c]:
                    cuda.atomic.add(counters, c, tally[c])

    @cuda.jit(cache=True)
    def initialise(d, flags, source):
        v = cuda.grid(1)
        if v < d.shape[0]:
            d[v] = INF
            flags[0, v] = 0
            flags[1, v] = 0
            if v == source:
                d[v] = 0
                flags[0, v] = 1

    @cuda.jit(cache=True)
    def kernel1(i, k, t, indptr, indices, weights, d, flags, counters):
        tally = cuda.local.array(4, np.int64)
        for c in range(4):
            tally[c] = 0
        relax_owned(cuda.grid(1) * t, t, k, flags[i], flags[1 - i], indptr, indices, weights, d,
                    tally)
        flush(tally, counters)

    @cuda.jit(cache=True)
    def kernel2(i, k, t, indptr, indices, weights, d, flags, flag_words, counters):
        tally = cuda.local.array(4, np.int64)
        for c in range(4):
            tally[c] = 0
        tid = cuda.grid(1)
        if tid == 0:
            flag_words[1 - i] = 0  # the next launch's word; nobody writes it during this one
        if relax_owned(tid * t, t, k, flags[i], flags[1 - i], indptr, indices, weights, d, tally):
            flag_words[i] = 1
        flush(tally, counters)

    @cuda.jit(cache=True)
    def persistent(source, k, t, indptr, indices, weights, d, flags, changed, rounds, counters,
                   worklists):
        grid = cuda.cg.this_grid()
        tally = cuda.local.array(4, np.int64)
        for c in range(4):
            tally[c] = 0
        stage = cuda.shared.array(STAGE, np.int32)
        staged = cuda.shared.array(2, np.int32)  # [0] vertices staged, [1] their global offset
        if cuda.threadIdx.x == 0:
            staged[0] = 0
        n = d.shape[0]
        tid = cuda.grid(1)
        stride = cuda.gridsize(1)
        for v in range(tid, n, stride):  # the owner of each vertex writes it, source included
            d[v] = 0 if v == source else INF
            flags[0, v] = 1 if v == source else 0
            flags[1, v] = 0
        if tid == 0:
            for s in range(3):
                changed[s] = 0
            if queue:
                worklists[0, 0] = source
                changed[0] = 1  # with a worklist, changed[] holds its sizes
        grid.sync()
        i = 0
        r = 0
        while True:
            # Three words. Flags: round r sets changed[r % 3]. Worklist: round r reads the size
            # in changed[r % 3] and appends to changed[(r + 1) % 3]. Either way thread 0 clears
            # the word the next round will write, which was last read before the previous
            # barrier, so no reader races it.
            slot = r % 3
            flagged = False
            if queue:
                if tid == 0:
                    changed[(r + 2) % 3] = 0
                size = changed[slot]
                for first in range(tid * t, size, stride * t):
                    for j in range(min(t, size - first)):
                        u = worklists[i, first + j]
                        relax_locality(u, k, flags[i], flags[1 - i], indptr, indices, weights, d,
                                       tally, worklists[1 - i], changed, (r + 1) % 3, stage,
                                       staged)
                cuda.syncthreads()  # the block's staged vertices go out in one reservation
                if cuda.threadIdx.x == 0:
                    staged[0] = min(staged[0], STAGE)
                    staged[1] = cuda.atomic.add(changed, (r + 1) % 3, staged[0])
                cuda.syncthreads()
                for j in range(cuda.threadIdx.x, staged[0], cuda.blockDim.x):
                    worklists[1 - i, staged[1] + j] = stage[j]
                cuda.syncthreads()
                if cuda.threadIdx.x == 0:
                    staged[0] = 0
            else:
                if tid == 0:
                    changed[(r + 1) % 3] = 0
                for first in range(tid * t, n, stride * t):
                    if relax_owned(first, t, k, flags[i], flags[1 - i], indptr, indices, weights,
                                   d, tally):
                        flagged = True
                if flagged:
                    changed[slot] = 1
            grid.sync()
            r += 1
            if changed[(r if queue else r - 1) % 3] == 0:
                break
            i = 1 - i
        if tid == 0:
            rounds[0] = r
        flush(tally, counters)

    _kernels[count, queue] = (initialise, kernel1, kernel2, persistent)
    return _kernels[count, queue]


def _check_params(k: int, t: int, threads_per_block: int) -> None:
    if not 1 <= k <= MAX_DEPTH:
        raise InputError(f"k (relaxation depth) must be 1..{MAX_DEPTH}, got {k}")
    if t < 1:
        raise InputError(f"t (vertices per thread) must be at least 1, got {t}")
    if not 1 <= threads_per_block <= 1024:
        raise InputError(f"threads_per_block must be 1..1024, got {threads_per_block}")


# The arrays LBR keeps on the device, counted as safari2017's Table 2 counts space (see
# harish.DEVICE_ARRAYS): two flag arrays of V, the flag words a constant.
DEVICE_ARRAYS = {"indptr": "V", "indices": "A", "weights": "A", "d": "V", "flags": "2V",
                 "words": "1"}


class _DeviceGraph:
    """The graph and LBR's state on the device: CSR, d, two flag arrays, flag words, tallies."""

    def __init__(self, graph, k: int, t: int, threads_per_block: int, flag_dtype=np.uint8,
                 extra_bytes: int = 0):
        _check_params(k, t, threads_per_block)
        gpu.require_cuda()
        self.n, self.k, self.t, self.threads = graph.num_vertices, k, t, threads_per_block
        flag_bytes = 2 * np.dtype(flag_dtype).itemsize
        self.device_bytes = graph.nbytes() + self.n * (8 + flag_bytes) + 3 * 4 + 4 * 8 + extra_bytes
        self.stream, (self.indptr, self.indices, self.weights), self.upload_ms = gpu.upload_graph(
            cuda, graph, self.device_bytes)
        self.d = cuda.device_array(self.n, dtype=np.int64, stream=self.stream)
        self.flags = cuda.device_array((2, self.n), dtype=flag_dtype, stream=self.stream)
        self.words = cuda.device_array(3, dtype=np.int32, stream=self.stream)
        self.counters = cuda.to_device(np.zeros(4, dtype=np.int64), stream=self.stream)
        self.word_host = launch.host_buffer(1, np.int32)

    def reset_counters(self):
        self.counters.copy_to_device(np.zeros(4, dtype=np.int64), stream=self.stream)

    def tallies(self) -> dict:
        arcs, atomics, improving, expanded = self.counters.copy_to_host(stream=self.stream)
        self.stream.synchronize()
        return {"arcs_relaxed": int(arcs), "atomics": int(atomics),
                "improving_atomics": int(improving), "vertices_expanded": int(expanded)}

    def download(self):
        with gpu.DeviceTimer(self.stream).measure() as t:
            distances = self.d.copy_to_host(stream=self.stream)
            self.stream.synchronize()
        return distances, t["ms"]


class _LBR(_DeviceGraph):
    def __init__(self, graph, k, t, n, calibration_iterations, threads_per_block, blind=1):
        super().__init__(graph, k, t, threads_per_block)
        if n < 0 and calibration_iterations < 0:
            raise InputError("n (blind launches) and calibration_iterations must not be negative")
        # Alg. 6's N: given, else the paper's offline calibration (min Harish iterations / k);
        # blind=0 is the control section 4's claim needs: N = 0, every launch reads back its flag
        self.blind_launches = 0 if not blind else n if n > 0 else calibration_iterations // k
        owners = (self.n + t - 1) // t
        self.blocks = gpu.blocks_for(owners, threads_per_block)
        self._prepared = {}

    def _launches(self, count: bool):
        """Per parity i: Kernel1 (a blind launch) and Kernel2 with the read of its flag word
        (a flag-loop round), prepared once per mode."""
        if count not in self._prepared:
            _, kernel1, kernel2, _ = _compile(count)
            s, grid = self.stream, (self.blocks, self.threads)
            args = (self.k, self.t, self.indptr, self.indices, self.weights, self.d, self.flags)
            blind = [launch.Launch(kernel1, *grid, s, i, *args, self.counters) for i in (0, 1)]
            flag = [launch.Round(s, [launch.Launch(kernel2, *grid, s, i, *args, self.words,
                                                   self.counters)],
                                 read=self.words[i:i + 1], host=self.word_host) for i in (0, 1)]
            self._prepared[count] = blind, flag
        return self._prepared[count]

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        s, threads = self.stream, self.threads
        initialise = _compile(count)[0]
        blind, flag = self._launches(count)
        if count:
            self.reset_counters()
        self.words.copy_to_device(np.zeros(3, dtype=np.int32), stream=s)
        i = 0
        flag_loops = 0
        with gpu.DeviceTimer(s).measure() as solve_time:
            initialise[gpu.blocks_for(self.n, threads), threads, s](self.d, self.flags, source)
            for _ in range(self.blind_launches):  # Alg. 6 lines 4-6: no host round trip
                blind[i]()
                i = 1 - i
            # what the blind launches left (s32.majority), read in the counting pass only: the
            # copy would cost the timed passes a read-back Algorithm 6 does not make
            after_blind = self.d.copy_to_host(stream=s) if count else None
            while True:  # Alg. 6 lines 7-11: the flag comes back every launch
                word = flag[i]()
                flag_loops += 1
                i = 1 - i
                if word[0] == 0:
                    break
        distances, download_ms = self.download()
        launches = self.blind_launches + flag_loops
        counters = {"iterations": launches, "kernel_launches": 1 + launches,
                    "host_round_trips": flag_loops, "blind_launches": self.blind_launches,
                    "flag_launches": flag_loops}
        if count:
            counters.update(self.tallies(), **blind_counts(after_blind, distances))
        return SolveResult(distances, solve_time["ms"], download_ms, counters)


def blind_counts(after_blind: np.ndarray, final: np.ndarray) -> dict:
    """Section 3.2: "after exiting from the for-loop [the N blind launches] we expect to have
    updated the distances of majority of vertices". Of the vertices the source reaches, how many
    had a distance (any) and how many had their final one when the blind launches ended."""
    reached = final != INF
    return {"reached_vertices": int(reached.sum()),
            "blind_set_vertices": int((reached & (after_blind != INF)).sum()),
            "blind_final_vertices": int((reached & (after_blind == final)).sum())}


class _PersistentLBR(_DeviceGraph):
    def __init__(self, graph, k, t, frontier, threads_per_block):
        if frontier not in FRONTIERS:
            raise InputError(f"frontier must be one of {', '.join(FRONTIERS)}, got {frontier!r}")
        self.queue = frontier == "queue"
        n = graph.num_vertices
        # A worklist needs atomics on the flags (int32) and two lists of up to V vertices each.
        super().__init__(graph, k, t, threads_per_block,
                         flag_dtype=np.int32 if self.queue else np.uint8,
                         extra_bytes=2 * n * 4 if self.queue else 0)
        self.worklists = cuda.device_array((2, n) if self.queue else (2, 1), dtype=np.int32,
                                           stream=self.stream)
        self.rounds = cuda.device_array(1, dtype=np.int32, stream=self.stream)
        self._launchable = gpu.CooperativeLauncher(threads_per_block)

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        s = self.stream
        persistent = _compile(count, self.queue)[3]
        if count:
            self.reset_counters()
        args = (source, self.k, self.t, self.indptr, self.indices, self.weights, self.d,
                self.flags, self.words, self.rounds, self.counters, self.worklists)
        kernel, blocks = self._launchable(persistent, args, (self.n + self.t - 1) // self.t)
        with gpu.DeviceTimer(s).measure() as solve_time:
            kernel[blocks, self.threads, s](*args)
        distances, download_ms = self.download()
        rounds = int(self.rounds.copy_to_host(stream=s)[0])
        s.synchronize()
        counters = {"iterations": rounds, "kernel_launches": 1, "host_round_trips": 0,
                    "grid_syncs": rounds + 1, "resident_blocks": blocks,
                    # atomicMin, plus atomicExch (dedup) and atomicAdd (append) for a worklist
                    "atomic_statements": 3 if self.queue else 1}
        if count:
            counters.update(self.tallies())
        return SolveResult(distances, solve_time["ms"], download_ms, counters)


_PARAMS = {"k": 4, "t": 2}
FRONTIERS = ("queue", "flags")


@register("lbr", device="gpu", document="safari2017",
          description="Locality-based relaxation: k-deep DFS waves, t vertices per thread, two "
                      "flag arrays, N blind launches then a flag loop (safari2017 Alg. 6-9)",
          defaults={**_PARAMS, "n": 0, "calibration_iterations": 0,
                    "threads_per_block": THREADS_PER_BLOCK, "blind": 1},
          static_counters={"kernels_per_iteration": 1, "atomic_statements": 1},
          calibrated_by="harish")
def lbr(graph, k=4, t=2, n=0, calibration_iterations=0, threads_per_block=THREADS_PER_BLOCK,
        blind=1):
    if n < 0 or calibration_iterations < 0:
        raise InputError(f"n (blind launches) and calibration_iterations must be >= 0, got "
                         f"{n} and {calibration_iterations}")
    if blind not in (0, 1):
        raise InputError(f"blind must be 1 (N blind launches, the paper's LBR) or 0 (none: "
                         f"the control of section 4), got {blind}")
    return _LBR(graph, k, t, n, calibration_iterations, threads_per_block, blind)


@register("lbr_persistent", device="gpu", document="safari2017",
          description="LBR as one cooperative kernel: grid-wide barriers between rounds, "
                      "termination decided on the device, no host round trip; the frontier is a "
                      "worklist (frontier=queue) or the paper's flag arrays scanned (flags)",
          # Not the paper's defaults: the best we measured on an H100 (benchmarks/safari2017_lbr.py;
          # Fig. 4's target sweeps k). With no launches to save, depth only lengthens each
          # thread's serial chain of dependent loads, and bigger blocks stage more per atomic.
          defaults={"k": 2, "t": 1, "frontier": "queue", "threads_per_block": 512},
          static_counters={"kernels_per_iteration": 0})
def lbr_persistent(graph, k=2, t=1, frontier="queue", threads_per_block=512):
    return _PersistentLBR(graph, k, t, frontier, threads_per_block)
