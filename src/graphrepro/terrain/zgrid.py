"""gerritsen2012 section 1.5.1: an elevation grid converted for memory-mapped, block-wise reading.

As the thesis's helper program does: unknown values (the null/NODATA value, -9999) and all other
negatives become 0, every value is rounded to the nearest integer, the grid is padded with 0 to
the smallest power-of-two square that holds it, and the samples are stored in z-order in a plain
binary file that is memory-mapped as one array. 16-bit unsigned samples, as the thesis's file
sizes imply (40 ft: 32768^2 x 2 bytes = 2.15 GB, Table 1.2); 32-bit where a value needs it.

``NAME.zgrid`` holds the samples (no header: ``np.memmap`` it); ``NAME.zgrid.json`` says rows,
cols, side, dtype, order and where it came from.
"""

from __future__ import annotations

import json
from pathlib import Path

import numba

import numpy as np

from .._jit import sized

from ..errors import GraphFormatError, InputError
from . import morton
from .asciigrid import AsciiGrid

BAND = 512  # rows per band: a multiple of every block size up to 512 keeps writes contiguous
DTYPES = {"uint16": np.uint16, "uint32": np.uint32}


@sized
def _store_band(values, row0, out, limit, stats):
    """Clean ``values`` (rows row0.. of the grid) and write them to ``out`` at their Morton
    indices. stats per row: [unknown-or-negative count, max]; returns nothing."""
    rows, cols = values.shape
    for r in numba.prange(rows):
        y = row0 + r
        neg = 0
        top = 0
        for x in range(cols):
            v = values[r, x]
            if not (v >= 0.0):  # negatives, -9999 and NaN
                neg += 1
                q = 0
            else:
                q = np.int64(np.floor(v + 0.5))
            if q > top:
                top = q
            out[morton.encode1(x, y)] = min(q, limit)
        stats[r, 0] = neg
        stats[r, 1] = top


def convert_bands(bands, rows: int, cols: int, output, *, source: dict, dtype: str = "uint16",
                  nodata: float | None = -9999.0) -> dict:
    """Write ``output`` (.zgrid) from (first row, float array) bands; returns the metadata."""
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    side = morton.padded_side(rows, cols)
    np_dtype = DTYPES[dtype]
    limit = np.iinfo(np_dtype).max
    tmp = output.with_name(output.name + ".part")
    with open(tmp, "wb") as f:
        f.truncate(side * side * np.dtype(np_dtype).itemsize)  # sparse: the padding reads as 0
    mm = np.memmap(tmp, dtype=np_dtype, mode="r+", shape=(side * side,))
    out = mm.view(np.ndarray)
    unknown, top, seen, negatives = 0, 0, 0, 0
    for row0, band in bands:
        if row0 != seen:
            raise ValueError("bands must come in order")
        band = np.ascontiguousarray(band, dtype=np.float64)
        if nodata is not None:
            unknown += int(np.count_nonzero(band == nodata))
        stats = np.zeros((band.shape[0], 2), dtype=np.int64)
        _store_band(band.size, band, row0, out, limit, stats)
        top = max(top, int(stats[:, 1].max()))
        if top > limit:
            del out, mm
            tmp.unlink()
            raise InputError(f"{source.get('file', 'the grid')}: value {top} does not fit "
                             f"{dtype}; convert with --dtype uint32")
        negatives += int(stats[:, 0].sum())
        seen += band.shape[0]
    if seen != rows:
        raise ValueError(f"got {seen} rows, expected {rows}")
    mm.flush()
    del out, mm
    meta = {"format": "graphrepro zgrid 1", "rows": rows, "cols": cols, "side": side,
            "dtype": dtype, "order": "z (Morton): x = column in the even bits, y = row in the odd",
            "padding": 0, "unknown_values": unknown, "negatives_set_to_zero": negatives,
            "max": top, "bytes": side * side * np.dtype(np_dtype).itemsize, "source": source}
    tmp.replace(output)
    meta_path = output.with_name(output.name + ".json")
    meta_tmp = meta_path.with_name(meta_path.name + ".part")
    meta_tmp.write_text(json.dumps(meta, indent=1) + "\n")
    meta_tmp.replace(meta_path)
    return meta


def _array_bands(array: np.ndarray, band_rows: int = BAND):
    for r in range(0, array.shape[0], band_rows):
        yield r, np.asarray(array[r:r + band_rows], dtype=np.float64)


def convert_array(array, output, *, source: dict, dtype: str = "uint16",
                  nodata: float | None = -9999.0) -> dict:
    array = np.asarray(array) if not isinstance(array, np.memmap) else array
    if array.ndim != 2 or array.size == 0:
        raise InputError(f"an elevation grid must be a non-empty 2-D array, not shape {array.shape}")
    return convert_bands(_array_bands(array), array.shape[0], array.shape[1], output,
                         source=source, dtype=dtype, nodata=nodata)


def read_npz_grid(path) -> tuple[np.ndarray, dict]:
    """The elevation array of an .npz (key 'elevation', else its only array) and its other scalars."""
    path = Path(path)
    with np.load(path, allow_pickle=False) as z:
        keys = list(z.files)
        key = "elevation" if "elevation" in keys else (keys[0] if len(keys) == 1 else None)
        if key is None:
            raise GraphFormatError(path, None, f"no 'elevation' array (arrays: {', '.join(keys)})")
        extra = {k: float(z[k]) for k in keys if k != key and z[k].ndim == 0}
        return np.array(z[key]), extra


def convert_file(path, output, *, dtype: str = "uint16", source: dict | None = None) -> dict:
    """Convert a GRASS/ESRI ASCII grid (gzip allowed), GeoTIFF, .npy or .npz file to ``output``."""
    from .geotiff import UNKNOWN, GeoTiff, is_geotiff

    path = Path(path)
    source = dict(source or {}, file=str(path))
    name = path.name.lower()
    if is_geotiff(path):
        tif = GeoTiff(path)
        source.update(header=tif.header(), dialect="geotiff")
        return convert_array(tif.array(), output, source=source, dtype=dtype, nodata=UNKNOWN)
    if name.endswith(".npy"):
        array = np.load(path, mmap_mode="r", allow_pickle=False)
        return convert_array(array, output, source=source, dtype=dtype)
    if name.endswith(".npz"):
        array, extra = read_npz_grid(path)
        source["georeference"] = extra
        return convert_array(array, output, source=source, dtype=dtype)
    grid = AsciiGrid(path)
    source.update(header=grid.header, dialect=grid.dialect)
    return convert_bands(grid.bands(BAND), grid.rows, grid.cols, output, source=source,
                         dtype=dtype, nodata=grid.nodata)


# --- reading the converted file back ---------------------------------------------------------

def open_zgrid(path) -> tuple[np.memmap, dict]:
    """The samples (a read-only memmap in z-order, length side^2) and the metadata."""
    path = Path(path)
    meta_path = path.with_name(path.name + ".json")
    if not path.is_file() or not meta_path.is_file():
        raise InputError(f"{path}: no converted grid there (need {path.name} and {meta_path.name})")
    meta = json.loads(meta_path.read_text())
    side = meta["side"]
    mm = np.memmap(path, dtype=DTYPES[meta["dtype"]], mode="r", shape=(side * side,))
    return mm, meta


@sized
def _gather_rows(z, rows, cols, out):
    for y in numba.prange(rows):
        for x in range(cols):
            out[y, x] = z[morton.encode1(x, y)]


def to_rows(z, meta, *, padded: bool = False) -> np.ndarray:
    """The grid in row-major order: the original rows x cols, or the padded square."""
    rows, cols = (meta["side"],) * 2 if padded else (meta["rows"], meta["cols"])
    out = np.empty((rows, cols), dtype=z.dtype)
    _gather_rows(rows * cols, np.asarray(z), rows, cols, out)
    return out
