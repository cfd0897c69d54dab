"""``frontier@spread=1``: a hub's arcs split into pieces that other blocks take (issue 54, item 4).

Why (reports/evidence/frontier4, the web graph's counters): a hub claimed by a block is walked by
that block's threads alone, one hub after another, while other blocks may find nothing queued.
Here a hub with more than ``piece`` arcs keeps its first piece and publishes the rest to a global
pool; a block looking for work takes a piece before a bucket's vertices and walks it as it would
walk a hub. ``piece`` comes from the graph's own mean out-degree (``defaults.spread_piece``): as
many arcs as an average batch relaxes, so a piece costs its taker about one batch.

The pool is a ring of cells (``pool_v``: hub + 1, 0 empty, -1 being written) with the piece's
distance and packed (first arc, slot) beside it, a tail reserved by publishers and a head claimed
by takers (control words). A publisher raises ``pending`` and its slot's in-flight count by the
pieces before any is visible, so neither termination nor the floor can pass them; each taker
lowers both by one at its batch's flush. A cell is locked (0 -> -1) before its fields are written
and published (-1 -> hub + 1) after a fence; a taker waits for a published cell, reads its
fields, and empties it after a fence: no two writers and no reader ever share a half-written
cell. Exactness is the hub phase's: the piece's distance is owned as a deferred hub's is (a
later decrease of the hub is queued, and expanded, by its maker).
"""

from __future__ import annotations

from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

SLOT_BITS = 8  # a piece's slot, packed under its first arc (buckets <= 256)


def compile_spread(read, spin_limit: int, stuck: int):
    """The pool's two ends as device functions of frontier's kernel (``read``: its coherent
    read; ``stuck``: the control word a block sets when it waits past ``spin_limit``)."""

    @cuda.jit(device=True)
    def publish(pool_v, pool_d, pool_lo, cell, u, du, lo, slot, words):
        spins = 0
        while cuda.atomic.cas(pool_v, cell, 0, -1) != 0:  # the last lap's piece is still unread
            spins += 1
            if spins > spin_limit:
                words[stuck] = 3  # 3: a reserved cell never emptied
                return
        pool_d[cell] = du
        pool_lo[cell] = lo * (1 << SLOT_BITS) + slot
        cuda.threadfence()  # the fields before the hub that makes them a piece
        cuda.atomic.exch(pool_v, cell, u + 1)

    @cuda.jit(device=True)
    def take(pool_v, pool_d, pool_lo, cell, ctl, at_u, at_du, at_lo, at_slot, words):
        """The piece in ``cell`` into ``ctl`` (hub, distance, first arc, slot); False when its
        publisher never came (a bug: ``words[stuck]`` says so)."""
        u = read(pool_v, cell)
        spins = 0
        while u <= 0:  # reserved, not yet published
            spins += 1
            if spins > spin_limit:
                words[stuck] = 2  # 2: a claimed cell never filled
                return False
            u = read(pool_v, cell)
        cuda.threadfence()  # the hub seen before its fields are read
        packed = read(pool_lo, cell)
        ctl[at_u] = u - 1
        ctl[at_du] = read(pool_d, cell)
        ctl[at_lo] = packed >> SLOT_BITS
        ctl[at_slot] = packed & ((1 << SLOT_BITS) - 1)
        cuda.threadfence()  # read before the cell is free for the next lap's publisher
        cuda.atomic.exch(pool_v, cell, 0)
        return True

    return publish, take
