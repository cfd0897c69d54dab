"""Is this file the dataset? The format's own checks, for files no published checksum vouches for.

Nine of the registry's downloads have no published sha256, so the first file that arrives would
become the truth in the lock. Before that, the whole file is read once, streaming: a gzip stream
must decompress to its end with a good CRC (a truncated transfer cannot), an HTML page is not a
dataset, and the header's counts must agree with the registry's and with the lines that follow
(DIMACS ``p sp n m`` and its ``a`` lines; SNAP's ``# Nodes: N Edges: M`` and its edge lines;
MatrixMarket's size line and its entries; the grid headers' rows and columns).

``validate_dataset_file(path, record)`` is the one entry point: downloads, files put in place by
hand, and offline mirrors all pass the same check.
"""

from __future__ import annotations

import gzip
import lzma
import re
import tarfile
import zlib
from pathlib import Path

from ..bounded import ArchiveBound, BadFile
from ..errors import NUMPY_LOAD_ERRORS, GraphreproError

CHUNK = 1 << 20
HEAD = 1 << 16  # the bytes a header must lie in


class InvalidDatasetFile(GraphreproError):
    """A file that is not the dataset it is meant to be; the message says why."""


def _name_of(path: Path, record) -> str:
    return (getattr(record, "filename", None) or path.name).lower()


def _chunks(path: Path, name: str):
    """The file's content (decompressed where its name says gzip), in chunks."""
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(path, "r:*") as tar:
            members = [m for m in tar.getmembers() if m.isfile() and m.name.lower().endswith(".mtx")]
            stem = re.sub(r"\.(tar\.gz|tgz|tar)$", "", name)
            main = [m for m in members if Path(m.name).name.lower() == f"{stem}.mtx"] or \
                (members if len(members) == 1 else [])
            if not main:
                raise InvalidDatasetFile(f"the archive holds no {stem}.mtx")
            try:
                ArchiveBound(path).check(main[0])
            except BadFile as e:
                raise InvalidDatasetFile(str(e)) from None
            f = tar.extractfile(main[0])
            while block := f.read(CHUNK):
                yield block
        return
    opener = gzip.open if name.endswith(".gz") else lzma.open if name.endswith(".xz") else open
    with opener(path, "rb") as f:
        while block := f.read(CHUNK):
            yield block


class _Lines:
    """Counts over a byte stream without holding it: lines, and lines starting with a byte."""

    def __init__(self, starts: bytes):
        self.starts = starts
        self.newlines = 0
        self.by_start = dict.fromkeys(starts, 0)
        self.blank = 0
        self.prev = b"\n"  # so the file's first line counts as a line start
        self.head = b""
        self.size = 0

    def feed(self, block: bytes) -> None:
        if len(self.head) < HEAD:
            self.head += block[: HEAD - len(self.head)]
        self.size += len(block)
        self.newlines += block.count(b"\n")
        joined = self.prev + block[:1]  # a line start across the chunk boundary
        for c in self.starts:
            mark = b"\n" + bytes([c])
            self.by_start[c] += block.count(mark) + (joined == mark)
        self.blank += block.count(b"\n\n") + (joined == b"\n\n")
        self.prev = block[-1:]

    @property
    def lines(self) -> int:
        return self.newlines + (self.prev != b"\n" and self.size > 0)


def validate_dataset_file(path, record, *, name: str | None = None) -> dict:
    """Raise InvalidDatasetFile unless ``path`` holds ``record``'s dataset (a registry
    ``Dataset``); returns what was found (counts from the header and the body).

    ``name``: the file name that says how it is compressed, where ``path`` is a temporary
    name (``X.gr.gz.part``); default the registry's file name.
    """
    path = Path(path)
    name = (name or _name_of(path, record)).lower()
    fmt = record.format
    starts = {"dimacs": b"acp", "pace": b"cp", "snap": b"#", "mtx": b"%"}.get(fmt, b"")
    lines = _Lines(starts)
    try:
        if fmt in ("npy", "npz"):
            return _check_numpy(path, record)
        if fmt == "geotiff":
            return _check_tiff(path)
        for block in _chunks(path, name):
            lines.feed(block)
    except InvalidDatasetFile:
        raise
    except (OSError, EOFError, zlib.error, tarfile.TarError, lzma.LZMAError) as e:
        if isinstance(e, (FileNotFoundError, PermissionError)):
            raise
        raise InvalidDatasetFile(f"not a whole {'gzip ' if name.endswith('gz') else ''}file: "
                                 f"{e} (a truncated or corrupt download)") from None
    head = lines.head.lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html", b"<?xml", b"<head")):
        raise InvalidDatasetFile("an HTML page, not the dataset (a login, error or mirror page?)")
    if lines.size == 0:
        raise InvalidDatasetFile("empty")
    if lines.prev != b"\n" and not name.endswith((".gz", ".xz", ".tgz", ".tar")):
        # no CRC guards a plain file's end: a cut inside the last line would still count it
        raise InvalidDatasetFile("the last line has no newline (a truncated file?)")
    text = lines.head.decode("utf-8", "replace")
    check = {"dimacs": _dimacs, "pace": _pace, "snap": _snap, "mtx": _mtx, "grass_ascii": _grass,
             "esri_ascii": _esri}.get(fmt)
    return check(text, lines, record) if check else {}


def _expect(what: str, found: int, want) -> None:
    if want is not None and found != want:
        raise InvalidDatasetFile(f"{what} {found:,}, the registry says {want:,}")


def _problem_line(text, tag: str, unit: str, fmt: str, ds) -> tuple[int, int]:
    """The header's ``p <tag> <vertices> <count>`` line, its vertex count held to the registry."""
    m = re.search(rf"^p\s+{tag}\s+(\d+)\s+(\d+)\s*$", text, re.M)
    if not m:
        raise InvalidDatasetFile(f"no 'p {tag} <vertices> <{unit}s>' line in the header: not {fmt}")
    n, count = int(m.group(1)), int(m.group(2))
    _expect(f"the 'p {tag}' line announces vertices", n, ds.vertices)
    return n, count


def _expect_lines(found: int, count: int, unit: str, tag: str) -> None:
    if found != count:
        raise InvalidDatasetFile(f"{found:,} {unit} lines, the 'p {tag}' line announces "
                                 f"{count:,} (a truncated file?)")


def _dimacs(text, lines, ds) -> dict:
    n, arcs = _problem_line(text, "sp", "arc", "DIMACS", ds)
    _expect("the 'p sp' line announces arcs", arcs, ds.arcs)
    _expect_lines(lines.by_start[ord("a")], arcs, "arc", "sp")
    return {"vertices": n, "arcs": arcs}


def _pace(text, lines, ds) -> dict:
    """PACE 2016 road topologies: ``p tw n m``, then one ``u v`` line per undirected edge."""
    n, edges = _problem_line(text, "tw", "edge", "PACE 2016", ds)
    _expect_lines(lines.lines - lines.by_start[ord("c")] - lines.by_start[ord("p")] - lines.blank,
                  edges, "edge", "tw")
    return {"vertices": n, "edges": edges}


def _check_tiff(path: Path) -> dict:
    """A GeoTIFF must at least be a TIFF that tifffile opens with one 2-D image."""
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic[:2] not in (b"II", b"MM"):
        raise InvalidDatasetFile("not a TIFF file (no II/MM byte-order mark)")
    try:
        import tifffile

        with tifffile.TiffFile(path) as tif:
            shape = tif.pages[0].shape
    except Exception as e:  # noqa: BLE001  (any reader failure means: not this dataset)
        raise InvalidDatasetFile(f"not a readable TIFF: {e}") from None
    if len(shape) < 2:
        raise InvalidDatasetFile(f"a TIFF without a 2-D image (shape {shape})")
    return {"rows": int(shape[0]), "cols": int(shape[1])}


def _snap(text, lines, ds) -> dict:
    comments = lines.by_start[ord("#")]
    data = lines.lines - comments - lines.blank
    m = re.search(r"Nodes:\s*(\d+)\s+Edges:\s*(\d+)", text)
    if m:
        nodes, edges = int(m.group(1)), int(m.group(2))
        if data != edges:
            raise InvalidDatasetFile(f"{data:,} edge lines, the header announces {edges:,} "
                                     f"(a truncated file?)")
        if ds.snap_vertices == "present":
            _expect("the header announces nodes", nodes, ds.vertices)
        elif ds.vertices is not None and nodes > ds.vertices:
            raise InvalidDatasetFile(f"the header announces {nodes:,} nodes, more than the "
                                     f"registry's {ds.vertices:,}")
    if not re.search(r"^\s*\d+\s+\d+", text, re.M):
        raise InvalidDatasetFile("no 'from to' edge line near the top: not a SNAP edge list")
    _expect("edge lines", data, ds.arcs)
    return {"edges": data}


def _mtx(text, lines, ds) -> dict:
    if not text.lower().startswith("%%matrixmarket"):
        raise InvalidDatasetFile("no %%MatrixMarket banner: not a MatrixMarket file")
    m = re.search(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s*$", text, re.M)
    if not m:
        raise InvalidDatasetFile("no 'rows cols entries' size line")
    rows, nnz = int(m.group(1)), int(m.group(3))
    _expect("rows", rows, ds.vertices)
    comments = lines.by_start[ord("%")]  # the banner among them
    entries = lines.lines - comments - lines.blank - 1  # less the size line
    if entries != nnz:
        raise InvalidDatasetFile(f"{entries:,} entry lines, the size line announces {nnz:,} "
                                 f"(a truncated file?)")
    return {"rows": rows, "entries": nnz}


def _grid_header(text, keys) -> dict:
    found = {}
    for line in text.splitlines()[:12]:
        parts = line.replace(":", " ").split()
        if len(parts) == 2 and parts[0].lower() in keys:
            try:
                found[parts[0].lower()] = int(float(parts[1]))
            except ValueError:
                raise InvalidDatasetFile(f"header line {line.strip()!r}: not a number") from None
    return found


def _grid(text, lines, ds, rows_key, cols_key, header_lines) -> dict:
    h = _grid_header(text, {rows_key, cols_key})
    if rows_key not in h or cols_key not in h:
        raise InvalidDatasetFile(f"no {rows_key}/{cols_key} header: not this grid format")
    _expect("rows", h[rows_key], ds.rows)
    _expect("columns", h[cols_key], ds.cols)
    data = lines.lines - lines.blank - header_lines(text)
    if data < h[rows_key]:
        raise InvalidDatasetFile(f"{data:,} data rows, the header announces {h[rows_key]:,} "
                                 f"(a truncated file?)")
    return {"rows": h[rows_key], "cols": h[cols_key]}


def _count_header(text, keys) -> int:
    n = 0
    for line in text.splitlines():
        first = line.replace(":", " ").split()[:1]
        if first and first[0].lower() in keys:
            n += 1
        elif line.strip():
            break
    return n


_GRASS = {"north", "south", "east", "west", "rows", "cols", "null", "type", "multiplier"}
_ESRI = {"ncols", "nrows", "xllcorner", "yllcorner", "xllcenter", "yllcenter", "cellsize",
         "nodata_value", "dx", "dy"}


def _grass(text, lines, ds) -> dict:
    return _grid(text, lines, ds, "rows", "cols", lambda t: _count_header(t, _GRASS))


def _esri(text, lines, ds) -> dict:
    return _grid(text, lines, ds, "nrows", "ncols", lambda t: _count_header(t, _ESRI))


def _check_numpy(path: Path, ds) -> dict:
    import zipfile

    import numpy as np

    try:
        if ds.format == "npy":  # a memory map checks the header against the file's length
            shape = np.load(path, mmap_mode="r", allow_pickle=False).shape
            if ds.rows and ds.cols and tuple(shape) != (ds.rows, ds.cols):
                raise InvalidDatasetFile(f"shape {tuple(shape)}, the registry says "
                                         f"({ds.rows}, {ds.cols})")
            return {"shape": tuple(shape)}
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            if bad:
                raise InvalidDatasetFile(f"member {bad} fails its CRC")
        return {}
    except InvalidDatasetFile:
        raise
    except NUMPY_LOAD_ERRORS as e:
        raise InvalidDatasetFile(f"not a whole {ds.format} file: {e}") from None
