"""Which kernels this process has warmed already: a GPU worker (cli/worker.py) runs many jobs,
and under ``GRAPHREPRO_WARMUP=once`` each solver setting is warmed up (compiled, its first solve
discarded) in the first job that runs it on a graph, not again in every job after it: a graph
sharded into many jobs paid its warm-up once a shard.

Off by default, and only inside a worker: a job started as its own process always warms up, and
a job that skips its warm-up says so in its record (``warmup_reused``).
"""

from __future__ import annotations

import os

_WARMED: set = set()


def reuse_warmup(solver: str, params_json: str, graph) -> bool:
    """Whether this job may skip its warm-up: the worker warmed this solver setting on this
    graph in an earlier job (and is asked to warm each once). Marks it warmed either way."""
    key = (solver, params_json, getattr(graph, "name", ""), graph.num_vertices, graph.num_arcs)
    once = (os.environ.get("GRAPHREPRO_WARMUP") == "once"
            and os.environ.get("GRAPHREPRO_IN_WORKER") == "1")
    seen = key in _WARMED
    _WARMED.add(key)
    return once and seen
