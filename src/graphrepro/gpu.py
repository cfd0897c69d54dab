"""What every numba.cuda solver needs: a device check, device timers, safe uploads.

Tests run kernels under the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``); there CUDA events do not
exist, so timers fall back to the host clock and the device is reported as "simulator".
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

import numpy as np

from .errors import DeviceUnavailable, InputError

# The status of every run row, benchmark row and block a machine without CUDA skips.
NOT_RUN_NO_GPU = "not run: no CUDA device"


def simulated() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") == "1"


def cuda_available() -> bool:
    if not simulated() or os.environ.get("GRAPHREPRO_GPUS"):  # (the tests pretend, simulated)
        from .placement import bind_gpu

        bind_gpu()  # several GPUs here: take a free one before CUDA starts (placement.py)
    try:
        from numba import cuda

        return bool(cuda.is_available())
    except Exception:  # no driver, no numba-cuda: both mean "no GPU here"
        return False


def require_cuda():
    """The numba.cuda module, or a clear error saying why it cannot run here."""
    if not cuda_available():
        raise DeviceUnavailable("no CUDA device: this solver needs an NVIDIA GPU with a working "
                                "driver (set NUMBA_ENABLE_CUDASIM=1 to run it, slowly, in the "
                                "CUDA simulator)")
    from numba import cuda

    return cuda


def device_name() -> str:
    if simulated():
        return "CUDA simulator"
    if not cuda_available():
        return "none"
    from numba import cuda

    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


class DeviceTimer:
    """Elapsed milliseconds between two points on a stream, measured on the device."""

    def __init__(self, stream=None):
        self.stream = stream
        self._events = None if simulated() else _events()

    @contextmanager
    def measure(self):
        box = {"ms": 0.0}
        if self._events is None:
            t0 = time.perf_counter()
            yield box
            box["ms"] = (time.perf_counter() - t0) * 1e3
            return
        start, stop = self._events
        start.record(self.stream or 0)
        yield box
        stop.record(self.stream or 0)
        stop.synchronize()
        box["ms"] = float(start.elapsed_time(stop))


def _events():
    from numba import cuda

    return cuda.event(timing=True), cuda.event(timing=True)


def check_fits(nbytes: int, what: str) -> None:
    """Refuse, before allocating, a graph that cannot fit in the device's free memory."""
    if simulated():
        return
    from numba import cuda

    free, total = cuda.current_context().get_memory_info()
    if nbytes > free:
        raise InputError(f"{what} needs {nbytes / 2**30:.2f} GiB on the GPU but only "
                         f"{free / 2**30:.2f} of {total / 2**30:.2f} GiB are free")


def upload(cuda, arrays: dict[str, np.ndarray], stream=None) -> tuple[dict, float]:
    """Copy host arrays to the device; returns the device arrays and the transfer time (ms)."""
    timer = DeviceTimer(stream)
    with timer.measure() as t:
        out = {k: cuda.to_device(np.ascontiguousarray(v), stream=stream or 0)
               for k, v in arrays.items()}
    return out, t["ms"]


def upload_graph(cuda, graph, device_bytes: int, *, wide_indptr: bool = False):
    """A CSR graph on the device for a solver that needs ``device_bytes`` in all: refused before
    any copy if that does not fit, else (stream, (indptr, indices, weights), upload ms) on a new
    stream. ``wide_indptr``: offsets as int64 for kernels that index arcs past 2**31."""
    check_fits(device_bytes, f"graph {graph.name or ''} ({graph.num_vertices} vertices)")
    stream = cuda.stream()
    indptr = graph.indptr.astype(np.int64, copy=False) if wide_indptr else graph.indptr
    arrays, upload_ms = upload(cuda, {"indptr": indptr, "indices": graph.indices,
                                      "weights": graph.weights}, stream=stream)
    return stream, (arrays["indptr"], arrays["indices"], arrays["weights"]), upload_ms


def persistent_solve(launch, blocks: int, threads: int, stream, args, distances, words):
    """One launch of a persistent kernel timed alone (CUDA events), then its distances brought
    back (the download, timed apart) and its counter words; returns (host distances, host
    words, solve ms, download ms)."""
    with DeviceTimer(stream).measure() as solve_time:
        launch[blocks, threads, stream](*args)
    with DeviceTimer(stream).measure() as download_time:
        host = distances.copy_to_host(stream=stream)
        stream.synchronize()
    host_words = words.copy_to_host(stream=stream)
    stream.synchronize()
    return host, host_words, solve_time["ms"], download_time["ms"]


def blocks_for(n: int, threads: int) -> int:
    return max(1, (n + threads - 1) // threads)


class CooperativeLauncher:
    """Launch configurations for persistent kernels that sync the whole grid (cg.this_grid()).

    A cooperative launch needs every block resident at once, so the grid is the smaller of what
    the kernel can keep resident (registers, shared memory) and what the work needs. The kernel is
    specialised for the arguments once, so the residency query and the launch use one compilation.
    """

    def __init__(self, threads: int):
        self.threads = threads
        self._cache = {}

    def __call__(self, kernel, args, work_items: int):
        """(kernel to launch, blocks) for ``work_items`` items of one thread each at most."""
        if simulated():
            return kernel, 1  # the simulator's grid barrier only covers one block
        key = id(kernel)
        if key not in self._cache:
            specialised = kernel.specialize(*args)
            overload = next(iter(specialised.overloads.values()))
            resident = overload.max_cooperative_grid_blocks(self.threads)
            self._cache[key] = (specialised,
                                max(1, min(resident, blocks_for(work_items, self.threads))))
        return self._cache[key]
