"""A real topology with declared weights: the PACE 2016 arcs of a DIMACS road graph whose own
weights are not at hand, weighted by a named, seeded model (graph/weight_model.py).

The PACE files (ben-strasser/road-graphs-pace16) keep the DIMACS vertex ids and list each road
once, without its parallel copies, so the graph has the real vertex count and 2 x edges arcs,
a little fewer than the DIMACS file's arc count (its parallel arcs); the origin says both.
"""

from __future__ import annotations

from pathlib import Path

from ..graph.csr import CSRGraph
from .registry import Dataset


def topology_graph(path: Path, topo: Dataset, *, name: str) -> tuple[CSRGraph, dict]:
    """(graph, origin fields) for the PACE file at ``path`` with ``topo.weights``' model."""
    from ..graph import weight_model
    from ..graph.formats import read_graph

    graph = read_graph(path, "pace", name=name)
    model, seed = topo.weights["model"], int(topo.weights["seed"])
    graph = weight_model.apply(graph, model, seed)
    graph.name = name
    return graph, {"topology": "PACE 2016 (no weights; DIMACS vertex ids)",
                   "weights": {"model": model, "seed": seed},
                   "weights_say": weight_model.get_model(model)["description"],
                   "topology_url": topo.url, "vertices_here": graph.num_vertices,
                   "arcs_here": graph.num_arcs}
