"""Diamond-square fractal terrain: the stand-in for gerritsen2012's Neuse watershed grid.

The classic algorithm works on a (2^k + 1)-square; the Neuse grid is 17,630 x 12,555, and the
square that holds it (32,769^2) would need 4 GB of floats. This is the rectangular variant: a
coarse lattice of random heights, one per 2^k cells, refined by diamond and square steps with
the noise shrinking by ``roughness`` per level; the result is cropped to rows x cols. Each
sample's noise comes from a hash of (seed, level, position), so the terrain is the same whatever
the thread count. Outside an ellipse-like watershed boundary the samples are unknown (-9999), as
around a real watershed's outline, so the conversion's "unknown to 0" path is exercised.
"""

from __future__ import annotations

import numba
import numpy as np

from .._jit import sized
from ..graph.generate import _uniform

NEUSE_40FT = {"rows": 12555, "cols": 17630, "north": 965200.0, "west": 1931700.0, "cell": 40.0}


@sized
def _diamond_square(h, step, roughness, seed):
    H, W = h.shape
    amp = 1.0
    level = 0
    while step > 1:
        half = step // 2
        # diamond: centre of every square
        for i in numba.prange((H - 1) // step):
            y = i * step + half
            for x in range(half, W - 1, step):
                avg = 0.25 * (h[y - half, x - half] + h[y - half, x + half]
                              + h[y + half, x - half] + h[y + half, x + half])
                h[y, x] = avg + amp * (_uniform(seed, level, y * W + x) - 0.5)
        # square: midpoint of every edge (rows alternate between offsets)
        for j in numba.prange((H - 1) // half + 1):
            y = j * half
            x0 = half if (y // half) % 2 == 0 else 0
            for x in range(x0, W, step):
                s = 0.0
                k = 0
                if y >= half:
                    s += h[y - half, x]
                    k += 1
                if y + half < H:
                    s += h[y + half, x]
                    k += 1
                if x >= half:
                    s += h[y, x - half]
                    k += 1
                if x + half < W:
                    s += h[y, x + half]
                    k += 1
                h[y, x] = s / k + amp * (_uniform(seed, level, y * W + x + H * W) - 0.5)
        amp *= roughness
        step = half
        level += 1


@sized
def _finish(h, rows, cols, low, high, hmin, hmax, seed, out):
    """Scale to low..high, mark samples outside the watershed outline unknown (-9999)."""
    span = hmax - hmin if hmax > hmin else 1.0
    for y in numba.prange(rows):
        for x in range(cols):
            dy = (y + 0.5) / rows * 2.0 - 1.0
            dx = (x + 0.5) / cols * 2.0 - 1.0
            # a wobbly ellipse: the outline varies with the terrain itself
            edge = 1.02 + 0.12 * (h[y, x] - hmin) / span
            if dx * dx + dy * dy > edge * edge:
                out[y, x] = -9999.0
            else:
                out[y, x] = low + (high - low) * (h[y, x] - hmin) / span


def diamond_square(rows: int, cols: int, *, seed: int = 0, roughness: float = 0.55,
                   low: float = 0.0, high: float = 1000.0, unknown_outside: bool = True
                   ) -> np.ndarray:
    """A rows x cols float64 terrain in low..high (and -9999 outside the outline)."""
    if rows < 2 or cols < 2:
        raise ValueError("diamond-square needs at least 2 x 2 samples")
    if not 0 < roughness < 1:
        raise ValueError("roughness must be in (0, 1)")
    k = max(1, int(np.floor(np.log2(min(rows, cols) - 1))) - 1)
    step = 1 << k
    H = int(np.ceil((rows - 1) / step)) * step + 1
    W = int(np.ceil((cols - 1) / step)) * step + 1
    h = np.zeros((H, W), dtype=np.float32)
    ys, xs = np.meshgrid(np.arange(0, H, step), np.arange(0, W, step), indexing="ij")
    rng = np.random.default_rng(seed)
    h[ys, xs] = rng.random(ys.shape)  # the coarse lattice
    _diamond_square(h.size, h, step, roughness, seed)
    crop = h[:rows, :cols]
    out = np.empty((rows, cols), dtype=np.float64)
    hmin, hmax = float(crop.min()), float(crop.max())
    _finish(out.size, crop, rows, cols, low, high, hmin, hmax, seed, out)
    if not unknown_outside:
        out[out == -9999.0] = low
    return out


def write_standin(path, *, rows: int, cols: int, seed: int, roughness: float = 0.55,
                  low: float = 0.0, high: float = 1000.0, north: float = NEUSE_40FT["north"],
                  west: float = NEUSE_40FT["west"], cell: float = NEUSE_40FT["cell"]) -> None:
    """Write the stand-in in Listing 1.1's ASCII layout (gzip if the name ends .gz)."""
    from .asciigrid import write_grass_ascii

    terrain = diamond_square(rows, cols, seed=seed, roughness=roughness, low=low, high=high)
    band = 1024
    bands = ((r, terrain[r:r + band]) for r in range(0, rows, band))
    write_grass_ascii(path, bands, rows, cols, north=north, west=west, cell=cell)
