"""Edge-based parallel BFS (singla Section 5.2, Figs. 5-6), one thread per edge.

The host launches SEARCH while the flag F says the last launch visited something; in SEARCH every
edge whose start vertex is visited marks its end vertex visited and raises F.

What the text leaves open, and how this implementation makes it correct:

- Fig. 6 tests "for each vertex v in S_a[i] ... if V_a[v] is false": the end vertex is E_a[i].
- A boolean visited array is read and written in the same launch, so a vertex marked early in a
  launch may already pass the visit on through later threads of that launch, depending on
  scheduling. The visited set comes out right, but a vertex's level (and the number of launches)
  does not. Here V_a holds the level (hop count) instead of a boolean: launch k lets an edge
  (u, v) act when level[u] <= k, i.e. u was visited *before* this launch, and writes
  level[v] = k + 1. Every launch is one BFS level, and the answer (hop counts, checked against
  Dijkstra on unit weights) is deterministic. Several edges may write the same level to the same
  vertex: a benign race, every writer writes the same value.
- F is "initialised to true" and the loop runs "while F is true", but nothing resets it: as written
  the loop never ends. A host write of false before each launch would cost a transfer per level;
  here launch k raises F to k + 1, so "launch k changed something" is F == k + 1 and F never needs
  resetting.
- W_a is created but never read, so it is not uploaded.

``check_every=k``: the host launches k levels before reading F back; launches after the last
level change nothing.
"""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu, launch
from ..base import INF, SolveResult, register
from .common import THREADS_PER_BLOCK, EdgeArrays

_kernels = {}


def _compile(count: bool):
    if count in _kernels:
        return _kernels[count]

    @cuda.jit(cache=True)
    def initialise(level, flag, source):
        v = cuda.grid(1)
        if v < level.shape[0]:
            level[v] = 0 if v == source else INF
        if v == 0:
            flag[0] = 0

    @cuda.jit(cache=True)
    def search(S, E, level, flag, k, counters):
        """Fig. 6 as launch k: edges out of vertices visited before this launch visit their end."""
        i = cuda.grid(1)
        if i < S.shape[0]:
            u = S[i]
            if level[u] <= k:
                v = E[i]
                if count:
                    cuda.atomic.add(counters, 0, 1)
                if level[v] == INF:
                    level[v] = k + 1
                    flag[0] = k + 1
                    if count:
                        cuda.atomic.add(counters, 1, 1)

    _kernels[count] = (initialise, search)
    return _kernels[count]


class _EdgeBFS:
    def __init__(self, graph, threads_per_block: int, check_every: int):
        n = graph.num_vertices
        self.edges = EdgeArrays(graph, threads_per_block, check_every, weights=False,
                                state_bytes=n * 8 + 8)
        self.upload_ms = self.edges.upload_ms
        self.device_bytes = self.edges.device_bytes
        s = self.edges.stream
        self.level = cuda.device_array(n, dtype=np.int64, stream=s)
        self.flag = cuda.device_array(1, dtype=np.int64, stream=s)
        self.flag_host = self.edges.host_buffer(1)
        self._prepared = {}

    def _launches(self, count: bool):
        """SEARCH (its level rewritten before each launch) and the read of F, prepared once."""
        if count not in self._prepared:
            e = self.edges
            search = launch.Launch(_compile(count)[1], e.edge_blocks, e.threads, e.stream, e.S,
                                   e.E, self.level, self.flag, 0, e.counters)
            self._prepared[count] = search, launch.Read(e.stream, self.flag, self.flag_host)
        return self._prepared[count]

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        e = self.edges
        s, tpb = e.stream, e.threads
        initialise = _compile(count)[0]
        search, read_flag = self._launches(count)
        if count:
            e.reset_counters()
        launches = 0  # search launches; launch k (0-based) finds level k + 1
        trips = 0
        with gpu.DeviceTimer(s).measure() as solve_time:
            initialise[e.vertex_blocks, tpb, s](self.level, self.flag, source)
            while True:
                for _ in range(e.check_every):
                    search.set(4, launches)
                    search()
                    launches += 1
                flag = read_flag()
                trips += 1
                if flag[0] < launches:  # the last launch visited nothing: done
                    break
        deepest = int(self.flag_host[0])
        counters = {"levels": deepest + 1, "search_launches": launches,
                    "kernel_launches": 1 + launches, "host_round_trips": trips,
                    "edges_examined": e.m * launches}
        return e.result(self.level, solve_time["ms"], counters, count)


@register("singla_bfs", device="gpu", document="singla",
          description="edge-based parallel BFS, thread per edge over S_a/E_a, one launch per "
                      "level and a changed flag (singla Figs. 5-6): hop counts; host reads the "
                      "flag every check_every levels",
          defaults={"threads_per_block": THREADS_PER_BLOCK, "check_every": 1},
          static_counters={"kernels_per_level": 1}, metric="hops")
def singla_bfs(graph, threads_per_block: int = THREADS_PER_BLOCK, check_every: int = 1):
    return _EdgeBFS(graph, threads_per_block, check_every)
