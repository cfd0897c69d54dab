"""CPU baselines the documents compare against: Bellman-Ford, BFS, scipy's Dijkstra, delta-stepping.

All run on the CPU (document "reference") and read the same CSR arrays as every other solver.
Our own code is numba, sequential except ``delta_stepping_par``; each solve returns the counters
the literature argues with (passes, arcs relaxed, buckets, phases). Distances are int64 with INF
for unreachable vertices.

- ``bellman_ford``: passes over all arcs until a pass changes nothing.
- ``bfs``: hop counts, *not* weighted distances (see :func:`bfs`).
- ``scipy_dijkstra``: ``scipy.sparse.csgraph.dijkstra`` behind the solver interface.
- ``delta_stepping``: Meyer & Sanders' buckets of width ``delta``, light/heavy arcs.
- ``delta_stepping_par``: the multicore baseline, GAP-style delta-stepping over numba threads.
"""

from __future__ import annotations

import time

import numba
from numba.core import cgutils, types
from numba.extending import intrinsic
import numpy as np

from ..errors import InputError
from .base import INF, HostSolver, SolveResult, register

# --- Bellman-Ford --------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def bellman_ford_csr(indptr, indices, weights, source):
    """Distances, passes made (the last one changed nothing) and arcs relaxed.

    Updates are in place (Gauss-Seidel order), so after k passes every shortest path of at most
    k arcs is final; shortest paths need at most V-1 arcs, so passes <= V.
    """
    n = len(indptr) - 1
    dist = np.full(n, INF, dtype=np.int64)
    dist[source] = 0
    passes = 0
    relaxed = 0
    changed = True
    while changed:
        changed = False
        passes += 1
        for u in range(n):
            du = dist[u]
            if du == INF:
                continue
            for e in range(indptr[u], indptr[u + 1]):
                relaxed += 1
                v = indices[e]
                nd = du + weights[e]
                if nd < dist[v]:
                    dist[v] = nd
                    changed = True
    return dist, passes, relaxed


@register("bellman_ford", device="cpu", document="reference",
          description="sequential Bellman-Ford over the CSR arcs, stops after a pass with no "
                      "change (numba)")
def bellman_ford(graph):
    def run(source):
        dist, passes, relaxed = bellman_ford_csr(graph.indptr, graph.indices, graph.weights, source)
        return dist, {"iterations": int(passes), "arcs_relaxed": int(relaxed)}

    return HostSolver(run)


# --- BFS -----------------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def bfs_csr(indptr, indices, source):
    """Hop counts (int64, INF unreachable), the number of levels and arcs scanned."""
    n = len(indptr) - 1
    dist = np.full(n, INF, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    dist[source] = 0
    queue[0] = source
    head = 0
    tail = 1
    scanned = 0
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u] + 1
        for e in range(indptr[u], indptr[u + 1]):
            scanned += 1
            v = indices[e]
            if dist[v] == INF:
                dist[v] = du
                queue[tail] = v
                tail += 1
    levels = dist[queue[tail - 1]] + 1  # the queue is in order of hop count
    return dist, levels, scanned


@register("bfs", device="cpu", document="reference",
          description="sequential queue BFS (numba): hop counts, NOT weighted distances; checked "
                      "against Dijkstra on unit weights",
          metric="hops")
def bfs(graph):
    """Breadth-first search: the distance of a vertex is its number of hops from the source.

    Arc weights are ignored, so this is *not* a weighted SSSP solver. It answers the same question
    as Dijkstra only on unit weights: to keep the registry's contract that every solver is checked
    against the reference Dijkstra, BFS must be verified against Dijkstra on a copy of the graph
    with every weight set to 1, never against Dijkstra on the graph's own weights.
    """
    def run(source):
        dist, levels, scanned = bfs_csr(graph.indptr, graph.indices, source)
        return dist, {"levels": int(levels), "arcs_relaxed": int(scanned)}

    return HostSolver(run)


# --- scipy's Dijkstra ----------------------------------------------------------------------------

_FLOAT_EXACT = 2 ** 53  # float64 holds every integer below this exactly


def _min_parallel_arcs(graph):
    """CSR arrays with each (u, v) kept once, at its lightest weight.

    scipy sums duplicate entries of a sparse matrix, which would turn parallel arcs into one arc
    weighing their sum. Explicit zeros, on the other hand, scipy.sparse.csgraph keeps as
    zero-weight arcs for sparse input (it drops zeros only from dense input), so zero weights
    need no special care once the matrix is built directly from CSR arrays (no summing, no
    eliminate_zeros).
    """
    n = graph.num_vertices
    src = graph.arc_sources().astype(np.int64)
    dst = graph.indices.astype(np.int64)
    w = graph.weights.astype(np.int64)
    order = np.lexsort((w, dst, src))  # by source, then target, lightest first
    src, dst, w = src[order], dst[order], w[order]
    first = np.ones(len(src), dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    src, dst, w = src[first], dst[first], w[first]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst, w


class _ScipyDijkstra:
    upload_ms = 0.0
    device_bytes = 0

    def __init__(self, graph):
        from scipy.sparse import csr_matrix

        n = graph.num_vertices
        if graph.num_arcs and int(graph.weights.astype(np.int64).sum()) >= _FLOAT_EXACT:
            # scipy computes in float64: past 2**53 a path length may be rounded.
            raise InputError(f"scipy_dijkstra computes in float64 and the weights of "
                             f"{graph.name or 'the graph'} sum past 2**53, where distances may "
                             f"be rounded; use dijkstra")
        indptr, indices, weights = _min_parallel_arcs(graph)
        index_type = np.int32 if max(n, len(indices)) < np.iinfo(np.int32).max else np.int64
        self.matrix = csr_matrix((weights.astype(np.float64), indices.astype(index_type),
                                  indptr.astype(index_type)), shape=(n, n))
        self.matrix.has_sorted_indices = True  # _min_parallel_arcs sorted them
        self.graph = graph

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        from scipy.sparse.csgraph import dijkstra as csgraph_dijkstra

        t0 = time.perf_counter()
        raw = csgraph_dijkstra(self.matrix, directed=True, indices=source)
        ms = (time.perf_counter() - t0) * 1e3
        dist = np.full(len(raw), INF, dtype=np.int64)
        finite = np.isfinite(raw)
        dist[finite] = raw[finite].astype(np.int64)
        # scipy exposes no counters; parallel arcs merged into one are a property of the input.
        return SolveResult(dist, ms, counters={"arcs": int(self.matrix.nnz)})


@register("scipy_dijkstra", device="cpu", document="reference",
          description="scipy.sparse.csgraph.dijkstra (float64; parallel arcs reduced to the "
                      "lightest, zero weights kept)")
def scipy_dijkstra(graph):
    return _ScipyDijkstra(graph)


# --- delta-stepping ------------------------------------------------------------------------------

_MAX_BUCKET_SLOTS = 1 << 22  # cyclic bucket array: max_weight // delta + 2 slots


@numba.njit(cache=True, nogil=True)
def _push(slot, vertex, key, head, ent_vertex, ent_key, ent_next, used, free):
    """Put an entry at the front of bucket slot ``slot``: a recycled one from the free list, else
    the next unused one of the pool, which doubles when full. Returns the arrays, used, free."""
    if free != -1:
        e = free
        free = ent_next[e]
        ent_vertex[e] = vertex
        ent_key[e] = key
        ent_next[e] = head[slot]
        head[slot] = e
        return ent_vertex, ent_key, ent_next, used, free
    if used == len(ent_vertex):
        cap = 2 * len(ent_vertex)
        nv = np.empty(cap, dtype=np.int64)
        nk = np.empty(cap, dtype=np.int64)
        nn = np.empty(cap, dtype=np.int64)
        nv[:used] = ent_vertex[:used]
        nk[:used] = ent_key[:used]
        nn[:used] = ent_next[:used]
        ent_vertex, ent_key, ent_next = nv, nk, nn
    ent_vertex[used] = vertex
    ent_key[used] = key
    ent_next[used] = head[slot]
    head[slot] = used
    return ent_vertex, ent_key, ent_next, used + 1, free


@numba.njit(cache=True, nogil=True)
def _relax(u, d, light, indptr, indices, weights, delta, num_slots, dist, head, ent_vertex,
           ent_key, ent_next, used, free):
    """Relax u's light (w <= delta) or heavy arcs from distance d; bucket what improves."""
    relaxed = 0
    pushed = 0
    for a in range(indptr[u], indptr[u + 1]):
        w = weights[a]
        if (w <= delta) != light:
            continue
        relaxed += 1
        v = indices[a]
        nd = d + w
        if nd < dist[v]:
            dist[v] = nd
            ent_vertex, ent_key, ent_next, used, free = _push(
                (nd // delta) % num_slots, v, nd, head, ent_vertex, ent_key, ent_next, used, free)
            pushed += 1
    return relaxed, pushed, ent_vertex, ent_key, ent_next, used, free


@numba.njit(cache=True, nogil=True)
def delta_stepping_csr(indptr, indices, weights, source, delta, num_slots):
    """Meyer & Sanders' delta-stepping, sequential, with lazy deletion.

    Bucket i holds tentative distances in [i*delta, (i+1)*delta). Live entries always lie in
    buckets i..i + max_weight//delta + 1 of the current bucket i, so ``num_slots`` =
    max_weight//delta + 2 cyclic slots never alias. An entry (v, d) with d > dist[v] is stale
    and skipped. Returns distances, buckets emptied, phases (light-arc rounds), arcs relaxed and
    re-processed vertices (a vertex settled twice in one bucket: delta-stepping's extra work).
    """
    n = len(indptr) - 1
    dist = np.full(n, INF, dtype=np.int64)
    head = np.full(num_slots, -1, dtype=np.int64)
    cap = max(16, n)
    ent_vertex = np.empty(cap, dtype=np.int64)
    ent_key = np.empty(cap, dtype=np.int64)
    ent_next = np.empty(cap, dtype=np.int64)
    used = 0  # entries of the pool handed out so far
    free = -1  # consumed entries, linked through ent_next, reused before the pool grows
    live = 0  # entries in buckets, stale ones included
    settled_in = np.full(n, -1, dtype=np.int64)  # the bucket a vertex was last taken out of
    r_set = np.empty(n, dtype=np.int64)  # vertices taken out of the current bucket
    buckets = 0
    phases = 0
    relaxed = 0
    reprocessed = 0

    dist[source] = 0
    ent_vertex, ent_key, ent_next, used, free = _push(0, source, 0, head, ent_vertex, ent_key,
                                                      ent_next, used, free)
    live = 1
    i = 0
    while live > 0:
        slot = i % num_slots
        if head[slot] == -1:
            i += 1
            continue
        buckets += 1
        r_size = 0
        while head[slot] != -1:  # one phase: take the whole bucket, relax its light arcs
            phases += 1
            e = head[slot]
            head[slot] = -1
            while e != -1:
                u = ent_vertex[e]
                d = ent_key[e]
                nxt = ent_next[e]
                ent_next[e] = free  # consumed: recycle it
                free = e
                e = nxt
                live -= 1
                if d > dist[u]:
                    continue  # stale: u was improved since
                if settled_in[u] == i:
                    reprocessed += 1
                else:
                    settled_in[u] = i
                    r_set[r_size] = u
                    r_size += 1
                n_relaxed, n_pushed, ent_vertex, ent_key, ent_next, used, free = _relax(
                    u, d, True, indptr, indices, weights, delta, num_slots, dist, head,
                    ent_vertex, ent_key, ent_next, used, free)
                relaxed += n_relaxed
                live += n_pushed
        for k in range(r_size):  # heavy arcs, once per vertex, from its final distance
            u = r_set[k]
            n_relaxed, n_pushed, ent_vertex, ent_key, ent_next, used, free = _relax(
                u, dist[u], False, indptr, indices, weights, delta, num_slots, dist, head,
                ent_vertex, ent_key, ent_next, used, free)
            relaxed += n_relaxed
            live += n_pushed
        if live == 0:
            break
        i += 1
    return dist, buckets, phases, relaxed, reprocessed


def default_delta(graph) -> int:
    """max(1, mean arc weight), raised where needed so the cyclic bucket array stays bounded."""
    if graph.num_arcs == 0:
        return 1
    delta = max(1, int(round(float(graph.weights.mean()))))
    max_w = int(graph.weights.max())
    return max(delta, -(-max_w // (_MAX_BUCKET_SLOTS - 2)))


def _checked_delta(graph, delta) -> tuple[int, int]:
    """(delta, number of cyclic bucket slots), or a clear error for a delta that cannot work."""
    delta = int(delta) if delta else default_delta(graph)
    if delta < 1:
        raise InputError(f"delta must be a positive weight (or 0 for the default), not {delta}")
    max_w = int(graph.weights.max()) if graph.num_arcs else 0
    num_slots = max_w // delta + 2
    if num_slots > _MAX_BUCKET_SLOTS:
        raise InputError(f"delta={delta} is too small for the largest weight {max_w}: "
                         f"{num_slots} buckets; use delta >= "
                         f"{-(-max_w // (_MAX_BUCKET_SLOTS - 2))} or delta=0 for the default")
    return delta, num_slots


@register("delta_stepping", device="cpu", document="reference",
          description="sequential delta-stepping (Meyer & Sanders), cyclic buckets, light/heavy "
                      "arcs (numba); delta=0: max(1, mean weight)",
          defaults={"delta": 0})
def delta_stepping(graph, delta=0):
    delta, num_slots = _checked_delta(graph, delta)

    def run(source):
        dist, buckets, phases, relaxed, reprocessed = delta_stepping_csr(
            graph.indptr, graph.indices, graph.weights, source, delta, num_slots)
        return dist, {"delta": delta, "buckets": int(buckets), "phases": int(phases),
                      "arcs_relaxed": int(relaxed), "reprocessed": int(reprocessed)}

    return HostSolver(run)


# --- parallel delta-stepping -------------------------------------------------------------------

@intrinsic
def _atomic_min(typingctx, array, index, value):
    """``old = array[index]; array[index] = min(old, value); return old`` as one atomic step.

    numba has no CPU atomics; this is LLVM's ``atomicrmw min`` (a lock cmpxchg loop on x86), the
    compare-and-swap every parallel delta-stepping (GAP, Galois) relaxes with.
    """
    if not (isinstance(array, types.Array) and array.dtype == types.int64
            and isinstance(index, types.Integer) and isinstance(value, types.Integer)):
        return None
    sig = types.int64(array, index, value)

    def codegen(context, builder, signature, args):
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        idx = context.cast(builder, args[1], signature.args[1], types.intp)
        val = context.cast(builder, args[2], signature.args[2], types.int64)
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], arr, [idx],
                                       wraparound=False)
        return builder.atomic_rmw("min", ptr, val, "monotonic")

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def _degree_prefix(i, nf, total, fr_cum, seg_start, seg_degbase):
    """Arcs out of frontier entries 0..i-1: segments are what each thread gathered, each with
    its own running sum (``fr_cum``, inclusive) and a global base (``seg_degbase``)."""
    if i >= nf:
        return total
    s = np.searchsorted(seg_start, i, side="right") - 1
    if i == seg_start[s]:
        return seg_degbase[s]
    return seg_degbase[s] + fr_cum[i - 1]


@numba.njit(cache=True, nogil=True)
def _relax_part(t, indptr, indices, weights, delta, floor, fr_v, bounds, dist, bins, count,
                relaxed_by, pushed_by):
    """Part t of the frontier, relaxed into thread t's own buckets bins[t]."""
    S = bins.shape[1]
    relaxed = 0
    pushed = 0
    for i in range(bounds[t], bounds[t + 1]):
        u = fr_v[i]
        du = dist[u]
        if du < floor:
            continue  # settled in an earlier bucket since it was queued here
        for a in range(indptr[u], indptr[u + 1]):
            v = indices[a]
            nd = du + weights[a]
            relaxed += 1
            if nd < dist[v] and nd < _atomic_min(dist, v, nd):
                s = (nd // delta) % S
                bins[t, s, count[t, s]] = v
                count[t, s] += 1
                pushed += 1
    relaxed_by[t] += relaxed
    pushed_by[t] += pushed


@numba.njit(cache=True, parallel=True)
def _relax_parts(indptr, indices, weights, delta, floor, fr_v, bounds, dist, bins, count,
                 relaxed_by, pushed_by):
    for t in numba.prange(len(bounds) - 1):
        _relax_part(t, indptr, indices, weights, delta, floor, fr_v, bounds, dist, bins, count,
                    relaxed_by, pushed_by)


@numba.njit(cache=True, nogil=True)
def _gather_part(t, indptr, bins, count, slot, seg_start, fr_v, fr_cum, seg_degbase):
    """Thread t's bucket ``slot`` copied into its segment of the next frontier, with the running
    arc count the next round splits by; seg_degbase[t + 1] gets the segment's total."""
    run = 0
    base = seg_start[t]
    for j in range(count[t, slot]):
        v = bins[t, slot, j]
        fr_v[base + j] = v
        run += indptr[v + 1] - indptr[v]
        fr_cum[base + j] = run
    count[t, slot] = 0
    seg_degbase[t + 1] = run


@numba.njit(cache=True, parallel=True)
def _gather_parts(indptr, bins, count, slot, seg_start, fr_v, fr_cum, seg_degbase):
    for t in numba.prange(len(seg_start) - 1):
        _gather_part(t, indptr, bins, count, slot, seg_start, fr_v, fr_cum, seg_degbase)


@numba.njit(cache=True, nogil=True)
def parallel_delta_stepping_csr(indptr, indices, weights, source, delta, num_slots, chunks,
                                grain):
    """Delta-stepping in the style of the GAP benchmark suite's (Beamer et al.), in numba.

    Each round takes the current bucket as a shared frontier and splits it into ``chunks`` parts
    of equal arc counts, one per thread. A thread relaxes every arc of its part with an atomic
    min on the distance and appends each vertex it improved to its own local bucket (cyclic
    slots, ``num_slots`` = max_weight // delta + 2 of them, so no two live buckets share a
    slot); no locks, no shared queue. Then the lowest non-empty bucket over all threads becomes
    the next frontier, each thread copying its part in parallel. A frontier entry whose vertex
    has since dropped below the current bucket is stale and skipped; a vertex improved within
    the current bucket comes back in the next round of that bucket (label correcting). Light and
    heavy arcs are not split: GAP found relaxing all arcs at once faster on real graphs.

    A round whose frontier has fewer than ``grain`` arcs runs on the calling thread alone: a
    parallel region costs tens of microseconds to open (more on a loaded machine), more than
    a few hundred relaxations take, and road graphs have thousands of such thin rounds.

    Returns distances, buckets, rounds, parallel rounds, arcs relaxed and pushes.
    """
    n = len(indptr) - 1
    T = chunks
    S = num_slots
    dist = np.full(n, INF, dtype=np.int64)
    cap = 1024
    bins = np.empty((T, S, cap), dtype=indices.dtype)
    count = np.zeros((T, S), dtype=np.int64)
    fr_v = np.empty(1024, dtype=indices.dtype)
    fr_cum = np.empty(1024, dtype=np.int64)
    seg_start = np.zeros(T + 1, dtype=np.int64)
    seg_degbase = np.zeros(T + 1, dtype=np.int64)
    bounds = np.zeros(T + 1, dtype=np.int64)
    relaxed_by = np.zeros(T, dtype=np.int64)
    pushed_by = np.zeros(T, dtype=np.int64)
    dist[source] = 0
    fr_v[0] = source
    fr_cum[0] = indptr[source + 1] - indptr[source]
    nf = 1
    seg_start[1:] = 1
    seg_degbase[1:] = fr_cum[0]
    total = fr_cum[0]
    curr = 0
    buckets = 1
    rounds = 0
    parallel_rounds = 0
    while True:
        rounds += 1
        # split the frontier into T parts of (nearly) equal arc counts
        parallel = total >= grain
        bounds[0] = 0
        bounds[1:] = nf  # a small frontier: one part, relaxed here without a parallel region
        need = 0
        for k in range(1, T if parallel else 1):
            target = (total * k) // T
            lo = bounds[k - 1]
            hi = nf
            while lo < hi:
                mid = (lo + hi) // 2
                if _degree_prefix(mid, nf, total, fr_cum, seg_start, seg_degbase) < target:
                    lo = mid + 1
                else:
                    hi = mid
            bounds[k] = lo
        for k in range(T):  # a part pushes at most one entry per arc: make room beforehand
            arcs = (_degree_prefix(bounds[k + 1], nf, total, fr_cum, seg_start, seg_degbase)
                    - _degree_prefix(bounds[k], nf, total, fr_cum, seg_start, seg_degbase))
            need = max(need, count[k].max() + arcs)
        if need > cap:
            cap = max(2 * cap, need)
            grown = np.empty((T, S, cap), dtype=indices.dtype)
            for t in range(T):
                for s in range(S):
                    grown[t, s, :count[t, s]] = bins[t, s, :count[t, s]]
            bins = grown
        if parallel:
            parallel_rounds += 1
            _relax_parts(indptr, indices, weights, delta, curr * delta, fr_v, bounds, dist, bins,
                         count, relaxed_by, pushed_by)
        else:
            _relax_part(0, indptr, indices, weights, delta, curr * delta, fr_v, bounds, dist,
                        bins, count, relaxed_by, pushed_by)
        nxt = -1
        for d in range(S):  # live buckets are curr .. curr + S - 1
            slot = (curr + d) % S
            if count[:, slot].sum() > 0:
                nxt = curr + d
                break
        if nxt < 0:
            break
        if nxt != curr:
            buckets += 1
        curr = nxt
        slot = curr % S
        seg_start[0] = 0
        for t in range(T):
            seg_start[t + 1] = seg_start[t] + count[t, slot]
        nf = seg_start[T]
        if nf > len(fr_v):
            fr_v = np.empty(2 * nf, dtype=indices.dtype)
            fr_cum = np.empty(2 * nf, dtype=np.int64)
        if nf >= grain:
            _gather_parts(indptr, bins, count, slot, seg_start, fr_v, fr_cum, seg_degbase)
        else:
            for t in range(T):
                _gather_part(t, indptr, bins, count, slot, seg_start, fr_v, fr_cum, seg_degbase)
        seg_degbase[0] = 0
        for t in range(T):
            seg_degbase[t + 1] += seg_degbase[t]
        total = seg_degbase[T]
    return dist, buckets, rounds, parallel_rounds, relaxed_by.sum(), pushed_by.sum()


@register("delta_stepping_par", device="cpu", document="reference",
          description="parallel delta-stepping (GAP-style: shared frontier split by arcs, "
                      "per-thread buckets, atomic-min relaxation; numba prange); delta=0: "
                      "max(1, mean weight); threads=0: all numba threads; rounds under grain arcs "
                      "run on one thread",
          defaults={"delta": 0, "threads": 0, "grain": 16384}, parallel=True)
def delta_stepping_par(graph, delta=0, threads=0, grain=16384):
    delta, num_slots = _checked_delta(graph, delta)
    available = numba.config.NUMBA_NUM_THREADS
    if threads < 0 or threads > available:
        raise InputError(f"threads must be 0 (all) or 1..{available}, not {threads}")
    threads = threads or available

    def run(source):
        previous = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            dist, buckets, rounds, parallel_rounds, relaxed, pushed = parallel_delta_stepping_csr(
                graph.indptr, graph.indices, graph.weights, source, delta, num_slots, threads,
                max(grain, 1))
        finally:
            numba.set_num_threads(previous)
        return dist, {"delta": delta, "threads": threads, "buckets": int(buckets),
                      "phases": int(rounds), "parallel_phases": int(parallel_rounds),
                      "arcs_relaxed": int(relaxed),
                      "pushes": int(pushed)}

    return HostSolver(run)
