"""What one launch costs here: the floor beside every per-round figure (issue 25).

Measured on the machine it runs on, through three paths, with the same tiny kernels:
- ``native``: a CUDA C++ program (``native/launch_floor.cu``, built with nvcc where one is found);
- ``graphrepro``: the solvers' own path (``graphrepro.launch``: prepared launches, replayed rounds);
- ``numba``: numba's ``kernel[grid, block, stream](...)`` and ``copy_to_host``.

Measures (median of the trials, each trial many repetitions): an empty launch; a launch and a
4-byte read-back into pinned memory; one Harish-style round on V vertices (two kernels that touch
every vertex's state, the flag read back); a cooperative grid-wide barrier; a device-to-device
copy's bandwidth (bytes read + written). With no GPU, one row says so.
"""

from __future__ import annotations

import statistics
import subprocess
import time

import numpy as np

from .. import gpu, launch

NY_VERTICES = 264346
NOT_RUN = "not run: no GPU"
UNITS = {"empty_launch": "us", "launch_readback": "us", "harish_round": "us", "grid_sync": "us",
         "copy_tbps": "TB/s"}
_kernels = {}


def _compile():
    if _kernels:
        return _kernels
    from numba import cuda

    @cuda.jit(cache=True)
    def empty():
        pass

    @cuda.jit(cache=True)
    def kernel1(fa, f):
        v = cuda.grid(1)
        if v == 0:
            f[0] = 0
        if v < fa.shape[0] and fa[v] != 0:
            f[0] = f[0]

    @cuda.jit(cache=True)
    def syncs(rounds, sink):
        grid = cuda.cg.this_grid()
        for _ in range(rounds):
            grid.sync()
        if cuda.grid(1) == 0:
            sink[0] = rounds

    from ..solvers.safari2017.harish import update as kernel2

    _kernels.update(empty=empty, kernel1=kernel1, kernel2=kernel2, syncs=syncs)
    return _kernels


def _per_op(fn, reps: int, trials: int, sync) -> list[float]:
    """Microseconds per call of ``fn`` over ``reps`` calls, one value per trial after a warm-up."""
    out = []
    for t in range(trials + 1):
        sync()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        if t:
            out.append((time.perf_counter() - t0) / reps * 1e6)
    return out


def measure_python(vertices: int = NY_VERTICES, trials: int = 7) -> list[dict]:
    """The floor through graphrepro.launch and through numba's own launch path."""
    from numba import cuda

    k = _compile()
    s = cuda.stream()
    threads, blocks = 256, gpu.blocks_for(vertices, 256)
    d = cuda.to_device(np.zeros(vertices, np.int64), stream=s)
    up = cuda.to_device(np.zeros(vertices, np.int64), stream=s)
    fa = cuda.to_device(np.zeros(vertices, np.uint8), stream=s)
    f = cuda.to_device(np.zeros(1, np.int32), stream=s)
    host = cuda.pinned_array(1, np.int32)
    rows = []

    def add(measure, path, values, note=""):
        rows.append({"measure": measure, "path": path, "value": statistics.median(values),
                     "unit": UNITS[measure], "trials": len(values), "note": note})

    sync = s.synchronize
    # graphrepro.launch: prepared launches; a round is a replayed graph
    empty = launch.Launch(k["empty"], 1, 32, s)
    add("empty_launch", "graphrepro", _per_op(empty, 10000, trials, sync))
    readback = launch.Round(s, [empty], read=f, host=host)
    add("launch_readback", "graphrepro", _per_op(readback, 2000, trials, sync), "graph replay")
    prepared_read = launch.Read(s, f, host)
    add("launch_readback", "graphrepro", _per_op(lambda: (empty(), prepared_read()), 2000, trials,
                                                 sync), "prepared launch + read")
    harish = launch.Round(s, [launch.Launch(k["kernel1"], blocks, threads, s, fa, f),
                              launch.Launch(k["kernel2"], blocks, threads, s, d, up, fa, f)],
                          read=f, host=host)
    add("harish_round", "graphrepro", _per_op(harish, 2000, trials, sync), "graph replay")
    # numba's own path
    add("empty_launch", "numba", _per_op(lambda: k["empty"][1, 32, s](), 2000, trials, sync))

    def numba_readback():
        k["empty"][1, 32, s]()
        f.copy_to_host(host, stream=s)
        s.synchronize()

    add("launch_readback", "numba", _per_op(numba_readback, 1000, trials, sync))

    def numba_round():
        k["kernel1"][blocks, threads, s](fa, f)
        k["kernel2"][blocks, threads, s](d, up, fa, f)
        f.copy_to_host(host, stream=s)
        s.synchronize()

    add("harish_round", "numba", _per_op(numba_round, 1000, trials, sync))
    # on the device: a grid barrier and a copy, timed with events
    rows += _device_side(k, s, trials)
    return rows


def _device_side(k, s, trials: int) -> list[dict]:
    from numba import cuda

    rows = []
    sink = cuda.device_array(1, np.int32, stream=s)
    rounds = 10000
    syncs, resident = gpu.CooperativeLauncher(256)(k["syncs"], (rounds, sink), 1 << 30)
    nbytes = 1 << 30
    src = cuda.device_array(nbytes, np.uint8, stream=s)
    dst = cuda.device_array(nbytes, np.uint8, stream=s)
    timer = gpu.DeviceTimer(s)
    barrier, bandwidth = [], []
    for t in range(trials + 1):
        with timer.measure() as g:
            syncs[resident, 256, s](rounds, sink)
        with timer.measure() as c:
            dst.copy_to_device(src, stream=s)
        if t:
            barrier.append(g["ms"] * 1e3 / rounds)
            bandwidth.append(2 * nbytes / (c["ms"] * 1e-3) / 1e12)
    for measure, values in (("grid_sync", barrier), ("copy_tbps", bandwidth)):
        rows.append({"measure": measure, "path": "graphrepro", "value": statistics.median(values),
                     "unit": UNITS[measure], "trials": len(values),
                     "note": f"{resident} resident blocks" if measure == "grid_sync" else "1 GiB"})
    return rows


def measure_native(binary, vertices: int = NY_VERTICES, trials: int = 7) -> list[dict]:
    """Rows from the native program's CSV output (its own medians)."""
    done = subprocess.run([str(binary), str(vertices), str(trials)], capture_output=True,
                          text=True, check=True, timeout=600)
    rows, blocks = [], ""
    for line in done.stdout.splitlines():
        if line.startswith("#"):
            blocks = line.rsplit("grid_sync_blocks=", 1)[-1].strip()
        elif line and not line.startswith("measure,"):
            measure, value, n = line.split(",")
            rows.append({"measure": measure, "path": "native", "value": float(value),
                         "unit": UNITS[measure], "trials": int(n), "note": ""})
    for row in rows:
        if row["measure"] == "grid_sync" and blocks:
            row["note"] = f"{blocks} resident blocks"
        elif row["measure"] == "copy_tbps":
            row["note"] = "1 GiB"
    return rows


def measure(native_binary=None, vertices: int = NY_VERTICES, trials: int = 7,
            native_note: str = "") -> list[dict]:
    """Every row for this machine: "not run: no GPU" where there is none."""
    if gpu.simulated() or not gpu.cuda_available():
        return [{"measure": m, "path": "all", "value": None, "unit": u, "trials": 0,
                 "note": NOT_RUN} for m, u in UNITS.items()]
    rows = []
    if native_binary is not None:
        rows += measure_native(native_binary, vertices, trials)
    else:
        rows += [{"measure": m, "path": "native", "value": None, "unit": u, "trials": 0,
                  "note": native_note or "not run: no nvcc"} for m, u in UNITS.items()]
    rows += measure_python(vertices, trials)
    device = gpu.device_name()
    for row in rows:
        row["device"] = device
        row["vertices"] = vertices
    return rows
