"""gerritsen2012 section 3.1: the packed key of the GPU Boruvka (Figures 3.1 and 3.2), on the host.

The 32-bit (the thesis's) and 64-bit key layouts, packing and unpacking keys for the tests and
the edge key of a grid edge, and decoding the tree the kernels leave in the supervertices' root
slots into (grid, u, v, w). The bit layout and why it is a strict total order: ``mst_gpu``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ..._jit import sized
from ...errors import InputError


@dataclass(frozen=True)
class KeyLayout:
    bits: int
    wshift: int  # weight bits start here; index bits are [4, wshift)
    max_weight: int
    max_vertices: int  # per grid (block): vertices the index field can name
    dtype: type
    inf: int

    @property
    def index_mask(self) -> int:
        return (1 << (self.wshift - 4)) - 1


KEY32 = KeyLayout(32, 22, 1023, 1 << 18, np.uint32, 0xFFFFFFFF)
KEY64 = KeyLayout(64, 36, (1 << 27) - 1, 1 << 32, np.int64, (1 << 63) - 1)
LAYOUTS = {32: KEY32, 64: KEY64}


def layout(bits: int) -> KeyLayout:
    try:
        return LAYOUTS[int(bits)]
    except (KeyError, ValueError):
        raise InputError(f"packed key bits must be 32 or 64, got {bits!r}") from None


# --- the key, on the host (tests, decoding) -------------------------------------------------------

def direction(dr, dc):
    """Figure 3.1's number (0..7) of the neighbour at row/column offset (dr, dc)."""
    p = (np.asarray(dr) + 1) * 3 + (np.asarray(dc) + 1)
    return np.where(p < 4, p, p - 1)


def offset(d):
    """(dr, dc) of direction d: the inverse of :func:`direction`."""
    d = np.asarray(d)
    p = np.where(d < 4, d, d + 1)
    return p // 3 - 1, p % 3 - 1


def pack_key(w, index, d, endpoint, bits: int = 32):
    """Figure 3.2's packed key(s) as int64 (a 32-bit key is the low 32 bits)."""
    lay = layout(bits)
    w, index, d, endpoint = (np.asarray(x, dtype=np.int64) for x in (w, index, d, endpoint))
    return (w << lay.wshift) | (index << 4) | (d << 1) | endpoint


def unpack_key(key, bits: int = 32):
    """(weight, index, direction, endpoint) of packed key(s)."""
    lay = layout(bits)
    key = np.asarray(key).astype(np.int64)
    return key >> lay.wshift, (key >> 4) & lay.index_mask, (key >> 1) & 7, key & 1


def edge_key(values: np.ndarray, u, v, bits: int = 32):
    """The key of grid edges (u, v) (row-major ids over ``values``), as the lower endpoint packs
    it: weight, lower index, direction lower -> higher, endpoint bit 1."""
    rows, cols = values.shape
    u, v = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
    a, b = np.minimum(u, v), np.maximum(u, v)
    d = direction(b // cols - a // cols, b % cols - a % cols)
    flat = values.reshape(-1).astype(np.int64)
    return pack_key(np.maximum(flat[a], flat[b]), a, d, 1, bits)


# --- decoding on the host -------------------------------------------------------------------------

@sized
def _decode(chosen, inf, wshift, imask, cols, bb, chunks):
    """The tree edges held in the root slots: (grid number, lower id, higher id, weight), ids
    local to each grid, in slot order (so grid numbers ascend; no grid numbers for a single grid,
    whose 40 ft size would make them 1.8 GB of zeros). Two passes over ``chunks`` slices: count,
    then fill."""
    n = chosen.shape[0]
    size = (n + chunks - 1) // chunks
    counts = np.zeros(chunks + 1, dtype=np.int64)
    for t in numba.prange(chunks):
        found = 0
        for i in range(t * size, min(n, (t + 1) * size)):
            if np.int64(chosen[i]) != inf:
                found += 1
        counts[t + 1] = found
    starts = np.cumsum(counts)
    total = starts[chunks]
    blk = np.empty(total if bb < n else 0, dtype=np.int64)  # one grid: every edge is grid 0
    u = np.empty(total, dtype=np.int64)
    v = np.empty(total, dtype=np.int64)
    w = np.empty(total, dtype=np.int64)
    for t in numba.prange(chunks):
        j = starts[t]
        first = t * size
        block = first // bb
        next_block = (block + 1) * bb
        for i in range(first, min(n, first + size)):
            if i == next_block:
                block += 1
                next_block += bb
            k = np.int64(chosen[i])
            if k != inf:
                a = (k >> 4) & imask
                d = (k >> 1) & 7
                p = d if d < 4 else d + 1
                if bb < n:
                    blk[j] = block
                u[j] = a
                v[j] = a + (p // 3 - 1) * cols + (p % 3 - 1)
                w[j] = k >> wshift
                j += 1
    return blk, u, v, w


def decode_tree(chosen: np.ndarray, lay: KeyLayout, cols: int, bb: int):
    return _decode(len(chosen), chosen, lay.inf, lay.wshift, lay.index_mask, cols, bb,
                   max(1, min(256, len(chosen) >> 16)))

