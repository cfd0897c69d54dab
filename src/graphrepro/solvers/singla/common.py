"""What both edge-based solvers share: the edge arrays on the device and their parameters."""

from __future__ import annotations

import numpy as np

from ... import gpu
from ...errors import InputError
from ..base import SolveResult

THREADS_PER_BLOCK = 256
MAX_THREADS_PER_BLOCK = 1024


def check_params(threads_per_block: int, check_every: int) -> None:
    if threads_per_block < 32 or threads_per_block > MAX_THREADS_PER_BLOCK or (
            threads_per_block & (threads_per_block - 1)):
        raise InputError(f"threads_per_block must be a power of two from 32 to "
                         f"{MAX_THREADS_PER_BLOCK}, not {threads_per_block}")
    if check_every < 1:
        raise InputError(f"check_every must be at least 1, not {check_every}")


class EdgeArrays:
    """S_a, E_a (and W_a) uploaded once per graph; one thread per edge over them.

    S_a is the CSR's arc sources (arcs sorted by start vertex), so neighbouring threads read the
    same start vertex and its state is fetched once per warp, not once per thread.
    """

    def __init__(self, graph, threads_per_block: int, check_every: int, *, weights: bool,
                 state_bytes: int):
        check_params(threads_per_block, check_every)
        cuda = gpu.require_cuda()
        self.cuda = cuda
        self.n = graph.num_vertices
        self.m = graph.num_arcs
        self.threads = threads_per_block
        self.check_every = check_every
        self.vertex_blocks = gpu.blocks_for(self.n, threads_per_block)
        self.edge_blocks = gpu.blocks_for(self.m, threads_per_block)
        host = {"S_a": graph.arc_sources(), "E_a": graph.indices}
        if weights:
            host["W_a"] = graph.weights
        self.device_bytes = sum(a.nbytes for a in host.values()) + state_bytes
        gpu.check_fits(self.device_bytes, f"graph {graph.name or ''} ({self.n} vertices, "
                                          f"{self.m} edges)")
        self.stream = cuda.stream()
        arrays, self.upload_ms = gpu.upload(cuda, host, stream=self.stream)
        self.S, self.E = arrays["S_a"], arrays["E_a"]
        self.W = arrays.get("W_a")
        self.counters = cuda.to_device(np.zeros(2, dtype=np.int64), stream=self.stream)

    def host_buffer(self, size: int) -> np.ndarray:
        """Pinned memory for the per-check read-back (a plain array in the simulator)."""
        if gpu.simulated():
            return np.zeros(size, dtype=np.int64)
        return self.cuda.pinned_array(size, np.int64)

    def reset_counters(self) -> None:
        self.counters.copy_to_device(np.zeros(2, dtype=np.int64), stream=self.stream)

    def read_counters(self) -> tuple[int, int]:
        relaxed, improving = self.counters.copy_to_host(stream=self.stream)
        self.stream.synchronize()
        return int(relaxed), int(improving)

    def result(self, answer, solve_ms: float, counters: dict, count: bool):
        """Download ``answer`` (timed on the device) and add the relaxation tallies when counted."""
        with gpu.DeviceTimer(self.stream).measure() as download_time:
            values = answer.copy_to_host(stream=self.stream)
            self.stream.synchronize()
        if count:
            relaxed, improving = self.read_counters()
            counters.update(edges_relaxed=relaxed, edges_improving=improving)
        return SolveResult(values, solve_ms, download_time["ms"], counters)
