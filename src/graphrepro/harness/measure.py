"""One run: a solver on a graph over the seeded sources, warmed up, repeated, verified, tidy.

Times come from the solver (CUDA events on the GPU, the host clock on the CPU) and are split into
upload (once per graph), solve and download. Counters that cost time to collect come from one
extra untimed pass per source. Every pass, timed or not, is verified; a wrong answer raises and
nothing is written.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import gpu, verify
from ..graph.csr import CSRGraph
from ..errors import InputError
from ..gpu import NOT_RUN_NO_GPU  # noqa: F401  (re-exported: callers read it here)
from ..native import NotBuildableHere
from ..native.peers import PeerHung
from ..solvers import check_source, make_run_id, parse_run_id, resolve



@dataclass
class RunSpec:
    solver: str  # a run id: a solver name, optionally with parameters ("lbr@k=4,t=2")
    sources: list[int]  # internal ids
    digests: list[str]  # reference digests, one per source
    params: dict = field(default_factory=dict)
    trials: int = 3
    warmup: int = 1


def measure(graph: CSRGraph, spec: RunSpec, log=print, phases: dict | None = None) -> pd.DataFrame:
    """The run table; ``phases`` (a dict, if given) gets the seconds of each part of the job
    around the timed solves (prepare, warmup, counting passes, timed passes, verification), so
    the job's overhead can be told from its work."""
    import time

    phases = {} if phases is None else phases
    clock = time.perf_counter
    solver, params = resolve(spec.solver, **spec.params)
    if len(spec.digests) != len(spec.sources) or not spec.sources:
        raise InputError(f"{len(spec.sources)} sources and {len(spec.digests)} digests: one each")
    for s in spec.sources:
        check_source(graph, int(s))
    # The variant is what the run id asked for (defaults dropped, so "lbr@k=4" is "lbr"); what
    # the workflow adds, such as a calibrated N, is a run's setting, kept in the params column.
    _, asked = parse_run_id(spec.solver)
    variant = make_run_id(solver.name, {k: params[k] for k in asked if params[k] != solver.defaults[k]})
    base = {"graph": graph.name, "solver": solver.name, "variant": variant, "device": solver.device,
            "document": solver.document, "params": json.dumps(params, sort_keys=True)}
    if solver.device == "gpu" and not gpu.cuda_available():
        log(f"{solver.name} on {graph.name}: {NOT_RUN_NO_GPU}")
        return pd.DataFrame([{**base, "source": int(graph.label_of(s)), "trial": None,
                              "status": NOT_RUN_NO_GPU, "device_name": "none"} for s in spec.sources])
    t0 = clock()
    try:
        prepared = solver.prepare(graph, **params)
    except NotBuildableHere as e:  # a native baseline without g++ or Boost here: say so, go on
        log(f"{solver.name} on {graph.name}: {e.status}")
        return pd.DataFrame([{**base, "source": int(graph.label_of(s)), "trial": None,
                              "status": e.status, "device_name": "none"}
                             for s in spec.sources])
    device_name = gpu.device_name() if solver.device == "gpu" else "cpu"
    phases["prepare_s"] = clock() - t0
    for key in ("warmup_s", "count_s", "timed_s", "verify_s"):
        phases[key] = 0.0

    # A GPU run's answers are checked on a thread of their own while the GPU solves the next
    # pass (a copy of the distances, so no solver's reused buffer can change under the check;
    # hashing drops the GIL): a road graph's digest costs as much as a fast solve. A wrong
    # answer still raises before anything is written. CPU-timed runs check in line: a second
    # thread would share their cores.
    overlap = solver.device == "gpu"
    pool = ThreadPoolExecutor(max_workers=1) if overlap else None
    pending: list = []  # [(future, message to log once it is verified)]

    def settle():
        while pending:
            future, message = pending.pop(0)
            t = clock()
            future.result()
            phases["verify_s"] += clock() - t
            if message:
                log(message)

    def run(source, digest, count=False, part="timed_s"):
        t1 = clock()
        result = prepared.solve(source, count=count)
        t2 = clock()
        phases[part] += t2 - t1
        check = dict(solver=solver.name, expected_digest=digest, metric=solver.metric)
        if pool is None:
            verify.check(graph, source, result.distances, **check)
            phases["verify_s"] += clock() - t2
        else:
            settle()  # (counts its own wait)
            t3 = clock()
            got = np.array(result.distances, copy=True)
            pending.append((pool.submit(verify.check, graph, source, got, **check), None))
            phases["verify_s"] += clock() - t3
        return result

    # A peer (issue 33) that misses its deadline has been killed: its source is a "hung" row,
    # not a stopped run; every finished answer is still verified before it counts.
    # a solver whose counters come with every solve (a peer) needs no extra counting pass
    counting = solver.device == "gpu" and not getattr(prepared, "counters_free", False)
    try:
        for _ in range(spec.warmup):  # compiles kernels, warms caches; verified, not recorded
            try:
                run(spec.sources[0], spec.digests[0], part="warmup_s")
            except PeerHung as e:
                log(f"{solver.name} on {graph.name}: warm-up {e.status}: {e}")
        rows = []
        for source, digest in zip(spec.sources, spec.digests):
            label = int(graph.label_of(source))
            try:
                counters = (dict(run(source, digest, count=True, part="count_s").counters)
                            if counting else {})
                done = []
                for trial in range(spec.trials):
                    result = run(source, digest)
                    done.append({**base, "source": label, "trial": trial,
                                 "status": "ok", "device_name": device_name,
                                 "upload_ms": prepared.upload_ms, "solve_ms": result.solve_ms,
                                 "download_ms": result.download_ms,
                                 "device_bytes": prepared.device_bytes,
                                 **result.counters, **counters,
                                 **{f"static_{k}": v for k, v in solver.static_counters.items()}})
            except PeerHung as e:
                log(f"{solver.name} on {graph.name}, source {label}: {e.status}: {e}")
                rows.append({**base, "source": label, "trial": None, "status": e.status,
                             "device_name": device_name})
                continue
            rows += done
            message = (f"{solver.name} on {graph.name}, source {label}: median of {spec.trials} "
                       f"{sorted(r['solve_ms'] for r in done)[spec.trials // 2]:.3f} ms, verified")
            if pending:
                pending[-1] = (pending[-1][0], message)  # said once its last pass is checked
            else:
                log(message)
        settle()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if hasattr(prepared, "close"):
            prepared.close()  # a peer's process and its exported graph go now, not at exit
    return pd.DataFrame(rows)
