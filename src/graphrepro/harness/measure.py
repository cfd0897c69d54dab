"""One run: a solver on a graph over the seeded sources, warmed up, repeated, verified, tidy.

Times come from the solver (CUDA events on the GPU, the host clock on the CPU) and are split into
upload (once per graph), solve and download. Counters that cost time to collect come from one
extra untimed pass per source. Every pass, timed or not, is verified; a wrong answer raises and
nothing is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

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


def measure(graph: CSRGraph, spec: RunSpec, log=print) -> pd.DataFrame:
    return measure_interleaved(graph, [spec], log=log)[0]


def measure_interleaved(graph: CSRGraph, specs: list[RunSpec], log=print) -> list[pd.DataFrame]:
    """Several runs timed interleaved, one table each: per source, trial t of every run back to
    back (their order rotated each trial), so a drift of the machine while they run (clocks,
    heat, neighbours) hits competing runs alike and a comparison paired by (source, trial)
    cancels it (issue 30). The runs share sources, trials and warm-up; each row names its group
    in ``interleaved``. One spec: ``measure``, with no such column."""
    if not specs:
        raise InputError("no run to measure")
    first = specs[0]
    for spec in specs[1:]:
        if (list(spec.sources), list(spec.digests), spec.trials, spec.warmup) != (
                list(first.sources), list(first.digests), first.trials, first.warmup):
            raise InputError(f"interleaved runs share sources, trials and warm-up: "
                             f"{spec.solver} differs from {first.solver}")
    ready, tables = [], {}
    for i, spec in enumerate(specs):
        done = _setup(graph, spec, log)
        if isinstance(done, pd.DataFrame):  # not run here: its status, one row per source
            tables[i] = done
        else:
            ready.append((i, *done))
    group = {"interleaved": "|".join(s.solver for s in specs)} if len(specs) > 1 else {}
    rows: dict = {i: [] for i, *_ in ready}
    hung: dict = {}  # per run, this source's hung row: the run skips the source, the rest go on
    for source, digest in zip(first.sources, first.digests):
        label = int(graph.label_of(source))
        done: dict = {i: [] for i, *_ in ready}
        counters = {}
        for i, solver, base, prepared, device_name, run in ready:
            counters[i] = _counted(solver, prepared, run, source, digest, i, base, label,
                                   device_name, hung, log, graph)
        for trial in range(first.trials):
            turn = trial % len(ready) if ready else 0
            for i, solver, base, prepared, device_name, run in ready[turn:] + ready[:turn]:
                if i in hung:
                    continue
                try:
                    result = run(source, digest)
                except PeerHung as e:
                    _hang(i, base, label, device_name, e, hung, log, solver, graph)
                    continue
                done[i].append({**base, "source": label, "trial": trial,
                                "status": "ok", "device_name": device_name, **group,
                                "upload_ms": prepared.upload_ms, "solve_ms": result.solve_ms,
                                "download_ms": result.download_ms,
                                "device_bytes": prepared.device_bytes,
                                **result.counters, **counters[i],
                                **{f"static_{k}": v for k, v in solver.static_counters.items()}})
        for i, solver, base, *_ in ready:
            if i in hung:
                rows[i].append(hung.pop(i))
                continue
            rows[i] += done[i]
            times = sorted(r["solve_ms"] for r in done[i])
            name = base["variant"] if group else solver.name  # which of the group, when grouped
            log(f"{name} on {graph.name}, source {label}: "
                f"median of {first.trials} {times[first.trials // 2]:.3f} ms, verified")
    for i, solver, base, prepared, *_ in ready:
        if hasattr(prepared, "close"):
            prepared.close()  # a peer's process and its exported graph go now, not at exit
        tables[i] = pd.DataFrame(rows[i])
    return [tables[i] for i in range(len(specs))]


def _hang(i, base, label, device_name, error, hung, log, solver, graph):
    """A peer (issue 33) that missed its deadline was killed: its source is a "hung" row, not a
    stopped run; every finished answer is still verified before it counts."""
    log(f"{solver.name} on {graph.name}, source {label}: {error.status}: {error}")
    hung[i] = {**base, "source": label, "trial": None, "status": error.status,
               "device_name": device_name}


def _counted(solver, prepared, run, source, digest, i, base, label, device_name, hung, log, graph):
    """The untimed counting pass's counters; none for a CPU run or a solver whose counters come
    with every solve (a peer)."""
    if solver.device != "gpu" or getattr(prepared, "counters_free", False):
        return {}
    try:
        return dict(run(source, digest, count=True).counters)
    except PeerHung as e:
        _hang(i, base, label, device_name, e, hung, log, solver, graph)
        return {}


def _setup(graph: CSRGraph, spec: RunSpec, log):
    """One run prepared and warmed up: (solver, the rows' common columns, the prepared solver,
    the device's name, a checked solve), or the table of a run that cannot happen here."""
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
    try:
        prepared = solver.prepare(graph, **params)
    except NotBuildableHere as e:  # a native baseline without g++ or Boost here: say so, go on
        log(f"{solver.name} on {graph.name}: {e.status}")
        return pd.DataFrame([{**base, "source": int(graph.label_of(s)), "trial": None,
                              "status": e.status, "device_name": "none"}
                             for s in spec.sources])
    device_name = gpu.device_name() if solver.device == "gpu" else "cpu"

    def run(source, digest, count=False):
        result = prepared.solve(source, count=count)
        verify.check(graph, source, result.distances, solver=solver.name, expected_digest=digest,
                     metric=solver.metric)
        return result

    for _ in range(spec.warmup):  # compiles kernels, warms caches; verified, not recorded
        try:
            run(spec.sources[0], spec.digests[0])
        except PeerHung as e:
            log(f"{solver.name} on {graph.name}: warm-up {e.status}: {e}")
    return solver, base, prepared, device_name, run
