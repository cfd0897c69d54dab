"""frontier's persistent kernel (the design and its exactness argument: ``frontier.py``'s
docstring); the host driver that prepares, launches and reads it back is ``frontier.py``."""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu
from ..base import INF
from .warp import WARP, compile_warp_expand
from .spread import compile_spread
from .warp_push import compile_warp_push

MAX_THREADS = 512  # shared per-thread arrays have a compile-time size
WARPS = MAX_THREADS // 32
LOCAL_CELLS = 2 * MAX_THREADS  # two rounds' hand-over buffers (a shared array's size is a constant)
MAX_BUCKETS = 256
STAGE = 1024  # improved vertices a block stages per batch before pushing to the queues directly
# Control words (int64). STUCK: set by a block that waited past SPIN_LIMIT, so a bug shows as an
# error on the host, not as a kernel that never returns.
# POOL_HEAD/POOL_TAIL: spread=1's pool of hub pieces (spread.py).
CUR, PENDING, STUCK, POOL_HEAD, POOL_TAIL, WORDS = 0, 1, 2, 3, 4, 5
SPIN_LIMIT = 1 << 22
# An idle block sleeps 32 ns, doubling up to this, between scans: long enough that 132 polling
# blocks leave the counters to the blocks with work, short enough to wake within a batch.
MAX_SLEEP_NS = 256
# Count-mode tallies.
TALLIES = ("claims", "vertices_popped", "vertices_expanded", "vertices_chased", "arcs_relaxed",
           "atomics", "improving_atomics", "vertices_pushed", "direct_pushes", "idle_scans",
           "floor_advances", "slot_reservations", "hub_expansions", "hub_arcs", "vertices_local",
           "local_rounds", "warp_flushes", "warp_reservations", "spread_hubs", "pieces_published",
           "pieces_taken")
(CLAIMS, POPS, EXPANDED, CHASED, ARCS, ATOMICS, IMPROVING, PUSHES, DIRECT, IDLE, ADVANCES,
 RESERVATIONS, HUBS, HUB_ARCS, LOCAL, ROUNDS, WARP_FLUSHES, WARP_RESERVATIONS, SPREAD_HUBS,
 PUBLISHED, TAKEN) = range(len(TALLIES))
# a block's control cells; S_PIECE..S_POOL: the piece it took (spread=1) and the pool cells its
# hub's pieces go to
(S_CUR, S_BUSY, S_QUEUED, S_SLOT, S_HEAD, S_TAKEN, S_EXIT, S_PIECE, S_U, S_DU, S_LO,
 S_POOL) = range(12)
NTALLIES = len(TALLIES)
_kernels = {}


def compile_kernel(count: bool):
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
    def staged_ok(v, stage, staged, stage_cap):
        """True when the block's stage took ``v`` for the batch's flush."""
        p = cuda.atomic.add(staged, 0, 1)
        if p < stage_cap:
            stage[p] = v
            return True
        return False

    @cuda.jit(device=True)
    def push(v, candidate, stage, staged, stage_cap, inq, queues, tail, words, tally, cap, delta):
        """An improved vertex its improver will not expand: staged for the batch's flush, or
        (stage full) straight into its queue."""
        if staged_ok(v, stage, staged, stage_cap):
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

    flush = compile_warp_push(count, simulated, read, slot_of, write_cell, dict(
        CUR=CUR, PENDING=PENDING, PUSHES=PUSHES, DIRECT=DIRECT, WARP_FLUSHES=WARP_FLUSHES,
        WARP_RESERVATIONS=WARP_RESERVATIONS))
    expand = compile_warp_expand(count, simulated, relax, push, staged_ok, flush, EXPANDED, CHASED,
                                 MAX_THREADS)
    publish, take = compile_spread(read, SPIN_LIMIT, STUCK)

    @cuda.jit(device=True)
    def walk(lo, hi, du, t, width, warp_push, indices, weights, d, stage, staged, stage_cap, inq,
             queues, tail, words, tally, cap, delta):
        """Arcs [lo, hi) of one vertex at distance du, strided over the block's threads."""
        # warp_push: every lane takes every turn (the flush is a warp's vote)
        for e0 in range(lo, hi, width):
            e = e0 + t
            over = False
            v = 0
            candidate = INF
            if e < hi:
                v = indices[e]
                candidate = du + weights[e]
                if relax(d, v, candidate, tally):
                    if warp_push == 0:
                        push(v, candidate, stage, staged, stage_cap, inq, queues, tail, words,
                             tally, cap, delta)
                    else:
                        over = not staged_ok(v, stage, staged, stage_cap)
            if warp_push:
                flush(over, v, candidate, t % WARP, min(WARP, width - t + t % WARP), inq, queues,
                      tail, words, tally, cap, delta)

    @cuda.jit
    def frontier(source, delta, chase, reach, hub, rounds, warp, warp_push, spread, lookahead,
                 chunk, stage_cap, indptr, indices, weights, d, inq, queues, head, tail, inflight,
                 words, pool_v, pool_d, pool_lo, totals):
        grid = cuda.cg.this_grid()
        n = d.shape[0]
        nb = head.shape[0]
        cap = queues.shape[0] // nb
        mask = cap - 1
        tid = cuda.grid(1)
        stride = cuda.gridsize(1)
        t = cuda.threadIdx.x
        width = cuda.blockDim.x
        ctl = cuda.shared.array(12, np.int64)
        pool_mask = pool_v.shape[0] - 1
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
            words[POOL_HEAD] = 0
            words[POOL_TAIL] = 0
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
                ctl[S_PIECE] = -1
                if spread > 0 and floor < nb:  # a published piece keeps its slot busy
                    ph = read(words, POOL_HEAD)
                    if ph < read(words, POOL_TAIL) and cuda.atomic.cas(
                            words, POOL_HEAD, ph, ph + 1) == ph:
                        if take(pool_v, pool_d, pool_lo, ph & pool_mask, ctl, S_U, S_DU, S_LO,
                                S_SLOT, words):
                            ctl[S_PIECE] = ph
                            ctl[S_TAKEN] = 1  # one unit of pending and of its slot's in-flight
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
                    if ctl[S_PIECE] < 0 and first < nb and first < floor + lookahead:
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
            piece = ctl[S_PIECE]
            claimed = taken if piece < 0 else 0  # vertices claimed from the bucket queues
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
                    if j < claimed:
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
                    expand(u, du, t, width, hub, chase, reach, delta, warp_push, indptr, indices,
                           weights, d, local_v, local_d, w_start, w_scan, w_n, hubs, hub_d, stage,
                           staged, stage_cap, inq, queues, tail, words, tally, cap)
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
                    lo = indptr[u]
                    end = indptr[u + 1]
                    if count and t == 0:
                        tally[EXPANDED] += 1
                        tally[HUBS] += 1
                        tally[HUB_ARCS] += end - lo
                    if spread > 0 and end - lo > spread:
                        # spread=1: pieces past the first go to the pool, for any block to take
                        k = (end - lo + spread - 1) // spread
                        if t == 0:
                            cuda.atomic.add(words, PENDING, k - 1)
                            cuda.atomic.add(inflight, s, k - 1)
                            cuda.threadfence()  # counted before any piece is visible
                            ctl[S_POOL] = cuda.atomic.add(words, POOL_TAIL, k - 1)
                            if count:
                                tally[SPREAD_HUBS] += 1
                                tally[PUBLISHED] += k - 1
                        cuda.syncthreads()
                        for j in range(t, k - 1, width):
                            publish(pool_v, pool_d, pool_lo, (ctl[S_POOL] + j) & pool_mask, u, du,
                                    lo + (j + 1) * spread, s, words)
                        cuda.syncthreads()  # ctl[S_POOL] is read before the next hub's
                        end = lo + spread
                    walk(lo, end, du, t, width, warp_push, indices, weights, d, stage, staged,
                         stage_cap, inq, queues, tail, words, tally, cap, delta)
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
            if piece >= 0:  # --- a hub's piece from the pool (spread=1) ----------------------
                u = ctl[S_U]
                lo = ctl[S_LO]
                end = min(lo + spread, indptr[u + 1])
                if count and t == 0:
                    tally[TAKEN] += 1
                    tally[HUB_ARCS] += end - lo
                walk(lo, end, ctl[S_DU], t, width, warp_push, indices, weights, d, stage, staged,
                     stage_cap, inq, queues, tail, words, tally, cap, delta)
                cuda.syncthreads()
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
