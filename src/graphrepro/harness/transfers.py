"""an2017 section 4.1: host-to-device transfer of the adjacency matrix, a benchmark (not a solver run).

For each graph (an2017 uses matrices of 256^2 .. 20480^2 int32 entries), after warm-up, per trial:
- ``pageable_ms``: the matrix copied up from ordinary (pageable) host memory, CUDA events around
  the copy (the driver stages it through a pinned buffer: that staging is what pinned memory saves);
- ``pinned_ms``: the same copy from page-locked memory (``cuda.pinned_array``);
- ``solve_ms``: the basic version's solve (``an_bf_dense``, matrix already on the device);
- ``two_stream_ms``: the two-stream version from pinned memory, transfers and solve together
  (``DenseEdgeParallel.solve_two_streams``), to set against ``pinned_ms + solve_ms``;
- ``arcs_relaxed`` and ``second_phase_arcs_relaxed``: the basic version's work from scratch and
  the two-stream version's after both halves are up, counted in one untimed run of each.
Every solve is verified against the source's reference digest. Without a CUDA device every row
says "not run: no CUDA device".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import gpu, verify
from ..gpu import NOT_RUN_NO_GPU

COLUMNS = ["graph", "vertices", "matrix_bytes", "source", "trial", "status", "device_name",
           "pageable_ms", "pinned_ms", "solve_ms", "two_stream_ms", "iterations",
           "first_half_iterations", "second_phase_iterations", "arcs_relaxed",
           "second_phase_arcs_relaxed", "edges_per_thread", "order"]


def transfer_benchmark(cases, *, trials: int = 5, warmup: int = 1, edges_per_thread: int = 4,
                       order: str = "coalesced", log=print) -> pd.DataFrame:
    """``cases``: (graph, internal source, reference digest) per graph, smallest first."""
    if not gpu.cuda_available():
        log(f"transfers: {NOT_RUN_NO_GPU}")
        return pd.DataFrame([{"graph": g.name, "vertices": g.num_vertices,
                              "matrix_bytes": g.num_vertices ** 2 * 4,
                              "source": int(g.label_of(s)), "status": NOT_RUN_NO_GPU,
                              "device_name": "none"} for g, s, _ in cases], columns=COLUMNS)
    from numba import cuda

    from ..graph.dense import dense_matrix
    from ..solvers.an2017.bellman_ford import DenseEdgeParallel

    device_name = gpu.device_name()
    rows = []
    for graph, source, digest in cases:
        solver = DenseEdgeParallel(graph, edges_per_thread, order, 32, 8)
        pageable = dense_matrix(graph)
        pinned = (np.empty_like(pageable) if gpu.simulated()
                  else cuda.pinned_array(pageable.shape, dtype=np.int32))
        pinned[...] = pageable

        def copy_ms(host):
            with gpu.DeviceTimer(solver.stream).measure() as t:
                solver.matrix.copy_to_device(host, stream=solver.stream)
            return t["ms"]

        def checked(result, how):
            verify.check(graph, source, result.distances, solver=f"an_bf_dense ({how})",
                         expected_digest=digest)
            return result

        for _ in range(warmup):
            copy_ms(pageable)
            copy_ms(pinned)
            checked(solver.solve(source), "basic")
            checked(solver.solve_two_streams(pinned, source), "two streams")
        for trial in range(trials):
            pageable_ms, pinned_ms = copy_ms(pageable), copy_ms(pinned)
            basic = checked(solver.solve(source), "basic")
            two = checked(solver.solve_two_streams(pinned, source, count=False), "two streams")
            rows.append({"graph": graph.name, "vertices": graph.num_vertices,
                         "matrix_bytes": pageable.nbytes, "source": int(graph.label_of(source)),
                         "trial": trial, "status": "ok", "device_name": device_name,
                         "pageable_ms": pageable_ms, "pinned_ms": pinned_ms,
                         "solve_ms": basic.solve_ms, "two_stream_ms": two.solve_ms,
                         "iterations": basic.counters["iterations"],
                         "first_half_iterations": two.counters["first_half_iterations"],
                         # after both halves are up: the document's "dramatically reduced" work
                         "second_phase_iterations": two.counters["iterations"]
                         - two.counters["first_half_iterations"],
                         "edges_per_thread": edges_per_thread, "order": order})
        # the work of each (an2017's "dramatically reduced" is about work): arcs relaxed, counted
        # in one untimed run of each, as counting slows the kernels
        basic = checked(solver.solve(source, count=True), "basic, counted")
        two = checked(solver.solve_two_streams(pinned, source, count=True), "two streams, counted")
        for r in rows[-trials:]:
            r.update(arcs_relaxed=basic.counters["arcs_relaxed"],
                     second_phase_arcs_relaxed=two.counters["second_phase_arcs_relaxed"])
        last = rows[-trials:]
        med = {k: float(np.median([r[k] for r in last])) for k in ("pageable_ms", "pinned_ms",
                                                                    "solve_ms", "two_stream_ms")}
        log(f"transfers {graph.name}: pageable {med['pageable_ms']:.3f} ms, pinned "
            f"{med['pinned_ms']:.3f} ms, solve {med['solve_ms']:.3f} ms, two streams "
            f"{med['two_stream_ms']:.3f} ms (medians of {trials}), verified")
        del solver, pinned
    return pd.DataFrame(rows, columns=COLUMNS)
