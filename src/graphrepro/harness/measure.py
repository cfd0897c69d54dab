"""One run: a solver on a graph over the seeded sources, warmed up, repeated, verified, tidy.

Times come from the solver (CUDA events on the GPU, the host clock on the CPU) and are split into
upload (once per graph), solve and download. Counters that cost time to collect come from one
extra untimed pass per source. Every pass, timed or not, is verified; a wrong answer raises and
nothing is written.
"""

from __future__ import annotations

import json
import time
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

_PHASES = ("prepare_s", "warmup_s", "count_s", "timed_s", "verify_s")


@dataclass
class RunSpec:
    solver: str  # a run id: a solver name, optionally with parameters ("lbr@k=4,t=2")
    sources: list[int]  # internal ids
    digests: list[str]  # reference digests, one per source
    params: dict = field(default_factory=dict)
    trials: int = 3
    warmup: int = 1
    # the counting pass (a GPU run's untimed pass for the counters that cost time) for the
    # first this many of its sources only, None: every one (0: none, where no claim reads them)
    count_sources: int | None = None


def measure(graph: CSRGraph, spec: RunSpec, log=print, phases: dict | None = None) -> pd.DataFrame:
    """The run table; ``phases`` (a dict, if given) gets the seconds of each part of the job
    around the timed solves (prepare, warm-up, counting passes, timed passes, verification), so
    the job's overhead can be told from its work."""
    return measure_interleaved(graph, [spec], log=log, phases=phases)[0]


class _Checker:
    """Verifies answers. A GPU run's are checked on a thread of their own while the GPU solves the
    next pass (a copy of the distances, so no solver's reused buffer can change under the check;
    hashing drops the GIL): a road graph's digest costs as much as a fast solve. A wrong answer
    still raises before anything is written. CPU-timed runs check in line: a second thread would
    share their cores."""

    def __init__(self, graph, phases, log):
        self.graph, self.phases, self.log = graph, phases, log
        self.pool = None
        self.pending: list = []  # [(future, message to log once it is verified)]

    def check(self, solver, source, digest, distances):
        args = dict(solver=solver.name, expected_digest=digest, metric=solver.metric)
        t = time.perf_counter()
        if solver.device != "gpu":
            verify.check(self.graph, source, distances, **args)
        else:
            self.settle()  # at most one check in flight (counts its own wait)
            t = time.perf_counter()
            self.pool = self.pool or ThreadPoolExecutor(max_workers=1)
            got = np.array(distances, copy=True)
            self.pending.append((self.pool.submit(verify.check, self.graph, source, got, **args),
                                 None))
        self.phases["verify_s"] += time.perf_counter() - t

    def say(self, message):
        """Log once every pass so far is verified."""
        if self.pending:
            self.pending[-1] = (self.pending[-1][0], message)
        else:
            self.log(message)

    def settle(self):
        while self.pending:
            future, message = self.pending.pop(0)
            t = time.perf_counter()
            future.result()
            self.phases["verify_s"] += time.perf_counter() - t
            if message:
                self.log(message)

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def measure_interleaved(graph: CSRGraph, specs: list[RunSpec], log=print,
                        phases: dict | None = None, enough=None) -> list[pd.DataFrame]:
    """Several runs timed interleaved, one table each: per source, trial t of every run back to
    back (their order rotated each trial), so a drift of the machine while they run (clocks,
    heat, neighbours) hits competing runs alike and a comparison paired by (source, trial)
    cancels it (issue 30). The runs share sources, trials and warm-up; each row names its group
    in ``interleaved``. One spec: ``measure``, with no such column. A peer (issue 33) that misses
    its deadline has been killed: its source is one "hung" row and the run goes on.

    ``enough(n, tables)``, if given, is asked after each source (``n`` done so far, ``tables()``
    the tables of those): True ends the run there, on one warm-up and one setup, as a shorter run
    would have ended (sequential sampling's batches: claims/sequential.Looks)."""
    if not specs:
        raise InputError("no run to measure")
    first = specs[0]
    for spec in specs[1:]:
        if (list(spec.sources), list(spec.digests), spec.trials, spec.warmup) != (
                list(first.sources), list(first.digests), first.trials, first.warmup):
            raise InputError(f"interleaved runs share sources, trials and warm-up: "
                             f"{spec.solver} differs from {first.solver}")
    phases = {} if phases is None else phases
    for key in _PHASES:
        phases[key] = 0.0
    checker = _Checker(graph, phases, log)
    ready, tables = [], {}
    try:
        for i, spec in enumerate(specs):
            done = _setup(graph, spec, checker, log)
            if isinstance(done, pd.DataFrame):  # not run here: its status, one row per source
                tables[i] = done
            else:
                ready.append(_Run(i, *done))
        group = {"interleaved": "|".join(s.solver for s in specs)} if len(specs) > 1 else {}
        for i, (source, digest) in enumerate(zip(first.sources, first.digests)):
            label = int(graph.label_of(source))
            for r in ready:
                r.start_source(source, digest, label,
                               specs[r.index].count_sources is None
                               or i < specs[r.index].count_sources)
            for trial in range(first.trials):
                turn = trial % len(ready) if ready else 0
                for r in ready[turn:] + ready[:turn]:
                    r.trial(source, digest, label, trial, group)
            for r in ready:
                message = r.end_source(label, first.trials, bool(group))
                if message:
                    checker.say(message)
            if enough is not None and enough(i + 1, lambda n=i + 1: [
                    _so_far(graph, specs, ready, tables, n)[k] for k in range(len(specs))]):
                tables = _so_far(graph, specs, [], tables, i + 1)  # those not run, cut short
                break
        checker.settle()
    finally:
        checker.close()
        for r in ready:
            if hasattr(r.prepared, "close"):
                r.prepared.close()  # a peer's process and its exported graph go now, not at exit
    for r in ready:
        tables[r.index] = series_on_first_row(pd.DataFrame(r.rows))
    return [tables[i] for i in range(len(specs))]


def _so_far(graph, specs, ready, not_run: dict, n: int) -> dict:
    """{run index: its table over its first ``n`` sources}: the runs not run here cut to those
    sources (their rows name a source's label), with the tables of those that ran."""
    kept = {int(graph.label_of(s)) for s in specs[0].sources[:n]}
    out = {k: t[t["source"].isin(kept)].reset_index(drop=True) for k, t in not_run.items()}
    out.update({r.index: pd.DataFrame(r.rows) for r in ready})
    return out


def series_on_first_row(table: pd.DataFrame) -> pd.DataFrame:
    """A counting pass's per-round series (``per_round_*``, one value a round) kept on the
    table's first row only, the one the per-round tables read (experiments.senthilkumar): near-far
    takes 18,600 rounds on Western, and on all 200 rows of a 100-source run they made its table
    47 MB. Each row keeps its totals (iterations, arcs relaxed, ...)."""
    series = [c for c in table.columns if c.startswith("per_round_")]
    if series and len(table) > 1:
        table = table.copy()
        table.loc[table.index[1:], series] = None
    return table


@dataclass
class _Run:
    """One run of an interleaved group, as it goes through the sources."""
    index: int
    solver: object
    base: dict
    prepared: object
    device_name: str
    run: object
    rows: list = field(default_factory=list)
    done: list = field(default_factory=list)
    counters: dict = field(default_factory=dict)
    hung: dict | None = None

    def start_source(self, source, digest, label, counted=True):
        self.done, self.counters, self.hung = [], {}, None
        # a solver whose counters come with every solve (a peer) needs no extra counting pass
        if counted and self.solver.device == "gpu" and not getattr(self.prepared, "counters_free",
                                                                   False):
            self._guarded(label, lambda: self.counters.update(
                self.run(source, digest, count=True, part="count_s").counters))

    def trial(self, source, digest, label, trial, group):
        def timed():
            result = self.run(source, digest)
            self.done.append({**self.base, "source": label, "trial": trial, "status": "ok",
                              "device_name": self.device_name, **group,
                              "upload_ms": self.prepared.upload_ms, "solve_ms": result.solve_ms,
                              "download_ms": result.download_ms,
                              "device_bytes": self.prepared.device_bytes,
                              **result.counters, **self.counters,
                              **{f"static_{k}": v
                                 for k, v in self.solver.static_counters.items()}})
        if self.hung is None:
            self._guarded(label, timed)

    def _guarded(self, label, step):
        try:
            step()
        except PeerHung as e:
            self.hung = {**self.base, "source": label, "trial": None, "status": e.status,
                         "device_name": self.device_name, "_why": str(e)}

    def end_source(self, label, trials, grouped):
        """The source's rows joined to the table, and the line to log for it."""
        name = self.base["variant"] if grouped else self.solver.name
        where = f"{name} on {self.base['graph']}, source {label}"
        if self.hung is not None:
            why = self.hung.pop("_why")
            self.rows.append(self.hung)
            return f"{where}: {self.hung['status']}: {why}"
        self.rows += self.done
        times = sorted(r["solve_ms"] for r in self.done)
        return f"{where}: median of {trials} {times[trials // 2]:.3f} ms, verified"


def _setup(graph: CSRGraph, spec: RunSpec, checker: _Checker, log):
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
    phases = checker.phases
    t0 = time.perf_counter()
    try:
        prepared = solver.prepare(graph, **params)
    except NotBuildableHere as e:  # a native baseline without g++ or Boost here: say so, go on
        log(f"{solver.name} on {graph.name}: {e.status}")
        return pd.DataFrame([{**base, "source": int(graph.label_of(s)), "trial": None,
                              "status": e.status, "device_name": "none"}
                             for s in spec.sources])
    device_name = gpu.device_name() if solver.device == "gpu" else "cpu"
    phases["prepare_s"] += time.perf_counter() - t0

    def run(source, digest, count=False, part="timed_s"):
        t = time.perf_counter()
        result = prepared.solve(source, count=count)
        phases[part] += time.perf_counter() - t
        checker.check(solver, source, digest, result.distances)
        return result

    from .warm import reuse_warmup

    warmups = spec.warmup
    if warmups and reuse_warmup(solver.name, base["params"], graph):
        warmups = 0
        phases["warmup_reused"] = phases.get("warmup_reused", 0) + 1
        log(f"{solver.name} on {graph.name}: warm-up reused (this worker warmed it in an "
            "earlier job)")
    for _ in range(warmups):  # compiles kernels, warms caches; verified, not recorded
        try:
            run(spec.sources[0], spec.digests[0], part="warmup_s")
        except PeerHung as e:
            log(f"{solver.name} on {graph.name}: warm-up {e.status}: {e}")
    return solver, base, prepared, device_name, run
