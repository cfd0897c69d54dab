"""Native CPU baselines: the Boost Graph Library's Dijkstra and a plain C++ binary-heap Dijkstra.

Each runs as one long-lived process per prepared graph (``graphrepro.native``): the graph is
exported once, loaded once, and every source is a request on the process's stdin, so a big graph
is not reloaded per source. The solve time is the program's own (std::chrono around the algorithm
alone); the distances come back over a pipe and are verified like any other solver's.
"""

from __future__ import annotations

import numpy as np

from .. import native
from .base import SolveResult, register


class NativeSSSP:
    upload_ms = 0.0
    device_bytes = 0

    def __init__(self, program, graph, counter: str | None):
        """``program``: our program's name, or a plugin's binary's path that speaks the same
        protocol (the CSR file's path as its argument; the vertex count back; then a source per
        line in, solve ms, one counter and the distances back, little-endian)."""
        self.n = graph.num_vertices
        self.counter = counter
        path = native.temp_file(".csr")
        try:
            native.write_csr(graph, path)
            self.process = native.Process(program, [str(path)], path)
            loaded = int(np.frombuffer(self.process.read(8), dtype="<i8")[0])
        finally:
            path.unlink(missing_ok=True)  # the program has read it (or failed)
        if loaded != self.n:
            raise native.GraphreproError(f"{program} loaded {loaded} vertices, expected {self.n}")

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        self.process.request(str(int(source)))
        head = self.process.read(16)
        ms = float(np.frombuffer(head[:8], dtype="<f8")[0])
        counter = int(np.frombuffer(head[8:], dtype="<i8")[0])
        dist = np.frombuffer(self.process.read(8 * self.n), dtype="<i8").astype(np.int64)
        counters = {self.counter: counter} if self.counter and counter >= 0 else {}
        return SolveResult(dist, ms, counters=counters)

    def close(self) -> None:
        self.process.close()


@register("bgl_dijkstra", device="cpu", document="reference",
          description="Boost Graph Library dijkstra_shortest_paths on its CSR graph (C++, g++ -O3); "
                      "the CPU baseline safari2017 quotes")
def bgl_dijkstra(graph):
    return NativeSSSP("bgl_dijkstra", graph, counter=None)


@register("cpp_dijkstra", device="cpu", document="reference",
          description="plain C++ Dijkstra, binary heap with lazy deletion (std::push_heap, "
                      "g++ -O3): the numba reference's algorithm, compiled ahead of time")
def cpp_dijkstra(graph):
    return NativeSSSP("cpp_dijkstra", graph, counter="arcs_relaxed")
