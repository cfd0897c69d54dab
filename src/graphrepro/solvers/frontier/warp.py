"""``frontier@warp=1``: warp-cooperative expansion (issue 34, round 3).

Why (round 2's counters, reports/evidence/frontier2): on the uniform random graph a batch lasts
one thread's serial walk over its vertex's arcs and its chase; on the web graph vertices just
under the hub threshold are still walked by one thread each. Here a warp expands its lanes'
claimed vertices together: a prefix sum of their out-degrees (in shared memory, between warp
barriers) concatenates their arc lists, and lane i relaxes arcs i, i + 32, ... of it, finding each
arc's vertex by a binary search over the sums. A batch then lasts the warp's arcs / 32, not the
longest vertex, and adjacent lanes read adjacent arcs.

An improved neighbour whose new distance stays within ``reach`` buckets of its improver's is kept
by the warp (up to one per lane) and expanded in the warp's next round, up to ``chase`` rounds:
the chase of the one-thread design, but handed over behind a warp barrier and spread over the
lanes. Others are pushed as before (the block's stage, or the queue directly when it is full).
Exactness is the one-thread design's: a kept vertex is owned by the lane whose atomicMin improved
it, with the distance that lane set; a later decrease by anyone else is theirs to expand or queue.
A vertex of out-degree >= ``hub`` claimed from the queue is deferred to the block's hub phase as
before (a lane defers at most one a batch: the hub list has a cell per thread); one met in a later
round is queued instead.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

WARP = 32
_barriers: dict = {}
_barriers_lock = threading.Lock()


def _simulated_warp_sync(lanes):
    """The CUDA simulator has no __syncwarp: a simulated warp's lanes (Python threads of one
    block) meet at a barrier of their own. A lane that never comes (a call that is not
    warp-uniform, which real hardware would not forgive either) breaks it after a minute."""
    me = threading.current_thread()
    key = (id(me._manager), tuple(me.blockIdx), me.thread_id // WARP, lanes)
    with _barriers_lock:
        barrier = _barriers.setdefault(key, threading.Barrier(lanes, timeout=60))
    barrier.wait()


def compile_warp_expand(count: bool, simulated: bool, relax, push, staged_ok, flush,
                        expanded: int, chased: int, max_threads: int):
    """The warp expansion as a device function of frontier's kernel (``relax``, ``push``,
    ``staged_ok`` and ``flush`` (warp_push.py) are the kernel's own; ``expanded`` and ``chased``
    its tally cells)."""
    if simulated:
        @cuda.jit(device=True)
        def warp_sync(lanes):
            _simulated_warp_sync(lanes)
    else:
        @cuda.jit(device=True)
        def warp_sync(lanes):
            # a block of fewer than 32 threads is one part warp: its lanes only
            cuda.syncwarp(np.int32(-1) if lanes >= WARP else np.int32((1 << lanes) - 1))

    @cuda.jit(device=True)
    def expand(u, du, t, width, hub, chase, reach, delta, warp_push, indptr, indices, weights, d,
               list_v, list_d, w_start, w_scan, w_n, hubs, hub_d, stage, staged, stage_cap, inq,
               queues, tail, words, tally, cap):
        """Every thread of the block calls this once per batch with its claimed vertex (or -1);
        list_v/list_d: [0, max_threads) this round's vertices by thread, [max_threads, 2x) the
        warp's kept list for the next round."""
        lane = t % WARP
        base = t - lane
        lanes = min(WARP, width - base)
        warp = t // WARP
        steps = 0
        while True:
            start = 0
            deg = 0
            if u >= 0:
                start = indptr[u]
                deg = indptr[u + 1] - start
                if hub > 0 and deg >= hub:
                    if steps == 0:
                        p = cuda.atomic.add(staged, 2, 1)
                        hubs[p] = u
                        hub_d[p] = du
                    else:
                        push(u, du, stage, staged, stage_cap, inq, queues, tail, words, tally,
                             cap, delta)
                    deg = 0
                elif count:
                    cuda.atomic.add(tally, expanded, 1)
                    if steps > 0:
                        cuda.atomic.add(tally, chased, 1)
            list_d[t] = du
            w_start[t] = start
            w_scan[t] = deg
            if lane == 0:
                w_n[warp] = 0
            warp_sync(lanes)
            off = 1
            while off < lanes:  # inclusive prefix sum of the degrees (Hillis-Steele)
                x = w_scan[t]
                if lane >= off:
                    x += w_scan[t - off]
                warp_sync(lanes)
                w_scan[t] = x
                warp_sync(lanes)
                off *= 2
            total = w_scan[base + lanes - 1]
            # warp_push: every lane takes every turn (the flush is a warp's vote)
            for i0 in range(0, total, lanes):
                i = i0 + lane
                over = False
                v = 0
                candidate = 0
                if i < total:
                    lo = 0
                    hi = lanes - 1
                    while lo < hi:  # the first lane whose sum passes i owns arc i
                        mid = (lo + hi) // 2
                        if w_scan[base + mid] > i:
                            hi = mid
                        else:
                            lo = mid + 1
                    o = base + lo
                    before = 0
                    if lo > 0:
                        before = w_scan[o - 1]
                    e = w_start[o] + i - before
                    v = indices[e]
                    dv = list_d[o]
                    candidate = dv + weights[e]
                    if relax(d, v, candidate, tally):
                        kept = False
                        if steps < chase and candidate < (dv // delta + reach) * delta:
                            p = cuda.atomic.add(w_n, warp, 1)
                            if p < lanes:
                                list_v[max_threads + base + p] = v
                                list_d[max_threads + base + p] = candidate
                                kept = True
                        if not kept:
                            if warp_push == 0:
                                push(v, candidate, stage, staged, stage_cap, inq, queues, tail,
                                     words, tally, cap, delta)
                            else:
                                over = not staged_ok(v, stage, staged, stage_cap)
                if warp_push:
                    flush(over, v, candidate, lane, lanes, inq, queues, tail, words, tally, cap,
                          delta)
            warp_sync(lanes)
            k = min(w_n[warp], lanes)
            if k == 0:
                break
            steps += 1
            u = -1
            if lane < k:
                u = list_v[max_threads + t]
                du = list_d[max_threads + t]
            warp_sync(lanes)  # the list is read before any lane resets or refills it

    return expand
