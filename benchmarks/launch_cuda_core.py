"""cuda.core's launch and graph API against graphrepro.launch (issue 56, item 2), on one GPU.

graphrepro.launch reaches the driver through numba-cuda internals (``_compile_for_args``,
``_prepare_args``) and cuda.bindings. cuda.core is NVIDIA's public Python API over the same
driver: ``launch(stream, LaunchConfig, kernel, *args)`` and graphs built by stream capture
(``GraphBuilder``). The issue asks to keep whichever is at least as fast, so both paths launch
the very same kernels (the launch floor's: an empty kernel, and the Harish round's two kernels
over NY's vertex count), compiled once by numba, in interleaved trials:

- ``empty_launch``: one launch, back to back (us per launch);
- ``args_launch``: the same with the Harish update's four arrays (28 kernel parameters) on one
  block, so that what each path does per argument shows;
- ``launch_readback``: one launch, a 4-byte read-back into pinned memory, a wait;
- ``harish_round``: kernel 1, kernel 2, the flag read back, a wait (one Harish iteration).

For cuda.core the kernels come from numba's public ``compile_ptx_for_current_device`` and are
loaded with ``ObjectCode.from_ptx``; numba's kernel ABI (an array is meminfo, parent, nitems,
itemsize, data, shape, strides) is packed by hand, and checked: each cuda.core launch must leave
the same arrays as numba's own launch before anything is timed.

    python benchmarks/launch_cuda_core.py --trials 9 --csv OUT/cuda_core.csv --json OUT/x.json
"""

from __future__ import annotations

import argparse
import csv
import importlib.metadata as metadata
import json
import re
import statistics
import sys
import time

import numpy as np


def core():
    """cuda.core's namespace: top level from 0.4/1.x, ``experimental`` before."""
    try:
        import cuda.core as cc

        cc.launch  # noqa: B018 (older releases keep it under experimental)
        return cc
    except (ImportError, AttributeError):
        import cuda.core.experimental as cc

        return cc


def version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def per_op(fn, reps: int, sync) -> float:
    sync()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    sync()
    return (time.perf_counter() - t0) / reps * 1e6


def array_args(array) -> list:
    """numba's kernel ABI for a C-contiguous array: meminfo, parent, nitems, itemsize, data,
    shape..., strides... (pointers and sizes as 64-bit scalars)."""
    ptr = int(array.__cuda_array_interface__["data"][0])
    return ([np.uint64(0), np.uint64(0), np.int64(array.size), np.int64(array.dtype.itemsize),
             np.uint64(ptr)] + [np.int64(n) for n in array.shape]
            + [np.int64(s) for s in array.strides])


def core_kernel(cc, kernel, signature):
    from numba import cuda

    ptx, _ = cuda.compile_ptx_for_current_device(kernel.py_func, signature)
    entries = re.findall(r"\.entry\s+([\w$]+)", ptx)
    if len(entries) != 1:
        raise RuntimeError(f"expected one kernel entry in the PTX, found {entries}")
    return cc.ObjectCode.from_ptx(ptx.encode()).get_kernel(entries[0])  # a str is a file path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vertices", type=int, default=264346)
    parser.add_argument("--trials", type=int, default=9)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--json", required=True)
    args = parser.parse_args(argv)

    from numba import cuda, types

    from graphrepro import gpu, launch
    from graphrepro.harness.launch_floor import _compile

    cc = core()
    k = _compile()
    dev = cc.Device(0)
    dev.set_current()
    cs = dev.create_stream()
    s = cuda.stream()
    n, threads = args.vertices, 256
    blocks = gpu.blocks_for(n, threads)
    d = cuda.to_device(np.zeros(n, np.int64))
    up = cuda.to_device(np.zeros(n, np.int64))
    fa = cuda.to_device(np.zeros(n, np.uint8))
    f = cuda.to_device(np.zeros(1, np.int32))
    host = cuda.pinned_array(1, np.int32)

    arr = types.Array
    kempty = core_kernel(cc, k["empty"], ())
    k1 = core_kernel(cc, k["kernel1"], (arr(types.uint8, 1, "C"), arr(types.int32, 1, "C")))
    k2 = core_kernel(cc, k["kernel2"], (arr(types.int64, 1, "C"), arr(types.int64, 1, "C"),
                                        arr(types.uint8, 1, "C"), arr(types.int32, 1, "C")))
    one = cc.LaunchConfig(grid=1, block=32)
    wide = cc.LaunchConfig(grid=blocks, block=threads)
    a1 = array_args(fa) + array_args(f)
    a2 = array_args(d) + array_args(up) + array_args(fa) + array_args(f)
    dbuf = cc.Buffer.from_handle(int(f.__cuda_array_interface__["data"][0]), 4)
    hbuf = cc.Buffer.from_handle(int(host.ctypes.data), 4)

    # the ABI packed by hand must do exactly what numba's own launch does
    rng = np.random.default_rng(56)
    start_d, start_up = rng.integers(0, 100, n), rng.integers(0, 100, n)
    results = []
    for path in ("numba", "cuda.core"):
        d.copy_to_device(start_d), up.copy_to_device(start_up)
        fa.copy_to_device(np.zeros(n, np.uint8)), f.copy_to_device(np.zeros(1, np.int32))
        if path == "numba":
            k["kernel2"][blocks, threads](d, up, fa, f)
            cuda.synchronize()
        else:
            cc.launch(cs, wide, k2, *a2)
            cs.sync()
        results.append((d.copy_to_host(), up.copy_to_host(), fa.copy_to_host(), f.copy_to_host()))
    for ours, theirs in zip(*results):
        if not np.array_equal(ours, theirs):
            raise SystemExit("cuda.core's launch of the Harish update differs from numba's")

    def capture(ops):
        builder = cs.create_graph_builder()
        builder.begin_building()
        ops(builder)
        builder.end_building()
        return builder.complete()

    def core_round(target):
        cc.launch(target, wide, k1, *a1)
        cc.launch(target, wide, k2, *a2)
        dbuf.copy_to(hbuf, stream=target)

    def core_readback(target):
        cc.launch(target, one, kempty)
        dbuf.copy_to(hbuf, stream=target)

    failed = {}
    graphs = {}
    for name, ops in (("round", core_round), ("readback", core_readback)):
        try:
            graphs[name] = capture(ops)
        except Exception as err:  # an API this cuda.core lacks is a finding, not a crash
            failed[f"cuda.core graph ({name})"] = f"{type(err).__name__}: {err}"

    def replay(graph):
        def run():
            graph.launch(cs)
            cs.sync()
        return run

    def direct(ops):
        def run():
            ops(cs)
            cs.sync()
        return run

    ours_empty = launch.Launch(k["empty"], 1, 32, s)
    ours_update = launch.Launch(k["kernel2"], 1, 32, s, d, up, fa, f)
    ours_readback = launch.Round(s, [ours_empty], read=f, host=host)
    ours_round = launch.Round(s, [launch.Launch(k["kernel1"], blocks, threads, s, fa, f),
                                  launch.Launch(k["kernel2"], blocks, threads, s, d, up, fa, f)],
                              read=f, host=host)
    paths = {
        "empty_launch": {
            "graphrepro.launch": (ours_empty, s.synchronize, 10000),
            "cuda.core launch": (lambda: cc.launch(cs, one, kempty), cs.sync, 10000),
        },
        "args_launch": {
            "graphrepro.launch": (ours_update, s.synchronize, 10000),
            "cuda.core launch": (lambda: cc.launch(cs, one, k2, *a2), cs.sync, 10000),
        },
        "launch_readback": {
            "graphrepro.launch (graph replay)": (ours_readback, s.synchronize, 2000),
            "cuda.core launch + copy": (direct(core_readback), cs.sync, 2000),
        },
        "harish_round": {
            "graphrepro.launch (graph replay)": (ours_round, s.synchronize, 2000),
            "cuda.core launch + copy": (direct(core_round), cs.sync, 2000),
        },
    }
    for measure, name in (("launch_readback", "readback"), ("harish_round", "round")):
        if name in graphs:
            paths[measure]["cuda.core graph"] = (replay(graphs[name]), cs.sync, 2000)
    rows = []
    for measure, contenders in paths.items():
        names = list(contenders)
        for trial in range(args.trials + 1):  # trial 0 warms up and is not kept
            order = names if trial % 2 else names[::-1]
            for name in order:
                fn, sync, reps = contenders[name]
                us = per_op(fn, reps, sync)
                if trial:
                    rows.append({"measure": measure, "path": name, "trial": trial,
                                 "us": round(us, 3), "reps": reps})
    with open(args.csv, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    summary = {"device": gpu.device_name(), "vertices": n, "trials": args.trials,
               "versions": {p: version(p) for p in ("numba", "numba-cuda", "cuda-core",
                                                     "cuda-bindings", "cuda-python")},
               "python": sys.version.split()[0], "failed": failed, "measures": {}}
    for measure, contenders in paths.items():
        summary["measures"][measure] = {}
        base = [r["us"] for r in rows if r["measure"] == measure and r["path"] == next(iter(contenders))]
        for name in contenders:
            values = [r["us"] for r in rows if r["measure"] == measure and r["path"] == name]
            ratios = [v / b for v, b in zip(values, base)]
            summary["measures"][measure][name] = {
                "median_us": statistics.median(values), "min_us": min(values),
                "max_us": max(values), "mean_us": statistics.fmean(values),
                "ratio_to_graphrepro_median": statistics.median(ratios),
                "ratio_min": min(ratios), "ratio_max": max(ratios)}
    with open(args.json, "w") as out:
        json.dump(summary, out, indent=1)
    for measure, by_path in summary["measures"].items():
        for name, stats in by_path.items():
            print(f"{measure:16s} {name:34s} median {stats['median_us']:8.2f} us "
                  f"({stats['min_us']:.2f}-{stats['max_us']:.2f}); "
                  f"x{stats['ratio_to_graphrepro_median']:.3f} of graphrepro.launch")
    print(json.dumps(summary["versions"]), json.dumps(failed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
