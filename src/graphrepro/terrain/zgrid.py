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

from .. import atomic
from .._jit import sized
from ..bounded import load_json
from ..errors import NUMPY_LOAD_ERRORS, GraphFormatError, InputError
from . import morton
from .asciigrid import AsciiGrid

BAND = 512  # rows per band: a multiple of every block size up to 512 keeps writes contiguous
DTYPES = {"uint16": np.uint16, "uint32": np.uint32}


@sized
def _store_band(values, row0, out, limit, stats, nodata, has_nodata):
    """Clean ``values`` (rows row0.. of the grid) and write them to ``out`` at their Morton
    indices. stats per row: [nodata count, negative count, max (float)]; returns nothing.

    The nodata value is unknown whatever its sign (SRTM's is 32767); a value past the sample
    type's range is not stored but reported through the row's max, which the caller refuses.
    """
    rows, cols = values.shape
    for r in numba.prange(rows):
        y = row0 + r
        unknown = 0
        neg = 0
        top = 0.0
        for x in range(cols):
            v = values[r, x]
            q = 0
            known = True
            if has_nodata and v == nodata:
                unknown += 1
                known = False
            if not (v >= 0.0):  # negatives (-9999 among them) and NaN
                neg += 1
            elif not known:
                pass
            elif v + 0.5 >= limit + 1.0:  # does not fit (1e20, inf): never cast, never wrapped
                top = max(top, v)
                q = limit
            else:
                q = np.int64(np.floor(v + 0.5))
                top = max(top, float(q))
            out[morton.encode1(x, y)] = q
        stats[r, 0] = unknown
        stats[r, 1] = neg
        stats[r, 2] = top


def _check_room(rows: int, cols: int, side: int, itemsize: int, output: Path, source: dict):
    """Refuse before allocating: a grid whose samples cannot fit the disk or a memory map."""
    import shutil

    what = source.get("file", "the grid")
    need = rows * cols * itemsize
    free = shutil.disk_usage(output.parent).free
    if need > free:
        raise InputError(f"{what}: {rows:,} x {cols:,} samples need {need / 2**30:,.1f} GiB, "
                         f"{output.parent} has {free / 2**30:,.1f} GiB free")
    if side * side * itemsize > 1 << 46:
        raise InputError(f"{what}: {rows:,} x {cols:,} pads to a {side:,}^2 square, too large "
                         f"to map")


def convert_bands(bands, rows: int, cols: int, output, *, source: dict, dtype: str = "uint16",
                  nodata: float | None = -9999.0) -> dict:
    """Write ``output`` (.zgrid) from (first row, float array) bands; returns the metadata."""
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    side = morton.padded_side(rows, cols)
    np_dtype = DTYPES[dtype]
    limit = np.iinfo(np_dtype).max
    _check_room(rows, cols, side, np.dtype(np_dtype).itemsize, output, source)
    unknown, top, seen, negatives = 0, 0.0, 0, 0
    # whatever goes wrong, no sparse temporary of the padded size is left behind
    with atomic.replacing(output) as tmp:
        with open(tmp, "wb") as f:
            f.truncate(side * side * np.dtype(np_dtype).itemsize)  # sparse: padding reads as 0
        mm = np.memmap(tmp, dtype=np_dtype, mode="r+", shape=(side * side,))
        out = mm.view(np.ndarray)
        for row0, band in bands:
            if row0 != seen:
                raise ValueError("bands must come in order")
            band = np.ascontiguousarray(band, dtype=np.float64)
            stats = np.zeros((band.shape[0], 3), dtype=np.float64)
            _store_band(band.size, band, row0, out, limit, stats,
                        float(nodata) if nodata is not None else 0.0, nodata is not None)
            top = max(top, float(stats[:, 2].max()))
            if top > limit:
                wider = "; convert with --dtype uint32" if dtype != "uint32" else \
                    " (uint32 is the widest sample type)"
                raise InputError(f"{source.get('file', 'the grid')}: value {top:.6g} does not "
                                 f"fit {dtype}{wider}")
            unknown += int(stats[:, 0].sum())
            negatives += int(stats[:, 1].sum())
            seen += band.shape[0]
        if seen != rows:
            raise ValueError(f"got {seen} rows, expected {rows}")
        mm.flush()
        del out, mm
    top = int(top)
    meta = {"format": "graphrepro zgrid 1", "rows": rows, "cols": cols, "side": side,
            "dtype": dtype, "order": "z (Morton): x = column in the even bits, y = row in the odd",
            "padding": 0, "unknown_values": unknown, "negatives_set_to_zero": negatives,
            "nodata": nodata,
            "max": top, "bytes": side * side * np.dtype(np_dtype).itemsize, "source": source}
    meta_path = output.with_name(output.name + ".json")
    atomic.write_text(meta_path, json.dumps(meta, indent=1) + "\n")
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


def _numpy_problem(path: Path, e: Exception) -> GraphFormatError:
    if isinstance(e, OSError) and e.strerror:
        return GraphFormatError(path, None, f"cannot read: {e.strerror}")
    return GraphFormatError(path, None, f"not a readable array file ({str(e)[:160]})")


def read_npz_grid(path) -> tuple[np.ndarray, dict]:
    """The elevation array of an .npz (key 'elevation', else its only array) and its other scalars."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            keys = list(z.files)
            key = "elevation" if "elevation" in keys else (keys[0] if len(keys) == 1 else None)
            if key is None:
                raise GraphFormatError(path, None, f"no 'elevation' array (arrays: {', '.join(keys)})")
            extra = {k: float(z[k]) for k in keys
                     if k != key and z[k].ndim == 0 and z[k].dtype.kind in "iuf"}
            return np.array(z[key]), extra
    except NUMPY_LOAD_ERRORS as e:
        raise _numpy_problem(path, e) from None


def _load_npy(path: Path) -> np.ndarray:
    """A .npy grid, memory-mapped; a header that promises more than the file holds is refused."""
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except NUMPY_LOAD_ERRORS as e:
        raise _numpy_problem(path, e) from None
    if array.dtype.kind not in "iuf":
        raise GraphFormatError(path, None, f"elevations must be numbers, not {array.dtype}")
    return array


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
        return convert_array(_load_npy(path), output, source=source, dtype=dtype)
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
    from ..errors import damaged

    path = Path(path)
    meta_path = path.with_name(path.name + ".json")
    if not path.is_file() or not meta_path.is_file():
        raise InputError(f"{path}: no converted grid there (need {path.name} and {meta_path.name})")
    try:
        meta = load_json(meta_path)
    except (ValueError) as e:
        raise damaged(meta_path, f"not valid JSON ({e})") from None
    ints = {k: meta.get(k) for k in ("rows", "cols", "side")} if isinstance(meta, dict) else {}
    if not ints or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                           for v in ints.values()) or meta.get("dtype") not in DTYPES:
        raise damaged(meta_path, "not a zgrid record (rows, cols, side, dtype)")
    side = ints["side"]
    if side & (side - 1) or side < max(ints["rows"], ints["cols"]):
        raise damaged(meta_path, f"side {side} is not a power of two holding "
                                 f"{ints['rows']} x {ints['cols']}")
    size = side * side * np.dtype(DTYPES[meta["dtype"]]).itemsize
    if path.stat().st_size != size:
        raise damaged(path, f"{path.stat().st_size:,} bytes, its record says {size:,}")
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
