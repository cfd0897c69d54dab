"""The MST solver registry and its result type: a solver is a factory ``(edges, **params) ->
prepared`` whose ``prepared.solve()`` returns an :class:`MSTResult`."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..errors import InputError
from ..graph.csr import exact_sum
from ..graph.edgelist import EdgeList


@dataclass
class MSTResult:
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    solve_ms: float
    counters: dict[str, int] = field(default_factory=dict)

    @property
    def weight(self) -> int:
        return exact_sum(self.w)  # a Python int: a wrong answer's total is shown, not wrapped


@dataclass(frozen=True)
class MSTSolverSpec:
    name: str
    device: str
    document: str
    description: str
    factory: Callable[..., Any]
    defaults: dict[str, Any] = field(default_factory=dict)

    def prepare(self, edges: EdgeList, **params):
        unknown = set(params) - set(self.defaults)
        if unknown:
            raise InputError(f"MST solver {self.name} has no parameter {', '.join(sorted(unknown))}")
        return self.factory(edges, **{**self.defaults, **params})


_REGISTRY: dict[str, MSTSolverSpec] = {}


def register_mst(name: str, *, device: str = "cpu", document: str = "reference",
                 description: str, defaults: dict[str, Any] | None = None):
    def wrap(factory):
        if name in _REGISTRY:
            raise ValueError(f"MST solver {name} registered twice")
        _REGISTRY[name] = MSTSolverSpec(name, device, document, description, factory,
                                        dict(defaults or {}))
        return factory

    return wrap


def _load_all() -> None:
    # imported by name, as the SSSP registry does, so that the solver modules can import this one
    importlib.import_module("graphrepro.mst.algorithms")
    from ..solvers.gerritsen2012 import load_steps

    load_steps()  # gerritsen2012's grid solvers register themselves with their step modules


def get_mst_solver(name: str) -> MSTSolverSpec:
    _load_all()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown MST solver {name!r}; `python -m graphrepro solvers --problem mst` "
                         f"lists them: {', '.join(sorted(_REGISTRY))}") from None


def all_mst_solvers() -> list[MSTSolverSpec]:
    _load_all()
    return sorted(_REGISTRY.values(), key=lambda s: (s.name != "kruskal", s.document, s.name))


def minimum_spanning_forest(edges: EdgeList, solver: str = "kruskal", **params) -> MSTResult:
    return get_mst_solver(solver).prepare(edges, **params).solve()
