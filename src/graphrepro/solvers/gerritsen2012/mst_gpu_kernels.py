"""gerritsen2012 section 3.1: the GPU Boruvka's kernels (Algorithms 2-5), compiled per key width.

``_compile(bits)`` returns the kernels for the 32- or 64-bit packed key: init, choose (Algorithm
2, the atomicMin on the supervertex's slot), hook (Algorithm 3), jump (Algorithm 4's
shortcutting, as a path-halving walk), relabel (Algorithm 5), launched one by one by the thesis
launch, and the persistent kernel that runs the whole loop in one cooperative launch. The host
driver that launches them is ``mst_gpu``.
"""

from __future__ import annotations

import numpy as np
from numba import cuda  # module level: the CUDA simulator swaps this global inside kernels

from .mst_gpu_key import layout

_kernels: dict[int, dict] = {}


def _compile(bits: int) -> dict:
    if bits in _kernels:
        return _kernels[bits]
    lay = layout(bits)
    WSHIFT = lay.wshift
    IMASK = lay.index_mask
    INF = lay.inf
    KEY = np.uint32 if bits == 32 else np.int64

    @cuda.jit(device=True)
    def block_base(g, nb, bb):
        """First global id of g's grid; 32-bit division where it fits (64-bit division is a
        long instruction sequence on the GPU)."""
        if nb == 1:
            return np.int64(0)
        if nb * bb <= 0xFFFFFFFF:
            return np.int64(np.uint32(g) // np.uint32(bb)) * bb
        return (g // bb) * bb

    @cuda.jit(device=True)
    def choose(g, base, vals, comp, best, done, rows, cols):
        """Algorithm 2 for vertex g (of the grid starting at global id base): its lightest edge
        to another supervertex, folded into the supervertex's slot. 1 when it did the atomicMin."""
        if done[g] != 0:
            return 0
        local = g - base
        r = np.int64(np.uint32(local) // np.uint32(cols))  # local < 2**32: the key's index field
        c = local - r * cols
        cv = comp[g]
        vv = np.int64(vals[g])
        kmin = np.int64(INF)
        for d in range(8):
            p = d if d < 4 else d + 1
            dr = p // 3 - 1
            dc = p % 3 - 1
            nr = r + dr
            nc = c + dc
            if nr >= 0 and nr < rows and nc >= 0 and nc < cols:
                step = dr * cols + dc
                if comp[g + step] != cv:
                    w = max(vv, np.int64(vals[g + step]))
                    if d < 4:  # the neighbour is the lower endpoint; 7 - d points back at us
                        key = (w << WSHIFT) | ((local + step) << 4) | ((7 - d) << 1)
                    else:
                        key = (w << WSHIFT) | (local << 4) | (d << 1) | 1
                    if key < kmin:
                        kmin = key
        if kmin == INF:
            done[g] = 1  # every neighbour is in our supervertex, now and forever
            return 0
        if kmin < np.int64(best[cv]):
            cuda.atomic.min(best, cv, KEY(kmin))
            return 1
        return 0

    @cuda.jit(device=True)
    def hook(c, base, comp, best, parent, chosen, cols):
        """Algorithms 3 and 4 (first part) for supervertex root c: hook along the chosen edge,
        unless the other side chose the same edge and has the larger id. 1 when it hooked."""
        if comp[c] != c:
            return 0
        k = np.int64(best[c])
        if k == INF:
            parent[c] = c
            return 0
        a = (k >> 4) & IMASK
        d = (k >> 1) & 7
        p = d if d < 4 else d + 1
        lower = base + a
        higher = lower + (p // 3 - 1) * cols + (p % 3 - 1)
        other = higher if (k & 1) == 1 else lower
        c2 = comp[other]
        if (np.int64(best[c2]) >> 1) == (k >> 1) and c < c2:
            parent[c] = c  # the pair's smaller root stays a root; its partner records the edge
            return 0
        parent[c] = c2
        chosen[c] = best[c]
        return 1

    @cuda.jit(device=True)
    def jump(c, comp, parent, best):
        """Algorithm 4's shortcutting for an old root c, in one pass: walk to the root halving
        the path on the way (each visited node skips to its grandparent), so walkers sharing a
        long chain shorten it for each other; then c points at the root. Every write names an
        ancestor of the written node, so concurrent walkers never lose the root. Also resets
        c's slot for the next iteration (only roots' slots are ever written)."""
        if comp[c] != c:
            return
        best[c] = KEY(INF)
        x = c
        while True:
            p = parent[x]
            pp = parent[p]
            if pp == p:
                break
            parent[x] = pp
            x = pp
        parent[c] = p

    @cuda.jit(device=True)
    def relabel(v, comp, parent):
        """Algorithm 5: v takes its new root's colour. The root is followed, not read in one
        step: a walker's halving write can land on a node after that node's own walker pointed
        it at the root, leaving it one or two steps short. Nothing writes parents now."""
        cv = comp[v]
        root = parent[cv]
        if root != cv:
            while True:
                up = parent[root]
                if up == root:
                    break
                root = up
            comp[v] = root

    @cuda.jit(device=True)
    def tile_index(nb, rows, cols):
        """(global vertex id or -1) of this thread in the 16 x 16 tiling, z = grid number."""
        x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        z = cuda.blockIdx.z
        if x < cols and y < rows and z < nb:
            return np.int64(z) * rows * cols + y * cols + x
        return np.int64(-1)

    @cuda.jit(cache=True)
    def init_k(nb, rows, cols, comp, parent, best, chosen, done):
        g = tile_index(nb, rows, cols)
        if g >= 0:
            comp[g] = g
            parent[g] = g
            best[g] = KEY(INF)
            chosen[g] = KEY(INF)
            done[g] = 0

    @cuda.jit(cache=True)
    def choose_k(nb, rows, cols, vals, comp, best, done, tally):
        g = tile_index(nb, rows, cols)
        issued = 0
        if g >= 0:
            issued = choose(g, np.int64(cuda.blockIdx.z) * rows * cols, vals, comp, best, done,
                            rows, cols)
        total = cuda.syncthreads_count(issued)
        if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0 and total > 0:
            cuda.atomic.add(tally, 0, total)

    @cuda.jit(cache=True)
    def hook_k(nb, rows, cols, comp, best, parent, chosen, words, slot):
        g = tile_index(nb, rows, cols)
        if g == 0:
            words[1 - slot] = 0  # the next iteration's word; the host has read it already
        if g >= 0 and hook(g, np.int64(cuda.blockIdx.z) * rows * cols, comp, best, parent, chosen,
                           cols) == 1:
            words[slot] = 1

    @cuda.jit(cache=True)
    def jump_k(nb, rows, cols, comp, parent, best):
        g = tile_index(nb, rows, cols)
        if g >= 0:
            jump(g, comp, parent, best)

    @cuda.jit(cache=True)
    def relabel_k(nb, rows, cols, comp, parent):
        g = tile_index(nb, rows, cols)
        if g >= 0:
            relabel(g, comp, parent)

    @cuda.jit(cache=True)
    def persistent_k(nb, rows, cols, vals, comp, parent, best, chosen, done, words, out):
        grid = cuda.cg.this_grid()
        n = comp.shape[0]
        bb = rows * cols
        tid = cuda.grid(1)
        stride = cuda.gridsize(1)
        for g in range(tid, n, stride):
            comp[g] = g
            parent[g] = g
            best[g] = KEY(INF)
            chosen[g] = KEY(INF)
            done[g] = 0
        if tid == 0:
            for s in range(3):
                words[s] = 0
        grid.sync()
        atomics = 0
        it = 0
        while True:
            slot = it % 3
            if tid == 0:
                words[(it + 1) % 3] = 0  # last read two iterations ago, barriers since
            for g in range(tid, n, stride):
                atomics += choose(g, block_base(g, nb, bb), vals, comp, best, done, rows, cols)
            grid.sync()
            hooked = 0
            for g in range(tid, n, stride):
                hooked |= hook(g, block_base(g, nb, bb), comp, best, parent, chosen, cols)
            if hooked:
                words[slot] = 1
            grid.sync()
            it += 1
            if words[slot] == 0:
                break
            for g in range(tid, n, stride):
                jump(g, comp, parent, best)
            grid.sync()
            for g in range(tid, n, stride):
                relabel(g, comp, parent)
            grid.sync()
        if atomics > 0:
            cuda.atomic.add(out, 0, atomics)
        if tid == 0:
            out[1] = it

    _kernels[bits] = dict(init=init_k, choose=choose_k, hook=hook_k, jump=jump_k,
                          relabel=relabel_k, persistent=persistent_k)
    return _kernels[bits]

