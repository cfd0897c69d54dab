"""an2017's Bellman-Ford family (R. An, CSC299 progress report, 2017), numba.cuda.

All four share Alg. 1's host loop and the document's three extra structures: ``mask`` (vertices
whose distance changed last iteration: only their arcs are relaxed), ``mask1`` (written this
iteration, so readers of ``mask`` see a stable set) and ``flag`` (raised on any improvement; the
host reads it back after every relaxation and stops when it stays 0, else at |V|-1 iterations).
Per iteration: one relaxation launch, one read of ``flag`` (the host round trip), and, unless
that was the last iteration, one launch of the swap kernel (Alg. 4).

- ``an_bf_dense``: thread per matrix entry on a 2-D grid (Alg. 3), with ``edges_per_thread``
  1..64 by grid-stride loops (Alg. 5) and three index orders: ``coalesced`` (the lanes of a warp
  walk along a matrix row: consecutive addresses, one mask test per warp), ``chunked`` (each
  thread takes ``edges_per_thread`` consecutive entries of a row, so lanes are that far apart)
  and ``transposed`` (Alg. 3's literal ``i = x``: lanes walk down a column, V entries apart).
- ``an_bf_edgelist``: thread per arc of (s, e, w) arrays (Alg. 6), grid-stride as Alg. 5.
- ``an_bf_incoming``: thread per vertex, pulls over its matrix column, no atomics (Alg. 7).
- ``an_bf_outgoing``: thread per vertex, pushes along its matrix row with atomicMin (Alg. 8).

The dense solvers take any graph: a ``DenseGraph`` generates its matrix, a CSR graph is scattered
into one (int32, ``NO_EDGE`` = 2^31-1 where there is no arc; parallel arcs keep the lightest).
The matrix is uploaded from ordinary (pageable) host memory, timed as the upload, as the
document's "basic version" does; ``transfers.py`` measures pinned memory and the two-stream
overlap.

Where we depart from the letter of the pseudocode, and why:
- Alg. 1 calls CUDA_SWAP after the loop; it must run inside it, after each relaxation (else mask
  never changes). The host reads ``flag`` before the swap kernel clears it.
- Alg. 3/5/6/8 test ``temp > dist[j]`` after the atomicMin, re-reading ``dist[j]`` (racy); we
  compare the candidate with the value atomicMin returns, the intended test.
- Alg. 7 sets ``mask1[i]`` (the neighbour); the vertex that improved is ``idx``, so we set
  ``mask1[idx]``, and write ``dist[idx]`` once after the loop rather than inside it.
- Distances are int64 (the document's are 32-bit) so no path sum can overflow; "no edge" is
  tested explicitly rather than added as infinity, for the same reason.
- The atomicMin is issued for every arc of an active vertex, as the pseudocode does (no read of
  ``dist[j]`` first to skip it): the atomics are what the document's Fig. 2 argument is about.
"""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu, launch
from ...errors import InputError
from ...graph.dense import NO_EDGE, dense_matrix
from ..base import INF, SolveResult, register
from . import EDGES_PER_THREAD, ORDERS  # noqa: F401  (EDGES_PER_THREAD: re-exported)

MAX_GRID_Y = 65535
_kernels: dict = {}


# --- kernels shared by every variant: Alg. 2 and Alg. 4 --------------------------------------------

def _relax_device():
    """Every variant's relaxation of one arc ending at v (Alg. 3's body): atomicMin, and on an
    improvement v joins the next round's mask and the flag says another round is needed."""
    if "relax" in _kernels:
        return _kernels["relax"]

    @cuda.jit(device=True)
    def relax_arc(dist, v, cand, mask1, flag):
        old = cuda.atomic.min(dist, v, cand)
        if cand < old:
            mask1[v] = 1
            flag[0] = 1
            return 1
        return 0

    _kernels["relax"] = relax_arc
    return relax_arc


def _common():
    if "common" in _kernels:
        return _kernels["common"]

    @cuda.jit(cache=True)
    def initialise(dist, mask, mask1, flag, source):  # Alg. 2
        v = cuda.grid(1)
        if v < dist.shape[0]:
            dist[v] = INF
            mask[v] = 0
            mask1[v] = 0
            if v == source:
                dist[v] = 0
                mask[v] = 1
            if v == 0:
                flag[0] = 0

    @cuda.jit(cache=True)
    def swap(mask, mask1, flag):  # Alg. 4
        v = cuda.grid(1)
        if v < mask.shape[0]:
            mask[v] = mask1[v]
            mask1[v] = 0
            if v == 0:
                flag[0] = 0

    @cuda.jit(cache=True)
    def activate_rows_from(dist, mask, mask1, flag, first_row):
        """Two-stream version, between its halves: the reached vertices of the second half have
        had none of their arcs relaxed yet (their rows were still in flight), so they are active,
        with whatever the first half left pending."""
        v = cuda.grid(1)
        if v < dist.shape[0]:
            mask[v] = 1 if mask1[v] == 1 or (v >= first_row and dist[v] != INF) else 0
            mask1[v] = 0
            if v == 0:
                flag[0] = 0

    _kernels["common"] = (initialise, swap, activate_rows_from)
    return _kernels["common"]


def _dense_kernel(order: str, k: int, count: bool):
    """Alg. 3 / Alg. 5 for one index order; ``k`` (edges per thread) matters to ``chunked`` only,
    the others take it from the grid. Rows ``>= row_stop`` are skipped (the two-stream version's
    first half)."""
    key = ("dense", order, k if order == "chunked" else 0, count)
    if key in _kernels:
        return _kernels[key]

    relax_arc = _relax_device()

    @cuda.jit(cache=True)
    def relax(matrix, dist, mask, mask1, flag, counters, row_stop):
        n = dist.shape[0]
        x, y = cuda.grid(2)
        gx, gy = cuda.gridsize(2)
        relaxed = 0
        improving = 0
        if order == "transposed":
            first_i, step_i, first_j, step_j = x, gx, y, gy
        else:
            first_i, step_i, first_j, step_j = y, gy, x, gx
        i = first_i
        while i < row_stop:
            if mask[i] == 1:
                di = dist[i]
                if order == "chunked":
                    c = first_j
                    while c * k < n:
                        stop = min(c * k + k, n)
                        for j in range(c * k, stop):
                            w = matrix[i, j]
                            if w != NO_EDGE:
                                cand = di + w
                                improving += relax_arc(dist, j, cand, mask1, flag)
                                relaxed += 1
                        c += step_j
                else:
                    j = first_j
                    while j < n:
                        w = matrix[i, j]
                        if w != NO_EDGE:
                            cand = di + w
                            improving += relax_arc(dist, j, cand, mask1, flag)
                            relaxed += 1
                        j += step_j
            i += step_i
        if count and relaxed > 0:
            cuda.atomic.add(counters, 0, relaxed)
            cuda.atomic.add(counters, 1, improving)

    _kernels[key] = relax
    return relax


def _edgelist_kernel(count: bool):
    key = ("edgelist", count)
    if key in _kernels:
        return _kernels[key]

    relax_arc = _relax_device()

    @cuda.jit(cache=True)
    def relax(s, e, w, dist, mask, mask1, flag, counters):  # Alg. 6, grid-stride as Alg. 5
        a = cuda.grid(1)
        stride = cuda.gridsize(1)
        relaxed = 0
        improving = 0
        while a < s.shape[0]:
            u = s[a]
            if mask[u] == 1:
                v = e[a]
                cand = dist[u] + w[a]
                improving += relax_arc(dist, v, cand, mask1, flag)
                relaxed += 1
            a += stride
        if count and relaxed > 0:
            cuda.atomic.add(counters, 0, relaxed)
            cuda.atomic.add(counters, 1, improving)

    _kernels[key] = relax
    return relax


def _incoming_kernel(count: bool):
    key = ("incoming", count)
    if key in _kernels:
        return _kernels[key]

    @cuda.jit(cache=True)
    def relax(matrix, dist, mask, mask1, flag, counters):  # Alg. 7: pull, no atomics
        v = cuda.grid(1)
        n = dist.shape[0]
        if v < n:
            minimum = dist[v]
            improved = False
            relaxed = 0
            for i in range(n):
                if mask[i] == 1:
                    w = matrix[i, v]  # lanes read consecutive columns of row i: coalesced
                    if w != NO_EDGE:
                        relaxed += 1
                        cand = dist[i] + w
                        if cand < minimum:
                            minimum = cand
                            improved = True
            if improved:
                dist[v] = minimum  # only this thread writes dist[v]
                mask1[v] = 1
                flag[0] = 1
            if count and relaxed > 0:
                cuda.atomic.add(counters, 0, relaxed)
                if improved:
                    cuda.atomic.add(counters, 1, 1)

    _kernels[key] = relax
    return relax


def _outgoing_kernel(count: bool):
    key = ("outgoing", count)
    if key in _kernels:
        return _kernels[key]

    relax_arc = _relax_device()

    @cuda.jit(cache=True)
    def relax(matrix, dist, mask, mask1, flag, counters):  # Alg. 8: push with atomicMin
        u = cuda.grid(1)
        n = dist.shape[0]
        if u < n and mask[u] == 1:
            du = dist[u]
            relaxed = 0
            improving = 0
            for v in range(n):
                w = matrix[u, v]  # lanes read V entries apart: not coalesced
                if w != NO_EDGE:
                    cand = du + w
                    improving += relax_arc(dist, v, cand, mask1, flag)
                    relaxed += 1
            if count and relaxed > 0:
                cuda.atomic.add(counters, 0, relaxed)
                cuda.atomic.add(counters, 1, improving)

    _kernels[key] = relax
    return relax


def _outgoing_plain_kernel(count: bool):
    """Alg. 8 with its atomicMin replaced by a plain read, compare and write: the control that
    shows what the atomics cost. Two threads improving one vertex at once can lose the smaller
    value to the larger; DenseOutgoingPlain repairs that afterwards."""
    key = ("outgoing_plain", count)
    if key in _kernels:
        return _kernels[key]

    @cuda.jit(cache=True)
    def relax(matrix, dist, mask, mask1, flag, counters):
        u = cuda.grid(1)
        n = dist.shape[0]
        # the repair's pass activates every vertex: one not reached yet has nothing to push
        if u < n and mask[u] == 1 and dist[u] != INF:
            du = dist[u]
            relaxed = 0
            improving = 0
            for v in range(n):
                w = matrix[u, v]
                if w != NO_EDGE:
                    cand = du + w
                    relaxed += 1
                    if cand < dist[v]:  # racy on purpose: no atomic
                        dist[v] = cand
                        mask1[v] = 1
                        flag[0] = 1
                        improving += 1
            if count and relaxed > 0:
                cuda.atomic.add(counters, 0, relaxed)
                cuda.atomic.add(counters, 1, improving)

    @cuda.jit(cache=True)
    def activate_all(mask, mask1, flag):
        v = cuda.grid(1)
        if v < mask.shape[0]:
            mask[v] = 1
            mask1[v] = 0
            if v == 0:
                flag[0] = 0

    _kernels[key] = relax, activate_all
    return _kernels[key]


# --- Alg. 1: the host loop every variant shares ------------------------------------------------

class _MaskedBellmanFord:
    """Device state (dist, mask, mask1, flag) and Alg. 1's loop; subclasses launch relaxation."""

    atomics_per_relaxation = 1  # atomicMin issued per arc relaxed (0 for the pull version)
    threads_per_block = 256

    def _allocate(self, n: int, graph_bytes: int, what: str):
        self.n = n
        self.device_bytes = graph_bytes + n * (8 + 1 + 1) + 4 + 16
        gpu.check_fits(self.device_bytes, what)
        self.stream = cuda.stream()
        s = self.stream
        self.dist = cuda.device_array(n, dtype=np.int64, stream=s)
        self.mask = cuda.device_array(n, dtype=np.uint8, stream=s)
        self.mask1 = cuda.device_array(n, dtype=np.uint8, stream=s)
        self.flag = cuda.device_array(1, dtype=np.int32, stream=s)
        self.counters = cuda.to_device(np.zeros(2, dtype=np.int64), stream=s)
        self.flag_host = launch.host_buffer(1, np.int32)
        self._prepared = {}
        self.vertex_blocks = gpu.blocks_for(n, self.threads_per_block)

    def relax_launch(self, stream, count: bool, row_stop: int) -> launch.Launch:
        """The relaxation kernel of this variant, prepared for ``launch``."""
        raise NotImplementedError

    def _rounds(self, stream, count: bool, row_stop: int):
        """(relax + read of flag, swap + relax + read of flag, swap alone), prepared once."""
        key = (id(stream), count, row_stop)
        if key not in self._prepared:
            _, swap, _ = _common()
            relax = self.relax_launch(stream, count, row_stop)
            swap = launch.Launch(swap, self.vertex_blocks, self.threads_per_block, stream,
                                 self.mask, self.mask1, self.flag)
            read = {"read": self.flag, "host": self.flag_host}
            self._prepared[key] = (launch.Round(stream, [relax], **read),
                                   launch.Round(stream, [swap, relax], **read), swap)
        return self._prepared[key]

    def _iterate(self, stream, count: bool, row_stop: int, tally: dict) -> None:
        """Alg. 1 lines 5-10 (with the swap inside the loop): until flag stays 0, or |V|-1.

        The swap after a read is issued together with the next relaxation (one replay), so the
        launches and reads are those of the loop as written, in its order."""
        first, later, swap = self._rounds(stream, count, row_stop)
        swap_due = False
        for it in range(max(self.n - 1, 0)):
            flag = (later if swap_due else first)()
            tally["kernel_launches"] += 2 if swap_due else 1
            tally["iterations"] += 1
            tally["host_round_trips"] += 1
            swap_due = flag[0] != 0
            if not swap_due:
                break
        if swap_due:  # |V|-1 iterations ran with flag still up: the last swap is still launched
            swap()
            tally["kernel_launches"] += 1

    def _start(self, stream, source: int, count: bool) -> dict:
        initialise, _, _ = _common()
        if count:
            self.counters.copy_to_device(np.zeros(2, dtype=np.int64), stream=stream)
        initialise[self.vertex_blocks, self.threads_per_block, stream](
            self.dist, self.mask, self.mask1, self.flag, source)
        return {"iterations": 0, "kernel_launches": 1, "host_round_trips": 0}

    def _counted(self, stream, tally: dict, count: bool) -> dict:
        if count:
            relaxed, improving = self.counters.copy_to_host(stream=stream)
            stream.synchronize()
            tally.update(arcs_relaxed=int(relaxed),
                         atomics=int(relaxed) * self.atomics_per_relaxation,
                         improving_relaxations=int(improving))
        return tally

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        s = self.stream
        with gpu.DeviceTimer(s).measure() as solve_time:
            tally = self._start(s, source, count)
            self._iterate(s, count, self.n, tally)
        with gpu.DeviceTimer(s).measure() as download_time:
            distances = self.dist.copy_to_host(stream=s)
            s.synchronize()
        return SolveResult(distances, solve_time["ms"], download_time["ms"],
                           self._counted(s, tally, count))


class _DenseMatrixSolver(_MaskedBellmanFord):
    """Holds the V x V matrix on the device, uploaded (timed) from pageable host memory."""

    def _upload_matrix(self, graph):
        n = graph.num_vertices
        what = f"graph {graph.name or ''} as a dense {n} x {n} matrix"
        gpu.require_cuda()
        gpu.check_fits(n * n * 4 + n * 10 + 20, what)  # before building the host matrix
        matrix = dense_matrix(graph)
        self._allocate(n, matrix.nbytes, what)
        arrays, self.upload_ms = gpu.upload(cuda, {"matrix": matrix}, stream=self.stream)
        self.matrix = arrays["matrix"]


class DenseEdgeParallel(_DenseMatrixSolver):
    """Alg. 1-5: a thread per matrix entry, or ``edges_per_thread`` entries by grid-stride."""

    def __init__(self, graph, edges_per_thread: int, order: str, block_x: int, block_y: int):
        if order not in ORDERS:
            raise InputError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
        if edges_per_thread < 1:
            raise InputError("edges_per_thread must be at least 1")
        if block_x < 1 or block_y < 1 or block_x * block_y > 1024:
            raise InputError("block_x * block_y must be 1..1024 threads")
        self.order, self.k, self.block = order, edges_per_thread, (block_x, block_y)
        self._upload_matrix(graph)
        n, k = self.n, edges_per_thread
        fewer = -(-n // k)  # the dimension that each thread walks k times
        if order == "chunked":  # x: chunks of k consecutive columns; y: rows
            self.grid = (gpu.blocks_for(fewer, block_x), gpu.blocks_for(n, block_y))
        else:  # x: columns (coalesced) or rows (transposed), all of them; y: 1/k of the other
            self.grid = (gpu.blocks_for(n, block_x), gpu.blocks_for(fewer, block_y))
        if self.grid[1] > MAX_GRID_Y:
            raise InputError(f"{n} vertices at {k} edges per thread need {self.grid[1]} blocks in "
                             f"y, more than CUDA's {MAX_GRID_Y}: raise block_y or edges_per_thread")

    def relax_launch(self, stream, count: bool, row_stop: int) -> launch.Launch:
        return launch.Launch(_dense_kernel(self.order, self.k, count), self.grid, self.block,
                             stream, self.matrix, self.dist, self.mask, self.mask1, self.flag,
                             self.counters, row_stop)

    def solve_two_streams(self, pinned_matrix, source: int, *, count: bool = False) -> SolveResult:
        """Section 4.1's overlap: the matrix's top half (rows of the first V/2 vertices) goes up in
        stream 1 and is relaxed there to convergence while the bottom half goes up in stream 2;
        then every reached vertex of the bottom half is activated and Alg. 1 runs on the whole
        matrix. ``solve_ms`` is the whole: both transfers and both phases."""
        if pinned_matrix.shape != (self.n, self.n):
            raise InputError("the pinned matrix must be V x V")
        s1, s2 = self.stream, cuda.stream()
        half = self.n // 2
        _, _, activate = _common()
        start, second_half_done = cuda.event(), cuda.event()
        with gpu.DeviceTimer(s1).measure() as total:
            start.record(s1)
            start.wait(s2)  # the second copy must not start before the clock does
            self.matrix[half:].copy_to_device(pinned_matrix[half:], stream=s2)
            second_half_done.record(s2)
            if half:
                self.matrix[:half].copy_to_device(pinned_matrix[:half], stream=s1)
            tally = self._start(s1, source, count)
            self._iterate(s1, count, half, tally)
            first_phase_iterations = tally["iterations"]
            if count:  # the arcs the first half's phase relaxed: the rest is the second phase's
                so_far = self.counters.copy_to_host(stream=s1)
                s1.synchronize()  # counted runs are not timed: waiting here costs no result
                first_arcs = int(so_far[0])
            second_half_done.wait(s1)
            activate[self.vertex_blocks, self.threads_per_block, s1](
                self.dist, self.mask, self.mask1, self.flag, half)
            tally["kernel_launches"] += 1
            self._iterate(s1, count, self.n, tally)
        tally["first_half_iterations"] = first_phase_iterations
        distances = self.dist.copy_to_host(stream=s1)
        s1.synchronize()
        tally = self._counted(s1, tally, count)
        if count:
            tally["second_phase_arcs_relaxed"] = tally["arcs_relaxed"] - first_arcs
        return SolveResult(distances, total["ms"], 0.0, tally)


class DenseIncoming(_DenseMatrixSolver):
    atomics_per_relaxation = 0

    def __init__(self, graph, threads_per_block: int):
        self.threads_per_block = threads_per_block
        self._upload_matrix(graph)

    def relax_launch(self, stream, count: bool, row_stop: int) -> launch.Launch:
        return launch.Launch(_incoming_kernel(count), self.vertex_blocks, self.threads_per_block,
                             stream, self.matrix, self.dist, self.mask, self.mask1, self.flag,
                             self.counters)


class DenseOutgoing(_DenseMatrixSolver):
    def __init__(self, graph, threads_per_block: int):
        self.threads_per_block = threads_per_block
        self._upload_matrix(graph)

    def relax_launch(self, stream, count: bool, row_stop: int) -> launch.Launch:
        return launch.Launch(_outgoing_kernel(count), self.vertex_blocks, self.threads_per_block,
                             stream, self.matrix, self.dist, self.mask, self.mask1, self.flag,
                             self.counters)


class DenseOutgoingPlain(DenseOutgoing):
    """The outgoing version without atomics. A plain write may leave dist[v] above d[u] + w
    when a larger candidate overwrote a smaller one; every value written is still a path's
    length, so once a pass of every vertex improves nothing, every arc holds and the distances
    are exact. That pass (and any rounds it restarts) is counted in the iterations."""

    atomics_per_relaxation = 0

    def relax_launch(self, stream, count: bool, row_stop: int) -> launch.Launch:
        return launch.Launch(_outgoing_plain_kernel(count)[0], self.vertex_blocks,
                             self.threads_per_block, stream, self.matrix, self.dist, self.mask,
                             self.mask1, self.flag, self.counters)

    def _iterate(self, stream, count: bool, row_stop: int, tally: dict) -> None:
        super()._iterate(stream, count, row_stop, tally)
        self.repair(stream, count, row_stop, tally)

    def repair(self, stream, count: bool, row_stop: int, tally: dict) -> None:
        """Rounds from every vertex until one of them improves nothing."""
        activate_all = _outgoing_plain_kernel(count)[1]
        while True:
            activate_all[self.vertex_blocks, self.threads_per_block, stream](
                self.mask, self.mask1, self.flag)
            tally["kernel_launches"] += 1
            before = tally["iterations"]
            super()._iterate(stream, count, row_stop, tally)
            if tally["iterations"] - before <= 1:
                return


class EdgeList(_MaskedBellmanFord):
    """Alg. 6: three arc arrays s, e, w (the CSR's arcs in order: s from indptr, e = indices)."""

    def __init__(self, graph, edges_per_thread: int, threads_per_block: int):
        if edges_per_thread < 1:
            raise InputError("edges_per_thread must be at least 1")
        self.threads_per_block = threads_per_block
        gpu.require_cuda()
        arrays = {"s": graph.arc_sources(), "e": graph.indices, "w": graph.weights}
        self._allocate(graph.num_vertices, sum(a.nbytes for a in arrays.values()),
                       f"graph {graph.name or ''} as an edge list")
        uploaded, self.upload_ms = gpu.upload(cuda, arrays, stream=self.stream)
        self.s, self.e, self.w = uploaded["s"], uploaded["e"], uploaded["w"]
        threads = -(-graph.num_arcs // edges_per_thread)
        self.arc_blocks = gpu.blocks_for(threads, threads_per_block)

    def relax_launch(self, stream, count: bool, row_stop: int) -> launch.Launch:
        return launch.Launch(_edgelist_kernel(count), self.arc_blocks, self.threads_per_block,
                             stream, self.s, self.e, self.w, self.dist, self.mask, self.mask1,
                             self.flag, self.counters)


# --- the registry ----------------------------------------------------------------------------------

_COMMON = {"kernels_per_iteration": 2, "host_round_trips_per_iteration": 1}


@register("an_bf_dense", device="gpu", document="an2017",
          description="edge-parallel Bellman-Ford on the adjacency matrix, 2-D grid, mask/mask1/flag "
                      "and swap kernel; edges per thread by grid-stride loops, coalesced, chunked "
                      "or transposed index order (an2017 Alg. 1-5)",
          defaults={"edges_per_thread": 1, "order": "coalesced", "block_x": 32, "block_y": 8},
          static_counters={**_COMMON, "atomic_statements": 1})
def an_bf_dense(graph, edges_per_thread=1, order="coalesced", block_x=32, block_y=8):
    return DenseEdgeParallel(graph, edges_per_thread, order, block_x, block_y)


@register("an_bf_edgelist", device="gpu", document="an2017",
          description="edge-parallel Bellman-Ford on (s, e, w) arc arrays for sparse graphs, "
                      "grid-stride (an2017 Alg. 6)",
          defaults={"edges_per_thread": 1, "threads_per_block": 256},
          static_counters={**_COMMON, "atomic_statements": 1})
def an_bf_edgelist(graph, edges_per_thread=1, threads_per_block=256):
    return EdgeList(graph, edges_per_thread, threads_per_block)


@register("an_bf_incoming", device="gpu", document="an2017",
          description="vertex-parallel Bellman-Ford, each vertex pulls over its incoming arcs "
                      "(matrix column), no atomics (an2017 Alg. 7)",
          defaults={"threads_per_block": 256},
          static_counters={**_COMMON, "atomic_statements": 0})
def an_bf_incoming(graph, threads_per_block=256):
    return DenseIncoming(graph, threads_per_block)


@register("an_bf_outgoing", device="gpu", document="an2017",
          description="vertex-parallel Bellman-Ford, each active vertex pushes along its outgoing "
                      "arcs (matrix row) with atomicMin (an2017 Alg. 8)",
          defaults={"threads_per_block": 256, "atomics": 1},
          static_counters={**_COMMON, "atomic_statements": 1})
def an_bf_outgoing(graph, threads_per_block=256, atomics=1):
    if atomics not in (0, 1):
        raise InputError(f"atomics must be 1 (atomicMin, Alg. 8) or 0 (the plain-write control), "
                         f"got {atomics}")
    # atomics=0: the control for Fig. 2's "the gap is due to the atomic operations"
    return (DenseOutgoing if atomics else DenseOutgoingPlain)(graph, threads_per_block)
