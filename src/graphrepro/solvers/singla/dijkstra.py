"""Edge-based parallel Dijkstra (singla Section 4.2, Figs. 3-4), one thread per edge.

Each round: (1) the minimum tentative distance N_a[u] over the start vertices u of all edges whose
u is unsettled (M_a[u] != 1); (2) every edge whose start vertex is unsettled and at that minimum
relaxes its end vertex, and the start vertex is settled. Rounds repeat until the minimum is
infinite. A round settles *every* vertex at the current minimum, so with positive weights the
number of rounds is the number of distinct finite distances (plus one that finds none), not V:
small integer weights make few rounds, wide ones up to one per reachable vertex, and every round
is three passes over all E edges. (A zero-weight edge costs a round of its own; see below.)

What the text leaves open, and how this implementation makes it correct:

- Fig. 3 writes the minimum as "set minimum equal to minimum node weight" from every edge in
  parallel: a plain write race. Here it is an atomicMin, issued by the first edge of each
  unsettled vertex only, and only when it would lower the value already there.
- Fig. 4 lets every edge of u set M_a[u] = 1 in the same kernel in which the other edges of u test
  M_a[u] != 1, so an edge whose thread runs after a sibling's write skips its relaxation and that
  update is lost. Worse, a zero-weight edge can lower N_a[v] to the minimum during the relax
  kernel, so some of v's edges see "v at the minimum" and others do not. Here the settle decision
  is its own kernel (select), taken while no distance changes: it stamps M_a[u] with the round
  number, and the relax kernel relaxes exactly the edges whose start vertex carries this round's
  stamp. A vertex lowered to the minimum by a zero-weight edge is settled in the next round, at the
  same minimum.
- Fig. 4's "if N_a[v] > N_a[u] + W_a[i] then N_a[v] = N_a[u] + W_a[i]" races when two edges end at
  the same vertex (the larger value may land last); here it is an atomicMin.
- Fig. 4's "While D_a[u] > 0" never decrements D_a and would not end as written; a thread per edge
  needs no loop over u's out-degree, so D_a (and V_a) are not used on the device.
- "Repeated until all the nodes come to settled state" never ends when a vertex is unreachable
  (its weight stays infinite) or has no out-edge (the edge-based minimum never sees it); the loop
  ends when the minimum over unsettled start vertices is infinite.

Host loop: three launches per round (minimum, select, relax) and, with ``check_every=1`` (the
document's loop), one read-back per round to test for the end. With ``check_every=k`` the host
launches k rounds before reading back: rounds after the last useful one find an infinite minimum
and change nothing, so the answer is the same with k times fewer host round trips.

``mode=cooperative`` (ours, not the document's): the same three steps per round, but all rounds
run inside one cooperative launch, the steps separated by grid-wide barriers (grid.sync, ~2 us on
an H100) rather than by kernel launches (~28 us of host time each in numba) and read-backs; each
thread walks the edges with a grid stride, since a cooperative grid must be resident at once.
numba links libcudadevrt.a for grid.sync, so this mode needs a CUDA install that has it.
"""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu, launch
from ...errors import InputError
from ..base import INF, SolveResult, register
from .common import THREADS_PER_BLOCK, EdgeArrays

# state[0], state[1]: the minimum of odd and even rounds (round r writes slot r % 2 while the
# relax kernel of round r - 1 has reset it); state[2]: the last round whose minimum was finite.
LAST_ROUND = 2
MODES = ("host", "cooperative")
_kernels = {}


def _compile(count: bool):
    if count in _kernels:
        return _kernels[count]

    @cuda.jit(cache=True)
    def initialise(N, M, state, source):
        v = cuda.grid(1)
        if v < N.shape[0]:
            N[v] = 0 if v == source else INF
            M[v] = 0
        if v == 0:
            state[0] = INF
            state[1] = INF
            state[LAST_ROUND] = 0

    @cuda.jit(cache=True)
    def edge_minimum(S, N, M, state, slot):
        """Fig. 3, first loop: min N_a[S_a[i]] over edges with an unsettled start vertex."""
        i = cuda.grid(1)
        if i < S.shape[0]:
            u = S[i]
            # Edges are sorted by start vertex: the first edge of u speaks for all of u's edges,
            # which would offer the same value, so a round costs one atomic per candidate vertex,
            # not per edge (an almost-complete graph has ~1500 edges per vertex).
            if (i == 0 or S[i - 1] != u) and M[u] == 0:
                value = N[u]
                # state[slot] only falls, so a stale read can only be too high: skipping is safe.
                if value < state[slot]:
                    cuda.atomic.min(state, slot, value)

    @cuda.jit(cache=True)
    def edge_select(S, N, M, state, slot, r):
        """Settle every unsettled start vertex at the minimum: stamp it with round r."""
        i = cuda.grid(1)
        minimum = state[slot]
        if minimum == INF:
            return
        if i == 0:
            state[LAST_ROUND] = r
        if i < S.shape[0]:
            u = S[i]
            if (i == 0 or S[i - 1] != u) and M[u] == 0 and N[u] == minimum:
                M[u] = r  # one writer per vertex: its first edge

    @cuda.jit(device=True)
    def relax_if_settled(i, S, E, W, N, M, r, counters):
        u = S[i]
        if M[u] == r:
            # N[u] is final: only a zero-weight edge from another vertex settled now could
            # write it, and that writes the same value.
            candidate = N[u] + W[i]
            v = E[i]
            if count:
                cuda.atomic.add(counters, 0, 1)
            if candidate < N[v]:
                old = cuda.atomic.min(N, v, candidate)
                if count and candidate < old:
                    cuda.atomic.add(counters, 1, 1)

    @cuda.jit(cache=True)
    def edge_relax(S, E, W, N, M, state, next_slot, r, counters):
        """Fig. 4: every edge whose start vertex was settled in round r relaxes its end vertex."""
        i = cuda.grid(1)
        if i == 0:
            state[next_slot] = INF  # nothing reads it until the next round's minimum kernel
        if i < S.shape[0]:
            relax_if_settled(i, S, E, W, N, M, r, counters)

    @cuda.jit(cache=True)
    def cooperative_rounds(S, E, W, N, M, state, counters):
        """All rounds in one cooperative launch: the three steps of a round are grid-stride loops
        over the edges, separated by grid-wide barriers instead of kernel boundaries."""
        grid = cuda.cg.this_grid()
        first = cuda.grid(1)
        stride = cuda.gridsize(1)
        m = S.shape[0]
        r = 0
        while True:
            r += 1
            slot = r % 2
            for i in range(first, m, stride):
                u = S[i]
                if (i == 0 or S[i - 1] != u) and M[u] == 0:
                    value = N[u]
                    if value < state[slot]:
                        cuda.atomic.min(state, slot, value)
            grid.sync()
            minimum = state[slot]  # every thread reads the same value: all leave together
            if minimum == INF:
                return
            if first == 0:
                state[LAST_ROUND] = r
                state[1 - slot] = INF  # read by the last round's threads before this barrier
            for i in range(first, m, stride):
                u = S[i]
                if (i == 0 or S[i - 1] != u) and M[u] == 0 and N[u] == minimum:
                    M[u] = r
            grid.sync()
            for i in range(first, m, stride):
                relax_if_settled(i, S, E, W, N, M, r, counters)
            grid.sync()

    _kernels[count] = (initialise, edge_minimum, edge_select, edge_relax, cooperative_rounds)
    return _kernels[count]


def _cooperative_blocks(kernel, args, threads: int, wanted: int) -> int:
    """As many blocks as the edges need, capped at what can be resident at once (a cooperative
    launch must fit on the device in one wave)."""
    if gpu.simulated():
        most = kernel.overloads[None].max_cooperative_grid_blocks(threads)  # 1 in the simulator
    else:
        from numba import typeof

        most = kernel.compile(tuple(typeof(a) for a in args)).max_cooperative_grid_blocks(threads)
    return max(1, min(wanted, most))


class _EdgeDijkstra:
    def __init__(self, graph, threads_per_block: int, check_every: int, mode: str):
        if mode not in MODES:
            raise InputError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        n = graph.num_vertices
        self.edges = EdgeArrays(graph, threads_per_block, check_every, weights=True,
                                state_bytes=n * (8 + 4) + 3 * 8)
        self.upload_ms = self.edges.upload_ms
        self.device_bytes = self.edges.device_bytes
        c, s = cuda, self.edges.stream
        self.N = c.device_array(n, dtype=np.int64, stream=s)
        self.M = c.device_array(n, dtype=np.int32, stream=s)
        self.state = c.device_array(3, dtype=np.int64, stream=s)
        self.state_host = self.edges.host_buffer(3)
        self._prepared = {}

    def _launches(self, count: bool):
        """A round's three kernels (slot and round number rewritten before each round) and the
        read of the state words, prepared once per mode."""
        if count not in self._prepared:
            e = self.edges
            _, edge_minimum, edge_select, edge_relax, _ = _compile(count)
            grid = (e.edge_blocks, e.threads, e.stream)
            self._prepared[count] = (
                launch.Launch(edge_minimum, *grid, e.S, self.N, self.M, self.state, 0),
                launch.Launch(edge_select, *grid, e.S, self.N, self.M, self.state, 0, 0),
                launch.Launch(edge_relax, *grid, e.S, e.E, e.W, self.N, self.M, self.state, 0, 0,
                              e.counters),
                launch.Read(e.stream, self.state, self.state_host))
        return self._prepared[count]

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        if self.mode == "cooperative":
            return self._solve_cooperative(source, count)
        e = self.edges
        s, tpb = e.stream, e.threads
        initialise = _compile(count)[0]
        edge_minimum, edge_select, edge_relax, read_state = self._launches(count)
        if count:
            e.reset_counters()
        r = 0
        trips = 0
        with gpu.DeviceTimer(s).measure() as solve_time:
            initialise[e.vertex_blocks, tpb, s](self.N, self.M, self.state, source)
            while True:
                for _ in range(e.check_every):
                    r += 1
                    slot = r % 2
                    edge_minimum.set(4, slot)
                    edge_select.set(4, slot)
                    edge_select.set(5, r)
                    edge_relax.set(6, 1 - slot)
                    edge_relax.set(7, r)
                    edge_minimum()
                    edge_select()
                    edge_relax()
                state = read_state()
                trips += 1
                if state[LAST_ROUND] < r:  # a round found no finite minimum: done
                    break
        counters = {"rounds": int(self.state_host[LAST_ROUND]), "rounds_launched": r,
                    "kernel_launches": 1 + 3 * r, "host_round_trips": trips,
                    "edges_examined": 3 * e.m * r}
        return e.result(self.N, solve_time["ms"], counters, count)

    def _solve_cooperative(self, source: int, count: bool) -> SolveResult:
        e = self.edges
        s, tpb = e.stream, e.threads
        initialise, *_, cooperative_rounds = _compile(count)
        if count:
            e.reset_counters()
        args = (e.S, e.E, e.W, self.N, self.M, self.state, e.counters)
        blocks = _cooperative_blocks(cooperative_rounds, args, tpb, e.edge_blocks)
        with gpu.DeviceTimer(s).measure() as solve_time:
            initialise[e.vertex_blocks, tpb, s](self.N, self.M, self.state, source)
            cooperative_rounds[blocks, tpb, s](*args)
            self.state.copy_to_host(self.state_host, stream=s)
            s.synchronize()
        rounds = int(self.state_host[LAST_ROUND])
        counters = {"rounds": rounds, "rounds_launched": rounds + 1, "kernel_launches": 2,
                    "host_round_trips": 1, "grid_syncs": 3 * rounds + 1,
                    "edges_examined": e.m * (3 * rounds + 1), "cooperative_blocks": blocks}
        return e.result(self.N, solve_time["ms"], counters, count)


@register("singla_dijkstra", device="gpu", document="singla",
          description="edge-based parallel Dijkstra, thread per edge over S_a/E_a/W_a: per round "
                      "minimum, select, relax (singla Figs. 3-4); host reads back every "
                      "check_every rounds; mode=cooperative: all rounds in one launch",
          defaults={"threads_per_block": THREADS_PER_BLOCK, "check_every": 1, "mode": "host"},
          static_counters={"kernels_per_round": 3})
def singla_dijkstra(graph, threads_per_block: int = THREADS_PER_BLOCK, check_every: int = 1,
                    mode: str = "host"):
    return _EdgeDijkstra(graph, threads_per_block, check_every, mode)
