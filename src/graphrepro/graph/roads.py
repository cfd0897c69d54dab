"""Road-network stand-ins that are one strongly connected component, with exact counts, a real
degree histogram and a hop depth near the real graph's (issue 19's measurements: the earlier
percolated lattice had thousands of components and 2-4% isolated vertices; every real road
graph is one component with none).

Construction, all numba or vectorised numpy (NW's 1.2 million vertices take seconds):

1. Vertices sit row-major on a near-square lattice (``aspect`` = cols / rows), so the hop depth
   grows like sqrt(V), as on real road graphs.
2. Each vertex draws a target degree from ``degrees`` (the share of vertices of degree 1, 2,
   ...; measured from the real PACE topologies for NY, COL and NW, else interpolated between
   NY's and NW's by mean degree), from a counter-based hash of (seed, vertex).
3. A spanning tree: Kruskal over the lattice's orthogonal links in random order, links at
   vertices of target 1 last, so those end as leaves. This makes the graph connected; every
   street is two arcs, so it is strongly connected.
4. The remaining streets, diagonal links first (``diagonal_share`` of all streets: diagonals
   shorten hop paths, the knob that sets the depth), then orthogonal ones, each taken in random
   order if both ends are still below their target degree; if the targets run out before the
   street count is met, streets between vertices below degree 4, then any.

Weights: 'distance' draws each street's length from ``weight_model`` (by default NY's real
distance weights, graph/weight_model.py), 'unit' gives 1 (SNAP road graphs carry none).

Exactly ``num_arcs`` arcs: streets (two arcs each) and ``parallel_share`` of the arcs as
one-way parallel copies of seeded streets, as the DIMACS files have (with 0, an odd arc count
gets one such copy).
Fewer streets than V - 1 cannot connect V vertices: then the tree is cut short (a forest).
"""

from __future__ import annotations

import numba
import numpy as np

from .generate import _symmetric_csr, _to_graph, _uniform

# Degree histograms (share of vertices of degree 1..6) of the real PACE 2016 topologies,
# measured by graph.roadstats.degree_histogram on NY.gr.xz and NW.gr.xz (mean 2.76 and 2.34)
NY_DEGREES = (0.1557, 0.1527, 0.4711, 0.2156, 0.0043, 0.0006)
NW_DEGREES = (0.2340, 0.2899, 0.3847, 0.0901, 0.0013, 0.0001)


def _mean(h) -> float:
    h = np.asarray(h, dtype=np.float64)
    return float((h * np.arange(1, len(h) + 1)).sum() / h.sum())


def default_degrees(mean_degree: float) -> tuple:
    """The real histograms' mix with this mean degree (NY's and NW's, clipped to them)."""
    a, b = _mean(NY_DEGREES), _mean(NW_DEGREES)
    lam = min(1.0, max(0.0, (mean_degree - b) / (a - b)))
    return tuple(lam * x + (1 - lam) * y for x, y in zip(NY_DEGREES, NW_DEGREES))


@numba.njit(cache=True)
def _targets(n, seed, cdf):
    t = np.empty(n, dtype=np.int64)
    for v in range(n):
        u = _uniform(seed, v, 31)
        k = 0
        while k < len(cdf) - 1 and u >= cdf[k]:
            k += 1
        t[v] = k + 1
    return t


@numba.njit(cache=True)
def _find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@numba.njit(cache=True)
def _tree(n, eu, ev, order, limit, target):
    """Kruskal in the given order, first only between vertices below their target degree, then
    (to connect what is left) between any; returns the chosen candidate indices (at most
    ``limit``) and the degrees they give."""
    parent = np.arange(n)
    deg = np.zeros(n, dtype=np.int64)
    chosen = np.empty(min(n - 1, limit) if limit > 0 else 0, dtype=np.int64)
    k = 0
    for capped in (True, False):
        for i in order:
            if k >= len(chosen):
                break
            u, v = eu[i], ev[i]
            if capped and (deg[u] >= target[u] or deg[v] >= target[v]):
                continue
            a, b = _find(parent, u), _find(parent, v)
            if a != b:
                parent[a] = b
                chosen[k] = i
                deg[u] += 1
                deg[v] += 1
                k += 1
    return chosen[:k], deg


@numba.njit(cache=True)
def _fill(eu, ev, order, taken, deg, cap, want):
    """Take candidates in ``order`` while both ends are below ``cap`` (per vertex); returns how
    many were taken, at most ``want``."""
    k = 0
    for i in order:
        if k >= want:
            break
        if taken[i]:
            continue
        u, v = eu[i], ev[i]
        if deg[u] < cap[u] and deg[v] < cap[v]:
            taken[i] = True
            deg[u] += 1
            deg[v] += 1
            k += 1
    return k


def _offset_links(n, cols, offsets):
    """Links from each vertex to the one ``(dx, dy)`` away on the lattice (dy >= 0), per offset."""
    v = np.arange(n, dtype=np.int64)
    c = v % cols
    us, vs = [], []
    for dx, dy in offsets:
        w = v + dx + dy * cols
        ok = (c + dx >= 0) & (c + dx < cols) & (w < n) & (w > v)
        us.append(v[ok])
        vs.append(w[ok])
    return np.concatenate(us), np.concatenate(vs)


def _long_links(n, cols, reach):
    """Straight links that skip ``reach - 1`` lattice vertices, across and down: the longer road
    segments (arterials between distant junctions) that make real hop depths shorter than a
    plain lattice's."""
    return _offset_links(n, cols, ((reach, 0), (0, reach)))


def _candidates(n, cols):
    v = np.arange(n, dtype=np.int64)
    c = v % cols
    right = (c + 1 < cols) & (v + 1 < n)
    down = v + cols < n
    dr = (c + 1 < cols) & (v + cols + 1 < n)
    dl = (c > 0) & (v + cols - 1 < n)
    orth_u = np.concatenate([v[right], v[down]])
    orth_v = np.concatenate([v[right] + 1, v[down] + cols])
    diag_u = np.concatenate([v[dr], v[dl]])
    diag_v = np.concatenate([v[dr] + cols + 1, v[dl] + cols - 1])
    return orth_u, orth_v, diag_u, diag_v


@numba.njit(cache=True)
def _keys(seed, eu, ev, salt):
    out = np.empty(len(eu))
    for i in range(len(eu)):
        out[i] = _uniform(seed, eu[i] * 8 + salt, ev[i])
    return out


def _retarget(target, deg, share, seed):
    """Targets again after the tree, so the final histogram can still meet ``share``: a vertex the
    tree took past its target keeps its degree, and the others' targets are dealt out anew (in
    the order of their old targets, ties by hash) to make up the counts per degree."""
    n = len(target)
    want = np.round(share * n).astype(np.int64)
    over = deg > target
    out = target.copy()
    out[over] = deg[over]
    fixed = np.bincount(deg[over], minlength=len(share) + 1)[1:len(share) + 1]
    left = np.maximum(want - fixed, 0)
    rest = np.flatnonzero(~over)
    order = rest[np.lexsort((_keys(np.uint64(seed), rest, rest, 5), target[rest]))]
    new = np.repeat(np.arange(1, len(share) + 1), left)
    new = np.resize(new, len(order)) if len(new) < len(order) and len(new) else new[:len(order)]
    if len(new) < len(order):  # nothing to deal: keep the old targets
        new = np.concatenate([new, target[order[len(new):]]])
    out[order] = np.maximum(new, deg[order])
    return out


def road_network(num_vertices: int, num_arcs: int, *, seed: int = 0, weights: str = "distance",
                 degrees=None, diagonal_share: float = 0.06, aspect: float = 1.0,
                 long_share: float = 0.0, long_reach: int = 4, parallel_share: float = 0.0,
                 weight_model: str = "ny_distance_v1", name: str = ""):
    """The stand-in of the module docstring: exactly ``num_vertices`` / ``num_arcs``."""
    n, a = int(num_vertices), int(num_arcs)
    if n < 2 or a < 0:
        raise ValueError("a road network needs at least 2 vertices and a non-negative arc count")
    if weights not in ("distance", "unit"):
        raise ValueError("weights must be 'distance' or 'unit'")
    if not 0 <= diagonal_share < 1 or aspect <= 0:
        raise ValueError("diagonal_share must be in [0, 1) and aspect positive")
    # DIMACS files list some roads twice (NY 0.5% of arcs, COL 1.4%, NW 0.7% are such parallel
    # copies): streets are the simple graph, the copies are one-way arcs beside them
    copies = int(round(a * parallel_share))
    streets = (a - copies) // 2
    copies = a - 2 * streets
    cols = max(2, int(np.ceil(np.sqrt(n * aspect))))
    h = np.asarray(degrees if degrees is not None else default_degrees(2 * streets / n),
                   dtype=np.float64)
    if len(h) == 0 or np.any(h < 0) or h.sum() <= 0:
        raise ValueError("degrees must be non-negative shares of degree 1, 2, ...")
    cdf = np.cumsum(h / h.sum())
    target = _targets(n, np.uint64(seed), cdf)

    ou, ov, du, dv = _candidates(n, cols)
    n_diag = len(du)
    lu, lv = _long_links(n, cols, int(long_reach))
    n_long = len(lu)
    # links of reach 2 (straight and knight's moves): only to pair up vertices still short of
    # their degree whose lattice neighbours are all full (else those streets go past targets)
    xu, xv = _offset_links(n, cols, ((2, 0), (0, 2), (2, 1), (1, 2), (-1, 2), (-2, 1)))
    du, dv = np.concatenate([du, lu, xu]), np.concatenate([dv, lv, xv])
    # links at dead ends (target 1) last: they then hang off the grown tree as leaves
    okey = _keys(np.uint64(seed), ou, ov, 1) + (target[ou] == 1) + (target[ov] == 1)
    order = np.argsort(okey, kind="stable")
    tree, deg = _tree(n, ou, ov, order, streets, target)
    if streets > len(ou) + len(du):
        raise ValueError(f"{a} arcs is too many for a road network of {n} vertices")
    target = _retarget(target, deg, h / h.sum(), seed)
    eu = np.concatenate([ou, du])
    ev = np.concatenate([ov, dv])
    taken = np.zeros(len(eu), dtype=np.bool_)
    taken[tree] = True
    left = streets - len(tree)
    dkey = _keys(np.uint64(seed), du, dv, 2)
    dorder = len(ou) + np.argsort(dkey[:n_diag], kind="stable")
    lorder = len(ou) + n_diag + np.argsort(dkey[n_diag:n_diag + n_long], kind="stable")
    xorder = len(ou) + n_diag + n_long + np.argsort(dkey[n_diag + n_long:], kind="stable")
    four = np.full(n, 4, dtype=np.int64)
    many = np.full(n, 1 << 30, dtype=np.int64)
    diag_want = min(left, int(round(streets * diagonal_share)))
    left -= _fill(eu, ev, dorder, taken, deg, target, diag_want)
    if long_share > 0:
        left -= _fill(eu, ev, lorder, taken, deg, target, min(left, int(round(streets * long_share))))
    both = np.concatenate([order, dorder])  # orthogonal first, then diagonals
    every = np.concatenate([both, lorder, xorder])
    for cap, cands in ((target, both), (target, xorder), (four, both), (many, every)):
        if left <= 0:
            break
        left -= _fill(eu, ev, cands, taken, deg, cap, left)
    pick = np.flatnonzero(taken)
    su, sv = eu[pick], ev[pick]
    if weights == "unit":
        w = np.ones(len(su), dtype=np.int32)
    else:  # real NY street lengths' distribution (graph/weight_model.py), one weight per street
        from .weight_model import sample

        w = sample(su, sv, weight_model, seed)
    ex_src = ex_dst = np.zeros(0, dtype=np.int64)
    ex_w = np.zeros(0, dtype=np.int32)
    if copies:  # parallel copies of seeded streets (and, for an odd arc count, one of them)
        if len(su) == 0:
            su, sv, w = np.array([0]), np.array([1]), np.ones(1, dtype=np.int32)
        which = np.argsort(_keys(np.uint64(seed), su, sv, 3), kind="stable")
        which = np.resize(which, copies)
        ex_src, ex_dst, ex_w = su[which], sv[which], w[which]
        flip = _keys(np.uint64(seed), ex_src, ex_dst, 4) < 0.5
        ex_src, ex_dst = np.where(flip, ex_dst, ex_src), np.where(flip, ex_src, ex_dst)
    indptr, indices, wts = _symmetric_csr(n, su, sv, w, ex_src.astype(np.int64),
                                          ex_dst.astype(np.int64), ex_w)
    return _to_graph(n, indptr, indices, wts, name or f"road_network_{n}_{a}")
