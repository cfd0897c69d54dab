"""Dead-end removal and path contraction on the GPU (gerritsen2012 section 3.3.4).

Input: a forest (n vertices, edges u, v, w) and ``keep`` (the block's boundary vertices).
Output: a :class:`Reduced` with the semantics of the contract (``types.Reduced``): dead ends are
peeled (a non-keep vertex of degree 1 goes, its edge is definite, repeatedly); then every maximal
path whose interior vertices are non-keep of degree 2 becomes one edge between its ends, weighing
the path's maximum, standing for (``rep``) the path's heaviest edge, ties going to the largest
(min(u, v), max(u, v)); its other edges are definite.

No CSR is built. Each vertex holds its live degree and the XOR of (index + 1) of its live edges:
a vertex of degree 1 knows its last edge, and an interior path vertex reached along one edge knows
the other. Four launches, no host round trip until the result comes back:

1. zero the per-vertex words; 2. degrees and XORs, one atomic each per edge end (plus a device
copy of them as they stand: the snapshot that says where peeling starts);
3. peeling in ONE launch instead of the thesis's "repeat until no change" loop of launches: the
thread of each non-keep leaf removes its edge and, when that drops the neighbour's degree to 1
(its atomicSub returned 2) and the neighbour is not kept, goes on from there, so a dead-end branch
of any length is one thread's walk. An edge goes to whoever wins the atomicExch on its live flag,
so two walkers meeting on a keep-less tree's last edge remove it once. A walker applies its XOR
before its degree decrement (fenced), so a vertex's last edge is read correctly by whoever made
its degree 1; a stale read can only name an edge already taken, which the exchange refuses.
4. contraction, thread per live edge: from each end of the edge that is not interior, walk the
path through interior vertices (the thesis's "follow the path until we find another
non-contractable vertex"); the walk from the lower end writes the path's edge. Like the thesis,
a path is O(length) for one thread.

The result is compacted where it lies: with cupy on a real GPU, the kept edges' indices, ends and
weights and the counters are selected on the device (``cupy.flatnonzero`` and a gather over the
numba arrays, read through ``__cuda_array_interface__`` on the same stream), so only the kept
edges and one index per edge come back instead of six whole arrays. Without cupy, or under the
CUDA simulator (whose arrays live on the host, where cupy cannot read them), the six arrays are
copied back and numpy selects; the results and counters are the same either way
(``benchmarks/cupy_compaction.py`` times the two).
"""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from ... import gpu
from ...errors import InputError
from . import REDUCE, register_step
from .types import Reduced

THREADS = 256
_kernels: dict = {}


def _compile() -> dict:
    if _kernels:
        return _kernels

    @cuda.jit
    def zero_k(deg, xr):
        v = cuda.grid(1)
        if v < deg.shape[0]:
            deg[v] = 0
            xr[v] = 0

    @cuda.jit
    def degrees_k(eu, ev, deg, xr, alive, status):
        e = cuda.grid(1)
        if e < eu.shape[0]:
            cuda.atomic.add(deg, eu[e], 1)
            cuda.atomic.add(deg, ev[e], 1)
            cuda.atomic.xor(xr, eu[e], e + 1)
            cuda.atomic.xor(xr, ev[e], e + 1)
            alive[e] = 1
            status[e] = 0

    @cuda.jit
    def peel_k(eu, ev, keep, deg0, xr0, deg, xr, alive):
        v = cuda.grid(1)
        if v < deg0.shape[0] and keep[v] == 0 and deg0[v] == 1:
            cur = v
            e = xr0[v] - 1  # a leaf's one edge, as it was before anyone peeled
            while True:
                if cuda.atomic.exch(alive, e, 0) == 0:
                    break  # taken from the other side
                other = eu[e] + ev[e] - cur
                cuda.atomic.xor(xr, cur, e + 1)
                cuda.atomic.xor(xr, other, e + 1)
                cuda.threadfence()  # the XORs land before the decrements that publish them
                cuda.atomic.sub(deg, cur, 1)
                if cuda.atomic.sub(deg, other, 1) != 2 or keep[other] != 0:
                    break
                cuda.threadfence()
                last = cuda.atomic.add(xr, other, 0)  # read at L2, after every fenced XOR
                if last == 0:
                    break
                e = last - 1
                cur = other

    @cuda.jit(device=True)
    def interior(x, keep, deg):
        return keep[x] == 0 and deg[x] == 2

    @cuda.jit
    def contract_k(eu, ev, ew, keep, deg, xr, alive, status, ku, kv, kw, kn):
        e = cuda.grid(1)
        if e >= eu.shape[0] or alive[e] == 0:
            return
        x = eu[e]
        y = ev[e]
        for side in range(2):
            start = x if side == 0 else y
            cur = y if side == 0 else x
            if interior(start, keep, deg):
                continue
            best = e
            bw = ew[e]
            blo = min(x, y)
            bhi = max(x, y)
            prev = e
            length = 1
            while interior(cur, keep, deg):
                length += 1
                f = (xr[cur] ^ (prev + 1)) - 1
                fu = eu[f]
                fv = ev[f]
                lo = min(fu, fv)
                hi = max(fu, fv)
                fw = ew[f]
                if fw > bw or (fw == bw and (lo > blo or (lo == blo and hi > bhi))):
                    best = f
                    bw = fw
                    blo = lo
                    bhi = hi
                prev = f
                cur = fu + fv - cur
            if start < cur:  # the walk from the lower end writes; the other one only looked
                status[best] = 1
                ku[best] = start
                kv[best] = cur
                kw[best] = bw
                kn[best] = length

    _kernels.update(zero=zero_k, degrees=degrees_k, peel=peel_k, contract=contract_k)
    return _kernels


COMPACTIONS = ("auto", "host", "device")


def device_compaction():
    """cupy where it can compact on the device, else None (then numpy does it on the host)."""
    if gpu.simulated():
        return None  # the simulator's device arrays are host memory: nothing for cupy to read
    try:
        import cupy
    except ImportError:
        return None
    return cupy


@register_step(REDUCE, "gpu")
def reduce_gpu(n: int, u, v, w, keep, **params) -> Reduced:
    """Dead ends removed, then paths contracted, on the GPU (section 3.3.4)."""
    if params:
        raise InputError(f"the gpu reduce step takes no parameters, got {', '.join(params)}")
    return reduce_on_gpu(n, u, v, w, keep)


def reduce_on_gpu(n: int, u, v, w, keep, compaction: str = "auto") -> Reduced:
    """reduce_gpu, with the result's compaction chosen: "device" (cupy), "host" (numpy, after
    copying the six arrays back) or "auto" (the device where cupy can run)."""
    if compaction not in COMPACTIONS:
        raise InputError(f"compaction must be one of {', '.join(COMPACTIONS)}, not {compaction!r}")
    cupy = device_compaction() if compaction != "host" else None
    if compaction == "device" and cupy is None:
        raise InputError("device compaction needs cupy on a real GPU: "
                         + ("the CUDA simulator's arrays are host memory" if gpu.simulated()
                            else "cupy is not installed (pip install '.[gpu]')"))
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    w = np.asarray(w, dtype=np.int64)
    keep = np.asarray(keep, dtype=bool)
    m = len(u)
    if not (len(v) == len(w) == m) or keep.shape != (n,):
        raise InputError(f"reduce: u, v, w must have one length and keep n = {n} entries")
    if m and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n):
        raise InputError("reduce: an edge endpoint is not a vertex")
    if n >= 2 ** 31 or m >= 2 ** 31 - 1:
        raise InputError("reduce: more than 2**31 vertices or edges")
    empty = np.zeros(0, dtype=np.int64)
    if m == 0:
        return Reduced(empty, empty, empty, empty, empty,
                       {"dead_ends": 0.0, "contraction": 0.0, "copy_back": 0.0},
                       {"launches": 0, "host_round_trips": 0, "dead_end_edges": 0,
                        "contracted_paths": 0, "contracted_path_edges": 0, "kept_edges": 0})
    cu = gpu.require_cuda()
    k = _compile()
    gpu.check_fits(n * 17 + m * 37, f"reduce of a forest of {n:,} vertices")
    stream = cu.stream()
    timer = gpu.DeviceTimer(stream)
    with timer.measure() as up:
        dev = {name: cu.to_device(np.ascontiguousarray(a), stream=stream)
               for name, a in (("eu", u.astype(np.int32)), ("ev", v.astype(np.int32)),
                               ("ew", w), ("keep", keep.astype(np.uint8)))}
    deg0 = cu.device_array(n, dtype=np.int32, stream=stream)
    xr0 = cu.device_array(n, dtype=np.int32, stream=stream)
    deg = cu.device_array(n, dtype=np.int32, stream=stream)
    xr = cu.device_array(n, dtype=np.int32, stream=stream)
    alive = cu.device_array(m, dtype=np.int32, stream=stream)
    status = cu.device_array(m, dtype=np.int8, stream=stream)
    ku = cu.device_array(m, dtype=np.int32, stream=stream)
    kv = cu.device_array(m, dtype=np.int32, stream=stream)
    kw = cu.device_array(m, dtype=np.int64, stream=stream)
    kn = cu.device_array(m, dtype=np.int32, stream=stream)
    vb, eb = gpu.blocks_for(n, THREADS), gpu.blocks_for(m, THREADS)
    with timer.measure() as dead:
        k["zero"][vb, THREADS, stream](deg0, xr0)
        k["degrees"][eb, THREADS, stream](dev["eu"], dev["ev"], deg0, xr0, alive, status)
        deg.copy_to_device(deg0, stream=stream)
        xr.copy_to_device(xr0, stream=stream)
        k["peel"][vb, THREADS, stream](dev["eu"], dev["ev"], dev["keep"], deg0, xr0, deg, xr,
                                       alive)
    with timer.measure() as con:
        k["contract"][eb, THREADS, stream](dev["eu"], dev["ev"], dev["ew"], dev["keep"], deg, xr,
                                           alive, status, ku, kv, kw, kn)
    with timer.measure() as back:
        picked = (_compact_on_device(cupy, stream, m, status, alive, ku, kv, kw, kn) if cupy
                  else _compact_on_host(stream, m, status, alive, ku, kv, kw, kn))
        stream.synchronize()
    rep, definite, ru, rv, rw, dead_end_edges, paths, path_edges = picked
    counters = {"launches": 4, "host_round_trips": 0, "dead_end_edges": dead_end_edges,
                "contracted_paths": paths, "contracted_path_edges": path_edges,
                "kept_edges": len(rep), "upload_us": int(round(up["ms"] * 1e3))}
    timings = {"dead_ends": dead["ms"], "contraction": con["ms"], "copy_back": back["ms"],
               "other": up["ms"]}
    return Reduced(ru, rv, rw, rep, definite, timings, counters)


def _compact_on_host(stream, m, status, alive, ku, kv, kw, kn):
    h_status = status.copy_to_host(stream=stream)
    h_alive = alive.copy_to_host(stream=stream)
    h_ku = ku.copy_to_host(stream=stream)
    h_kv = kv.copy_to_host(stream=stream)
    h_kw = kw.copy_to_host(stream=stream)
    h_kn = kn.copy_to_host(stream=stream)
    stream.synchronize()
    rep = np.flatnonzero(h_status == 1).astype(np.int64)
    definite = np.flatnonzero(h_status != 1).astype(np.int64)
    lengths = h_kn[rep]
    return (rep, definite, h_ku[rep].astype(np.int64), h_kv[rep].astype(np.int64),
            h_kw[rep].astype(np.int64), int(m - h_alive.sum()), int((lengths >= 2).sum()),
            int(lengths[lengths >= 2].sum()))


def _stream_handle(stream) -> int:
    return int(stream.handle)  # a CUstream: what cupy's ExternalStream takes


def _compact_on_device(cp, stream, m, status, alive, ku, kv, kw, kn):
    # cupy works on numba's stream, so the kernels' order and the timer's events still hold
    with cp.cuda.ExternalStream(_stream_handle(stream)):
        st = cp.asarray(status)
        is_rep = st == 1
        rep = cp.flatnonzero(is_rep).astype(cp.int32)
        definite = cp.flatnonzero(~is_rep).astype(cp.int32)
        lengths = cp.asarray(kn)[rep]
        is_path = lengths >= 2
        # the scalars as one small array: a single copy back, not one per counter
        scalars = cp.stack([cp.asarray(alive).sum(dtype=cp.int64), is_path.sum(dtype=cp.int64),
                            cp.where(is_path, lengths, 0).sum(dtype=cp.int64)])
        out = [cp.asnumpy(a) for a in (rep, definite, cp.asarray(ku)[rep], cp.asarray(kv)[rep],
                                       cp.asarray(kw)[rep], scalars)]
    rep, definite, ru, rv, rw, (alive_sum, paths, path_edges) = out
    return (rep.astype(np.int64), definite.astype(np.int64), ru.astype(np.int64),
            rv.astype(np.int64), rw.astype(np.int64), int(m - alive_sum), int(paths),
            int(path_edges))

