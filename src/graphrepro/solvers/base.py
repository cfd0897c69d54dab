"""One solver interface and one registry for every algorithm of every document.

A solver is registered with its name, device, document, description and the document's default
parameters. Solving happens in two steps so the harness can time them apart, as the field does:

    prepared = spec.prepare(graph, **params)   # build device state: upload, timed in .upload_ms
    result = prepared.solve(source)             # one source: distances, counters, solve time

``solve(graph, source, solver=..., **params)`` wraps both for plain arrays in, plain arrays out.
"""

from __future__ import annotations

import importlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

import numpy as np

from .. import documents
from ..errors import InputError
from ..graph.csr import CSRGraph
from . import plugins

INF = np.iinfo(np.int64).max  # "unreachable"; distances are int64 so no sum of int32 weights overflows

DEVICES = ("cpu", "gpu")
# "graphrepro": the study's own solvers, beside the documents (issue 21)
DOCUMENTS = ("reference", "safari2017", "senthilkumar", "singla", "an2017", "gerritsen2012",
             "graphrepro", "peer")  # "peer": public codes built from their source (issue 33)


@dataclass
class SolveResult:
    distances: np.ndarray  # int64, INF where unreachable, internal vertex order
    solve_ms: float  # device-side time of the solve alone (CUDA events on the GPU)
    download_ms: float = 0.0  # device-to-host copy of the distances, timed apart
    counters: dict[str, int] = field(default_factory=dict)


class PreparedSolver(Protocol):
    upload_ms: float  # host-to-device transfer (0 on the CPU), timed apart from the solve
    device_bytes: int  # memory the solver holds on the device for this graph

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        """Shortest distances from internal vertex ``source``.

        ``count=True`` asks for the counters that cost time to collect (atomics executed, arcs
        relaxed); the harness takes them from an extra untimed run so they never skew timings.
        """
        ...


class HostSolver:
    """A CPU solver: nothing to upload; ``run(source) -> (distances, counters)`` timed on the host.

    Its counters cost nothing to collect, so they come with every solve.
    """

    upload_ms = 0.0
    device_bytes = 0

    def __init__(self, run: Callable[[int], tuple[np.ndarray, dict]]):
        self._run = run

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        t0 = time.perf_counter()
        distances, counters = self._run(source)
        return SolveResult(distances, (time.perf_counter() - t0) * 1e3, counters=counters)


@dataclass(frozen=True)
class SolverSpec:
    name: str
    device: str
    document: str
    description: str
    factory: Callable[..., PreparedSolver]
    defaults: dict[str, Any] = field(default_factory=dict)
    # What the document argues with that is a property of the code, not of a run
    # (safari2017 Table 2's "# of atomic statements", kernels per host iteration).
    static_counters: dict[str, Any] = field(default_factory=dict)
    # "distance": weighted shortest distances; "hops": hop counts (BFS), checked against
    # Dijkstra on unit weights.
    metric: str = "distance"
    # A solver whose parameters are calibrated from another solver's runs, as safari2017 sets N
    # from Harish's iteration counts; the workflow runs that one first (rule `calibrate`).
    calibrated_by: str | None = None
    # A CPU solver that runs on many threads (numba prange): timed alone on all the cores kept
    # for CPU timings. The others use one core, and on a GPU host may be timed side by side
    # (host_cpu_slots), each on a core of its own.
    parallel: bool = False

    def params(self, **overrides) -> dict[str, Any]:
        unknown = set(overrides) - set(self.defaults)
        if unknown:
            raise InputError(f"solver {self.name} has no parameter {', '.join(sorted(unknown))}; "
                             f"it takes: {', '.join(self.defaults) or 'none'}")
        values = {k: _coerce(self.defaults[k], v) for k, v in overrides.items()}
        for k, v in values.items():
            _check_range(self.name, k, v)
        return {**self.defaults, **values}

    def prepare(self, graph: CSRGraph, **params) -> PreparedSolver:
        check_sums(graph)
        return self.factory(graph, **self.params(**params))


# CUDA's limit on a block, whatever the device; a solver may ask for less (singla: powers of 2).
MAX_THREADS_PER_BLOCK = 1024
_BLOCK_PARAMS = ("threads_per_block", "block_x", "block_y")


def _coerce(default, value):
    """Parameters arrive as strings from the command line; give them the default's type."""
    if isinstance(value, str) and default is not None and not isinstance(default, str):
        if isinstance(default, bool):
            if value.lower() in ("1", "true", "yes"):
                return True
            if value.lower() in ("0", "false", "no"):
                return False
            raise InputError(f"parameter value {value!r} is not true or false")
        try:
            return type(default)(value)
        except (ValueError, OverflowError):
            raise InputError(f"parameter value {value!r} is not a {type(default).__name__}") from None
    return value


def _check_range(solver: str, key: str, value) -> None:
    """Numbers no kernel can use: nan/inf, a block CUDA cannot launch (each solver checks its
    own ranges beyond these, with its own words)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return
    if not np.isfinite(value):
        raise InputError(f"{solver}: parameter {key}={value} must be a finite number")
    if key in _BLOCK_PARAMS and not 1 <= value <= MAX_THREADS_PER_BLOCK:
        raise InputError(f"{solver}: {key} must be 1..{MAX_THREADS_PER_BLOCK} (CUDA's threads "
                         f"per block), not {value}")


_REGISTRY: dict[str, SolverSpec] = plugins.watch({})
plugins.watch(documents.PLUGIN_DOCUMENTS)
plugins.watch(documents.PLUGIN_CLAIMS)


# The modules whose @register decorators fill the registry, imported on first lookup so that
# listing solvers needs no GPU toolkit until one is asked for; then the plugins' (plugins.GROUP).
_MODULES = (
    "graphrepro.solvers.reference",
    "graphrepro.solvers.baselines",
    "graphrepro.solvers.native",
    "graphrepro.solvers.safari2017.harish",
    "graphrepro.solvers.safari2017.lbr",
    "graphrepro.solvers.an2017.bellman_ford",
    "graphrepro.solvers.singla.dijkstra",
    "graphrepro.solvers.singla.bfs",
    "graphrepro.solvers.senthilkumar.sweep",
    "graphrepro.solvers.gerritsen2012.grid_sssp_gpu",
    "graphrepro.solvers.frontier.frontier",
    "graphrepro.solvers.peer.peers",
)


def load_all() -> None:
    for module in _MODULES:
        importlib.import_module(module)
    plugins.load_plugins(_REGISTRY)


def load_plugins() -> None:
    """What the plugins bring besides solvers (documents, claims, targets), where any is
    installed: the built-in solvers first, so no plugin takes one of their names."""
    if plugins.installed():
        load_all()


def register(name: str, *, device: str, document: str, description: str,
             defaults: dict[str, Any] | None = None, static_counters: dict[str, Any] | None = None,
             metric: str = "distance", calibrated_by: str | None = None,
             parallel: bool = False):
    """Decorator for a factory ``(graph, **params) -> PreparedSolver``."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}")
    if metric not in ("distance", "hops"):
        raise ValueError("metric must be 'distance' or 'hops'")
    if document not in DOCUMENTS and document not in documents.PLUGIN_DOCUMENTS:
        raise ValueError(f"document {document!r} is not one of {DOCUMENTS} nor a plugin's "
                         "(documents.register_document)")

    def wrap(factory):
        if name in _REGISTRY:
            raise ValueError(f"solver {name} is already registered")
        _REGISTRY[name] = SolverSpec(name, device, document, description, factory,
                                     dict(defaults or {}), dict(static_counters or {}), metric,
                                     calibrated_by, parallel)
        return factory

    return wrap


def get_solver(name: str) -> SolverSpec:
    load_all()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown solver {name!r}; `python -m graphrepro solvers` lists them: "
                         f"{', '.join(sorted(_REGISTRY))}{plugins.missing_hint()}") from None


def all_solvers() -> list[SolverSpec]:
    load_all()
    return sorted(_REGISTRY.values(), key=lambda s: (s.document != "reference", s.name != "dijkstra",
                                                  s.document, s.name))


def solve(graph: CSRGraph, source: int, solver: str = "dijkstra", **params) -> np.ndarray:
    """Distances (int64, INF unreachable) from internal vertex ``source``."""
    check_source(graph, source)
    return get_solver(solver).prepare(graph, **params).solve(source).distances


def parse_run_id(run_id: str) -> tuple[str, dict[str, str]]:
    """``"lbr@k=4,t=2"`` (or its file name ``"lbr@k=4+t=2"``) -> ``("lbr", {"k": "4", "t": "2"})``.

    A run id names one variant of a solver: its name, then optionally ``@`` and parameters. It is
    what the workflow puts in file names (``runs/<graph>/<run id>.csv``, see ``run_file_id``), so
    every variant a figure sweeps over is its own cached, rerunnable step.
    """
    name, sep, rest = run_id.partition("@")
    params: dict[str, str] = {}
    if sep:
        for pair in re.split(PARAM_SEPARATORS, rest):
            key, eq, value = pair.partition("=")
            if not eq or not key or not value:
                raise InputError(f"run id {run_id!r}: parameters are KEY=VALUE separated by commas")
            if key in params:  # last-wins would run a variant other than the one named
                raise InputError(f"run id {run_id!r}: parameter {key} given twice")
            params[key] = value
    return name, params


# A run id's parameters are joined by commas where people write them (configs, tables' variant
# column) and by "+" in file names and workflow wildcards: snakemake splits a remote job's
# `--target-jobs rule:graph=G,solver=...` at every comma (snakemake issue 2366), so a comma in a
# wildcard would reach the job cut short. Both spellings read the same.
PARAM_SEPARATORS = r"[,+]"


def run_file_id(run_id: str) -> str:
    """The run id as the workflow spells it in file names and wildcards: no commas."""
    return run_id.replace(",", "+")


def run_file(folder, run_id: str, suffix: str = ".csv"):
    """``folder/<run id><suffix>``: the file the workflow writes now, else one written under the
    comma spelling it used before (the committed reference run's tables)."""
    new = Path(folder) / f"{run_file_id(run_id)}{suffix}"
    old = Path(folder) / f"{run_id}{suffix}"
    return new if new.exists() or not old.exists() else old


def make_run_id(name: str, params: dict[str, Any] | None = None) -> str:
    """The canonical run id: parameters sorted, so one variant has one file name."""
    if not params:
        return name
    return name + "@" + ",".join(f"{k}={params[k]}" for k in sorted(params))


def resolve(run_id: str, **overrides) -> tuple[SolverSpec, dict[str, Any]]:
    """The solver and its full parameters for a run id; ``overrides`` add parameters the id leaves
    open. One that contradicts a value the id names is refused: the run id is what a table
    calls the run, so it must be what ran."""
    name, params = parse_run_id(run_id)
    spec = get_solver(name)
    full = spec.params(**{**params, **overrides})
    named = spec.params(**params) if overrides.keys() & params.keys() else full
    clash = sorted(key for key in overrides.keys() & params.keys() if full[key] != named[key])
    if clash:
        said = ", ".join(f"{key}={named[key]}" for key in clash)
        given = ", ".join(f"{key}={full[key]}" for key in clash)
        raise InputError(f"run id {run_id} names {said} but --param gives {given}: change the "
                         f"run id instead")
    return spec, full


def check_sums(graph) -> None:
    """Refuse a graph whose distances could wrap int64 (a graph built outside from_arcs, or
    with its weights changed since), before any solver or the reference adds them up."""
    from ..graph.csr import sums_problem

    if type(graph).__name__ == "DenseGraph":  # int32 weights below 2^31 on at most 2^16 vertices
        return
    problem = sums_problem(graph.num_vertices, graph.weights)
    if problem:
        raise InputError(f"{graph.name or 'graph'}: {problem}")


def check_source(graph: CSRGraph, source: int) -> None:
    if not 0 <= source < graph.num_vertices:
        raise InputError(f"source {source} is out of range 0..{graph.num_vertices - 1}")



def space_words(arrays: dict) -> tuple[int, int]:
    """(words per vertex, words per arc) of a solver's declared device arrays ({name: "V",
    "2V", "A", "1"}): space as a paper counts it, one word an entry whatever the dtype."""
    per = {"V": 0, "A": 0}
    for name, size in arrays.items():
        size = str(size)
        if size == "1":
            continue
        count, unit = size[:-1] or "1", size[-1]
        if unit not in per or not count.isdigit():
            raise ValueError(f"array {name}: size {size!r} is not <n>V, <n>A or 1")
        per[unit] += int(count)
    return per["V"], per["A"]
