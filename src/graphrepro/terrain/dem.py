"""Elevation grids as graphs for the `mst` and `solve` commands (gerritsen2012 section 1.5.1).

A DEM is recognised by content, not only by name: GRASS ASCII (Listing 1.1's ``north:`` ...
``cols:`` header) or ESRI ASCII (``ncols`` ...), as ``.asc``, ``.txt`` or any other name, gzip
allowed; a GeoTIFF (``.tif``, read by ``geotiff``); a ``.npy`` array; or a ``.zgrid`` this
package converted. The graph is the converted grid
of section 1.5.1: unknown (nodata or negative) values become 0, values round to the nearest
integer, the grid is padded with 0 on the right and at the bottom to a power-of-two square, and
vertex ids are row-major over that square from 0 (the thesis's numbering), 8 neighbours, no wrap.

The conversion is the very code the workflow's `dem` step runs (``zgrid.convert_file``, into a
temporary file), so a grid read here and a grid converted there are the same numbers.
"""

from __future__ import annotations

import gzip
import tempfile
import zlib
from pathlib import Path

import numpy as np

from ..errors import GraphFormatError
from .asciigrid import ESRI_KEYS, GRASS_KEYS

# Forward neighbours of a cell (row, col offsets): each undirected grid edge once, from its lower
# row-major endpoint. Together with their reverses they are the 8 neighbours of Figure 1.1b.
FORWARD = ((0, 1), (1, -1), (1, 0), (1, 1))


def _first_key(path: Path) -> str | None:
    try:
        opener = gzip.open if path.name.lower().endswith(".gz") else open
        with opener(path, "rb") as f:
            head = f.read(4096)
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
        return None
    for line in head.decode("ascii", "replace").splitlines():
        text = line.strip()
        if text:
            return text.replace(":", " ", 1).split()[0].lower()
    return None


def is_dem(path) -> bool:
    """Whether ``path`` holds an elevation grid rather than a graph file."""
    path = Path(path)
    name = path.name.lower()
    if name.endswith((".npy", ".zgrid", ".tif", ".tiff")):
        return True
    if name.endswith((".gr", ".gr.gz", ".mtx", ".mtx.gz", ".npz")):
        return False  # graph formats with their own headers: never sniffed
    key = _first_key(path) if path.is_file() else None
    return key is not None and (key in GRASS_KEYS or key in ESRI_KEYS)


def read_padded(path) -> tuple[np.ndarray, dict]:
    """The converted grid of section 1.5.1 as a padded square (int64, row-major) and its metadata."""
    from .zgrid import convert_file, open_zgrid, to_rows

    path = Path(path)
    if not path.is_file():
        raise GraphFormatError(path, None, "no such file")
    if path.name.lower().endswith(".zgrid"):
        z, meta = open_zgrid(path)
        return to_rows(z, meta, padded=True).astype(np.int64), meta
    with tempfile.TemporaryDirectory(prefix="graphrepro-dem-") as tmp:
        out = Path(tmp) / "grid.zgrid"
        meta = convert_file(path, out, dtype="uint32")
        z, meta = open_zgrid(out)
        grid = to_rows(z, meta, padded=True).astype(np.int64)
        del z
    return grid, meta


def grid_edges(grid: np.ndarray, weight: str = "mst") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every undirected edge of the 8-neighbour grid graph once, u < v (row-major ids), with
    weight max(val(u), val(v)) ('mst') or |val(u) - val(v)| ('sssp')."""
    grid = np.asarray(grid, dtype=np.int64)
    rows, cols = grid.shape
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    us, vs, ws = [], [], []
    for dy, dx in FORWARD:
        r0, r1 = 0, rows - dy
        c0, c1 = max(0, -dx), cols - max(0, dx)
        if r1 <= r0 or c1 <= c0:
            continue
        a = grid[r0:r1, c0:c1]
        b = grid[r0 + dy:r1 + dy, c0 + dx:c1 + dx]
        us.append(ids[r0:r1, c0:c1].ravel())
        vs.append(ids[r0 + dy:r1 + dy, c0 + dx:c1 + dx].ravel())
        ws.append((np.maximum(a, b) if weight == "mst" else np.abs(a - b)).ravel())
    if not us:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), empty.copy()
    return np.concatenate(us), np.concatenate(vs), np.concatenate(ws)


def dem_edge_list(path, fmt=None):
    """The `mst` reader for DEM grids: an EdgeList carrying ``grid`` (the padded square)."""
    from ..graph.edgelist import from_arrays

    grid, meta = read_padded(path)
    u, v, w = grid_edges(grid, "mst")
    return from_arrays(grid.size, u, v, w, name=_stem(path), grid=grid)


def dem_graph(path, name: str | None = None):
    """The `solve` reader for DEM grids: the CSR of weights |val(i) - val(j)|, with the padded
    grid as the plain attribute ``terrain`` (solvers that work on the grid itself read it)."""
    from .grid import grid_graph

    grid, meta = read_padded(path)
    graph = grid_graph(grid, weight="sssp", name=name or _stem(path))
    graph.terrain = grid
    return graph


def _stem(path) -> str:
    name = Path(path).name
    for suffix in (".gz", ".asc", ".txt", ".npy", ".zgrid", ".tif", ".tiff"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name
