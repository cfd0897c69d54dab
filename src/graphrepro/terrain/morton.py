"""Z-order (Morton) indices: gerritsen2012 section 1.3 stores grids with the bits of the x- and
y-coordinates interleaved, so that every aligned 2^h x 2^h block is contiguous on disk.

Convention: x (the column) takes the even bits, y (the row) the odd bits; z = 0, 1, 2, 3 walks
(0,0), (1,0), (0,1), (1,1) as (x, y): the "Z" of the thesis's Figure 1.2.
"""

from __future__ import annotations

import numba
import numpy as np

from .._jit import sized


@numba.njit(inline="always")
def _spread(v):
    """Bits 0..31 of v moved to the even bit positions 0..62."""
    v = np.uint64(v) & np.uint64(0xFFFFFFFF)
    v = (v | (v << np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    v = (v | (v << np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    v = (v | (v << np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    v = (v | (v << np.uint64(2))) & np.uint64(0x3333333333333333)
    v = (v | (v << np.uint64(1))) & np.uint64(0x5555555555555555)
    return v


@numba.njit(inline="always")
def _gather(v):
    """The even bits of v packed into bits 0..31 (the inverse of _spread)."""
    v = np.uint64(v) & np.uint64(0x5555555555555555)
    v = (v | (v >> np.uint64(1))) & np.uint64(0x3333333333333333)
    v = (v | (v >> np.uint64(2))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    v = (v | (v >> np.uint64(4))) & np.uint64(0x00FF00FF00FF00FF)
    v = (v | (v >> np.uint64(8))) & np.uint64(0x0000FFFF0000FFFF)
    v = (v | (v >> np.uint64(16))) & np.uint64(0x00000000FFFFFFFF)
    return v


@numba.njit(inline="always")
def encode1(x, y):
    return np.int64(_spread(x) | (_spread(y) << np.uint64(1)))


@numba.njit(inline="always")
def decode1(z):
    z = np.uint64(z)
    return np.int64(_gather(z)), np.int64(_gather(z >> np.uint64(1)))


@sized
def _encode(x, y, out):
    for i in numba.prange(len(x)):
        out[i] = encode1(x[i], y[i])


@sized
def _decode(z, ox, oy):
    for i in numba.prange(len(z)):
        ox[i], oy[i] = decode1(z[i])


def encode(x, y) -> np.ndarray:
    """Morton index of each (x, y) (column, row); coordinates below 2^31."""
    x = np.ascontiguousarray(x, dtype=np.int64).ravel()
    y = np.ascontiguousarray(y, dtype=np.int64).ravel()
    if len(x) != len(y):
        raise ValueError("x and y must have the same length")
    if len(x) and (min(x.min(), y.min()) < 0 or max(x.max(), y.max()) >= 2 ** 31):
        raise ValueError("Morton coordinates must be in 0..2^31-1")
    out = np.empty(len(x), dtype=np.int64)
    _encode(len(x), x, y, out)
    return out


def decode(z) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of each Morton index."""
    z = np.ascontiguousarray(z, dtype=np.int64).ravel()
    if len(z) and z.min() < 0:
        raise ValueError("Morton indices are non-negative")
    x = np.empty(len(z), dtype=np.int64)
    y = np.empty(len(z), dtype=np.int64)
    _decode(len(z), z, x, y)
    return x, y


def padded_side(rows: int, cols: int) -> int:
    """The power-of-two square the thesis pads a rows x cols grid to (section 1.5.1)."""
    side = 1
    while side < max(rows, cols):
        side *= 2
    return side
