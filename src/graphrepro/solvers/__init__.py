"""Solvers, one subpackage per document (short names as in ``../shared/seeds/INDEX.md``).

- ``reference``: the CPU Dijkstra every answer is checked against.
- ``safari2017``: Harish et al.'s two-kernel SSSP (Alg. 3-5); locality-based relaxation (Alg. 6-9)
  and its no-round-trip persistent variant.
- ``an2017``: the Bellman-Ford family: dense edge-parallel, edge list, incoming, outgoing.
- ``singla``: edge-based (thread per edge) Dijkstra and BFS (Figs. 3-6).
- ``senthilkumar``: workfront sweep, near-far pile and their hybrid (persistent kernels).
- ``frontier``: the study's own GPU SSSP (document ``graphrepro``), beside the documents.

Adding a solver: write a factory ``(graph, **params) -> PreparedSolver`` in the document's
subpackage, decorate it with ``@register(...)``, and list the module in ``base._MODULES``; or,
from a package of its own, through the ``graphrepro.solvers`` entry points (``plugins``).
"""

from __future__ import annotations

from .base import (INF, SolverSpec, SolveResult, all_solvers, check_source, get_solver, make_run_id,
                   load_all, load_plugins, parse_run_id, register, resolve, run_file, run_file_id,
                   solve)

__all__ = ["INF", "SolverSpec", "SolveResult", "all_solvers", "check_source", "get_solver",
           "make_run_id", "parse_run_id", "register", "resolve", "run_file", "run_file_id", "solve",
           "load_all", "load_plugins"]
