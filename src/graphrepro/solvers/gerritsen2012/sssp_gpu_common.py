"""gerritsen2012 chapter 5 on the GPU: what its SSSP kernels' host sides share.

The int64 "unreached" markers and the check that turns elevations into the int32 values the
kernels read (phase 1's GPU algorithms 1 and 2, and the whole-grid SSSP of ``grid_sssp_gpu``).
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError

INF = np.iinfo(np.int64).max
BIG = np.int64(1) << 62  # "not reached" inside kernels: BIG + any weight cannot overflow


def int32_elevations(values: np.ndarray) -> np.ndarray:
    """``values`` as contiguous int32, refused unless they are integers in 0..2^31-1."""
    if not np.issubdtype(values.dtype, np.integer):
        raise InputError(f"elevations must be integers, got {values.dtype}")
    if values.size and (values.min() < 0 or values.max() > np.iinfo(np.int32).max):
        raise InputError("elevations must lie in 0..2^31-1 (the thesis's conversion makes them so)")
    return np.ascontiguousarray(values, dtype=np.int32)


def _check_values(values) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 3 or values.shape[1] != values.shape[2]:
        raise InputError(f"phase 1 takes I/O-blocks as an array (blocks, m, m), got shape {values.shape}")
    if values.shape[1] < 2:
        raise InputError("an I/O-block needs side >= 2")
    return int32_elevations(values)


def _max_weight(values: np.ndarray) -> int:
    """An upper bound on any edge weight in the blocks: the spread of their values."""
    return int(values.max()) - int(values.min()) if values.size else 0
