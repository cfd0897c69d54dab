"""Anchors: a fixed small piece of work per device kind, timed before and after a job's own work.

A job's timings say how fast its solvers were on that machine at that hour; a claim whose sides,
or whose points, were timed in different jobs (calls, host leases, cards) also moves with how
fast each job's machine was. The anchors measure that: the same work every time (a one-core
Dijkstra on a fixed seeded grid for the CPU, a fixed kernel for the GPU, a fixed host-to-device
copy for transfers), so the ratio of two jobs' anchor medians is the drift between them, and a
job's before/after ratio is its drift within itself (claims/anchors.py turns them into the
intervals' drift term, issue 51).

Each anchor is the median of ``repeats`` timings. Where a kind cannot be timed here it records
why instead ("no CUDA device"; under the CUDA simulator a kernel times the host, not a card).
"""

from __future__ import annotations

import platform
import statistics
import time

import numpy as np

from .. import gpu
from ..errors import InputError

KINDS = ("cpu", "gpu", "transfer")
REPEATS = 5  # the default of `run --anchor-repeats` and of config measure.anchor_repeats
# CPU: Dijkstra from a few fixed sources of a 64 x 64 road grid (seed 0), one core (scipy's is
# sequential): about 4 ms a repeat, so both anchors of a job stay well under 0.1 s of CPU
GRID_SIDE = 64
CPU_SOURCES = (0, 1365, 2730, 4095)
# GPU: every thread of a fixed grid runs a fixed chain of dependent multiply-adds
GPU_THREADS = 1 << 16
GPU_ROUNDS = 4096
# transfer: one fixed pageable host-to-device copy
TRANSFER_BYTES = 16 << 20

OFF = "off (anchor repeats 0 in the config)"
SIMULATED = "CUDA simulator: a simulated kernel or copy times the host, not a card"
NO_GPU = "no CUDA device"

_GRID: list = []  # the CPU anchor's graph, built once a process (a GPU worker runs many jobs)
_KERNEL: list = []
_BUFFERS: list = []


def take(repeats: int = REPEATS) -> dict:
    """{kind: {"ms": median of ``repeats`` timings} or {"skipped": why}} for every kind."""
    if repeats < 1:
        return {kind: {"skipped": OFF} for kind in KINDS}
    out = {"cpu": {"ms": _median(_cpu_once, repeats)}}
    why = _no_device()
    for kind, once in (("gpu", _gpu_once), ("transfer", _transfer_once)):
        out[kind] = {"skipped": why} if why else {"ms": _median(once, repeats)}
    return out


class Around:
    """The anchors around one job's work: ``with Around(repeats) as anchors: work()``, then
    ``anchors.record(provenance)`` for the job's record and ``anchors.seconds`` for its cost."""

    def __init__(self, repeats: int = REPEATS):
        if repeats < 0:
            raise InputError("--anchor-repeats must be at least 0 (0: no anchors)")
        self.repeats, self.before, self.after, self.seconds = repeats, {}, {}, 0.0

    def __enter__(self):
        t = time.perf_counter()
        self.before = take(self.repeats)
        self.seconds += time.perf_counter() - t
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:  # a failed job writes no table, so no anchors either
            t = time.perf_counter()
            self.after = take(self.repeats)
            self.seconds += time.perf_counter() - t
        return False

    def record(self, provenance: dict) -> dict:
        """The anchors' entry of a job's provenance record (the job's commit and card from it)."""
        card = " ".join(str(p) for p in (provenance.get("gpu"), provenance.get("pci_bus_id")) if p)
        return job_record(self.before, self.after, self.repeats, provenance.get("commit", ""),
                          card=card or None)


def job_record(before: dict, after: dict, repeats: int, commit: str,
               card: str | None = None) -> dict:
    """The anchors of one job, for its provenance record: per kind its before and after medians
    (or why it was skipped), the machine or card that ran it, and the commit."""
    from ..placement import slot_core

    record: dict = {"repeats": repeats, "commit": commit}
    machine = f"{platform.node()} ({_cpu_model()})"
    # a one-core timing beside others: its CPU anchor says what its neighbours cost its core
    slot = slot_core()
    for kind in KINDS:
        b, a = before.get(kind, {}), after.get(kind, {})
        if "ms" in b and "ms" in a:
            record[kind] = {"before_ms": round(b["ms"], 5), "after_ms": round(a["ms"], 5),
                            "on": machine if kind == "cpu" else (card or gpu.device_name())}
            if kind == "cpu" and slot is not None:
                record[kind]["slot"] = slot
        else:
            record[kind] = {"skipped": b.get("skipped") or a.get("skipped") or "not timed"}
    record["what"] = {
        "cpu": f"one-core scipy Dijkstra from {len(CPU_SOURCES)} sources of a {GRID_SIDE}x"
               f"{GRID_SIDE} road grid (seed 0), median of {repeats}",
        "gpu": f"{GPU_THREADS} threads x {GPU_ROUNDS} dependent multiply-adds, CUDA events, "
               f"median of {repeats}",
        "transfer": f"{TRANSFER_BYTES >> 20} MiB pageable host-to-device copy, CUDA events, "
                    f"median of {repeats}"}
    return record


def _median(once, repeats: int) -> float:
    once()  # untimed: builds the grid, compiles the kernel, allocates
    return float(statistics.median(once() for _ in range(repeats)))


def _no_device() -> str | None:
    if gpu.simulated():
        return SIMULATED
    return None if gpu.cuda_available() else NO_GPU


def _cpu_model() -> str:
    from .provenance import cpu_model

    return cpu_model()


def _cpu_once() -> float:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    if not _GRID:
        from ..graph.generate import road_grid

        g = road_grid(GRID_SIDE, GRID_SIDE, keep=0.9, seed=0)
        n = g.num_vertices
        _GRID.append(csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr), shape=(n, n)))
    t = time.perf_counter()
    dijkstra(_GRID[0], directed=True, indices=list(CPU_SOURCES))
    return (time.perf_counter() - t) * 1e3


def _gpu_once() -> float:
    from numba import cuda

    if not _KERNEL:
        @cuda.jit
        def spin(out, rounds):
            i = cuda.grid(1)
            if i < out.size:
                x = out[i]
                for _ in range(rounds):
                    x = x * np.float32(0.999999) + np.float32(1e-6)
                out[i] = x

        _KERNEL.append((spin, cuda.to_device(np.ones(GPU_THREADS, dtype=np.float32))))
    spin, data = _KERNEL[0]
    timer = gpu.DeviceTimer()
    with timer.measure() as box:
        spin[GPU_THREADS // 256, 256](data, GPU_ROUNDS)
    return box["ms"]


def _transfer_once() -> float:
    from numba import cuda

    if not _BUFFERS:
        host = np.ones(TRANSFER_BYTES // 4, dtype=np.float32)
        _BUFFERS.append((host, cuda.device_array_like(host)))
    host, dev = _BUFFERS[0]
    timer = gpu.DeviceTimer()
    with timer.measure() as box:
        dev.copy_to_device(host)
    return box["ms"]
