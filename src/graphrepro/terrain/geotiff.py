"""GeoTIFF elevation grids (USGS 3DEP/NED, SRTM), read with ``tifffile`` (no GDAL build needed).

What a DEM GeoTIFF holds and what we take from it:

- the first image of the file, one band: float32 metres (3DEP, NED) or int16 (SRTM), stored in
  strips or in tiles, any compression ``tifffile`` decodes (none, LZW, Deflate, ...);
- the nodata value from GDAL's ``GDAL_NODATA`` tag (42113, ASCII), where present;
- the cell size and the top-left corner from the GeoTIFF tags ``ModelPixelScale`` (33550) and
  ``ModelTiepoint`` (33922), or from a world file beside it (``.tfw``, ``.tifw``, ``.wld``: six
  lines A, D, B, E, C, F of the affine transform), which wins where both exist because a user
  writes one to correct the other.

The conversion is gerritsen2012 section 1.5.1's, exactly as for the ASCII grids: nodata (and NaN)
samples become -9999 here, so ``zgrid.convert_bands`` counts them as unknown and stores 0, like
every other negative; values are rounded; the grid is padded to a power-of-two square.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

import numpy as np

from ..errors import GraphFormatError

SUFFIXES = (".tif", ".tiff")
UNKNOWN = -9999.0  # the value convert_bands counts as unknown (Listing 1.1's null)
_NODATA, _PIXEL_SCALE, _TIEPOINT = 42113, 33550, 33922


@contextlib.contextmanager
def _quiet():
    """tifffile logs a warning when it cannot cast GDAL_NODATA itself; we parse that tag here."""
    log = logging.getLogger("tifffile")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def is_geotiff(path) -> bool:
    return Path(path).name.lower().endswith(SUFFIXES)


def _world_file(path: Path) -> Path | None:
    for suffix in (".tfw", ".tifw", ".wld", ".TFW"):
        candidate = path.with_suffix(suffix)
        if candidate.is_file():
            return candidate
    return None


def _read_world_file(path: Path) -> dict:
    try:
        a, d, b, e, c, f = (float(x) for x in path.read_text().split()[:6])
    except ValueError:
        raise GraphFormatError(path, None, "a world file has six numbers, one per line") from None
    if b or d:
        raise GraphFormatError(path, None, "a rotated grid (non-zero rotation terms) is not a "
                               "DEM this study can read")
    # C, F are the centre of the top-left cell
    return {"cell_x": a, "cell_y": -e, "west": c - a / 2, "north": f - e / 2,
            "from": f"world file {path.name}"}


class GeoTiff:
    """A single-band GeoTIFF: ``rows``, ``cols``, ``dtype``, ``nodata``, ``tiled``, ``georef``
    (cell size and top-left corner where known) and ``array()`` (float64, nodata -> -9999)."""

    def __init__(self, path):
        import tifffile

        self.path = Path(path)
        if not self.path.is_file():
            raise GraphFormatError(self.path, None, "no such file")
        try:
            with _quiet(), tifffile.TiffFile(self.path) as tif:
                page = tif.pages.first
                tags = {t.code: t.value for t in page.tags}
                self.rows, self.cols = int(page.imagelength), int(page.imagewidth)
                self.samples = int(page.samplesperpixel)
                self.dtype = str(page.dtype)
                self.tiled = bool(page.is_tiled)
                self.compression = str(getattr(page.compression, "name", page.compression))
        except (tifffile.TiffFileError, ValueError, OSError) as e:
            raise GraphFormatError(self.path, None, f"not a readable TIFF: {e}") from None
        if self.samples != 1:
            raise GraphFormatError(self.path, None, f"{self.samples} samples per pixel; an "
                                   "elevation grid has one band")
        self.nodata = None
        raw = tags.get(_NODATA)
        if raw is not None:
            text = raw.decode() if isinstance(raw, bytes) else str(raw)
            try:
                self.nodata = float(text.strip().strip("\x00"))
            except ValueError:
                raise GraphFormatError(self.path, None, f"GDAL_NODATA tag {text!r} is not a "
                                       "number") from None
        self.georef = {}
        if _PIXEL_SCALE in tags and _TIEPOINT in tags:
            sx, sy = tags[_PIXEL_SCALE][:2]
            _, _, _, x, y, _ = tags[_TIEPOINT][:6]
            self.georef = {"cell_x": float(sx), "cell_y": float(sy), "west": float(x),
                           "north": float(y), "from": "GeoTIFF tags"}
        world = _world_file(self.path)
        if world is not None:
            self.georef = _read_world_file(world)

    def header(self) -> dict:
        return {"rows": self.rows, "cols": self.cols, "dtype": self.dtype, "nodata": self.nodata,
                "layout": "tiles" if self.tiled else "strips", "compression": self.compression,
                **({"georeference": self.georef} if self.georef else {})}

    def array(self) -> np.ndarray:
        """The samples as float64, with nodata and NaN set to -9999 (section 1.5.1's unknown)."""
        import tifffile

        try:
            with _quiet():
                raw = tifffile.imread(self.path, key=0)
        except (tifffile.TiffFileError, ValueError, OSError) as e:
            raise GraphFormatError(self.path, None, f"cannot decode the image: {e}") from None
        if raw.shape != (self.rows, self.cols):
            raise GraphFormatError(self.path, None, f"image of shape {raw.shape}, expected "
                                   f"({self.rows}, {self.cols})")
        values = raw.astype(np.float64)
        unknown = np.isnan(values)
        if self.nodata is not None:
            unknown |= raw == np.asarray(self.nodata).astype(raw.dtype) \
                if np.issubdtype(raw.dtype, np.integer) else values == self.nodata
        values[unknown] = UNKNOWN
        return values


def write_geotiff(path, array, *, nodata=None, tile=None, cell=(30.0, 30.0),
                  corner=(0.0, 0.0)) -> None:
    """A small GeoTIFF (tests, examples): GeoTIFF tags for cell size and corner, GDAL_NODATA."""
    import tifffile

    extratags = [(_PIXEL_SCALE, "d", 3, (cell[0], cell[1], 0.0), False),
                 (_TIEPOINT, "d", 6, (0.0, 0.0, 0.0, corner[0], corner[1], 0.0), False)]
    if nodata is not None:
        extratags.append((_NODATA, "s", 0, f"{nodata:g}", False))
    tifffile.imwrite(path, np.asarray(array), tile=tile, extratags=extratags,
                     photometric="minisblack")
