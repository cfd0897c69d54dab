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
from .defaults import default_c, designs_on, spread_piece
from .kernel import (MAX_BUCKETS, MAX_THREADS, SPIN_LIMIT, STAGE, STUCK, TALLIES, WORDS,
                     compile_kernel)
from .layout import renumbering
from .warp import WARP


def _pow2_at_least(x: int) -> int:
    return 1 << max(0, int(x - 1).bit_length())


class _Frontier:
    def __init__(self, graph, delta: int, c: float, chase: int, lookahead: int, chunk: int,
                 buckets: int, threads_per_block: int, blocks: int, stage: int = STAGE,
                 hub: int = 0, reach: int = 1, rounds: int = 1, warp: int = 0,
                 warp_push: int = 0, spread: int = 0, order: int = 0):
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
        if warp_push not in (-1, 0, 1):
            raise InputError(f"warp_push (a warp's pushes past the stage share one reservation; "
                             f"-1: from the graph's mean out-degree) must be -1, 0 or 1, got "
                             f"warp_push={warp_push}")
        if spread < -1 or order not in (0, 1):
            raise InputError(f"spread (-1: from the graph's mean out-degree, 0: off, 1: pieces "
                             f"from the mean out-degree, more: arcs a piece) must be >= -1, and "
                             f"order 0 or 1; got spread={spread}, order={order}")
        warp_push = designs_on(graph) if warp_push == -1 else warp_push
        spread = designs_on(graph) if spread == -1 else spread
        # on past the road degrees by default, and gated by the designs they extend: warp_push works on a
        # warp's expansion (warp=1), spread on a hub the block shares (hub > 0); without those
        # (round 2's and issue 21's designs, asked for by warp=0 or hub=0) they have nothing to act on
        warp_push, spread = (warp_push if warp else 0), (spread if hub else 0)
        gpu.require_cuda()
        self.warp, self.warp_push = warp, warp_push
        self.delta = delta or heuristic_delta(graph, c or default_c(graph))
        self.piece = spread if spread > 1 else spread_piece(graph, chunk, hub) if spread else 0
        self.renumbering = renumbering(graph) if order else None
        if order:
            graph = self.renumbering.graph
        self.chase, self.lookahead, self.chunk, self.stage = chase, lookahead, chunk, stage
        self.hub, self.reach, self.rounds = hub, reach, rounds
        self.n, self.threads, self.blocks_asked = graph.num_vertices, threads_per_block, blocks
        n = self.n
        # Each vertex is queued at most once at a time (its flag), so a slot never holds more
        # than n unread cells; twice that leaves room for cells claimed but not yet read.
        self.cap = _pow2_at_least(2 * max(n, 1))
        self.buckets = buckets
        # spread: room for every hub's pieces twice over (a hub re-expanded while its last
        # pieces wait); a publisher finding a cell still full waits for its taker.
        degrees = np.diff(graph.indptr)
        pieces = int(((degrees[degrees > self.piece] - 1) // self.piece).sum()) if spread else 0
        self.pool_cap = _pow2_at_least(max(2 * pieces, 1))
        # no vertex passes the piece: the kernel runs as spread=0, without polling an empty pool
        self.kernel_piece = self.piece if pieces else 0
        self.device_bytes = (graph.nbytes() + n * 8 + n * 4 + buckets * self.cap * 4
                             + 3 * buckets * 8 + WORDS * 8 + self.pool_cap * 20)
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
        self.pool_v = cuda.device_array(self.pool_cap, dtype=np.int32, stream=s)
        _zero(self.pool_v, s)  # like the queues' cells: every piece published is taken
        self.pool_d = cuda.device_array(self.pool_cap, dtype=np.int64, stream=s)
        self.pool_lo = cuda.device_array(self.pool_cap, dtype=np.int64, stream=s)
        self._launchable = gpu.CooperativeLauncher(self.threads)

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        s = self.stream
        kernel = compile_kernel(count)
        totals = cuda.to_device(np.zeros(len(TALLIES), dtype=np.int64), stream=s)
        solved_source = source if self.renumbering is None else self.renumbering.new_of_old[source]
        args = (int(solved_source), self.delta, self.chase, self.reach, self.hub, self.rounds,
                self.warp, self.warp_push, self.kernel_piece, self.lookahead, self.chunk, self.stage,
                self.indptr, self.indices, self.weights, self.d, self.inq, self.queues, self.head,
                self.tail, self.inflight, self.words, self.pool_v, self.pool_d, self.pool_lo,
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
            _zero(self.pool_v, s)
            s.synchronize()
            raise RuntimeError(f"frontier: a block waited more than {SPIN_LIMIT} times {why} "
                               f"(source {source}): a bug, not a result")
        counters = {"kernel_launches": 1, "host_round_trips": 0, "grid_syncs": 2,
                    "resident_blocks": blocks, "resident_threads": blocks * self.threads,
                    "delta": self.delta, "spread_piece": self.piece,
                    "renumbered": int(self.renumbering is not None)}
        if self.renumbering is not None:
            distances = self.renumbering.distances(distances)
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
          # warp_push=-1, spread=-1 since round 3's item 4: on past the road degrees, off within
          # (defaults.designs_on; reports/evidence/frontier4, calls 9-10, H200). order=1 stays
          # off: 0.96-0.99 where it helps, for 2-5 s of renumbering outside the timed solve.
          # Round 3's first default is frontier@warp_push=0,spread=0.
          defaults={"delta": 0, "c": 0.0, "chase": 4, "lookahead": 4, "chunk": 0,
                    "buckets": 32, "threads_per_block": 256, "blocks": 0, "stage": STAGE,
                    "hub": 32, "reach": 1, "rounds": 1, "warp": 1, "warp_push": -1, "spread": -1,
                    "order": 0},
          static_counters={"kernels_per_iteration": 0, "atomic_statements": 6})
def frontier(graph, delta=0, c=0.0, chase=4, lookahead=4, chunk=0, buckets=32,
             threads_per_block=256, blocks=0, stage=STAGE, hub=32, reach=1, rounds=1, warp=1,
             warp_push=-1, spread=-1, order=0):
    # stage: improved vertices a batch stages for one reservation per slot; past it (and with
    # stage=0, always) a vertex goes to its queue at once, without waiting for the batch's
    # longest chase to end.
    # hub: out-degree from which a vertex's arcs are shared by the block (0: each thread walks its
    # own vertex's arcs, the issue-21 design); reach: buckets a chase may run past the expanded
    # vertex's own (1: the same bucket only); rounds: a batch's expansion rounds, each expanding
    # the same-bucket improvements the last one did not chase (1: the claimed vertices only);
    # warp=1: a warp expands its lanes' vertices together (warp.py); warp_push=1: a warp's pushes
    # past the stage share one fence and reservation (warp_push.py); spread=1: a hub's arcs past
    # a piece go to a pool other blocks take from (spread.py; spread > 1: arcs a piece); order=1:
    # the graph renumbered in reverse Cuthill-McKee order (layout.py). All exact at any value.
    return _Frontier(graph, delta, c, chase, lookahead, chunk, buckets, threads_per_block, blocks,
                     stage, hub, reach, rounds, warp, warp_push, spread, order)
