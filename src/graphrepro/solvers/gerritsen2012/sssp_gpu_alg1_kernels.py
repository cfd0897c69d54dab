"""gerritsen2012 section 5.1: the kernels of phase 1's GPU algorithm 1 (Algorithms 6-8).

Part 1, per GPU-block: Algorithm 6's initialisation and Algorithms 7 (relax into C_ua) and 8
(fold C_ua into C_a) in the three launch shapes of sections 5.3.1 and 5.3.2 ("2d", "3d",
"zorder"). Part 2, per boundary source: the tournament tree over the GPU-blocks' boundary cells,
reset and seeded, then per step the root's vertex finalised (step A), the touched leaves updated
(step B) and one launch per level up to the root. The host loop that launches them, and why it
departs from the letter where it does: ``sssp_gpu_alg1`` and ``sssp_gpu``.
"""

from __future__ import annotations

from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from .sssp_gpu_common import BIG, INF

_alg1_kernels = {}


@cuda.jit(device=True)
def _boundary_cell(j, c):
    """Local row-major id of the j-th boundary cell of a c x c block (boundary_cells order)."""
    if j < c:
        return j
    if j < c + 2 * (c - 2):
        return (1 + (j - c) // 2) * c + (0 if (j - c) % 2 == 0 else c - 1)
    return (c - 1) * c + (j - c - 2 * (c - 2))


@cuda.jit(device=True)
def _morton_decode(z):
    """(row, column) of Morton index z: the column takes the even bits (terrain.morton's rule)."""
    x = 0
    y = 0
    for b in range(16):
        x |= ((z >> (2 * b)) & 1) << b
        y |= ((z >> (2 * b + 1)) & 1) << b
    return y, x


@cuda.jit(device=True)
def _relax_cell(block, y0, x0, c, vi, idx, m_a, c_a, c_ua):
    """Algorithm 7's body for one (boundary vertex, cell) pair."""
    if m_a[vi, idx] == 0:
        return
    m_a[vi, idx] = 0
    iy = idx // c
    ix = idx % c
    here = c_a[vi, idx]
    val = block[y0 + iy, x0 + ix]
    for ny in range(max(iy - 1, 0), min(iy + 2, c)):
        for nx in range(max(ix - 1, 0), min(ix + 2, c)):
            if ny != iy or nx != ix:
                cuda.atomic.min(c_ua, (vi, ny * c + nx), here + abs(val - block[y0 + ny, x0 + nx]))


@cuda.jit(device=True)
def _fold_cell(vi, idx, m_a, c_a, c_ua, flag):
    """Algorithm 8's body for one (boundary vertex, cell) pair."""
    if c_a[vi, idx] > c_ua[vi, idx]:
        c_a[vi, idx] = c_ua[vi, idx]
        m_a[vi, idx] = 1
        flag[0] = 1
    c_ua[vi, idx] = c_a[vi, idx]


@cuda.jit(cache=True)
def _alg6_init(c, m_a, c_a, c_ua):
    """Algorithm 6 line 1: M_a true and C_a = 0 exactly at (v, v) for each boundary vertex v."""
    idx, vi = cuda.grid(2)
    if vi < m_a.shape[0] and idx < c * c:
        own = _boundary_cell(vi, c) == idx
        m_a[vi, idx] = 1 if own else 0
        c_a[vi, idx] = 0 if own else BIG
        c_ua[vi, idx] = c_a[vi, idx]


@cuda.jit(cache=True)
def _alg7_2d(block, y0, x0, c, m_a, c_a, c_ua, flag):
    ix, iy = cuda.grid(2)
    if ix == 0 and iy == 0:
        flag[0] = 0  # on the device, so a round has one host round trip: the read
    if ix < c and iy < c:
        for vi in range(m_a.shape[0]):
            _relax_cell(block, y0, x0, c, vi, iy * c + ix, m_a, c_a, c_ua)


@cuda.jit(cache=True)
def _alg8_2d(c, m_a, c_a, c_ua, flag):
    ix, iy = cuda.grid(2)
    if ix < c and iy < c:
        for vi in range(m_a.shape[0]):
            _fold_cell(vi, iy * c + ix, m_a, c_a, c_ua, flag)


@cuda.jit(cache=True)
def _alg7_3d(block, y0, x0, c, m_a, c_a, c_ua, flag):
    ix, iy, vi = cuda.grid(3)
    if ix == 0 and iy == 0 and vi == 0:
        flag[0] = 0
    if ix < c and iy < c and vi < m_a.shape[0]:
        _relax_cell(block, y0, x0, c, vi, iy * c + ix, m_a, c_a, c_ua)


@cuda.jit(cache=True)
def _alg8_3d(c, m_a, c_a, c_ua, flag):
    ix, iy, vi = cuda.grid(3)
    if ix < c and iy < c and vi < m_a.shape[0]:
        _fold_cell(vi, iy * c + ix, m_a, c_a, c_ua, flag)


@cuda.jit(cache=True)
def _alg7_zorder(block, y0, x0, c, m_a, c_a, c_ua, flag):
    z, vi = cuda.grid(2)
    if z == 0 and vi == 0:
        flag[0] = 0
    if z < c * c and vi < m_a.shape[0]:
        iy, ix = _morton_decode(z)
        _relax_cell(block, y0, x0, c, vi, iy * c + ix, m_a, c_a, c_ua)


@cuda.jit(cache=True)
def _alg8_zorder(c, m_a, c_a, c_ua, flag):
    z, vi = cuda.grid(2)
    if z < c * c and vi < m_a.shape[0]:
        iy, ix = _morton_decode(z)
        _fold_cell(vi, iy * c + ix, m_a, c_a, c_ua, flag)


@cuda.jit(cache=True)
def _tree_reset(tree, final, dist):
    i = cuda.grid(1)
    if i < tree.shape[0]:
        tree[i] = INF
    if i < final.shape[0]:
        final[i] = 0
        dist[i] = BIG


@cuda.jit(cache=True)
def _tree_seed(tree, dist, leaves, leaf):
    """The source's leaf gets key 0, propagated to the root (one thread)."""
    if cuda.grid(1) == 0:
        dist[leaf] = 0
        i = leaves + leaf
        while i >= 1:
            tree[i] = leaf  # packed (0, leaf)
            i >>= 1


@cuda.jit(device=True)
def _claim(stamp, node, stage, lists, sizes, out):
    """Put node on list `out` once per stage: the first thread to raise its stamp adds it."""
    if node >= 1 and cuda.atomic.max(stamp, node, stage) < stage:
        lists[out, cuda.atomic.add(sizes, out, 1)] = node


@cuda.jit(cache=True)
def _step_a(tree, final, dist, bits, c, kc, m, leaf_cell, cell_leaf, gb_side, lists, sizes):
    """Finalise the root's vertex; list its GPU-block's boundary leaves and the <= 5 leaves
    across a GPU-block border from it (sqrt(C) + 5 threads)."""
    t = cuda.grid(1)
    root = tree[1]
    u = root & ((1 << bits) - 1)
    dist[u] = root >> bits
    final[u] = 1
    if t == 0:
        sizes[0] = kc + 5
        sizes[1] = 0  # step B appends to list 1
    gb = u // kc
    if t < c:
        for j in range(t, kc, c):
            lists[0, j] = gb * kc + j
    elif t < c + 5:
        e = t - c
        cell = leaf_cell[u]
        uy = cell // m
        ux = cell % m
        found = 0
        lists[0, kc + e] = -1
        for ny in range(max(uy - 1, 0), min(uy + 2, m)):
            for nx in range(max(ux - 1, 0), min(ux + 2, m)):
                if (ny // c) * gb_side + nx // c != gb:
                    if found == e:
                        lists[0, kc + e] = cell_leaf[ny * m + nx]
                    found += 1


@cuda.jit(device=True)
def _update_leaf(j, u, du, gb, tree, final, dist, bits, kc, leaves, block, leaf_cell, m, dg,
                 lists, sizes, stamp, stage):
    w = lists[0, j]
    if w < 0:
        return
    if w == u:
        tree[leaves + w] = INF  # finalised: out of the tournament
    elif final[w] == 0:
        if w // kc == gb:  # same GPU-block: its distance from part 1
            weight = dg[gb, u - gb * kc, w - gb * kc]
        else:  # across a GPU-block border: the grid edge
            a = leaf_cell[u]
            b = leaf_cell[w]
            weight = abs(block[a // m, a % m] - block[b // m, b % m])
        candidate = du + weight
        if candidate < dist[w]:
            dist[w] = candidate
            tree[leaves + w] = (candidate << bits) | w
    _claim(stamp, (leaves + w) >> 1, stage, lists, sizes, 1)


@cuda.jit(cache=True)
def _step_b(tree, final, dist, bits, c, kc, leaves, block, leaf_cell, m, dg, lists, sizes, stamp,
            stage):
    """Update the listed leaves from the finalised vertex (sqrt(C) + 5 threads); list their
    parents, each once."""
    t = cuda.grid(1)
    root = tree[1]
    u = root & ((1 << bits) - 1)
    du = root >> bits
    gb = u // kc
    if t == 0:
        sizes[2] = 0  # the first level appends to list 2
    if t < c:
        for j in range(t, kc, c):
            _update_leaf(j, u, du, gb, tree, final, dist, bits, kc, leaves, block, leaf_cell, m,
                         dg, lists, sizes, stamp, stage)
    elif t < c + 5:
        _update_leaf(kc + t - c, u, du, gb, tree, final, dist, bits, kc, leaves, block, leaf_cell,
                     m, dg, lists, sizes, stamp, stage)


@cuda.jit(cache=True)
def _step_level(tree, level, lists, sizes, stamp, stage):
    """Recompute the nodes on list level % 3 from their children; list their parents on the
    next list, each once. Three lists rotate so a launch zeroes the one the next appends to."""
    t = cuda.grid(1)
    which = level % 3
    if t == 0:
        sizes[(level + 2) % 3] = 0
    if t < sizes[which]:
        node = lists[which, t]
        left = tree[2 * node]
        right = tree[2 * node + 1]
        tree[node] = left if left < right else right
        _claim(stamp, node >> 1, stage, lists, sizes, (level + 1) % 3)
