"""Launching the host-driven solvers' kernels at native cost.

numba's ``kernel[grid, block, stream](*args)`` types and packs every argument again on each call:
about 28 us a launch on the H100, where native CUDA C++ pays 3.6 us, so a host loop of Harish
rounds measured the Python host path more than the GPU. The algorithms keep their host loops (a
flag read every round where the document reads it); only what each launch and read costs changes:

- ``Launch``: one kernel with its configuration and arguments fixed. numba compiles the kernel
  and packs the arguments once; each call is then one ``cuLaunchKernel`` with the packed buffer.
  Scalars that change between launches (a level, a round number) are rewritten in place (``set``).
- ``Round``: one round's launches, and the read-back of a few bytes into pinned memory, captured
  once as a CUDA graph and replayed each round: one driver call per round instead of one a launch.
  Only for rounds whose arguments never change (each distinct argument set is its own Round).

The driver calls go through cuda.bindings, which numba-cuda itself is built on: no other package.
cuda.core's public launch and graph API was measured against this path on an H200
(reports/evidence/launch/cuda-core): a replayed round costs the same, and a launch with
arguments costs 1.2x here (cuda.core packs them on every call), so this path stays.
Under the CUDA simulator (tests) both fall back to numba's own launches and copies, with the same
launches in the same order, so counters are the same on either path. ``GRAPHREPRO_LAUNCH=numba``
selects that fallback on a GPU too (to compare the two paths). A kernel the installed numba-cuda
cannot prepare is an error (``DeviceUnavailable``), never a silent fallback to the slower path,
unless ``GRAPHREPRO_LAUNCH_FALLBACK=1`` asks for one.

``KernelClock`` times the GPU work of every Launch and Round (CUDA events around each), so a
benchmark can set a solver's wall time beside the GPU time of its own kernels.
"""

from __future__ import annotations

import ctypes
import os
import warnings
from contextlib import contextmanager

import numpy as np

from . import gpu
from .errors import DeviceUnavailable, InputError

MODES = ("native", "numba")
_clock = None  # the active KernelClock, if any


def mode() -> str:
    """"native" (prepared launches, graph replay) or "numba" (numba's own launch path)."""
    if gpu.simulated():
        return "numba"
    chosen = os.environ.get("GRAPHREPRO_LAUNCH", "native")
    if chosen not in MODES:
        raise InputError(f"GRAPHREPRO_LAUNCH must be one of {', '.join(MODES)}, not {chosen!r}")
    return chosen


def _driver():
    from cuda.bindings import driver

    return driver


def _check(result, what: str):
    """cuda.bindings returns (error, values...): raise on an error, else the values."""
    err, *values = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise RuntimeError(f"{what} failed: {err!r}")
    return values[0] if len(values) == 1 else values


def _stream_handle(stream) -> int:
    return int(stream.handle) if stream is not None else 0


def device_pointer(array) -> int:
    return int(array.__cuda_array_interface__["data"][0])


class Launch:
    """``kernel[griddim, blockdim, stream](*args)``, prepared once, launched by calling it."""

    def __init__(self, kernel, griddim, blockdim, stream, *args, sharedmem: int = 0):
        self.kernel, self.stream, self.sharedmem = kernel, stream, sharedmem
        self.griddim, self.blockdim = _dim3(griddim), _dim3(blockdim)
        self.args = list(args)
        self.native = mode() == "native"
        if self.native:
            try:
                self._prepare()
            except (AttributeError, TypeError) as err:
                # numba-cuda internals moved: numba's own launches cost several times a native
                # round, so a silent fallback would change every host-loop time; it is an error
                # unless asked for
                name = getattr(kernel, "__name__", "")
                if os.environ.get("GRAPHREPRO_LAUNCH_FALLBACK") != "1":
                    raise DeviceUnavailable(
                        f"graphrepro.launch cannot prepare {name} with this numba-cuda ({err}): "
                        "install the numba-cuda the lock names, or set GRAPHREPRO_LAUNCH=numba "
                        "(numba's own launches everywhere) or GRAPHREPRO_LAUNCH_FALLBACK=1 (for "
                        "the kernels that cannot be prepared)") from err
                warnings.warn(f"graphrepro.launch: cannot prepare {name} with this numba-cuda "
                              f"({err}); using numba's own launches (GRAPHREPRO_LAUNCH_FALLBACK=1)")
                self.native = False

    def _prepare(self):
        compiled = self.kernel._compile_for_args(*self.args)
        self._cooperative = compiled.cooperative
        self._function = compiled._codelibrary.get_cufunc().handle
        self._slots = []  # per argument: its first ctypes value, for scalars rewritten by set()
        self._values = []  # keeps every packed value alive while the pointer array refers to it
        for ty, value in zip(compiled.argument_types, self.args):
            packed = []
            compiled._prepare_args(ty, value, self.stream, [], packed)
            self._slots.append(len(self._values))
            self._values.extend(_as_ctype(v) for v in packed)
        self._params = (ctypes.c_void_p * max(1, len(self._values)))(
            *[ctypes.addressof(v) for v in self._values])
        driver = _driver()
        self._launch = driver.cuLaunchCooperativeKernel if self._cooperative \
            else driver.cuLaunchKernel
        self._handle = _stream_handle(self.stream)
        # every argument of the driver call is fixed once prepared (set() rewrites a scalar in the
        # packed buffer, whose address stays): built once, so a launch converts nothing
        g, b = self.griddim, self.blockdim
        self._call = (self._function, g[0], g[1], g[2], b[0], b[1], b[2], self.sharedmem,
                      driver.CUstream(self._handle), ctypes.addressof(self._params)) \
            + (() if self._cooperative else (0,))

    def set(self, position: int, value) -> None:
        """Rewrite scalar argument ``position`` for the launches that follow."""
        self.args[position] = value
        if self.native:
            slot = self._values[self._slots[position]]
            slot.value = value

    def __call__(self) -> None:
        if _clock is not None:
            with _clock.around(self.stream):
                self._issue()
        else:
            self._issue()

    def _issue(self) -> None:
        if not self.native:
            stream = self.stream if self.stream is not None else 0
            self.kernel[self.griddim, self.blockdim, stream, self.sharedmem](*self.args)
            return
        err = self._launch(*self._call)[0]
        if int(err) != 0:
            _check((err,), f"launching {getattr(self.kernel, '__name__', 'a kernel')}")


class Round:
    """Launches that make up one round, then ``read`` (a small device array) copied to ``host``.

    Calling it runs the round: replays the captured graph (or, under the fallback, launches each
    kernel through numba), and when there is a read-back, waits for it and returns ``host``.
    ``host`` must be pinned memory on a GPU (``host_buffer``) so the copy can be captured.
    """

    def __init__(self, stream, launches, read=None, host=None):
        if (read is None) != (host is None):
            raise ValueError("read and host come together")
        self.stream, self.launches, self.read, self.host = stream, list(launches), read, host
        self.native = mode() == "native"
        self._exec = None

    def _capture(self):
        driver = _driver()
        handle = _stream_handle(self.stream)
        mode_ = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        _check(driver.cuStreamBeginCapture(handle, mode_), "beginning a graph capture")
        try:
            for launch in self.launches:
                launch._issue()
            if self.read is not None:
                _check(driver.cuMemcpyDtoHAsync(self.host.ctypes.data, device_pointer(self.read),
                                                self.read.nbytes, handle), "capturing a read-back")
        finally:
            graph = _check(driver.cuStreamEndCapture(handle), "ending a graph capture")
        self._graph = graph
        self._exec = _check(driver.cuGraphInstantiate(graph, 0), "instantiating a graph")
        self._graph_launch, self._sync, self._handle = (driver.cuGraphLaunch,
                                                        driver.cuStreamSynchronize, handle)

    def __call__(self):
        if self._exec is not None and _clock is None:  # the steady state: one replay, one wait
            err = self._graph_launch(self._exec, self._handle)[0]
            if int(err) != 0:
                _check((err,), "replaying a round")
            if self.read is not None:
                err = self._sync(self._handle)[0]
                if int(err) != 0:
                    _check((err,), "waiting for a round")
            return self.host
        if _clock is not None:
            with _clock.around(self.stream):
                self._enqueue()
        else:
            self._enqueue()
        if self.read is None:
            return None
        if self.native:
            _check(self._sync(self._handle), "waiting for a round")
        else:
            self.stream.synchronize()
        return self.host

    def _enqueue(self) -> None:
        if not self.native:
            for launch in self.launches:
                launch._issue()
            if self.read is not None:
                self.read.copy_to_host(self.host, stream=self.stream)
            return
        if self._exec is None:
            self._capture()
        _check(self._graph_launch(self._exec, self._handle), "replaying a round")


class Read:
    """A read-back of ``device`` (a few bytes) into ``host`` on ``stream``, waited for: for host
    loops whose launches change arguments every round, so they cannot be one replayed graph."""

    def __init__(self, stream, device, host):
        self.stream, self.device, self.host = stream, device, host
        self.native = mode() == "native"
        if self.native:
            driver = _driver()
            self._copy, self._sync = driver.cuMemcpyDtoHAsync, driver.cuStreamSynchronize
            self._args = (self.host.ctypes.data, device_pointer(device), device.nbytes,
                          _stream_handle(stream))

    def __call__(self) -> np.ndarray:
        if not self.native:
            self.device.copy_to_host(self.host, stream=self.stream or 0)
            if self.stream is not None:
                self.stream.synchronize()
            return self.host
        _check(self._copy(*self._args), "reading back")
        _check(self._sync(self._args[3]), "waiting for a read-back")
        return self.host


def host_buffer(size: int, dtype) -> np.ndarray:
    """Pinned host memory for a round's read-back (a plain array under the simulator)."""
    if gpu.simulated():
        return np.zeros(size, dtype=dtype)
    from numba import cuda

    return cuda.pinned_array(size, dtype)


class KernelClock:
    """GPU time of every Launch and Round issued inside ``with KernelClock() as clock``.

    CUDA events are recorded around each launch or round on its stream; ``ms`` sums their
    elapsed times once the work is done. Recording costs host time, so time a solver's wall clock
    in a run without the clock and its kernels' GPU time in a run with it.
    """

    def __init__(self):
        self._pairs = []
        self.ms = 0.0

    def __enter__(self):
        global _clock
        _clock = self
        return self

    def __exit__(self, *exc):
        global _clock
        _clock = None
        total = 0.0
        for start, stop in self._pairs:
            stop.synchronize()
            total += float(start.elapsed_time(stop))
        self.ms = total
        self._pairs.clear()

    @contextmanager
    def around(self, stream):
        if gpu.simulated():
            yield
            return
        from numba import cuda

        start, stop = cuda.event(timing=True), cuda.event(timing=True)
        start.record(stream or 0)
        yield
        stop.record(stream or 0)
        self._pairs.append((start, stop))


def _dim3(dim) -> tuple[int, int, int]:
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(int(x) for x in dims) + (1,) * (3 - len(dims))


def _as_ctype(value):
    """numba's packed argument as a ctypes value (ints it leaves bare are pointer-sized)."""
    if isinstance(value, ctypes._SimpleCData):
        return value
    if isinstance(value, (bool, np.bool_)):
        return ctypes.c_bool(bool(value))
    return ctypes.c_ssize_t(int(value))
