"""``frontier``: asynchronous bucketed SSSP in one persistent kernel, with no grid-wide barrier
once the distances are initialised.

Why this design (issue 21's counters): on road graphs lbr_persistent relaxes 40 arcs per arc in
~2,100 barrier-separated rounds, near-far relaxes ~1 arc per arc but pays ~31k grid syncs; ADDS
(Wang et al., PPoPP 2021) has no global rounds at all. So: near-far's ordering (distance buckets
of width Delta) for work efficiency, ADDS's progress model (blocks pull work whenever it exists)
for latency. Nothing here is copied from ADDS; the structure is ours:

- Work lives in a ring of ``buckets`` FIFO queues. A vertex with tentative distance x goes to
  absolute bucket ``x // Delta``, clamped into the window [cur, cur + buckets), stored in ring
  slot ``bucket % buckets``. Each slot is a circular array with monotonic head (claimed) and tail
  (reserved) counters; a cell holds vertex + 1, and 0 means empty, so a consumer that claimed a
  cell before its producer wrote it waits on that one cell, never on a barrier.
- Each block is a worker. Its threads read every slot's queued and in-flight counts at once; the
  first busy slot is the floor (``cur`` is advanced to it with a CAS: no barrier, whoever sees it
  first moves it); the block claims up to ``chunk`` vertices from the first slot with queued work
  within ``lookahead`` buckets of the floor, one thread per vertex. lookahead=1 is delta-stepping
  bucket by bucket; larger values let idle blocks start on the next buckets, as ADDS does.
- Expanding a vertex relaxes every out-arc with atomicMin. An improved neighbour whose new
  distance stays in the expanded vertex's bucket is expanded next by the same thread (up to
  ``chase`` steps): the improving thread owns the improvement, as in LBR, and a road graph's
  chains of degree-2 vertices then cost dependent loads, not a queue round trip each. Other
  improved neighbours are staged in shared memory, deduplicated by an atomic exchange on a
  per-vertex "queued" flag, counted per slot and reserved with one atomicAdd per slot and batch
  (up to ``stage`` of them; past that, or with stage=0, each goes to its queue at once).
- Issue 34 (each off at 0 or 1; ``hub`` and ``warp`` on by default): ``hub`` > 0 defers a
  vertex of that out-degree or more to a phase where the block's threads stride over its arcs
  (one thread walking a 21k-arc hub alone held the whole batch); ``rounds`` > 1 lets a batch
  expand, after its claimed vertices, the same-bucket improvements its threads did not chase,
  handed over in shared memory across a block barrier instead of through a global queue;
  ``reach`` > 1 lets a chase run past its own bucket. Vertices handed over or deferred are owned
  as a chased one is. ``warp`` = 1 (round 3): the expansion above, and the chase, by a warp over
  its lanes' vertices together (``warp.py``).
- Termination without a barrier: ``pending`` counts vertices queued, staged or being expanded.
  It is raised before any vertex becomes visible and lowered only by the block that expanded it,
  in one atomicAdd of (pushed - claimed) per batch; a block that finds no work and reads
  pending == 0 knows nothing is left anywhere, and returns.

Exactness: d only decreases, by atomicMin on int64 (no sum of int32 weights overflows). Every
decrease is owned by the thread whose atomicMin made it: it expands the vertex itself (chase) or
queues it; if the vertex is already queued (flag set), the queued entry is expanded later and
reads d then. The flag is cleared before that read and set after the decrease, with a fence
between each pair, so a decrease is never missed by both. Distances are read with atomics where
a stale cached value could lose an update (the expanded vertex's own distance); the pre-check
``candidate < d[v]`` before an atomicMin may read a stale (higher) value safely.

The grid is launched cooperatively only so that every block is resident (a block waiting on a
cell must not wait for a block that never runs); its two grid syncs separate initialisation from
the search.
"""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu
from ...errors import InputError
from ..base import INF, SolveResult, register
from ..senthilkumar.sweep import heuristic_delta
from .defaults import default_c
from .warp import WARP, compile_warp_expand

MAX_THREADS = 512  # shared per-thread arrays have a compile-time size
WARPS = MAX_THREADS // 32
LOCAL_CELLS = 2 * MAX_THREADS  # two rounds' hand-over buffers (a shared array's size is a constant)
MAX_BUCKETS = 256
STAGE = 1024  # improved vertices a block stages per batch before pushing to the queues directly
# Control words (int64). STUCK: set by a block that waited past SPIN_LIMIT, so a bug shows as an
# error on the host, not as a kernel that never returns.
CUR, PENDING, STUCK, WORDS = 0, 1, 2, 3
SPIN_LIMIT = 1 << 22
# An idle block sleeps 32 ns, doubling up to this, between scans: long enough that 132 polling
# blocks leave the counters to the blocks with work, short enough to wake within a batch.
MAX_SLEEP_NS = 256
# Count-mode tallies.
TALLIES = ("claims", "vertices_popped", "vertices_expanded", "vertices_chased", "arcs_relaxed",
           "atomics", "improving_atomics", "vertices_pushed", "direct_pushes", "idle_scans",
           "floor_advances", "slot_reservations", "hub_expansions", "hub_arcs", "vertices_local", "local_rounds")
(CLAIMS, POPS, EXPANDED, CHASED, ARCS, ATOMICS, IMPROVING, PUSHES, DIRECT, IDLE, ADVANCES,
 RESERVATIONS, HUBS, HUB_ARCS, LOCAL, ROUNDS) = range(len(TALLIES))
S_CUR, S_BUSY, S_QUEUED, S_SLOT, S_HEAD, S_TAKEN, S_EXIT = range(7)  # a block's control cells
NTALLIES = len(TALLIES)
_kernels = {}


def _compile(count: bool):
    if count in _kernels:
        return _kernels[count]
    simulated = gpu.simulated()

    @cuda.jit(device=True)
    def read(array, i):
        """A coherent read: an atomic, so no stale L1 line can hide another block's write."""
        return cuda.atomic.add(array, i, 0)

    @cuda.jit(device=True)
    def backoff(ns):
        if not simulated:
            cuda.nanosleep(np.uint32(ns))

    @cuda.jit(device=True)
    def slot_of(dist, cur, delta, nb):
        b = dist // delta
        b = min(max(b, cur), cur + nb - 1)
        return b % nb

    @cuda.jit(device=True)
    def write_cell(queues, cell, value, words):
        """Fill a reserved cell; waits only while its previous occupant is still unread."""
        spins = 0
        while cuda.atomic.cas(queues, cell, 0, value) != 0:
            spins += 1
            if spins > SPIN_LIMIT:
                words[STUCK] = 3  # 3: a reserved cell never emptied
                return

    @cuda.jit(device=True)
    def relax(d, v, candidate, tally):
        """One arc relaxed: True when ``candidate`` lowered ``d[v]`` (the atomic min decides
        between improvers racing on v); the counting pass tallies arcs, atomics, improvements."""
        if count:
            cuda.atomic.add(tally, ARCS, 1)
        if candidate >= d[v]:
            return False
        previous = cuda.atomic.min(d, v, candidate)
        if count:
            cuda.atomic.add(tally, ATOMICS, 1)
        if candidate < previous:
            if count:
                cuda.atomic.add(tally, IMPROVING, 1)
            return True
        return False

    @cuda.jit(device=True)
    def push(v, candidate, stage, staged, stage_cap, inq, queues, tail, words, tally, cap, delta):
        """An improved vertex its improver will not expand: staged for the batch's flush, or
        (stage full) straight into its queue."""
        p = cuda.atomic.add(staged, 0, 1)
        if p < stage_cap:
            stage[p] = v
            return
        cuda.threadfence()
        if cuda.atomic.exch(inq, v, 1) == 0:
            cuda.atomic.add(words, PENDING, 1)
            cuda.threadfence()
            nb = tail.shape[0]
            q = slot_of(candidate, read(words, CUR), delta, nb)
            at = cuda.atomic.add(tail, q, 1)
            write_cell(queues, q * cap + (at & (cap - 1)), v + 1, words)
            if count:
                cuda.atomic.add(tally, DIRECT, 1)
                cuda.atomic.add(tally, PUSHES, 1)

    expand = compile_warp_expand(count, simulated, relax, push, EXPANDED, CHASED, MAX_THREADS)

    @cuda.jit
    def frontier(source, delta, chase, reach, hub, rounds, warp, lookahead, chunk, stage_cap,
                 indptr, indices, weights, d, inq, queues, head, tail, inflight, words, totals):
        grid = cuda.cg.this_grid()
        n = d.shape[0]
        nb = head.shape[0]
        cap = queues.shape[0] // nb
        mask = cap - 1
        tid = cuda.grid(1)
        stride = cuda.gridsize(1)
        t = cuda.threadIdx.x
        width = cuda.blockDim.x
        ctl = cuda.shared.array(8, np.int64)
        stage = cuda.shared.array(STAGE, np.int32)
        stage_slot = cuda.shared.array(STAGE, np.int32)
        stage_off = cuda.shared.array(STAGE, np.int32)
        staged = cuda.shared.array(3, np.int32)  # [0] staged, [1] kept after dedup, [2] hubs
        # hubs met this batch, expanded by the whole block after the per-thread phase (a thread
        # defers at most one: its chase ends there)
        hubs = cuda.shared.array(MAX_THREADS, np.int32)
        hub_d = cuda.shared.array(MAX_THREADS, np.int64)
        # same-bucket improvements handed to the next round: two buffers of `width` entries
        local_v = cuda.shared.array(LOCAL_CELLS, np.int32)
        local_d = cuda.shared.array(LOCAL_CELLS, np.int64)
        local_n = cuda.shared.array(2, np.int32)
        slot_count = cuda.shared.array(MAX_BUCKETS, np.int32)
        slot_base = cuda.shared.array(MAX_BUCKETS, np.int64)
        tally = cuda.shared.array(NTALLIES, np.int64)
        seen_head = cuda.shared.array(MAX_BUCKETS, np.int64)  # by ring offset from cur
        seen_tail = cuda.shared.array(MAX_BUCKETS, np.int64)
        w_start = cuda.shared.array(MAX_THREADS, np.int64)  # warp=1: each lane's first arc
        w_scan = cuda.shared.array(MAX_THREADS, np.int64)  # and its warp's degree prefix sums
        w_n = cuda.shared.array(WARPS, np.int32)  # the warp's kept list's length
        for v in range(tid, n, stride):
            d[v] = INF
            inq[v] = 0
        for s in range(tid, nb, stride):
            head[s] = 0
            tail[s] = 0
            inflight[s] = 0
        if tid == 0:
            words[CUR] = 0
            words[PENDING] = 1
            words[STUCK] = 0
        if t == 0:
            staged[0] = 0
            staged[1] = 0
            staged[2] = 0
            local_n[0] = 0
            local_n[1] = 0
            for c in range(NTALLIES):
                tally[c] = 0
        for s in range(t, nb, width):
            slot_count[s] = 0
        grid.sync()
        if tid == 0:
            d[source] = 0
            inq[source] = 1
            words[CUR] = 0
            queues[0] = source + 1  # slot 0 = bucket 0, cell 0
            tail[0] = 1
        grid.sync()
        sleep = 32
        idle = 0
        if t == 0:
            ctl[S_CUR] = 0
        while True:
            # --- find the floor and a slot with queued work --------------------------------
            # cur comes from the last flush (or the last idle pass): a stale one only shifts
            # where the scan starts, and the scan covers the whole ring.
            if t == 0:
                if idle > 0:
                    ctl[S_CUR] = read(words, CUR)
                ctl[S_BUSY] = nb
                ctl[S_QUEUED] = nb
                ctl[S_TAKEN] = 0
                ctl[S_EXIT] = 0
            cuda.syncthreads()
            cur = ctl[S_CUR]
            for o in range(t, nb, width):
                s = (cur + o) % nb
                seen_tail[o] = read(tail, s)
                seen_head[o] = read(head, s)
                queued = seen_tail[o] - seen_head[o]
                if queued > 0 or read(inflight, s) > 0:
                    cuda.atomic.min(ctl, S_BUSY, o)
                if queued > 0:
                    cuda.atomic.min(ctl, S_QUEUED, o)
            cuda.syncthreads()
            if t == 0:
                floor = ctl[S_BUSY]
                first = ctl[S_QUEUED]
                if floor == nb or first >= floor + lookahead:
                    if idle > SPIN_LIMIT:
                        words[STUCK] = 1  # 1: no work for too long
                    if read(words, STUCK) != 0:
                        ctl[S_EXIT] = 1
                if floor == nb:
                    if read(words, PENDING) == 0:
                        ctl[S_EXIT] = 1
                else:
                    if floor > 0:
                        # every slot before the floor is idle: move cur; a lost CAS means another
                        # block moved it already
                        if cuda.atomic.cas(words, CUR, cur, cur + floor) == cur and count:
                            tally[ADVANCES] += 1
                    if first < nb and first < floor + lookahead:  # first == nb: none queued
                        s = (cur + first) % nb
                        h = seen_head[first]  # the scan's values: no extra round trip
                        top = seen_tail[first]
                        for attempt in range(4):
                            if attempt > 0 and h >= top:
                                top = read(tail, s)
                            k = min(top - h, chunk)
                            if k <= 0:
                                break
                            old = cuda.atomic.cas(head, s, h, h + k)
                            if old == h:
                                cuda.atomic.add(inflight, s, k)
                                ctl[S_SLOT] = s
                                ctl[S_HEAD] = h
                                ctl[S_TAKEN] = k
                                break
                            h = old
            cuda.syncthreads()
            if ctl[S_EXIT] == 1:
                break
            taken = ctl[S_TAKEN]
            if taken == 0:
                if count and t == 0:
                    tally[IDLE] += 1
                backoff(sleep)
                sleep = min(sleep * 2, MAX_SLEEP_NS)
                idle += 1
                cuda.syncthreads()  # everyone has read this pass's shared cells
                continue
            sleep = 32
            idle = 0
            s = ctl[S_SLOT]
            fresh_cur = 0
            if t == 0:
                # issued now, used at the flush: its latency hides behind the expansion
                fresh_cur = read(words, CUR)
                if count:
                    tally[CLAIMS] += 1
            # --- expand: round 0 the claimed vertices, one per thread, chasing within the
            # bucket; later rounds (up to `rounds`) the same-bucket improvements round 0 left,
            # handed over in shared memory (a barrier, not a global queue trip) -------------
            rnd = 0
            buf = 0
            while True:
                u = -1
                du = 0
                if rnd == 0:
                    # warp=1: vertex j to lane j // warps of warp j % warps (a small claim: all)
                    j = t if warp == 0 else (t % WARP) * ((width + WARP - 1) // WARP) + t // WARP
                    if j < taken:
                        cell = s * cap + ((ctl[S_HEAD] + j) & mask)
                        value = cuda.atomic.exch(queues, cell, 0)
                        spins = 0
                        while value == 0 and spins <= SPIN_LIMIT:  # claimed before it was written
                            value = cuda.atomic.exch(queues, cell, 0)
                            spins += 1
                        if value == 0:
                            words[STUCK] = 2  # 2: a claimed cell never filled
                        u = value - 1  # -1 only when stuck: nothing to expand
                        if u >= 0:
                            cuda.atomic.exch(inq, u, 0)
                            cuda.threadfence()  # the flag is clear before d[u] is read
                            du = read(d, u)
                        if count:
                            cuda.atomic.add(tally, POPS, 1)
                elif t < local_n[buf]:  # entries past `width` were pushed, not kept: t < width
                    u = local_v[buf * MAX_THREADS + t]
                    du = local_d[buf * MAX_THREADS + t]  # owned, as a chased distance is
                    if count:
                        cuda.atomic.add(tally, LOCAL, 1)
                keep_local = rnd + 1 < rounds
                nxt = 1 - buf
                limit = (du // delta + reach) * delta  # reach 1: the chase stays in du's bucket
                steps = 0
                if warp > 0:  # rounds == 1: local_v/local_d are the warps' lists
                    expand(u, du, t, width, hub, chase, reach, delta, indptr, indices, weights, d,
                           local_v, local_d, w_start, w_scan, w_n, hubs, hub_d, stage, staged,
                           stage_cap, inq, queues, tail, words, tally, cap)
                    u = -1
                while u >= 0:
                    if hub > 0 and indptr[u + 1] - indptr[u] >= hub:
                        # one thread would walk a hub's arcs alone, the whole batch waiting on
                        # it (web graph, issue 34): the block shares them below
                        p = cuda.atomic.add(staged, 2, 1)
                        hubs[p] = u
                        hub_d[p] = du  # owned as a chased distance is: a later decrease is queued
                        break
                    following = -1
                    following_d = INF
                    if count:
                        cuda.atomic.add(tally, EXPANDED, 1)
                        if steps > 0:
                            cuda.atomic.add(tally, CHASED, 1)
                    for e in range(indptr[u], indptr[u + 1]):
                        v = indices[e]
                        candidate = du + weights[e]
                        if relax(d, v, candidate, tally):
                            if following < 0 and steps < chase and candidate < limit:
                                following = v  # ours to expand next
                                following_d = candidate
                            else:
                                kept = False
                                if keep_local and candidate < limit:
                                    p = cuda.atomic.add(local_n, nxt, 1)
                                    if p < width:
                                        local_v[nxt * MAX_THREADS + p] = v
                                        local_d[nxt * MAX_THREADS + p] = candidate
                                        kept = True
                                if not kept:
                                    push(v, candidate, stage, staged, stage_cap, inq, queues,
                                         tail, words, tally, cap, delta)
                    u = following
                    du = following_d
                    steps += 1
                cuda.syncthreads()
                # --- the deferred hubs: the block's threads stride over each one's arcs -----
                for i in range(staged[2]):
                    u = hubs[i]
                    du = hub_d[i]
                    if count and t == 0:
                        tally[EXPANDED] += 1
                        tally[HUBS] += 1
                        tally[HUB_ARCS] += indptr[u + 1] - indptr[u]
                    for e in range(indptr[u] + t, indptr[u + 1], width):
                        v = indices[e]
                        candidate = du + weights[e]
                        if relax(d, v, candidate, tally):
                            push(v, candidate, stage, staged, stage_cap, inq, queues, tail,
                                 words, tally, cap, delta)
                cuda.syncthreads()
                more = local_n[nxt]
                cuda.syncthreads()  # every thread has read this round's counts
                if t == 0:
                    staged[2] = 0
                    local_n[buf] = 0
                    if count and more > 0:
                        tally[ROUNDS] += 1
                cuda.syncthreads()
                if more == 0:
                    break
                buf = nxt
                rnd += 1
            # --- push the staged vertices: dedup, count per slot, one reservation per slot ---
            kept_total = min(staged[0], stage_cap)
            cuda.threadfence()  # the decreases are visible before the flags are read
            if t == 0:
                ctl[S_CUR] = fresh_cur
            cuda.syncthreads()
            cur = ctl[S_CUR]
            for j in range(t, kept_total, width):
                v = stage[j]
                stage_slot[j] = -1
                if cuda.atomic.exch(inq, v, 1) == 0:
                    q = slot_of(d[v], cur, delta, nb)  # a stale d only files it later
                    stage_slot[j] = q
                    stage_off[j] = cuda.atomic.add(slot_count, q, 1)
                    cuda.atomic.add(staged, 1, 1)
            cuda.syncthreads()
            if t == 0:
                # Raised before any of them is visible; our own claimed vertices are done.
                cuda.atomic.add(words, PENDING, staged[1] - taken)
                cuda.atomic.sub(inflight, s, taken)
                cuda.threadfence()
                if count:
                    tally[PUSHES] += staged[1]
            cuda.syncthreads()
            for q in range(t, nb, width):
                if slot_count[q] > 0:
                    slot_base[q] = cuda.atomic.add(tail, q, slot_count[q])
                    if count:
                        cuda.atomic.add(tally, RESERVATIONS, 1)
            cuda.syncthreads()
            for j in range(t, kept_total, width):
                q = stage_slot[j]
                if q >= 0:
                    write_cell(queues, q * cap + ((slot_base[q] + stage_off[j]) & mask),
                               stage[j] + 1, words)
            cuda.syncthreads()
            for q in range(t, nb, width):
                slot_count[q] = 0
            if t == 0:
                staged[0] = 0
                staged[1] = 0
            cuda.syncthreads()
        if count and t == 0:
            for c in range(NTALLIES):
                cuda.atomic.add(totals, c, tally[c])

    _kernels[count] = frontier
    return frontier


def _pow2_at_least(x: int) -> int:
    return 1 << max(0, int(x - 1).bit_length())


class _Frontier:
    def __init__(self, graph, delta: int, c: float, chase: int, lookahead: int, chunk: int,
                 buckets: int, threads_per_block: int, blocks: int, stage: int = STAGE,
                 hub: int = 0, reach: int = 1, rounds: int = 1, warp: int = 0):
        if not 1 <= threads_per_block <= MAX_THREADS:
            raise InputError(f"threads_per_block must be 1..{MAX_THREADS}, got {threads_per_block}")
        if not 2 <= buckets <= MAX_BUCKETS:
            raise InputError(f"buckets (the ring's slots) must be 2..{MAX_BUCKETS}, got {buckets}")
        if not 1 <= lookahead <= buckets:
            raise InputError(f"lookahead must be 1..buckets ({buckets}), got {lookahead}")
        if not 0 <= chunk <= threads_per_block:
            raise InputError(f"chunk (vertices a block claims; 0: threads_per_block) must be "
                             f"0..threads_per_block, got {chunk}")
        chunk = chunk or threads_per_block
        if not 0 <= stage <= STAGE:
            raise InputError(f"stage (vertices staged per batch) must be 0..{STAGE}, got {stage}")
        if delta < 0 or c < 0 or chase < 0 or blocks < 0:
            raise InputError("delta >= 0 (0: the heuristic), c >= 0 (0: from the graph's mean "
                             "out-degree), chase >= 0 and blocks >= 0")
        if hub < 0 or not 1 <= reach <= buckets:
            raise InputError(f"hub (out-degree from which the block shares a vertex's arcs; 0: "
                             f"never) must be >= 0 and reach (buckets a chase may span) 1..buckets "
                             f"({buckets}), got hub={hub}, reach={reach}")
        if rounds < 1 or warp not in (0, 1) or warp and (
                rounds > 1 or threads_per_block > WARP and threads_per_block % WARP):
            raise InputError(f"rounds (a batch's expansion rounds) must be >= 1 and warp 0 or 1; "
                             f"warp=1 needs rounds=1 and threads_per_block a multiple of {WARP} "
                             f"or below it, got rounds={rounds}, warp={warp}, "
                             f"threads_per_block={threads_per_block}")
        gpu.require_cuda()
        self.warp = warp
        self.delta = delta or heuristic_delta(graph, c or default_c(graph))
        self.chase, self.lookahead, self.chunk, self.stage = chase, lookahead, chunk, stage
        self.hub, self.reach, self.rounds = hub, reach, rounds
        self.n, self.threads, self.blocks_asked = graph.num_vertices, threads_per_block, blocks
        n = self.n
        # Each vertex is queued at most once at a time (its flag), so a slot never holds more
        # than n unread cells; twice that leaves room for cells claimed but not yet read.
        self.cap = _pow2_at_least(2 * max(n, 1))
        self.buckets = buckets
        self.device_bytes = (graph.nbytes() + n * 8 + n * 4 + buckets * self.cap * 4
                             + 3 * buckets * 8 + WORDS * 8)
        self.stream, (self.indptr, self.indices, self.weights), self.upload_ms = gpu.upload_graph(
            cuda, graph, self.device_bytes, wide_indptr=True)
        s = self.stream
        self.d = cuda.device_array(n, dtype=np.int64, stream=s)
        self.inq = cuda.device_array(max(n, 1), dtype=np.int32, stream=s)
        # Cells must start empty; a finished solve leaves them empty again (every cell is read).
        self.queues = cuda.device_array(buckets * self.cap, dtype=np.int32, stream=s)
        _zero(self.queues, s)
        self.head = cuda.device_array(buckets, dtype=np.int64, stream=s)
        self.tail = cuda.device_array(buckets, dtype=np.int64, stream=s)
        self.inflight = cuda.device_array(buckets, dtype=np.int64, stream=s)
        self.words = cuda.device_array(WORDS, dtype=np.int64, stream=s)
        self._launchable = gpu.CooperativeLauncher(self.threads)

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        s = self.stream
        kernel = _compile(count)
        totals = cuda.to_device(np.zeros(len(TALLIES), dtype=np.int64), stream=s)
        args = (source, self.delta, self.chase, self.reach, self.hub, self.rounds, self.warp,
                self.lookahead, self.chunk, self.stage, self.indptr, self.indices, self.weights,
                self.d, self.inq, self.queues, self.head, self.tail, self.inflight, self.words,
                totals)
        launch, blocks = self._launchable(kernel, args, self.n)
        if not gpu.simulated():
            # One block per SM unless asked: the first H100 sweep (reports/evidence/frontier)
            # ran 2x faster on 132 blocks than on all 924 resident ones, whose idle polling of
            # the queue counters slowed the atomics of the blocks with work.
            asked = self.blocks_asked or cuda.get_current_device().MULTIPROCESSOR_COUNT
            blocks = min(blocks, asked)
        distances, words, solve_ms, download_ms = gpu.persistent_solve(
            launch, blocks, self.threads, s, args, self.d, self.words)
        stuck = int(words[STUCK])
        if stuck:
            why = {1: "for work", 2: "for a claimed queue cell to be filled",
                   3: "for a reserved queue cell to be emptied"}.get(stuck, "")
            # The queues may hold cells now: start the next solve from empty ones.
            _zero(self.queues, s)
            s.synchronize()
            raise RuntimeError(f"frontier: a block waited more than {SPIN_LIMIT} times {why} "
                               f"(source {source}): a bug, not a result")
        counters = {"kernel_launches": 1, "host_round_trips": 0, "grid_syncs": 2,
                    "resident_blocks": blocks, "resident_threads": blocks * self.threads,
                    "delta": self.delta}
        if count:
            tallies = dict(zip(TALLIES, (int(x) for x in totals.copy_to_host(stream=s))))
            s.synchronize()
            reached = int(np.count_nonzero(distances != INF))
            counters.update(tallies)
            counters.update(
                iterations=tallies["claims"],  # a block's batch is this design's round
                redundant_relaxations=tallies["improving_atomics"] - max(reached - 1, 0),
                redundant_expansions=tallies["vertices_expanded"] - reached)
        return SolveResult(distances, solve_ms, download_ms, counters)


def _zero(array, stream):
    if gpu.simulated():
        array.copy_to_device(np.zeros(array.shape, dtype=array.dtype), stream=stream)
    else:
        _zero_kernel[gpu.blocks_for(array.shape[0], 256), 256, stream](array)


@cuda.jit
def _zero_kernel(array):
    i = cuda.grid(1)
    if i < array.shape[0]:
        array[i] = 0


@register("frontier", device="gpu", document="graphrepro",
          description="the study's own: asynchronous bucketed SSSP, one persistent kernel with no "
                      "grid barrier per bucket; blocks pull vertices from a ring of Delta-bucket "
                      "queues, a warp expands its lanes' vertices together and chases within a "
                      "bucket, pushes are staged per slot, the block shares a hub's arcs; "
                      "termination by a pending count (issues 21, 34)",
          # defaults: c=0 (Delta = c x mean weight / mean out-degree; c from the mean out-degree,
          # defaults.py, issue 54); lookahead=4 (frontier4/call-5); blocks=0 is one per SM. hub=32,
          # 256 threads (chunk=0: one a thread) since issue 34's round 2; warp=1, chase=4 since round 3 (reports/evidence/frontier3/call-3, H100, 10 sources):
          # faster than round 2's default on all five graphs (ms: NY 9.4 -> 7.3, calnev 19.3 ->
          # 12.8, western 41.4 -> 27.0, uniform random 5.4 -> 3.2, web 4.7 -> 4.3). Round 2's design
          # is frontier@chase=2,warp=0; issue 21's frontier@chase=8,chunk=128,hub=0,
          # threads_per_block=128,warp=0 (one run id: the line break is this comment's).
          defaults={"delta": 0, "c": 0.0, "chase": 4, "lookahead": 4, "chunk": 0,
                    "buckets": 32, "threads_per_block": 256, "blocks": 0, "stage": STAGE,
                    "hub": 32, "reach": 1, "rounds": 1, "warp": 1},
          static_counters={"kernels_per_iteration": 0, "atomic_statements": 6})
def frontier(graph, delta=0, c=0.0, chase=4, lookahead=4, chunk=0, buckets=32,
             threads_per_block=256, blocks=0, stage=STAGE, hub=32, reach=1, rounds=1, warp=1):
    # stage: improved vertices a batch stages for one reservation per slot; past it (and with
    # stage=0, always) a vertex goes to its queue at once, without waiting for the batch's
    # longest chase to end.
    # hub: out-degree from which a vertex's arcs are shared by the block (0: each thread walks its
    # own vertex's arcs, the issue-21 design); reach: buckets a chase may run past the expanded
    # vertex's own (1: the same bucket only); rounds: a batch's expansion rounds, each expanding
    # the same-bucket improvements the last one did not chase (1: the claimed vertices only);
    # warp=1: a warp expands its lanes' vertices together (warp.py). All exact at any value.
    return _Frontier(graph, delta, c, chase, lookahead, chunk, buckets, threads_per_block, blocks,
                     stage, hub, reach, rounds, warp)
