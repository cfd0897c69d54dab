"""Workfront sweep, near-far pile and their hybrid (senthilkumar Sections 2C, 2D, 5; Davidson,
Baxter, Garland, Owens, IPDPS 2014), each as one persistent cooperative kernel.

All three keep a deduplicated vertex queue and relax every out-arc of the vertices they expand
with one atomicMin. They differ in which queued vertices a round expands:

- ``workfront``: all of them (Davidson's workfront sweep: the vertices updated last round).
- ``nearfar``: the near pile, vertices with distance below the threshold i*Delta. A vertex
  improved to a distance at or past the threshold goes to the far pile instead and is not touched
  again until the near pile runs dry; then the far pile is re-filtered against (i+1)*Delta:
  entries already settled below the old threshold are dropped (they were improved into the near
  pile and expanded there), entries below the new one form the next near pile, the rest stay far.
  Empty buckets are skipped by jumping the threshold past the far pile's minimum. Delta is given,
  or Davidson's heuristic Delta = c * mean arc weight / mean out-degree.
- ``hybrid``: the report's design (Section 5), finished. Each round the kernel knows how many
  arcs the queue would expand (summed as vertices join it). At most ``m`` arcs per resident
  thread: a workfront step on the whole queue. More: a near-far step whose near pile holds about
  that many arcs (the report says "an integer multiple of the number of threads"; m may be a
  fraction here, because a road graph's queue rarely holds as many arcs as an H100 has threads,
  and with m >= 1 the hybrid would never leave the workfront there): a degree-weighted histogram of the queue's distances (1024 buckets between the
  queue's least and greatest distance) picks the threshold bucket; vertices past it stay queued for
  the next round, together with the vertices this round updates ("append the far pile vertices to
  the updated vertices for the next iteration").

Where we depart from the letter, and why:
- One cooperative launch does every round, separated by grid-wide barriers, and termination is
  decided on the device: no host round trip per round. On today's GPUs a launch plus a read-back
  (~70 us) costs more than a whole round's work on a road graph, which takes thousands of rounds.
- Duplicates are never queued rather than removed afterwards: a vertex joins the next queue only
  if it wins an atomic exchange on its membership flag (two flag arrays, one per queue, so a
  round only clears the one it reads and only sets the one it writes), and the far pile has its
  own flag. Appends are staged per block in shared memory and reserved with one global atomicAdd
  per block and phase; one contended global counter cost about 2x on an H100 (safari2017 work).
- Work is spread over arcs, not vertices: each block takes the queue in chunks of one vertex per
  thread, scans the chunk's out-degrees in shared memory and lets its threads stride over the
  chunk's arcs (a binary search in the scan finds each arc's vertex), so one high-degree vertex
  occupies the whole block instead of one thread while its warp waits.
- Distances are int64 so no path sum overflows.
"""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu
from ...errors import InputError
from ..base import INF, SolveResult, register

MODES = ("workfront", "nearfar", "hybrid")
WORKFRONT, NEARFAR, HYBRID = range(3)
MAX_THREADS = 512  # shared chunk arrays have a compile-time size
STAGE = 1024  # queue entries a block stages in shared memory per phase
BUCKETS = 1024  # hybrid: histogram resolution of the queue's distance range
MAX_ROUNDS = 1 << 17  # per-round series kept in count mode (enough for 6M-vertex road graphs)
# Per-round series (count mode): rows of the `series` array.
SERIES = ("queue", "expanded", "arcs", "improving", "split")
Q_ROW, EXP_ROW, ARC_ROW, IMP_ROW, SPLIT_ROW = range(len(SERIES))
# Control words. Queue words rotate over three slots: round r reads slot r%3, appends to
# (r+1)%3 and clears (r+2)%3, which nobody has read since before the previous barrier.
SIZE, ARCS, DMIN, DMAX, FAR, FARMIN = 0, 3, 6, 9, 12, 15
LIMIT, ROUNDS, PASSES, SPLITS, SYNCS, ATOMICS, WORDS = 18, 19, 20, 21, 22, 23, 24
_kernels = {}


def _compile(mode: int, count: bool):
    if (mode, count) in _kernels:
        return _kernels[mode, count]
    nearfar = mode == NEARFAR
    hybrid = mode == HYBRID

    @cuda.jit(device=True)
    def bucket(dv, lo, hi):
        b = (dv - lo) * BUCKETS // (hi - lo + 1)
        return min(max(b, 0), BUCKETS - 1)

    @cuda.jit(device=True)
    def push(v, dv, degree, flag, stage, staged, which, acc, overflow, words, word):
        """Append v once (membership flag) to a queue through the block's shared stage."""
        if flag[v] == 0 and cuda.atomic.exch(flag, v, 1) == 0:
            p = cuda.atomic.add(staged, which, 1)
            if p < STAGE:
                stage[p] = v
            else:  # the stage is full: straight to the global queue
                overflow[cuda.atomic.add(words, word, 1)] = v
            if hybrid:
                cuda.atomic.add(acc, 0, degree)
                cuda.atomic.min(acc, 1, dv)
                cuda.atomic.max(acc, 2, dv)

    @cuda.jit(device=True)
    def flush(stage, staged, which, queue, words, word):
        """Reserve the block's staged entries with one global atomicAdd and copy them out."""
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            staged[which] = min(staged[which], STAGE)
            if staged[which] > 0:  # no contended atomic for a block with nothing to add
                staged[which + 1] = cuda.atomic.add(words, word, staged[which])
        cuda.syncthreads()
        for j in range(cuda.threadIdx.x, staged[which], cuda.blockDim.x):
            queue[staged[which + 1] + j] = stage[j]
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            staged[which] = 0

    @cuda.jit
    def sweep(source, delta, budget, indptr, indices, weights, d, flags, farflag, queues, piles,
              words, hist, series, totals):
        grid = cuda.cg.this_grid()
        n = d.shape[0]
        tid = cuda.grid(1)
        stride = cuda.gridsize(1)
        t = cuda.threadIdx.x
        width = cuda.blockDim.x
        chunk_d = cuda.shared.array(MAX_THREADS, np.int64)
        chunk_start = cuda.shared.array(MAX_THREADS, np.int64)
        scan = cuda.shared.array((2, MAX_THREADS), np.int64)
        stage_near = cuda.shared.array(STAGE, np.int32)
        stage_far = cuda.shared.array(STAGE if nearfar else 1, np.int32)
        staged = cuda.shared.array(4, np.int32)  # near count, near base, far count, far base
        acc = cuda.shared.array(3, np.int64)  # hybrid: arcs, least and greatest distance queued
        tally = cuda.shared.array(4, np.int64)  # count mode: expanded, arcs, improving, atomics
        if t == 0:
            for c in range(4):
                staged[c] = 0
                tally[c] = 0
            acc[0] = 0
            acc[1] = INF
            acc[2] = 0
        for v in range(tid, n, stride):  # the owner of each vertex writes it, source included
            d[v] = 0 if v == source else INF
            flags[0, v] = 1 if v == source else 0
            flags[1, v] = 0
            if nearfar:
                farflag[v] = 0
        if hybrid:
            for h in range(tid, BUCKETS, stride):
                hist[h] = 0
        if tid == 0:
            for s in range(3):
                words[SIZE + s] = 0
                words[ARCS + s] = 0
                words[DMIN + s] = INF
                words[DMAX + s] = 0
                words[FAR + s] = 0
                words[FARMIN + s] = INF
            for w in range(LIMIT, WORDS):
                words[w] = 0
            queues[0, 0] = source
            words[SIZE] = 1
            words[ARCS] = indptr[source + 1] - indptr[source]
            words[DMIN] = 0
        syncs = 1
        grid.sync()
        i = 0  # queue i is read this round, 1 - i written
        r = 0
        p = 0  # far-pile filter passes so far; the pile is piles[p % 2], its size words[FAR + p % 3]
        threshold = delta  # near-far: the near pile holds distances below it
        while True:
            slot = r % 3
            following = (r + 1) % 3
            if tid == 0:
                old = (r + 2) % 3
                words[SIZE + old] = 0
                words[ARCS + old] = 0
                words[DMIN + old] = INF
                words[DMAX + old] = 0
            queued = words[SIZE + slot]
            limit = BUCKETS  # every bucket is near: expand the whole queue
            lo = words[DMIN + slot]
            hi = words[DMAX + slot]
            split = False
            if hybrid and words[ARCS + slot] > budget:
                split = True  # enough parallelism: a near pile of about `budget` arcs
                for k in range(tid, queued, stride):
                    v = queues[i, k]
                    cuda.atomic.add(hist, bucket(d[v], lo, hi), indptr[v + 1] - indptr[v])
                grid.sync()
                if cuda.blockIdx.x == 0:  # the block scans the histogram; the rest wait
                    per = (BUCKETS + width - 1) // width
                    part = 0
                    for b in range(t * per, min(BUCKETS, (t + 1) * per)):
                        part += hist[b]
                    scan[0, t] = part
                    cuda.syncthreads()
                    src = 0
                    step = 1
                    while step < width:
                        value = scan[src, t]
                        if t >= step:
                            value += scan[src, t - step]
                        scan[1 - src, t] = value
                        src = 1 - src
                        step *= 2
                        cuda.syncthreads()
                    before = scan[src, t] - part
                    if before < budget <= scan[src, t]:
                        running = before
                        for b in range(t * per, min(BUCKETS, (t + 1) * per)):
                            running += hist[b]
                            if running >= budget:
                                words[LIMIT] = b
                                break
                    if t == width - 1 and scan[src, t] < budget:
                        words[LIMIT] = BUCKETS - 1
                grid.sync()
                syncs += 2
                limit = words[LIMIT]
                if tid == 0:
                    words[SPLITS] += 1
            # Expand: the queue in chunks of one vertex per thread, the chunk's arcs over the block.
            chunks = (queued + width - 1) // width
            for c in range(cuda.blockIdx.x, chunks, cuda.gridDim.x):
                k = c * width + t
                degree = 0
                if k < queued:
                    u = queues[i, k]
                    flags[i, u] = 0
                    du = d[u]
                    if hybrid and limit < BUCKETS and bucket(du, lo, hi) > limit:
                        # past the near pile: stays queued for the next round
                        push(u, du, indptr[u + 1] - indptr[u], flags[1 - i], stage_near, staged, 0,
                             acc, queues[1 - i], words, SIZE + following)
                    else:
                        chunk_d[t] = du
                        chunk_start[t] = indptr[u]
                        degree = indptr[u + 1] - indptr[u]
                        if count:
                            cuda.atomic.add(tally, 0, 1)
                scan[0, t] = degree
                cuda.syncthreads()
                src = 0
                step = 1
                while step < width:  # inclusive scan of the chunk's out-degrees
                    value = scan[src, t]
                    if t >= step:
                        value += scan[src, t - step]
                    scan[1 - src, t] = value
                    src = 1 - src
                    step *= 2
                    cuda.syncthreads()
                total = scan[src, width - 1]
                for j in range(t, total, width):
                    low = 0
                    high = width - 1  # the last chunk slot whose arcs start at or before j
                    while low < high:
                        mid = (low + high + 1) // 2
                        if scan[src, mid - 1] <= j:  # slot mid's arcs start at or before j
                            low = mid
                        else:
                            high = mid - 1
                    first = scan[src, low - 1] if low > 0 else 0
                    e = chunk_start[low] + (j - first)
                    v = indices[e]
                    candidate = chunk_d[low] + weights[e]
                    if count:
                        cuda.atomic.add(tally, 1, 1)
                    if candidate < d[v]:
                        previous = cuda.atomic.min(d, v, candidate)
                        if count:
                            cuda.atomic.add(tally, 3, 1)
                        if candidate < previous:
                            if count:
                                cuda.atomic.add(tally, 2, 1)
                            if nearfar and candidate >= threshold:
                                push(v, candidate, 0, farflag, stage_far, staged, 2, acc,
                                     piles[p % 2], words, FAR + p % 3)
                            else:
                                push(v, candidate, indptr[v + 1] - indptr[v], flags[1 - i],
                                     stage_near, staged, 0, acc, queues[1 - i], words,
                                     SIZE + following)
                cuda.syncthreads()  # the next chunk overwrites the shared arrays
            if hybrid and split:
                for h in range(tid, BUCKETS, stride):  # nobody reads it until the next split
                    hist[h] = 0
            flush(stage_near, staged, 0, queues[1 - i], words, SIZE + following)
            if nearfar:
                flush(stage_far, staged, 2, piles[p % 2], words, FAR + p % 3)
            if hybrid and t == 0 and acc[1] < INF:  # this block queued something
                cuda.atomic.add(words, ARCS + following, acc[0])
                cuda.atomic.min(words, DMIN + following, acc[1])
                cuda.atomic.max(words, DMAX + following, acc[2])
                acc[0] = 0
                acc[1] = INF
                acc[2] = 0
            if count:
                cuda.syncthreads()
                if t == 0:
                    if r < series.shape[1]:
                        cuda.atomic.add(series, (EXP_ROW, r), tally[0])
                        cuda.atomic.add(series, (ARC_ROW, r), tally[1])
                        cuda.atomic.add(series, (IMP_ROW, r), tally[2])
                        if tid == 0:
                            series[Q_ROW, r] = queued
                            series[SPLIT_ROW, r] = 1 if split else 0
                    for c in range(4):
                        cuda.atomic.add(totals, c, tally[c])
                        tally[c] = 0
            grid.sync()
            syncs += 1
            r += 1
            following_size = words[SIZE + following]
            if nearfar and following_size == 0 and words[FAR + p % 3] > 0:
                # The near pile ran dry: re-filter the far pile against the next threshold.
                grid.sync()  # everyone has read the sizes before a pass writes them
                syncs += 1
                upper = threshold + delta
                while True:
                    if tid == 0:
                        words[FAR + (p + 2) % 3] = 0
                        words[FARMIN + (p + 2) % 3] = INF
                    pile = words[FAR + p % 3]
                    least = INF
                    for k in range(tid, pile, stride):
                        v = piles[p % 2, k]
                        dv = d[v]
                        if dv < threshold:  # improved into the near pile and expanded there
                            farflag[v] = 0
                        elif dv < upper:
                            farflag[v] = 0
                            push(v, dv, 0, flags[1 - i], stage_near, staged, 0, acc,
                                 queues[1 - i], words, SIZE + following)
                        else:
                            # stays far: its far flag stays set; staged like any append
                            pos = cuda.atomic.add(staged, 2, 1)
                            if pos < STAGE:
                                stage_far[pos] = v
                            else:
                                piles[(p + 1) % 2, cuda.atomic.add(words, FAR + (p + 1) % 3, 1)] = v
                            least = min(least, dv)
                    if least < INF:
                        cuda.atomic.min(words, FARMIN + (p + 1) % 3, least)
                    flush(stage_near, staged, 0, queues[1 - i], words, SIZE + following)
                    flush(stage_far, staged, 2, piles[(p + 1) % 2], words, FAR + (p + 1) % 3)
                    grid.sync()
                    syncs += 1
                    p += 1
                    threshold = upper
                    following_size = words[SIZE + following]
                    if following_size > 0 or words[FAR + p % 3] == 0:
                        break
                    # Every remaining distance is past the threshold: skip the empty buckets.
                    upper = (words[FARMIN + p % 3] // delta + 1) * delta
                    grid.sync()
                    syncs += 1
            if following_size == 0:
                break
            i = 1 - i
        if tid == 0:
            words[ROUNDS] = r
            words[PASSES] = p
            words[SYNCS] = syncs

    _kernels[mode, count] = sweep
    return sweep


def heuristic_delta(graph, c: float) -> int:
    """Davidson et al.'s Delta = c * mean arc weight / mean out-degree (senthilkumar Sec. 2D)."""
    if graph.num_arcs == 0 or graph.num_vertices == 0:
        return 1
    mean_weight = float(graph.weights.mean())
    mean_degree = graph.num_arcs / graph.num_vertices
    return max(1, int(round(c * mean_weight / mean_degree)))


class _Sweep:
    def __init__(self, graph, mode: str, delta: int, c: float, m: float, threads_per_block: int):
        if mode not in MODES:
            raise InputError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if not 1 <= threads_per_block <= MAX_THREADS:
            raise InputError(f"threads_per_block must be 1..{MAX_THREADS}, got {threads_per_block}")
        if delta < 0 or c <= 0:
            raise InputError("delta must be >= 0 (0: the heuristic) and c > 0")
        if not m > 0:
            raise InputError(f"m (arcs per resident thread before the hybrid splits) must be > 0, got {m}")
        gpu.require_cuda()
        self.mode = MODES.index(mode)
        self.delta = delta or heuristic_delta(graph, c)
        self.m = m
        self.n, self.threads = graph.num_vertices, threads_per_block
        nearfar = self.mode == NEARFAR
        n = self.n
        self.device_bytes = (graph.nbytes() + n * 8 + 2 * n * 4 + 2 * n * 4
                             + (n * 4 + 2 * n * 4 if nearfar else 0) + BUCKETS * 8 + WORDS * 8)
        self.stream, (self.indptr, self.indices, self.weights), self.upload_ms = gpu.upload_graph(
            cuda, graph, self.device_bytes, wide_indptr=True)
        s = self.stream
        self.d = cuda.device_array(n, dtype=np.int64, stream=s)
        self.flags = cuda.device_array((2, n), dtype=np.int32, stream=s)
        self.farflag = cuda.device_array(n if nearfar else 1, dtype=np.int32, stream=s)
        self.queues = cuda.device_array((2, max(n, 1)), dtype=np.int32, stream=s)
        self.piles = cuda.device_array((2, max(n, 1)) if nearfar else (2, 1), dtype=np.int32, stream=s)
        self.words = cuda.device_array(WORDS, dtype=np.int64, stream=s)
        self.hist = cuda.device_array(BUCKETS, dtype=np.int64, stream=s)
        self._launchable = gpu.CooperativeLauncher(self.threads)

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        s = self.stream
        kernel = _compile(self.mode, count)
        rounds_kept = MAX_ROUNDS if count else 1
        series = cuda.to_device(np.zeros((len(SERIES), rounds_kept), dtype=np.int64), stream=s)
        totals = cuda.to_device(np.zeros(4, dtype=np.int64), stream=s)
        # The budget depends on the grid, which depends on the specialised kernel: launch twice
        # over the same arguments would be wasteful, so the grid is fixed before the budget.
        probe = (source, self.delta, 0, self.indptr, self.indices, self.weights, self.d,
                 self.flags, self.farflag, self.queues, self.piles, self.words, self.hist, series,
                 totals)
        launch, blocks = self._launchable(kernel, probe, self.n)
        budget = max(1, int(self.m * blocks * self.threads))
        args = probe[:2] + (budget,) + probe[3:]
        distances, words, solve_ms, download_ms = gpu.persistent_solve(
            launch, blocks, self.threads, s, args, self.d, self.words)
        rounds = int(words[ROUNDS])
        counters = {"iterations": rounds, "kernel_launches": 1, "host_round_trips": 0,
                    "grid_syncs": int(words[SYNCS]), "resident_blocks": blocks,
                    "resident_threads": blocks * self.threads}
        if self.mode == NEARFAR:
            counters.update(delta=self.delta, far_passes=int(words[PASSES]))
        if self.mode == HYBRID:
            counters.update(switch_arcs=budget, near_far_rounds=int(words[SPLITS]))
        if count:
            expanded, arcs, improving, atomics = (int(x) for x in totals.copy_to_host(stream=s))
            kept = series.copy_to_host(stream=s)[:, :rounds]
            s.synchronize()
            reached = int(np.count_nonzero(distances != INF))
            counters.update(
                vertices_expanded=expanded, arcs_relaxed=arcs, atomics=atomics,
                improving_atomics=improving,
                # every reached vertex but the source needs one improving relaxation
                redundant_relaxations=improving - max(reached - 1, 0),
                redundant_expansions=expanded - reached,
                series_truncated=int(rounds > rounds_kept),
                # the round that exposed the most work (of the rounds kept): the round's
                # parallelism against the resident threads, a total kept on every row
                busiest_round_arcs=int(kept[ARC_ROW].max()) if rounds else 0,
                **{f"per_round_{name}": ";".join(map(str, kept[row].tolist()))
                   for row, name in enumerate(SERIES) if name != "split" or self.mode == HYBRID})
        return SolveResult(distances, solve_ms, download_ms, counters)


_COMMON = {"threads_per_block": 512}


@register("workfront", device="gpu", document="senthilkumar",
          description="workfront sweep: every vertex updated last round expands all its arcs "
                      "(atomicMin), deduplicated queue, arcs spread over a block; one persistent "
                      "kernel (Davidson et al. 2014, senthilkumar Sec. 2C)",
          defaults=dict(_COMMON), static_counters={"kernels_per_iteration": 0, "atomic_statements": 3})
def workfront(graph, threads_per_block=512):
    return _Sweep(graph, "workfront", 0, 1.0, 1.0, threads_per_block)


@register("nearfar", device="gpu", document="senthilkumar",
          description="near-far pile: the queue split at i*Delta, far work deferred and "
                      "re-filtered; delta=0 takes Delta = c * mean weight / mean degree "
                      "(Davidson et al. 2014, senthilkumar Sec. 2D)",
          defaults={"delta": 0, "c": 1.0, **_COMMON},
          static_counters={"kernels_per_iteration": 0, "atomic_statements": 3})
def nearfar(graph, delta=0, c=1.0, threads_per_block=512):
    return _Sweep(graph, "nearfar", delta, c, 1.0, threads_per_block)


@register("hybrid", device="gpu", document="senthilkumar",
          description="the report's hybrid, finished: a workfront step while the queue holds at "
                      "most m arcs per resident thread, else a near-far step whose near pile holds "
                      "about that many (senthilkumar Sec. 5)",
          # m is not the report's (it gives none); a guess until the switch sweep measures it
          defaults={"m": 0.25, **_COMMON},
          static_counters={"kernels_per_iteration": 0, "atomic_statements": 3})
def hybrid(graph, m=0.25, threads_per_block=512):
    return _Sweep(graph, "hybrid", 0, 1.0, m, threads_per_block)
