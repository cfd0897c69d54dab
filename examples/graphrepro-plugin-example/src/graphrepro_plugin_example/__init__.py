"""An example graphrepro plugin: one CPU solver, its document, one claim, one target.

graphrepro imports this module through the ``graphrepro.solvers`` entry point (pyproject.toml),
after its own solvers; everything below registers through graphrepro's public registries, the
same ones the study's own solvers, documents and targets use. Every answer the solver gives is
checked against graphrepro's Dijkstra by the harness (``graphrepro solve``, every workflow run).
"""

from __future__ import annotations

from importlib import resources

import numba
import numpy as np
import pandas as pd

from graphrepro.claims import Exact, Untestable
from graphrepro.claims.runs import data_of, missing, tables
from graphrepro.documents import Document, register_document
from graphrepro.experiments.measured import per_source, summarise_times, time_bars
from graphrepro.experiments.registry import Target, target
from graphrepro.solvers import INF, register
from graphrepro.solvers.base import HostSolver

DOCUMENT = register_document(
    Document("example", "E. F. Moore, The shortest path through a maze, 1959 (as an example "
             "graphrepro plugin)", "a FIFO-queue Bellman-Ford (SPFA) beside Dijkstra"),
    claims=resources.files(__package__) / "claims.csv")
SOLVER = "example_spfa"


@numba.njit(cache=True, nogil=True)
def spfa_csr(indptr, indices, weights, source):
    """Distances, vertices taken from the queue and arcs relaxed. A vertex is queued when its
    distance drops and it is not queued already; with non-negative weights this ends."""
    n = len(indptr) - 1
    dist = np.full(n, INF, dtype=np.int64)
    queued = np.zeros(n, dtype=np.bool_)
    ring = np.empty(n, dtype=np.int64)  # at most n vertices are queued at once
    head, size = 0, 1
    dist[source] = 0
    ring[0] = source
    queued[source] = True
    popped = relaxed = 0
    while size:
        u = ring[head]
        head = (head + 1) % n
        size -= 1
        queued[u] = False
        popped += 1
        for e in range(indptr[u], indptr[u + 1]):
            relaxed += 1
            v = indices[e]
            nd = dist[u] + weights[e]
            if nd < dist[v]:
                dist[v] = nd
                if not queued[v]:
                    queued[v] = True
                    ring[(head + size) % n] = v
                    size += 1
    return dist, popped, relaxed


@register(SOLVER, device="cpu", document=DOCUMENT.short,
          description="FIFO-queue Bellman-Ford (SPFA, Moore 1959), numba; an example plugin")
def spfa(graph):
    def run(source):
        dist, popped, relaxed = spfa_csr(graph.indptr, graph.indices, graph.weights, source)
        return dist, {"vertices_popped": int(popped), "arcs_relaxed": int(relaxed)}

    return HostSolver(run)


COLUMNS = ["graph", "solver", "median (ms)", "sources", "arcs relaxed / arc", "/ dijkstra"]


def compare(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    times = summarise_times(runs)
    rows = []
    for (graph, variant), t in times.groupby(["graph", "variant"], sort=False):
        arcs = (stats.get(graph) or {}).get("arcs")
        mine = runs[(runs["graph"] == graph) & (runs["variant"] == variant)]
        relaxed = mine["arcs_relaxed"].median() if "arcs_relaxed" in mine else None
        dijkstra = times[(times["graph"] == graph) & (times["variant"] == "dijkstra")]
        rows.append({"graph": graph, "solver": variant, "median (ms)": float(t["median_ms"].iloc[0]),
                     "sources": int(t["sources"].iloc[0]),
                     "arcs relaxed / arc": relaxed / arcs if arcs and pd.notna(relaxed) else None,
                     "/ dijkstra": (float(t["median_ms"].iloc[0]) / float(dijkstra["median_ms"].iloc[0])
                                    if len(dijkstra) else None)})
    return pd.DataFrame(rows, columns=COLUMNS)


def figure(runs: pd.DataFrame, ax) -> None:
    src = per_source(runs)
    time_bars(src, pd.unique(runs["graph"]), "variant", list(pd.unique(src["variant"])),
              "example plugin: SPFA beside Dijkstra", ax)


def evidence(claims: pd.DataFrame, runs: pd.DataFrame, stats: dict) -> dict:
    graphs = list(pd.unique(runs["graph"])) if len(runs) else []
    gone = next((m for g in graphs if (m := missing(runs, g, SOLVER))), None)
    if not graphs or gone:
        found = {cid: gone or Untestable(reason="no graph in this config") for cid in claims["claim_id"]}
        return found
    per_arc = [float(r) / stats[g]["arcs"] for g in graphs
               for r in per_source(runs[(runs["graph"] == g) & (runs["variant"] == SOLVER)])["arcs_relaxed"]]
    return {"example.relaxations": Exact(values=per_arc, what="sources", n=f"{len(per_arc)} sources",
                                          data=data_of(stats, graphs), reads=tables(graphs, [SOLVER]),
                                          detail=f"{np.median(per_arc):.2f} relaxations per arc")}


target(Target(SOLVER, DOCUMENT.short, "SPFA beside Dijkstra",
              "a FIFO-queue Bellman-Ford (from the example plugin) beside graphrepro's Dijkstra, "
              "with its arc relaxations per arc", solvers=(SOLVER, "dijkstra"), compare=compare,
              figure=figure, evidence=evidence))
