"""gerritsen2012: Gerritsen's thesis, GPU algorithms for I/O-efficient MST and SSSP on terrain grids.

Two registries let the I/O-efficient frameworks (CPU, block I/O counted) call per-block steps by
name, whichever module implements them:

- ``PER_BLOCK_MST``: name -> function computing one block's MST (chapter 3: BGL, tournament tree,
  the GPU Boruvka of Algorithms 1-5 with the packed key), see /docs in each module.
- ``PHASE1``: name -> function computing the boundary-to-boundary distances of I/O-blocks
  (chapter 5: Dijkstra per boundary vertex on the CPU, GPU algorithm 1 and 2).
- ``REDUCE``: name -> dead-end removal + path contraction of a block's forest (observations 3, 4;
  section 3.3.4 on the GPU).
"""

from __future__ import annotations

import importlib
from typing import Callable

PER_BLOCK_MST: dict[str, Callable] = {}
PHASE1: dict[str, Callable] = {}
REDUCE: dict[str, Callable] = {}

_MODULES: tuple[str, ...] = (
    "mst_gpu",
    "mst_gpu_reduce",
    "mst_reduce",
    "mst_blocks",
    "mst_io",
    "sssp_io_phase1",
    "sssp_gpu_alg1",
    "sssp_gpu_alg2",
    "grid_sssp_gpu",
)


def register_step(table: dict, name: str):
    def wrap(fn):
        if name in table:
            raise ValueError(f"step {name!r} registered twice")
        table[name] = fn
        return fn
    return wrap


def load_steps() -> None:
    for module in _MODULES:
        importlib.import_module(f"{__name__}.{module}")


def step(table: dict, name: str) -> Callable:
    load_steps()
    if name not in table:
        raise KeyError(f"unknown step {name!r}; known: {', '.join(sorted(table))}")
    return table[name]
