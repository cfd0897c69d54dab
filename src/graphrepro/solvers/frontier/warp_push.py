"""``frontier@warp_push=1``: a warp's pushes past the block's stage share one reservation
(issue 54, item 4).

Why (reports/evidence/frontier4, the uniform random graph's counters): once a batch's stage is
full, each improved vertex goes to its queue alone, paying a fence, the dedup flag, the pending
count, a read of ``cur`` and a reservation on its slot's tail, one thread after another as the
lanes diverge. Here the warp's lanes meet after every round of arcs (the arc loop is warp-uniform
under this option), vote on who overflowed, and pay once for the warp: one fence, one pending
raise by a leader lane, one read of ``cur`` broadcast to the others, and one tail reservation per
distinct slot among the winners (``match_any`` groups them; each takes its rank in the group).
Only the dedup flag stays per vertex: it is what makes a vertex queued at most once.

Exactness is the one-vertex push's: a winner's decrease (its atomicMin) is fenced before its flag
is read, pending is raised (and fenced) before any winner's cell is written, and each winner's
cell is its own (base + rank within its slot's group).
"""

from __future__ import annotations

import threading

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from .warp import WARP, _simulated_warp_sync

_boards: dict = {}
_boards_lock = threading.Lock()


def _simulated_exchange(lanes, value):
    """Every lane's value, in lane order, for the simulated warp (which has no vote or shuffle):
    each lane posts its own, the warp meets, each reads all, the warp meets again before the
    board is reused."""
    me = threading.current_thread()
    key = (id(me._manager), tuple(me.blockIdx), me.thread_id // WARP, lanes)
    with _boards_lock:
        board = _boards.setdefault(key, [None] * lanes)
    board[me.thread_id % WARP] = value
    _simulated_warp_sync(lanes)
    values = list(board)
    _simulated_warp_sync(lanes)
    return values


def compile_warp_push(count: bool, simulated: bool, read, slot_of, write_cell, cells: dict):
    """The aggregated push as a device function of frontier's kernel; ``read``, ``slot_of`` and
    ``write_cell`` are the kernel's own, ``cells`` its control-word and tally indices."""
    CUR, PENDING = cells["CUR"], cells["PENDING"]
    PUSHES, DIRECT, FLUSHES, RESERVATIONS = (cells["PUSHES"], cells["DIRECT"],
                                             cells["WARP_FLUSHES"], cells["WARP_RESERVATIONS"])

    if simulated:
        @cuda.jit(device=True)
        def ballot(lanes, predicate):
            bits = 0
            for j, p in enumerate(_simulated_exchange(lanes, bool(predicate))):
                if p:
                    bits |= 1 << j
            return bits

        @cuda.jit(device=True)
        def match_any(lanes, value):
            bits = 0
            for j, x in enumerate(_simulated_exchange(lanes, int(value))):
                if x == value:
                    bits |= 1 << j
            return bits

        @cuda.jit(device=True)
        def shfl(lanes, value, src):
            return _simulated_exchange(lanes, int(value))[src]
    else:
        @cuda.jit(device=True)
        def lane_mask(lanes):
            return np.int32(-1) if lanes >= WARP else np.int32((1 << lanes) - 1)

        @cuda.jit(device=True)
        def ballot(lanes, predicate):
            return np.int64(cuda.ballot_sync(lane_mask(lanes), predicate)) & 0xFFFFFFFF

        @cuda.jit(device=True)
        def match_any(lanes, value):
            return np.int64(cuda.match_any_sync(lane_mask(lanes), np.int64(value))) & 0xFFFFFFFF

        @cuda.jit(device=True)
        def shfl(lanes, value, src):
            return cuda.shfl_sync(lane_mask(lanes), np.int64(value), np.int32(src))

    @cuda.jit(device=True)
    def lowest_lane(bits):
        return cuda.popc((bits & -bits) - 1)  # trailing zeros: no ffs, whose base differs by API

    @cuda.jit(device=True)
    def flush(over, v, candidate, lane, lanes, inq, queues, tail, words, tally, cap, delta):
        """Called by every lane of the warp together; ``over``: this lane holds an improved
        vertex ``v`` (distance ``candidate``) that the block's stage had no room for."""
        if ballot(lanes, over) == 0:
            return
        cuda.threadfence()  # each lane's decrease is visible before its flag is read
        won = False
        if over:
            won = cuda.atomic.exch(inq, v, 1) == 0
        winners = ballot(lanes, won)
        if winners == 0:
            return
        leader = lowest_lane(winners)
        cur = 0
        if lane == leader:
            k = cuda.popc(winners)
            cuda.atomic.add(words, PENDING, k)
            cuda.threadfence()  # pending is raised before any winner's cell is visible
            cur = read(words, CUR)
            if count:
                cuda.atomic.add(tally, FLUSHES, 1)
                cuda.atomic.add(tally, DIRECT, k)
                cuda.atomic.add(tally, PUSHES, k)
        cur = shfl(lanes, cur, leader)
        q = -1
        if won:
            q = slot_of(candidate, cur, delta, tail.shape[0])
        group = match_any(lanes, q)
        first = lowest_lane(group)
        base = 0
        if won and lane == first:
            base = cuda.atomic.add(tail, q, cuda.popc(group))
            if count:
                cuda.atomic.add(tally, RESERVATIONS, 1)
        base = shfl(lanes, base, first)
        if won:
            rank = cuda.popc(group & ((1 << lane) - 1))
            write_cell(queues, q * cap + ((base + rank) & (cap - 1)), v + 1, words)

    return flush
