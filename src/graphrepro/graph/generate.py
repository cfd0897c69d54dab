"""Deterministic synthetic graphs, for the embedded default config and for tests.

``road_grid`` imitates what makes road networks hard for GPU SSSP (safari2017 Table 1): low, even
out-degree (mean near 2.4, maximum 4), symmetric arcs and a hop diameter that grows with the square
root of the vertex count, so relaxation needs thousands of iterations on large instances. Each
street of a rows x cols lattice exists with probability ``keep``; below the percolation threshold
(0.5) the graph falls apart, above it a few small islands remain, which exercises "unreachable".
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .csr import CSRGraph


class BadGeneratorArgument(InputError, ValueError):
    """A generator's argument out of its range: one line from the command line, and still the
    ValueError a Python caller may catch."""


def road_grid(rows: int, cols: int, *, keep: float = 0.6, max_weight: int = 1000, seed: int = 0,
              name: str = "") -> CSRGraph:
    if rows < 1 or cols < 1:
        raise BadGeneratorArgument("rows and cols must be positive")
    if not 0.0 < keep <= 1.0:
        raise BadGeneratorArgument("keep must be in (0, 1]")
    if max_weight < 1:
        raise BadGeneratorArgument("a road grid's weights are 1..max_weight: max_weight must be "
                                   "at least 1")
    rng = np.random.default_rng(seed)
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    horizontal = np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()], axis=1)
    vertical = np.stack([ids[:-1, :].ravel(), ids[1:, :].ravel()], axis=1)
    streets = np.concatenate([horizontal, vertical])
    streets = streets[rng.random(len(streets)) < keep]
    weights = rng.integers(1, max_weight, size=len(streets), endpoint=True)
    src = np.concatenate([streets[:, 0], streets[:, 1]])
    dst = np.concatenate([streets[:, 1], streets[:, 0]])
    return CSRGraph.from_arcs(rows * cols, src, dst, np.concatenate([weights, weights]), base=1,
                              name=name or f"road_grid_{rows}x{cols}")


def random_digraph(num_vertices: int, num_arcs: int, *, max_weight: int = 100, seed: int = 0,
                   name: str = "") -> CSRGraph:
    """Uniform random arcs (self-loops and parallel arcs allowed, as in real edge lists)."""
    if num_vertices < 1 or num_arcs < 0 or max_weight < 0:
        raise BadGeneratorArgument("a random graph needs at least 1 vertex, at least 0 arcs and "
                                   "a max_weight of at least 0")
    rng = np.random.default_rng(seed)
    src = rng.integers(0, num_vertices, size=num_arcs)
    dst = rng.integers(0, num_vertices, size=num_arcs)
    weights = rng.integers(0, max_weight, size=num_arcs, endpoint=True)
    return CSRGraph.from_arcs(num_vertices, src, dst, weights, base=1,
                              name=name or f"random_{num_vertices}_{num_arcs}")


# --- paper-size stand-ins ----------------------------------------------------------------------
#
# The GPU machine has no network, so it must build stand-ins for the documents' graphs itself, at
# their exact vertex and arc counts (Western: 6.26M vertices, 15.2M arcs). Everything below is
# numba, parallel where it matters, and random only through a counter-based hash of (seed, item,
# draw): the result is the same bit for bit whatever the thread count, which a seeded
# np.random stream shared by prange threads would not give.

import numba  # noqa: E402

from .._jit import sized  # noqa: E402

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


@numba.njit(inline="always")
def _mix(x):
    """splitmix64's finaliser: a bijection of uint64 with good avalanche."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(inline="always")
def _hash3(seed, a, b):
    return _mix(_mix(_mix(np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(a))
                ^ (np.uint64(b) * np.uint64(0xD6E8FEB86659FD93)))


@numba.njit(inline="always")
def _uniform(seed, a, b):
    """A float in [0, 1) from (seed, a, b): 53 random bits."""
    return (_hash3(seed, a, b) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True)
def _symmetric_csr(n, eu, ev, ew, extra_src, extra_dst, extra_w):
    """CSR of the undirected edges (eu, ev, ew) as both arcs, plus directed extra arcs.

    A counting sort, so it is linear and needs no argsort of tens of millions of keys.
    """
    m = 2 * len(eu) + len(extra_src)
    deg = np.zeros(n + 1, dtype=np.int64)
    for i in range(len(eu)):
        deg[eu[i] + 1] += 1
        deg[ev[i] + 1] += 1
    for i in range(len(extra_src)):
        deg[extra_src[i] + 1] += 1
    for v in range(n):
        deg[v + 1] += deg[v]
    fill = deg[:-1].copy()
    indices = np.empty(m, dtype=np.int32)
    weights = np.empty(m, dtype=np.int32)
    for i in range(len(eu)):
        u, v = eu[i], ev[i]
        indices[fill[u]] = v
        weights[fill[u]] = ew[i]
        fill[u] += 1
        indices[fill[v]] = u
        weights[fill[v]] = ew[i]
        fill[v] += 1
    for i in range(len(extra_src)):
        u = extra_src[i]
        indices[fill[u]] = extra_dst[i]
        weights[fill[u]] = extra_w[i]
        fill[u] += 1
    return deg, indices, weights


def _to_graph(n, indptr, indices, weights, name, base=1) -> CSRGraph:
    from .csr import index_dtype

    return CSRGraph(indptr.astype(index_dtype(len(indices)), copy=False), indices, weights,
                    base=base, name=name)


def _smallest(keys: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k smallest keys, in index order (so the edge list stays spatially sorted)."""
    if k >= len(keys):
        return np.arange(len(keys))
    if k <= 0:
        return np.arange(0)
    return np.sort(np.argpartition(keys, k - 1)[:k])


# Road-like: a lattice with orthogonal streets, a few diagonal ones and rare big intersections.

@sized
def _road_candidates(n, cols, seed, hub_rate):
    """Candidate streets of a row-major lattice of n vertices: per vertex right, down,
    down-right, down-left (-1 where absent). Keys: uniform, 0 at hub intersections."""
    cand = np.full((n, 4), -1, dtype=np.int64)
    keys = np.full((n, 4), 2.0, dtype=np.float64)
    for v in numba.prange(n):
        c = v % cols
        hub_v = _uniform(seed, v, 99) < hub_rate
        for k in range(4):
            if k == 0:
                w = v + 1 if c + 1 < cols else -1
            elif k == 1:
                w = v + cols
            elif k == 2:
                w = v + cols + 1 if c + 1 < cols else -1
            else:
                w = v + cols - 1 if c > 0 else -1
            if w < 0 or w >= n:
                continue
            cand[v, k] = w
            hub = hub_v or _uniform(seed, w, 99) < hub_rate
            keys[v, k] = 0.0 if hub else _uniform(seed, v, k)
    return cand, keys


@sized
def _road_weights(eu, ev, cols, seed, kind, median, sigma):
    """kind 0: unit weights; 1: lognormal around ``median`` times the street's length."""
    out = np.ones(len(eu), dtype=np.int32)
    if kind == 0:
        return out
    for i in numba.prange(len(eu)):
        diagonal = (ev[i] - eu[i]) != 1 and (ev[i] - eu[i]) != cols
        u1 = max(_uniform(seed, i, 7), 1e-300)
        u2 = _uniform(seed, i, 8)
        z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
        w = median * np.exp(sigma * z) * (1.4142135623730951 if diagonal else 1.0)
        out[i] = max(1, min(2_000_000_000, int(w + 0.5)))
    return out


def road_like(num_vertices: int, num_arcs: int, *, seed: int = 0, weights: str = "distance",
              median_weight: float = 600.0, sigma: float = 0.9, diagonal_share: float = 0.06,
              hub_rate: float = 0.0005, name: str = "") -> CSRGraph:
    """A road-network stand-in with exactly ``num_vertices`` vertices and ``num_arcs`` arcs.

    Vertices sit row-major on a near-square lattice, so the hop diameter grows like sqrt(V) as in
    real road networks (safari2017's Table 1 graphs). Streets are chosen, exactly num_arcs // 2 of
    them, from the lattice's orthogonal links plus a small share of diagonals; streets at rare
    "hub" intersections are always kept, which gives the occasional vertex of degree 5-8. Every
    street is two arcs of equal weight (an odd arc count gets one extra one-way arc). Weights:
    'distance' (lognormal around ``median_weight`` times the street's length, like DIMACS
    distance graphs) or 'unit' (SNAP road graphs carry no weights).
    """
    n, a = int(num_vertices), int(num_arcs)
    if n < 2 or a < 0:
        raise ValueError("a road-like graph needs at least 2 vertices and a non-negative arc count")
    if weights not in ("distance", "unit"):
        raise ValueError("weights must be 'distance' or 'unit'")
    cols = max(1, int(np.ceil(np.sqrt(n))))
    cand, keys = _road_candidates(n, n, cols, seed, hub_rate)
    edges = a // 2
    orth_ok, diag_ok = cand[:, :2] >= 0, cand[:, 2:] >= 0
    n_diag = min(int(round(edges * diagonal_share)), int(diag_ok.sum()))
    n_orth = edges - n_diag
    if n_orth > int(orth_ok.sum()):
        raise ValueError(f"{a} arcs is too many for a road-like graph of {n} vertices "
                         f"(at most {2 * (int(orth_ok.sum()) + int(diag_ok.sum()))})")
    chosen = []
    for part, count in ((slice(0, 2), n_orth), (slice(2, 4), n_diag)):
        sub_cand, sub_keys = cand[:, part].ravel(), keys[:, part].ravel()
        pick = _smallest(np.where(sub_cand >= 0, sub_keys, np.inf), count)
        src = pick // 2
        chosen.append((src + 0, sub_cand[pick]))
    eu = np.concatenate([c[0] for c in chosen])
    ev = np.concatenate([c[1] for c in chosen])
    w = _road_weights(len(eu), eu, ev, cols, seed, 0 if weights == "unit" else 1, median_weight,
                      sigma)
    extra = np.arange(0, dtype=np.int64)
    ex_src, ex_dst, ex_w = extra, extra, np.arange(0, dtype=np.int32)
    if a % 2:  # one one-way street, so odd arc counts are met exactly too
        ex_src, ex_dst = np.array([0], dtype=np.int64), np.array([1], dtype=np.int64)
        ex_w = np.array([int(w[0]) if len(w) else 1], dtype=np.int32)
    indptr, indices, wts = _symmetric_csr(n, eu, ev, w, ex_src, ex_dst, ex_w)
    return _to_graph(n, indptr, indices, wts, name or f"road_like_{n}_{a}")


# R-MAT (Chakrabarti et al. 2004; the Graph500 Kronecker generator's parameters by default).

@sized
def _rmat_arcs(n, m, scale, a, b, c, seed, allow_loops):
    src = np.empty(m, dtype=np.int64)
    dst = np.empty(m, dtype=np.int64)
    ab, abc = a + b, a + b + c
    for i in numba.prange(m):
        attempt = 0
        while True:  # redraw (deterministically, by attempt number) until both ends are < n
            u = 0
            v = 0
            for level in range(scale):
                r = _uniform(seed, i, attempt * 64 + level)
                bit_u = 1 if r >= ab else 0
                bit_v = 1 if (a <= r < ab) or r >= abc else 0
                u = (u << 1) | bit_u
                v = (v << 1) | bit_v
            attempt += 1
            if u < n and v < n and (allow_loops or u != v):
                break
        src[i] = u
        dst[i] = v
    return src, dst


def rmat(num_vertices: int, num_arcs: int, *, a: float = 0.57, b: float = 0.19, c: float = 0.19,
         seed: int = 0, allow_self_loops: bool = False, name: str = "") -> CSRGraph:
    """A directed R-MAT graph with exactly ``num_vertices`` vertices and ``num_arcs`` arcs, unit
    weights, vertex ids shuffled (R-MAT puts the hubs at the low ids; real id orders do not).

    Parallel arcs are kept (an R-MAT multigraph), as the generator defines them; the stand-ins
    for web-Google and amazon0312 (SNAP, unweighted) use it.
    """
    n, m = int(num_vertices), int(num_arcs)
    if n < 2 or m < 0 or not (0 < a and 0 <= b and 0 <= c and a + b + c < 1):
        raise ValueError("R-MAT needs n >= 2, arcs >= 0 and probabilities a, b, c with a+b+c < 1")
    scale = max(1, int(np.ceil(np.log2(n))))
    src, dst = _rmat_arcs(m * scale, n, m, scale, a, b, c, seed, allow_self_loops)
    perm = np.argsort(_perm_keys(n, n, seed), kind="stable")
    return CSRGraph.from_arcs(n, perm[src], perm[dst], np.ones(m, dtype=np.int32), base=0,
                              name=name or f"rmat_{n}_{m}")


@sized
def _perm_keys(n, seed):
    out = np.empty(n, dtype=np.uint64)
    for v in numba.prange(n):
        out[v] = _hash3(seed, v, 12345)
    return out


# A 3-D mesh-like graph: stand-in for a finite-element stiffness matrix such as INPRO/msdoor.

def _offsets(radius: int) -> np.ndarray:
    r = range(-radius, radius + 1)
    return np.array([(dx, dy, dz) for dx in r for dy in r for dz in r if (dx, dy, dz) > (0, 0, 0)],
                    dtype=np.int64)


@sized
def _mesh_candidates(n, nx, ny, nz, offsets, seed):
    k = len(offsets)
    cand = np.full(n * k, -1, dtype=np.int64)
    keys = np.full(n * k, np.inf, dtype=np.float64)
    for v in numba.prange(n):
        x = v % nx
        y = (v // nx) % ny
        z = v // (nx * ny)
        for j in range(k):
            x2, y2, z2 = x + offsets[j, 0], y + offsets[j, 1], z + offsets[j, 2]
            if 0 <= x2 < nx and 0 <= y2 < ny and 0 <= z2 < nz:
                w = x2 + nx * (y2 + ny * z2)
                if w < n:
                    d2 = offsets[j, 0] ** 2 + offsets[j, 1] ** 2 + offsets[j, 2] ** 2
                    cand[v * k + j] = w
                    keys[v * k + j] = _uniform(seed, v, j) * (1.0 + d2)  # near links first
    return cand, keys


def mesh3d(num_vertices: int, num_arcs: int, *, aspect=(4, 2, 1), self_loops: bool = True,
           max_weight: int = 1000, seed: int = 0, name: str = "") -> CSRGraph:
    """A symmetric 3-D mesh-like graph with exactly ``num_vertices`` / ``num_arcs``.

    Vertices fill a box of the given aspect (a door: wide, tall, thin); each links to a chosen
    subset of its neighbours within two steps in each axis (up to 124; three where a small box
    needs more), nearer ones first, which
    is what a stiffness matrix of a 3-D finite-element model with several degrees of freedom per
    node looks like: average degree near 90, low diameter for its size. With ``self_loops`` every
    vertex also has a loop (the matrix's diagonal), counted in ``num_arcs``. Weights are seeded
    random integers 1..max_weight.
    """
    n, a = int(num_vertices), int(num_arcs)
    loops = n if self_loops else 0
    if n < 2 or a < loops:
        raise ValueError("mesh3d needs n >= 2 and at least one arc per self-loop")
    unit = (n / float(np.prod(aspect))) ** (1 / 3)
    nx, ny = (max(1, int(np.ceil(s * unit))) for s in aspect[:2])
    nz = max(1, int(np.ceil(n / (nx * ny))))
    edges = (a - loops) // 2
    for radius in (2, 3):
        offsets = _offsets(radius)
        cand, keys = _mesh_candidates(n * len(offsets), n, nx, ny, nz, offsets, seed)
        if edges <= int((cand >= 0).sum()):
            break
    else:
        raise ValueError(f"{a} arcs is too many for a mesh of {n} vertices")
    pick = _smallest(keys, edges)
    eu, ev = pick // len(offsets), cand[pick]
    rng = np.random.default_rng(seed)
    w = rng.integers(1, max_weight, size=len(eu), endpoint=True).astype(np.int32)
    ex = np.arange(n, dtype=np.int64) if self_loops else np.arange(0, dtype=np.int64)
    ex_w = rng.integers(1, max_weight, size=len(ex), endpoint=True).astype(np.int32)
    if (a - loops) % 2:
        ex = np.append(ex, 0)
        ex_w = np.append(ex_w, np.int32(1))
        ex_dst = ex.copy()
        ex_dst[-1] = 1
    else:
        ex_dst = ex
    indptr, indices, wts = _symmetric_csr(n, eu, ev, w, ex, ex_dst, ex_w)
    return _to_graph(n, indptr, indices, wts, name or f"mesh3d_{n}_{a}")


def reweight(graph: CSRGraph, low: int, high: int, seed: int) -> CSRGraph:
    """The same arcs with seeded random integer weights in low..high, inclusive (safari2017 Fig. 4
    replaces the road graphs' weights by random integers 1..10).

    Both arcs of a symmetric street get independent weights, as a per-arc replacement does.
    """
    if low < 0 or high < low:
        raise InputError(f"reweight needs 0 <= low <= high, not low {low}, high {high}")
    from .csr import INT64_MAX

    arcs = min(max(graph.num_vertices - 1, 0), graph.num_arcs)  # on a path, at most this many
    if graph.num_arcs and arcs * high + high >= INT64_MAX:  # every arc might draw `high`
        raise InputError(f"reweight: weights up to {high:,} on {graph.num_vertices:,} vertices "
                         f"could make a path weigh more than int64 sums hold; lower `high`")
    rng = np.random.default_rng(seed)
    dtype = np.int32 if high <= np.iinfo(np.int32).max else np.int64
    weights = rng.integers(low, high, size=graph.num_arcs, endpoint=True).astype(dtype)
    return CSRGraph(graph.indptr, graph.indices, weights, labels=graph.labels, base=graph.base,
                    name=graph.name)
