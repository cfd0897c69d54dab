"""ASCII elevation grids, read in bands of rows so a 221-million-sample file never sits in memory.

Two header dialects, told apart by their first key:

- GRASS ASCII, gerritsen2012 Listing 1.1: ``north: N``, ``south: S``, ``east: E``, ``west: W``,
  ``rows: r``, ``cols: c`` (optional ``null:``, ``type:``, ``multiplier:``), then r rows of c
  numbers, -9999 where unknown.
- ESRI ASCII: ``ncols``, ``nrows``, ``xllcorner``/``xllcenter``, ``yllcorner``/``yllcenter``,
  ``cellsize``, optional ``NODATA_value``.

Either may be gzip-compressed. Errors name the file, the line and the problem.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import numba
import numpy as np

from .. import atomic
from ..errors import GraphFormatError

GRASS_KEYS = {"north", "south", "east", "west", "rows", "cols", "null", "type", "multiplier"}
ESRI_KEYS = {"ncols", "nrows", "xllcorner", "yllcorner", "xllcenter", "yllcenter", "cellsize",
             "nodata_value", "dx", "dy"}
BLOCK = 32 << 20


def _open(path: Path):
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")


class AsciiGrid:
    """An ASCII grid file: ``header`` (dict), ``rows``, ``cols``, ``nodata``, ``dialect``, and
    ``bands(n)`` yielding (first row, float64 array of shape (k, cols)) from the top down."""

    def __init__(self, path):
        self.path = Path(path)
        if not self.path.is_file():
            raise GraphFormatError(self.path, None, "no such file")
        self.header: dict[str, str] = {}
        self.header_lines = 0
        try:
            with _open(self.path) as f:
                while True:
                    raw = f.readline(4096)
                    if not raw:
                        break
                    text = raw.decode("ascii", "replace").strip()
                    key, _, value = text.replace(":", " ", 1).partition(" ")
                    key_l = key.lower()
                    if text and (key_l in GRASS_KEYS or key_l in ESRI_KEYS) and value.strip():
                        self.header[key_l] = value.strip()
                        self.header_lines += 1
                        continue
                    if not text:
                        self.header_lines += 1
                        continue
                    break
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as e:
            raise GraphFormatError(self.path, None, f"cannot read: {e}") from None
        h = self.header
        if "rows" in h or "cols" in h:
            self.dialect = "grass"
            need = ("rows", "cols")
        elif "nrows" in h or "ncols" in h:
            self.dialect = "esri"
            need = ("nrows", "ncols")
        else:
            raise GraphFormatError(self.path, 1, "not an ASCII grid: expected a GRASS header "
                                   "(north:, south:, east:, west:, rows:, cols:) or an ESRI one "
                                   "(ncols, nrows, xllcorner, yllcorner, cellsize)")
        for k in need:
            if k not in h:
                raise GraphFormatError(self.path, self.header_lines, f"header has no {k!r}")
        try:
            self.rows, self.cols = int(h[need[0]]), int(h[need[1]])
        except ValueError:
            raise GraphFormatError(self.path, None, "rows and cols must be integers") from None
        if self.rows < 1 or self.cols < 1:
            raise GraphFormatError(self.path, None, f"empty grid: {self.rows} x {self.cols}")
        nodata = h.get("null", h.get("nodata_value", "-9999"))
        try:
            self.nodata = float(nodata)
        except ValueError:
            raise GraphFormatError(self.path, None, f"bad null/NODATA value {nodata!r}") from None
        multiplier = h.get("multiplier", "1")
        try:
            self.multiplier = float(multiplier)
        except ValueError:
            raise GraphFormatError(self.path, None, f"bad multiplier {multiplier!r}") from None
        if not (np.isfinite(self.multiplier) and self.multiplier > 0):
            raise GraphFormatError(self.path, None, f"multiplier must be a positive number, "
                                   f"not {multiplier!r}")
        self._check_size()

    def _check_size(self) -> None:
        """A header announcing more samples than the file can hold is refused before anything
        is allocated: each sample takes at least two bytes (a digit and a separator), and
        deflate packs at most about 1032 bytes into one."""
        size = self.path.stat().st_size
        gz = self.path.name.lower().endswith(".gz")
        most = size * 1032 + 4096 if gz else size
        least = self.rows * self.cols * 2 - 1
        if least > most:
            raise GraphFormatError(self.path, None, f"the header announces {self.rows:,} x "
                                   f"{self.cols:,} samples, more than a {size:,}-byte "
                                   f"{'gzip ' if gz else ''}file can hold")

    def bands(self, band_rows: int):
        """(first row, array (k, cols)) for consecutive bands of ``band_rows`` rows."""
        try:
            yield from self._bands(band_rows)
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as e:
            raise GraphFormatError(self.path, None, f"cannot read: {e} (a truncated or corrupt "
                                   f"file?)") from None

    def _bands(self, band_rows: int):
        values = np.empty((band_rows, self.cols), dtype=np.float64)
        filled = 0
        row0 = 0
        line = self.header_lines  # lines before the data (1-based numbers follow)
        carry = b""
        with _open(self.path) as f:
            for _ in range(self.header_lines):
                f.readline(4096)
            while True:
                block = f.read(BLOCK)
                data = carry + block
                if not block:
                    if not data.strip():
                        break
                    if not data.endswith(b"\n"):
                        data += b"\n"
                    cut = len(data)
                else:
                    cut = data.rfind(b"\n") + 1
                    if cut == 0:
                        carry = data
                        continue
                carry = data[cut:]
                buf = np.frombuffer(data[:cut], dtype=np.uint8)
                pos = 0
                while pos < len(buf):
                    want = band_rows - filled
                    if row0 + filled + want > self.rows:
                        want = self.rows - row0 - filled
                    got, pos, lines, status, bad_count = _parse_rows(
                        buf, pos, self.cols, values[filled:filled + want].reshape(-1), want)
                    if status == 1:
                        raise GraphFormatError(self.path, line + lines + 1, "bad number")
                    if status == 2:
                        raise GraphFormatError(self.path, line + lines + 1,
                                               f"{bad_count} values, expected cols = {self.cols}")
                    line += lines
                    filled += got
                    if filled == band_rows or (row0 + filled == self.rows and filled):
                        yield row0, values[:filled] * self.multiplier if self.multiplier != 1 \
                            else values[:filled]
                        row0 += filled
                        filled = 0
                        values = np.empty((band_rows, self.cols), dtype=np.float64)
                    if row0 == self.rows:
                        # anything but blank lines after the last row is an error
                        rest = buf[pos:]
                        extra = np.flatnonzero((rest != 10) & (rest != 13) & (rest != 32) & (rest != 9))
                        if len(extra):
                            raise GraphFormatError(
                                self.path, line + int(np.count_nonzero(rest[:extra[0]] == 10)) + 1,
                                f"more rows than the header's {self.rows}")
                        pos = len(buf)
                if not block:
                    break
        if row0 + filled < self.rows:
            raise GraphFormatError(self.path, None, f"the header announces {self.rows} rows but "
                                   f"the file has {row0 + filled}")


@numba.njit(cache=True)
def _parse_rows(buf, pos, cols, out, want):
    """Parse up to ``want`` rows of ``cols`` numbers from ``pos``; blank lines are skipped.

    Returns (rows parsed, new pos, newlines consumed, status, values on the bad line);
    status 0 ok, 1 bad number, 2 wrong count.
    """
    n = len(buf)
    rows = 0
    lines = 0
    k = 0
    while pos < n and rows < want:
        count = 0
        while True:
            while pos < n and (buf[pos] == 32 or buf[pos] == 9 or buf[pos] == 13 or buf[pos] == 44):
                pos += 1
            if pos >= n or buf[pos] == 10:
                break
            neg = False
            if buf[pos] == 45 or buf[pos] == 43:
                neg = buf[pos] == 45
                pos += 1
            mant = 0.0
            digits = 0
            while pos < n and 48 <= buf[pos] <= 57:
                mant = mant * 10.0 + (buf[pos] - 48)
                digits += 1
                pos += 1
            if pos < n and buf[pos] == 46:
                pos += 1
                scale = 0.1
                while pos < n and 48 <= buf[pos] <= 57:
                    mant += (buf[pos] - 48) * scale
                    scale *= 0.1
                    digits += 1
                    pos += 1
            if digits == 0:
                return rows, pos, lines, 1, 0
            if pos < n and (buf[pos] == 101 or buf[pos] == 69):
                pos += 1
                eneg = False
                if pos < n and (buf[pos] == 45 or buf[pos] == 43):
                    eneg = buf[pos] == 45
                    pos += 1
                e = 0
                ed = 0
                while pos < n and 48 <= buf[pos] <= 57:
                    e = e * 10 + (buf[pos] - 48)
                    ed += 1
                    pos += 1
                if ed == 0:
                    return rows, pos, lines, 1, 0
                mant *= 10.0 ** (-e if eneg else e)
            if pos < n and not (buf[pos] == 32 or buf[pos] == 9 or buf[pos] == 13
                                or buf[pos] == 10 or buf[pos] == 44):
                return rows, pos, lines, 1, 0
            if count < cols:
                out[k + count] = -mant if neg else mant
            count += 1
        if count == 0:  # a blank line
            pos += 1
            lines += 1
            continue
        if count != cols:
            return rows, pos, lines, 2, count
        k += cols
        rows += 1
        pos += 1
        lines += 1
    return rows, pos, lines, 0, 0


def write_grass_ascii(path, bands, rows: int, cols: int, *, north: float, west: float,
                      cell: float, decimals: int = 1) -> None:
    """Write a GRASS ASCII grid in Listing 1.1's layout from (first row, array) bands; atomic.

    -9999 (any value <= -9999) is written as the integer ``-9999``; gzip when the name ends .gz.
    """
    path = Path(path)

    def num(v):
        return f"{v:.12g}"

    header = (f"north: {num(north)}\nsouth: {num(north - rows * cell)}\n"
              f"east: {num(west + cols * cell)}\nwest: {num(west)}\nrows: {rows}\ncols: {cols}\n"
              ).encode()
    opener = (lambda p: gzip.open(p, "wb", compresslevel=1)) if path.name.endswith(".gz") \
        else (lambda p: open(p, "wb"))
    written = 0
    with atomic.replacing(path) as tmp, opener(tmp) as f:
        f.write(header)
        for _, band in bands:
            band = np.ascontiguousarray(band, dtype=np.float64)
            buf = np.empty(band.size * 16 + band.shape[0], dtype=np.uint8)
            n = _format_rows(band, decimals, buf)
            f.write(buf[:n].tobytes())
            written += band.shape[0]
        if written != rows:  # raised inside: the file is not put in place
            raise ValueError(f"wrote {written} rows, expected {rows}")


@numba.njit(cache=True)
def _format_rows(band, decimals, buf):
    pos = 0
    scale = 10 ** decimals
    digits = np.empty(24, dtype=np.uint8)
    for r in range(band.shape[0]):
        for c in range(band.shape[1]):
            v = band[r, c]
            if c:
                buf[pos] = 32
                pos += 1
            if v <= -9999.0:
                for ch in (45, 57, 57, 57, 57):
                    buf[pos] = ch
                    pos += 1
                continue
            if v < 0:
                buf[pos] = 45
                pos += 1
                v = -v
            q = np.int64(v * scale + 0.5)
            ip, fp = q // scale, q % scale
            nd = 0
            while True:
                digits[nd] = 48 + ip % 10
                nd += 1
                ip //= 10
                if ip == 0:
                    break
            for i in range(nd - 1, -1, -1):
                buf[pos] = digits[i]
                pos += 1
            if decimals > 0:
                buf[pos] = 46
                pos += 1
                d = scale // 10
                while d > 0:
                    buf[pos] = 48 + (fp // d) % 10
                    pos += 1
                    d //= 10
        buf[pos] = 10
        pos += 1
    return pos
