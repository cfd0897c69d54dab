"""Fixed costs paid once per worker, not once per job (issue 57, item 5).

A GPU worker (cli/worker.py) runs many jobs. Under ``GRAPHREPRO_WARMUP=once`` (the gpu-host
profile sets it; ``GRAPHREPRO_WARMUP=each`` turns it off):

- each solver setting is warmed up (its first solve discarded) in the first job that runs it on a
  graph, not again in every job after it: a graph sharded into many jobs paid its warm-up once a
  shard (``reuse_warmup``; a job that skips it says so in its record, ``warmup_reused``);
- each solver setting's kernels are compiled by a thread of their own while the job's graph
  loads (``Precompile``), and a worker's first job compiles every GPU run of the workflow's
  config too (``worker_runs``): it prepares the solver on a small stand-in graph with the index and
  weight types of every graph under 2**31 arcs and weights, and solves once, so numba compiles
  (or loads from the shared cache, placement.numba_cache_dir) the signatures the real solve
  calls; a kernel only a larger graph reaches still compiles in the warm-up. Once a process.

Off by default: a job started as its own process, outside a GPU host's run, warms up as before.
"""

from __future__ import annotations

import os
import threading
import time

_WARMED: set = set()
_COMPILED: set = set()  # (run id, parameters) whose kernels this process has compiled
STANDIN_SIDE = 6  # a 6 x 6 road grid: every kernel runs, in milliseconds (seconds simulated)


def warm_once() -> bool:
    return os.environ.get("GRAPHREPRO_WARMUP") == "once"


def reuse_warmup(solver: str, params_json: str, graph) -> bool:
    """Whether this job may skip its warm-up: the worker warmed this solver setting on this
    graph in an earlier job (and is asked to warm each once). Marks it warmed either way."""
    key = (solver, params_json, getattr(graph, "name", ""), graph.num_vertices, graph.num_arcs)
    once = warm_once() and os.environ.get("GRAPHREPRO_IN_WORKER") == "1"
    seen = key in _WARMED
    _WARMED.add(key)
    return once and seen


class Precompile:
    """The kernels of a job's GPU solver settings, compiled on a thread of their own:
    ``start()`` before the graph loads, ``join()`` after, which waits for the thread and raises
    what it raised (a solver that cannot compile fails its job here, named, not later)."""

    def __init__(self, runs):
        from ..solvers import resolve

        self.todo, keys = [], set(_COMPILED)
        for run_id, params in runs:
            spec, full = resolve(run_id, **params)
            key = (spec.name, repr(sorted(full.items())))  # a setting, however its id says it
            # numba kernels only: a peer's binary compiles nothing here
            if spec.device == "gpu" and spec.document != "peer" and key not in keys:
                keys.add(key)
                self.todo.append((run_id, spec, full, key))
        self.error: BaseException | None = None
        self.failed = ""
        self.seconds = 0.0
        self.compiled: list[str] = []
        self.thread = threading.Thread(target=self._compile, name="graphrepro-precompile",
                                       daemon=True)

    def start(self) -> Precompile:
        if self.todo:
            self.thread.start()
        return self

    def _compile(self) -> None:
        from ..graph.generate import road_grid

        t = time.perf_counter()
        self.failed = self.todo[0][0]
        try:
            graph = road_grid(STANDIN_SIDE, STANDIN_SIDE, keep=1.0, seed=0, name="precompile")
            for run_id, spec, params, key in self.todo:
                self.failed = run_id
                spec.prepare(graph, **params).solve(0)
                _COMPILED.add(key)
                self.compiled.append(run_id)
            self.failed = ""
        except BaseException as e:  # handed to the main thread by join()
            self.error = e
        finally:
            self.seconds = time.perf_counter() - t

    def join(self) -> float:
        """Seconds the caller waited for the thread (0 where it was done first, or had nothing
        to do); raises a RuntimeError naming the run id whose compilation failed."""
        t = time.perf_counter()
        if self.thread.is_alive() or self.thread.ident is not None:
            self.thread.join()
        if self.error is not None:
            raise RuntimeError(f"compiling {self.failed}'s kernels on a {STANDIN_SIDE}x"
                               f"{STANDIN_SIDE} stand-in graph while the graph loaded failed: "
                               f"{type(self.error).__name__}: {self.error}") from self.error
        return time.perf_counter() - t


def compiles_here() -> bool:
    """A CUDA device to compile for (under the simulator a kernel compiles nothing: its first
    solve there would only cost a job seconds)."""
    from .. import gpu

    return gpu.cuda_available() and not gpu.simulated()


def worker_runs() -> list[tuple[str, dict]]:
    """Inside a GPU worker, every GPU run id of the workflow's config (GRAPHREPRO_PRECOMPILE, a
    JSON list the workflow sets before it starts the workers): compiled in the worker's first
    job, while its first graph loads, with the id's own parameters."""
    import json

    if os.environ.get("GRAPHREPRO_IN_WORKER") != "1":
        return []
    try:
        ids = json.loads(os.environ.get("GRAPHREPRO_PRECOMPILE") or "[]")
    except ValueError:
        raise ValueError("GRAPHREPRO_PRECOMPILE: not a JSON list of run ids") from None
    return [(str(r), {}) for r in ids]


def precompile(runs) -> Precompile | None:
    """A started Precompile of ``runs`` ((run id, parameters) pairs) and, in a GPU worker, of
    the workflow's other GPU runs (worker_runs), under ``GRAPHREPRO_WARMUP=once`` where a GPU
    is there to compile for; else None."""
    if not warm_once() or not compiles_here():
        return None
    return Precompile([*runs, *worker_runs()]).start()
