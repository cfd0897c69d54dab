"""How chapter 3's per-block MSTs are checked: each block against its reference.

A block's reference is two things: its minimum spanning tree weight (Kruskal on all the block's
edges, the independent reference) and the digest of the CPU kruskal step's tree under the
packed-key tie rule, itself checked against that weight. A version's tree must be a spanning tree
of the block's 8-neighbour grid of that weight. A GPU step must also give the kruskal step's tree
edge for edge (the shared tie rule).

The reference costs a 256^2 block about 0.1 s, several times most versions' timed work, and it
is the same for all ten versions. So `mst-block-refs` makes the references of the chosen blocks
once, in parallel, and every version's job checks its blocks against that file. This is the way
a graph's sources record carries its reference distances. Without the file a block's reference
is made where it is checked.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ... import mst
from ...errors import VerificationError
from ...graph.csr import exact_sum
from ...terrain.dem import grid_edges
from . import PER_BLOCK_MST, step


def tree_digest(u, v, n: int) -> str:
    """An undirected edge set of an ``n``-vertex graph as one digest (its sorted keys
    min * n + max): the same tree, the same digest, whichever way each edge is written."""
    u, v = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
    keys = np.unique(np.minimum(u, v) * n + np.maximum(u, v))
    return hashlib.blake2b(keys.tobytes(), digest_size=16).hexdigest()


def block_reference(values) -> tuple[int, str]:
    """(minimum weight, digest of the CPU kruskal step's tree) of one block's grid graph."""
    values = np.asarray(values, dtype=np.int64)
    u, v, w = grid_edges(values)
    edges = mst.from_arrays(values.size, u, v, w, name="the block")
    weight = mst.reference_weight(edges)
    tied = step(PER_BLOCK_MST, "kruskal")(values)
    mst.check(edges, mst.MSTResult(tied.u, tied.v, tied.w, 0.0), solver="the CPU kruskal step",
              expected_weight=weight)
    return weight, tree_digest(tied.u, tied.v, values.size)


def verify_block(values, bm, *, where: str, tie_check: bool, reference=None) -> None:
    """Raise VerificationError unless ``bm`` is a minimum spanning tree of the block ``values``
    (and, with ``tie_check``, the kruskal step's tree); ``reference`` is the block's
    (weight, digest), made here when not given."""
    values = np.asarray(values, dtype=np.int64)
    weight, digest = reference if reference is not None else block_reference(values)
    _check_grid_tree(values, bm, int(weight), where)
    if tie_check and tree_digest(bm.u, bm.v, values.size) != digest:
        raise VerificationError(f"WRONG ANSWER: {where}: the MST differs edge for edge from the "
                                f"CPU's under the packed-key tie rule")


def _check_grid_tree(values: np.ndarray, bm, weight: int, where: str) -> None:
    """A spanning tree of the block's grid graph: every edge joins 8-neighbours and weighs the
    larger of their values, n - 1 edges (a block is one connected grid), no cycle, and the
    minimum total. It asks what `mst.check` asks of any graph, from the grid itself: building
    the block's edge list for `mst.check` would cost most of what the references saved."""
    n, cols = values.size, values.shape[1]
    u, v, w = (np.asarray(x, dtype=np.int64) for x in (bm.u, bm.v, bm.w))
    if not (u.shape == v.shape == w.shape and u.ndim == 1):
        raise VerificationError(f"WRONG ANSWER: {where}: u, v, w differ in shape")
    if len(u) and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n):
        raise VerificationError(f"WRONG ANSWER: {where}: an edge endpoint is not a vertex")
    apart = (np.abs(u // cols - v // cols) > 1) | (np.abs(u % cols - v % cols) > 1) | (u == v)
    if apart.any():
        i = int(np.flatnonzero(apart)[0])
        raise VerificationError(f"WRONG ANSWER: {where}: edge ({u[i]}, {v[i]}) is not an edge of "
                                f"the block's grid")
    flat = values.ravel()
    grid_w = np.maximum(flat[u], flat[v])
    if (w != grid_w).any():
        i = int(np.flatnonzero(w != grid_w)[0])
        raise VerificationError(f"WRONG ANSWER: {where}: edge ({u[i]}, {v[i]}) has weight "
                                f"{w[i]}; the grid's is {grid_w[i]}")
    if len(u) != n - 1:
        raise VerificationError(f"WRONG ANSWER: {where}: {len(u)} edges; a spanning tree of {n} "
                                f"vertices has {n - 1}")
    cycle = mst.first_cycle_edge(n, np.minimum(u, v), np.maximum(u, v))
    if cycle >= 0:
        raise VerificationError(f"WRONG ANSWER: {where}: edge ({u[cycle]}, {v[cycle]}) closes a "
                                f"cycle")
    if (total := exact_sum(w)) != weight:
        raise VerificationError(f"WRONG ANSWER: {where}: total weight {total}, the minimum is "
                                f"{weight}")
