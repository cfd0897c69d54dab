"""gerritsen2012 chapter 4 / section 5.6: the three-phase I/O-efficient SSSP on a terrain grid.

Haverkort's algorithm after Arge et al., as the thesis implemented it (the non-hierarchical
version, O(scan(N) + sort(N / sqrt(M))) I/Os):

1. Phase 1, per I/O-block of side m (M = m^2 vertices): the distance between every pair of its
   4m - 4 boundary vertices using only the block (a ``PHASE1`` step by name: "cpu_dijkstra" here,
   Dijkstra from each boundary vertex as the thesis ran it; 11b's "gpu_alg1" / "gpu_alg2"). The
   result is G', stored per block as section 5.6.1 describes: one record with the boundary pairs,
   one with the edges to the block on the right, one with the edges to the block below (Figure
   5.1). A record's edges are implied by their position ("determine the correct index based on
   the type of edge"): row r of the right record holds the weights from cell (r, m-1) to rows
   r-1, r, r+1 of the next block column, so the diagonal edges are included, and an edge across
   a block corner is stored twice (in a right and in a bottom record), as the thesis notes.
2. Phase 2: Dijkstra over G' with a priority queue over clusters, keyed by the smallest
   tentative distance of a boundary vertex in the cluster. The source block is read first and its
   own distances from s are kept (section 5.6.1). When a cluster is fetched, its records (and the
   neighbours' records that hold edges into it) are read once and its boundary vertices are made
   final while it still holds the smallest key: exactly Dijkstra's order, one fetch per run of
   consecutive vertices rather than one per vertex.
3. Phase 3: every block again, Dijkstra inside it seeded with its boundary distances. The source
   block is the thesis's special case: its answer is the kept phase-2 initialisation combined
   (minimum) with the seeded run. (The thesis takes the initialisation alone; that misses paths
   that leave the source block and come back, so both are combined, which is exact.)

Every block transfer is counted in an ``IOCounter``: grid blocks through ``terrain.blockio.ZBlocks``,
G' and distance records through ``RecordFile`` (fixed-size records, one file per kind: the thesis's
per-block files packed so a run on 2^26 vertices does not make a million files; one record read or
written is one counted transfer either way). Weight of an edge: |val(i) - val(j)|, 8 neighbours,
zero weights allowed; distances int64. Vertex ids are row-major over the padded square grid.

Where each part lives: the shared records, G' layout and block Dijkstra in ``sssp_io_blocks``;
phase 1 (and the seams) in ``sssp_io_phase1``; phase 2 (and G' as CSR for the GPU) in
``sssp_io_phase2``; phase 3 in ``sssp_io_phase3``; the whole-grid baseline and the checks in
``sssp_io_check``. This module runs the phases (``phases23``, ``io_sssp``), the memory-capped
child the thesis's 238 MB machine stands for (``run_capped``), and re-exports the rest, so
``sssp_io.<name>`` keeps working for the CLI, the experiments and the tests.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...bounded import load_json
from ...errors import InputError
from ...terrain import morton
from ...terrain.blockio import IOCounter, ZBlocks  # noqa: F401  (IOCounter: re-exported)
from ..base import INF
from .sssp_io_blocks import (  # noqa: F401  (re-exported)
    GPRIME_FORMAT,
    MISSING,
    Gprime,
    RecordFile,
    block_dijkstra,
    block_layout,
    read_distances,
    slot_table,
)
from .sssp_io_check import check_distances, check_phase1, grid_values, whole_grid_dijkstra  # noqa: F401  (re-exported)
from .sssp_io_phase1 import (  # noqa: F401  (re-exported)
    _phase1_cpu_parallel,
    _seams,
    centre_blocks,
    partial_bnd,
    phase1,
    phase1_cpu_dijkstra,
)
from .sssp_io_phase2 import _gprime_csr, _phase2, run_phase2
from .sssp_io_phase3 import _phase3_parallel, _phase3_serial, run_phase3
from .types import boundary_cells


@dataclass
class Phase23:
    dist_records: Path
    timings: dict
    counters: dict
    io: dict


def vm_data_kib() -> int | None:
    """This process's data segment (VmData: what RLIMIT_DATA limits), KiB; None off Linux."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmData:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def apply_memory_cap(budget_mb: float) -> dict:
    """Cap what this process uses from now on at ``budget_mb``, as the thesis's 238 MB machine
    was: in a memory cgroup of its own (``memcap``: its heap and the pages of its memory-mapped
    grid and G' files alike, the latter reclaimed by the kernel under the limit), where this
    process may make one; else (the record says why) its data segment at what it uses now plus
    ``budget_mb`` (RLIMIT_DATA: heap and private mappings, file maps not counted). Not
    RLIMIT_AS: numba and LLVM reserve far more address space than they use. Call after the
    kernels are compiled, so the cap bounds the algorithm, not the compiler."""
    from .memcap import join_capped_cgroup

    why = "GRAPHREPRO_MEMCAP=rlimit"
    if os.environ.get("GRAPHREPRO_MEMCAP") != "rlimit":
        try:
            return join_capped_cgroup(budget_mb)
        except OSError as e:
            why = f"no memory cgroup of its own here ({e})"
    cap = _rlimit_data_cap(budget_mb)
    cap["why_not_cgroup"] = why
    return cap


def _rlimit_data_cap(budget_mb: float) -> dict:
    base = vm_data_kib()
    if base is None:
        raise InputError("a memory cap needs Linux (/proc/self/status for the data segment)")
    limit = int(base * 1024 + budget_mb * 2 ** 20)
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY and limit > hard:
        raise InputError(f"a data-segment cap of {limit >> 20} MiB exceeds this process's hard "
                         f"limit ({hard >> 20} MiB)")
    # the soft limit only, so that the check after the capped phases can lift it again
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    return {"rlimit": "RLIMIT_DATA", "baseline_mib": round(base / 1024, 1),
            "budget_mib": float(budget_mb), "limit_mib": round(limit / 2 ** 20, 1),
            "previous_soft": soft}


def lift_memory_cap(cap: dict) -> None:
    """Undo ``apply_memory_cap`` (the whole-grid check is not part of the capped algorithm)."""
    if "cgroup" in cap:
        from .memcap import leave_capped_cgroup

        leave_capped_cgroup(cap)
        return
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (cap["previous_soft"], hard))


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel of the three phases on a 4 x 4 grid,
    with the array types the phases pass (read-only memory-mapped records among them), so no
    timed section includes the compiler."""
    m, per = 2, 2
    bcells, bpos = block_layout(m)
    slot = slot_table(per)
    k = len(bcells)
    side = np.zeros((per * per, m, 3), dtype=np.int32)
    side.setflags(write=False)
    for dtype in (np.int32, np.int64):
        for writable in (False, True):
            bnd = np.zeros((per * per, k, k), dtype=dtype)
            bnd.setflags(write=writable)
            d = np.full((per * per, k), INF, dtype=np.int64)
            _phase2(slot, m, bcells, bpos, bnd, side, side, 0, np.zeros(k, np.int64), d,
                    np.zeros(7, np.int64))
            _gprime_csr(slot, m, bcells, bpos, bnd, side, side)
    phase1_cpu_dijkstra(np.zeros((1, 2, 2), dtype=np.int64))
    bc = boundary_cells(2)
    _phase1_cpu_parallel(np.zeros((2, 2, 2), np.int64), bc, 2, np.empty((2, 4, 4), np.int64),
                         np.zeros(4, np.int64))  # starts the threading layer too
    morton.decode(np.arange(4))  # ZBlocks.read: its z-order scatter and its start index
    morton.encode1(1, 1)
    whole_grid_dijkstra(np.zeros((4, 4), dtype=np.int64), 0)
    border = np.zeros((per * per, k), dtype=np.int64)
    _seams(border, slot, m, bpos, np.zeros((per * per, m, 3), np.int32),
           np.zeros((per * per, m, 3), np.int32), np.zeros(per * per, np.bool_),
           np.zeros(per * per, np.bool_))
    vals = np.zeros((1, m, m), dtype=np.int64)
    _phase3_serial(vals, bcells, np.zeros((1, k), np.int64), np.empty((1, m * m), np.int64))
    _phase3_parallel(vals, bcells, np.zeros((1, k), np.int64), np.empty((1, m * m), np.int64))
    block_dijkstra(vals[0], [0], [0])


def check_source(zgrid, source: int) -> None:
    side = ZBlocks(zgrid).side
    if not 0 <= source < side * side:
        raise InputError(f"source {source} out of range: the grid has {side} x {side} = "
                         f"{side * side} vertices (row-major ids of the padded square)")


def phases23(directory, source: int, *, phase2: str = "cpu", batch_vertices: int = 1 << 20,
             counter: IOCounter | None = None) -> Phase23:
    """Phases 2 and 3 on a G' made by ``phase1``: boundary distances from ``source`` (a row-major
    id of the padded grid), then every vertex's distance, written to the ``dist`` records."""
    counter = counter if counter is not None else IOCounter()
    g = Gprime.open(directory, counter)
    m, per = g.m, g.per
    side = per * m
    if not 0 <= source < side * side:
        raise InputError(f"source {source} out of range: the grid has {side} x {side} = "
                         f"{side * side} vertices (row-major ids of the padded square)")
    grid = ZBlocks(g.meta["zgrid"], counter)
    bcells, bpos = block_layout(m)
    slot = slot_table(per)
    timings, counters = {}, {}

    # phase 2
    before = counter.as_dict()
    t0 = time.perf_counter()
    bdist, kept, src_slot = run_phase2(g, grid, source, bcells, bpos, slot, phase2, counters)
    timings["phase2_ms"] = (time.perf_counter() - t0) * 1e3
    counters["phase2_io"] = _io_delta(before, counter)

    # phase 3
    before = counter.as_dict()
    t0 = time.perf_counter()
    out = run_phase3(g, grid, bcells, slot, bdist, kept, src_slot, batch_vertices)
    timings["phase3_ms"] = (time.perf_counter() - t0) * 1e3
    counters["phase3_io"] = _io_delta(before, counter)
    return Phase23(out.path, timings, counters, counter.as_dict())


def _io_delta(before: dict, counter: IOCounter) -> dict:
    now = counter.as_dict()
    return {k: now[k] - before[k] for k in ("block_reads", "block_writes", "bytes_read", "bytes_written")}


@dataclass
class IOSSSPResult:
    distances: np.ndarray | None
    timings: dict
    counters: dict
    io: dict
    check: str


def io_sssp(zgrid, source: int, m: int, workdir, *, phase1_step: str = "cpu_dijkstra",
            phase1_params: dict | None = None, phase2: str = "cpu", batch_vertices: int = 1 << 20,
            verify: bool = True, keep_distances: bool = False, log=None) -> IOSSSPResult:
    """All three phases in this process, then (``verify``) the whole-grid Dijkstra check."""
    check_source(zgrid, source)
    counter = IOCounter()
    t0 = time.perf_counter()
    g = phase1(zgrid, workdir, m, step_name=phase1_step, params=phase1_params,
               batch_vertices=batch_vertices, counter=counter, log=log)
    p1_ms = (time.perf_counter() - t0) * 1e3
    io1 = counter.as_dict()
    p23 = phases23(workdir, source, phase2=phase2, batch_vertices=batch_vertices, counter=counter)
    timings = {"phase1_ms": p1_ms, **{f"phase1_{k}": v for k, v in g.meta["timings"].items()},
               **p23.timings}
    counters = {**{f"phase1_{k}": v for k, v in g.meta["counters"].items()}, **p23.counters,
                "phase1_io": {k: io1[k] for k in ("block_reads", "block_writes", "bytes_read",
                                                  "bytes_written")}}
    dist = read_distances(workdir)
    check = "not checked"
    if verify:
        ref, base = whole_grid_dijkstra(grid_values(zgrid), source)
        check_distances(dist, ref, what=f"I/O-efficient SSSP (M = {m}^2, phase 1 {phase1_step}, "
                                        f"phase 2 {phase2}) from source {source}")
        timings["baseline_dijkstra_ms"] = base["dijkstra_ms"]
        timings["baseline_build_ms"] = base["build_ms"]
        check = "ok: equals whole-grid Dijkstra"
    return IOSSSPResult(dist.ravel() if keep_distances or not verify else None, timings, counters,
                        counter.as_dict(), check)


def child_env() -> dict:
    """The environment for a ``python -m graphrepro`` child: this package's source first, so a
    checkout runs its own code whatever is installed."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_capped(zgrid, workdir, source: int, *, budget_mb: float | None, phase2: str = "cpu",
               batch_vertices: int = 1 << 20, timeout: float | None = None) -> dict:
    """Phases 2 and 3 in a child process whose data segment is capped (``apply_memory_cap``),
    as the thesis ran them on a machine limited to 238 MB. Returns the child's JSON record;
    raises InputError with the child's last line when it fails (e.g. MemoryError under the cap)."""
    import subprocess
    import sys

    out = Path(workdir) / "phases23.json"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "graphrepro", "io-sssp", str(zgrid), "--source", str(source),
           "--workdir", str(workdir), "--phases", "23", "--phase2", phase2,
           "--batch-vertices", str(batch_vertices), "--no-check", "--json", str(out)]
    if budget_mb is not None:  # None: the same child, uncapped (phase 2 on the GPU holds G' as CSR)
        cmd += ["--memory-cap-mb", str(budget_mb)]
    # One malloc arena: RLIMIT_DATA counts each extra arena's 64 MiB reservation, which glibc
    # makes only when threads contend for the heap, so on a loaded machine the cap failed
    # spuriously (a 64 MiB budget, twice in this suite's runs on 2 busy cores)
    env = {**child_env(), "MALLOC_ARENA_MAX": "1"} if budget_mb is not None else child_env()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if proc.returncode != 0 or not out.is_file():
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"status": f"failed under the cap: {last}", "returncode": proc.returncode}
    record = load_json(out)
    record["status"] = "ok"
    return record
