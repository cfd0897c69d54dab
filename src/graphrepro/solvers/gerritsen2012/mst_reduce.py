"""Dead-end removal and path contraction of a block's minimum spanning forest on the CPU
(gerritsen2012 chapter 2, observations 3 and 4; the variants of sections 3.3.2 and 3.3.3).

Registered as the REDUCE step ``"cpu"``: ``fn(n, u, v, w, keep, deletion=, storage=) -> Reduced``.

- Dead ends (observation 3): a vertex that is not ``keep`` (not on the block boundary) and has
  degree 1 is removed with its edge, repeatedly; the edge is *definite*: certainly in the MST.
- Contraction (observation 4): a path whose interior vertices are all non-keep with degree 2
  becomes one edge between its end vertices, weighted by the path's maximum. ``rep`` of that edge
  is the path's maximum-weight edge (ties: the largest (min(u, v), max(u, v)), i.e. the last in
  the thesis's packed-key order, the one Kruskal would drop first); the path's other edges are
  definite, since at most the maximum one can leave the MST of any bigger block.

The thesis's variants, in Python terms (numba-compiled in every variant, so the comparison is
between data structures, not between the interpreter and compiled code):

- ``deletion="real"``: a removed edge is erased from its endpoints' adjacency lists (later entries
  move one place, as ``std::vector::erase``); ``deletion="mark"`` (3.3.2, "not really deleting
  edges"): the edge is only flagged, adjacency lists keep it (readers skip it), and a contracted
  path's new edge is appended, so a list holds at most twice its vertex's degree (the thesis's
  8 * 2 = 16 edge slots per vertex).
- ``storage="growing"``: every block builds one numba typed list per vertex, grown by appending:
  the honest analogue of the thesis's ``std::vector`` per vertex and of its self-doubling arrays;
  ``storage="prealloc"`` (3.3.3): one workspace of vertex slots and edge arrays allocated once for
  all blocks (grown only when a bigger block comes), reset after each block.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import types
from numba.typed import List

from . import REDUCE, register_step
from .types import Reduced

DELETIONS = ("real", "mark")
STORAGES = ("growing", "prealloc")


# --- adjacency: one typed list per vertex (growing) or a row of preallocated slots ---------------

@numba.njit(inline="always")
def _len(growing, lists, slots, cnt, x):
    return len(lists[x]) if growing else cnt[x]


@numba.njit(inline="always")
def _get(growing, lists, slots, cnt, x, k):
    return lists[x][k] if growing else slots[x, k]


@numba.njit(inline="always")
def _append(growing, lists, slots, cnt, x, e):
    if growing:
        lists[x].append(e)
    else:
        slots[x, cnt[x]] = e
        cnt[x] += 1


@numba.njit(inline="always")
def _erase(growing, lists, slots, cnt, x, k):
    """Remove entry k of x's list, moving the later ones down; returns the entries moved."""
    if growing:
        lists[x].pop(k)
        return len(lists[x]) - k
    for j in range(k, cnt[x] - 1):
        slots[x, j] = slots[x, j + 1]
    cnt[x] -= 1
    return cnt[x] - k


@numba.njit(inline="always")
def _position(growing, lists, slots, cnt, x, e):
    for k in range(_len(growing, lists, slots, cnt, x)):
        if _get(growing, lists, slots, cnt, x, k) == e:
            return k
    return -1


_INT64 = types.int64
_INT64_LIST = types.ListType(types.int64)


@numba.njit(cache=True)
def _new_lists(n):
    lists = List.empty_list(_INT64_LIST)
    for _ in range(n):
        lists.append(List.empty_list(_INT64))
    return lists


# --- the two passes ------------------------------------------------------------------------------

@numba.njit(cache=True)
def _dead_ends(n, u, v, keep, growing, real, lists, slots, cnt, eu, ev, erep, alive, deg,
               definite, stack, counters):
    """Build the adjacency (the thesis's initialisation: count each vertex's edges), then peel
    dead ends. Returns the number of definite edges written."""
    m = len(u)
    for i in range(m):
        eu[i] = u[i]
        ev[i] = v[i]
        erep[i] = i
        alive[i] = True
        _append(growing, lists, slots, cnt, u[i], i)
        _append(growing, lists, slots, cnt, v[i], i)
        deg[u[i]] += 1
        deg[v[i]] += 1
    top = 0
    for x in range(n):
        if not keep[x] and deg[x] == 1:
            stack[top] = x
            top += 1
    nd = 0
    while top > 0:
        top -= 1
        x = stack[top]
        if deg[x] != 1:
            continue
        k = 0
        e = -1
        while k < _len(growing, lists, slots, cnt, x):
            f = _get(growing, lists, slots, cnt, x, k)
            if alive[f]:
                e = f
                break
            counters[2] += 1  # a marked edge stepped over
            k += 1
        y = ev[e] if eu[e] == x else eu[e]
        alive[e] = False
        definite[nd] = erep[e]
        nd += 1
        deg[x] -= 1
        deg[y] -= 1
        if real:
            counters[3] += _erase(growing, lists, slots, cnt, x, k)
            counters[3] += _erase(growing, lists, slots, cnt, y,
                                  _position(growing, lists, slots, cnt, y, e))
        if not keep[y] and deg[y] == 1:
            stack[top] = y
            top += 1
    counters[0] = nd
    return nd


@numba.njit(cache=True)
def _contract(n, w, keep, growing, real, lists, slots, cnt, eu, ev, ew, erep, alive, deg,
              definite, nd, path, inner, counters):
    """Replace every maximal path through non-keep degree-2 vertices by one edge. Returns the
    number of edges in the store and of definite edges."""
    m = len(w)
    for i in range(m):
        ew[i] = w[i]
    ne = m
    for t in range(n):
        if deg[t] == 0 or (not keep[t] and deg[t] == 2):
            continue  # only terminals start a walk
        end = _len(growing, lists, slots, cnt, t)  # entries appended below are not walked
        k = 0
        while k < end:
            e = _get(growing, lists, slots, cnt, t, k)
            if not alive[e]:
                counters[2] += 1
                k += 1
                continue
            y = ev[e] if eu[e] == t else eu[e]
            if keep[y] or deg[y] != 2:
                k += 1  # an edge between two terminals: a path of length 1, kept as it is
                continue
            path[0] = e
            length = 1
            prev = e
            cur = y
            interior = 0
            while not keep[cur] and deg[cur] == 2:
                inner[interior] = cur
                interior += 1
                f = -1
                for j in range(_len(growing, lists, slots, cnt, cur)):
                    g = _get(growing, lists, slots, cnt, cur, j)
                    if alive[g] and g != prev:
                        f = g
                        break
                    if not alive[g]:
                        counters[2] += 1
                path[length] = f
                length += 1
                prev = f
                cur = ev[f] if eu[f] == cur else eu[f]
            s = cur
            best = path[0]
            for j in range(1, length):
                f = path[j]
                fa, fb = min(eu[f], ev[f]), max(eu[f], ev[f])
                ba, bb = min(eu[best], ev[best]), max(eu[best], ev[best])
                if ew[f] > ew[best] or (ew[f] == ew[best] and (fa > ba or (fa == ba and fb > bb))):
                    best = f
            for j in range(length):
                f = path[j]
                alive[f] = False
                if f != best:
                    definite[nd] = erep[f]
                    nd += 1
            for j in range(interior):  # the interior vertices leave the graph
                deg[inner[j]] = 0
            eu[ne] = min(t, s)
            ev[ne] = max(t, s)
            ew[ne] = ew[best]
            erep[ne] = erep[best]
            alive[ne] = True
            if real:
                counters[3] += _erase(growing, lists, slots, cnt, t, k)
                counters[3] += _erase(growing, lists, slots, cnt, s,
                                      _position(growing, lists, slots, cnt, s, path[length - 1]))
                end -= 1  # entry k now holds the next unwalked one
            else:
                k += 1
            _append(growing, lists, slots, cnt, t, ne)
            _append(growing, lists, slots, cnt, s, ne)
            ne += 1
            counters[1] += 1
            counters[4] += length
    return ne, nd


@numba.njit(cache=True)
def _array_ends(growing, lists, slots, cnt, alive, n):
    """Each vertex's adjacency array at the end: its entries, and how many are marked removed."""
    end = np.zeros(n, dtype=np.int64)
    marked = np.zeros(n, dtype=np.int64)
    for x in range(n):
        for k in range(_len(growing, lists, slots, cnt, x)):
            end[x] += 1
            if not alive[_get(growing, lists, slots, cnt, x, k)]:
                marked[x] += 1
    return end, marked


def array_bounds(start: np.ndarray, end: np.ndarray, marked: np.ndarray) -> dict:
    """Section 3.3.2: "an array that has n edges initially will have at most n * 2 edges at the
    end, of which at most n are marked as removed". Per vertex with edges at the start, the
    largest end / start and marked / start over the block, and the totals."""
    has = start > 0
    worst = (lambda x: float((x[has] / start[has]).max())) if has.any() else (lambda x: 0.0)
    return {"array_end_over_start": worst(end), "array_marked_over_start": worst(marked),
            "array_entries_start": int(start.sum()), "array_entries_end": int(end.sum()),
            "array_marked_end": int(marked.sum())}


# --- the step ------------------------------------------------------------------------------------

class _Workspace:
    """storage="prealloc": one allocation for every block, grown only for a bigger block."""

    def __init__(self):
        self.n = self.m = self.slots_per_vertex = -1

    def arrays(self, n, m, slots_per_vertex):
        if n > self.n or m > self.m or slots_per_vertex > self.slots_per_vertex:
            self.n, self.m = max(n, self.n), max(m, self.m)
            self.slots_per_vertex = max(slots_per_vertex, self.slots_per_vertex)
            self.slots = np.empty((self.n, self.slots_per_vertex), dtype=np.int64)
            self.cnt = np.zeros(self.n, dtype=np.int64)
            self.deg = np.zeros(self.n, dtype=np.int64)
            self.stack = np.empty(self.n, dtype=np.int64)
            self.path = np.empty(self.n + 1, dtype=np.int64)
            cap = 2 * self.m
            self.eu = np.empty(cap, dtype=np.int64)
            self.ev = np.empty(cap, dtype=np.int64)
            self.ew = np.empty(cap, dtype=np.int64)
            self.erep = np.empty(cap, dtype=np.int64)
            self.alive = np.zeros(cap, dtype=np.bool_)
            self.definite = np.empty(max(self.m, 1), dtype=np.int64)
        return self

    def reset(self, n):
        self.cnt[:n] = 0  # "mark all vertices and edges as empty" (3.3.3): no freeing
        self.deg[:n] = 0


_WORKSPACE = _Workspace()
_NO_LISTS = None


def _empty_lists():
    global _NO_LISTS
    if _NO_LISTS is None:
        _NO_LISTS = _new_lists(0)
    return _NO_LISTS


@register_step(REDUCE, "cpu")
def reduce_cpu(n, u, v, w, keep, *, deletion: str = "mark", storage: str = "prealloc") -> Reduced:
    """Dead ends removed, then maximal paths contracted, of the forest (u, v, w) on n vertices.
    ``array_ends`` of the result counts each adjacency array at the end (array_bounds) when a
    counting pass calls it: the timed call only keeps the arrays."""
    if deletion not in DELETIONS:
        raise ValueError(f"deletion must be one of {DELETIONS}, not {deletion!r}")
    if storage not in STORAGES:
        raise ValueError(f"storage must be one of {STORAGES}, not {storage!r}")
    u = np.ascontiguousarray(u, dtype=np.int64)
    v = np.ascontiguousarray(v, dtype=np.int64)
    w = np.ascontiguousarray(w, dtype=np.int64)
    keep = np.ascontiguousarray(keep, dtype=np.bool_)
    m = len(u)
    if not (len(v) == len(w) == m) or len(keep) != n:
        raise ValueError("u, v, w must have one length and keep one entry per vertex")
    growing, real = storage == "growing", deletion == "real"
    counters = np.zeros(5, dtype=np.int64)
    t0 = time.perf_counter()
    if growing:
        lists = _new_lists(n)
        slots = np.empty((0, 0), dtype=np.int64)
        cnt = np.zeros(0, dtype=np.int64)
        deg = np.zeros(n, dtype=np.int64)
        stack = np.empty(n, dtype=np.int64)
        path = np.empty(n + 1, dtype=np.int64)
        cap = 2 * m
        eu, ev, ew, erep = (np.empty(cap, dtype=np.int64) for _ in range(4))
        alive = np.zeros(cap, dtype=np.bool_)
        definite = np.empty(max(m, 1), dtype=np.int64)
    else:
        degree = np.bincount(u, minlength=n) + np.bincount(v, minlength=n) if m else np.zeros(n)
        ws = _WORKSPACE.arrays(n, m, 2 * max(int(degree.max()) if n else 0, 1))
        ws.reset(n)
        lists, slots, cnt, deg = _empty_lists(), ws.slots, ws.cnt, ws.deg
        stack, path, definite = ws.stack, ws.path, ws.definite
        eu, ev, ew, erep, alive = ws.eu, ws.ev, ws.ew, ws.erep, ws.alive
    nd = _dead_ends(n, u, v, keep, growing, real, lists, slots, cnt, eu, ev, erep, alive, deg,
                    definite, stack, counters)
    t1 = time.perf_counter()
    ne, nd = _contract(n, w, keep, growing, real, lists, slots, cnt, eu, ev, ew, erep, alive, deg,
                       definite, nd, path, stack, counters)
    kept = np.flatnonzero(alive[:ne])
    out = Reduced(eu[kept].copy(), ev[kept].copy(), ew[kept].copy(), erep[kept].copy(),
                  np.sort(definite[:nd]), {}, {})
    t2 = time.perf_counter()
    out.timings = {"dead_ends": (t1 - t0) * 1e3, "contraction": (t2 - t1) * 1e3}
    out.counters = {"dead_end_edges": int(counters[0]), "contracted_paths": int(counters[1]),
                    "contracted_path_edges": int(counters[4]), "kept_edges": len(kept),
                    "marked_entries_skipped": int(counters[2]),
                    "entries_moved_by_erase": int(counters[3])}

    def array_ends():
        start = np.bincount(u, minlength=n) + np.bincount(v, minlength=n)
        return array_bounds(start, *_array_ends(growing, lists, slots, cnt, alive, n))

    out.array_ends = array_ends
    return out
