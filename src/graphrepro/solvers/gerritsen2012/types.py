"""The values passed between gerritsen2012's I/O-efficient frameworks and their per-block steps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class BlockMST:
    """One block's minimum spanning forest; ids block-local row-major, u < v."""
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray  # max(val(u), val(v))
    timings: dict = field(default_factory=dict)  # ms: "mst", "copy_back", "dead_ends", "contraction", "other"
    counters: dict = field(default_factory=dict)


@dataclass
class Reduced:
    """A forest after dead-end removal and path contraction (observations 3 and 4).

    ``rep`` and ``definite`` index the INPUT edge arrays and partition them: each kept edge stands
    for one original edge (itself, or a contracted path's maximum-weight edge), and every other
    original edge is certainly in the final MST."""
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    rep: np.ndarray
    definite: np.ndarray
    timings: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    # a marking step's adjacency arrays as the step left them, counted only when called (a
    # counting pass after the timed call, before the step runs again and reuses its workspace)
    array_ends: Callable[[], dict] | None = None


@dataclass
class Phase1Result:
    """Boundary-to-boundary distances of a batch of I/O-blocks, inside each block only."""
    dist: np.ndarray  # int64 (blocks, k, k), k = len(boundary_cells(m))
    timings: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)


def boundary_cells(m: int) -> np.ndarray:
    """Block-local row-major ids of the perimeter cells of an m x m block, increasing."""
    if m < 2:
        raise ValueError("an I/O-block needs side >= 2")
    ids = np.arange(m * m, dtype=np.int64).reshape(m, m)
    mask = np.zeros((m, m), dtype=bool)
    mask[0, :] = mask[-1, :] = mask[:, 0] = mask[:, -1] = True
    return ids[mask]
