"""Readers for the graph formats the documents' datasets come in, and a DIMACS writer.

- DIMACS 9th challenge ``.gr``: ``c`` comments, one ``p sp n m`` line, ``a u v w`` arcs, 1-based.
- PACE 2016 ``.gr`` (the road topologies of ben-strasser/road-graphs-pace16): ``c`` comments,
  ``p tw n m``, then one ``u v`` line per undirected edge, 1-based, no weights. Told from DIMACS
  by its problem line, so ``.gr`` serves both; every edge becomes two arcs of weight 1.
- SNAP edge lists ``.txt``: ``#`` comments, ``u v`` or ``u v w`` per line; ids as in the file, not
  necessarily contiguous. Without a weight column every arc weighs 1; arcs are taken as listed.
  SNAP's own header comment ``# Nodes: N Edges: M`` is checked where present.
- MatrixMarket ``.mtx`` coordinate: banner, ``%`` comments, ``rows cols nnz``, ``i j [value]``,
  1-based; ``symmetric`` matrices give both arcs of each off-diagonal entry.

Any of them may be gzip- or xz-compressed (``.gz``, ``.xz``); a ``.tar.gz`` / ``.tgz`` archive (as SuiteSparse
ships its matrices: ``<Name>/<Name>.mtx`` inside) is read without unpacking it to disk. The bulk of each file is tokenised by one numba
loop over the raw bytes, so a malformed line is found without slowing the good path, and every
error names the file, the line and the problem.
"""

from __future__ import annotations

import gzip
import lzma
import re
import tarfile
import zlib
from pathlib import Path

import numba
import numpy as np

from ..atomic import replacing
from ..bounded import ArchiveBound, BadFile
from ..errors import GraphFormatError, InputError
from .csr import CSRGraph, csr_bytes, host_memory, host_memory_problem

FORMATS = ("dimacs", "snap", "mtx", "pace")
_SUFFIXES = {".gr": "dimacs", ".txt": "snap", ".el": "snap", ".tsv": "snap", ".mtx": "mtx"}

_OK, _BAD_NUMBER, _LINE_TYPE, _FIELD_COUNT, _TOO_MANY = range(5)
_PROBLEMS = {
    _BAD_NUMBER: "bad number",
    _LINE_TYPE: "unexpected line (expected {expect})",
    _FIELD_COUNT: "wrong number of fields (expected {fields})",
}


SNAP_VERTICES = ("present", "max_id")


def _is_tar(path) -> bool:
    name = Path(path).name.lower()
    return name.endswith((".tar.gz", ".tgz", ".tar"))


def detect_format(path) -> str:
    name = Path(path).name.lower()
    if _is_tar(name):
        return "mtx"  # the only format that comes in archives (SuiteSparse); the member is checked
    if name.endswith((".gz", ".xz")):
        name = name[:-3]
    suffix = Path(name).suffix
    if suffix not in _SUFFIXES:
        raise GraphFormatError(path, None, f"cannot tell the format from the extension "
                               f"{suffix or '(none)'}; use .gr, .txt or .mtx or pass --format")
    return _SUFFIXES[suffix]


def read_graph(path, format: str | None = None, name: str | None = None, *,
               snap_vertices: str = "present", mtx_values: str = "weights") -> CSRGraph:
    """Read a graph file into CSR; ``format`` overrides the extension ('dimacs', 'snap', 'mtx').

    ``snap_vertices``: 'present' (default) makes the vertex set the ids that occur in the file,
    renumbered densely with ``labels`` mapping back; 'max_id' makes it 0..max id, so ids absent
    from the file become isolated vertices (how safari2017 Table 1 counts roadNet-PA/CA).
    ``mtx_values``: 'weights' (default) reads integer values as weights; 'ignore' keeps only the
    sparsity pattern (every stored entry, explicit zeros included) with weight 1, for matrices
    whose values are not distances (msdoor's real stiffness coefficients).
    """
    path = Path(path)
    fmt = format or detect_format(path)
    if fmt not in FORMATS:
        raise GraphFormatError(path, None, f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    if snap_vertices not in SNAP_VERTICES:
        raise GraphFormatError(path, None, f"snap_vertices must be one of {SNAP_VERTICES}")
    if mtx_values not in ("weights", "ignore"):
        raise GraphFormatError(path, None, "mtx_values must be 'weights' or 'ignore'")
    if not path.is_file():
        raise GraphFormatError(path, None, "no such file")
    where, buf = _read_bytes(path, fmt)
    try:
        if fmt in ("dimacs", "pace"):
            graph = _read_dimacs(where, buf, pace=fmt == "pace")
        elif fmt == "snap":
            graph = _read_snap(where, buf, snap_vertices)
        else:
            graph = _read_mtx(where, buf, mtx_values == "ignore")
    except InputError as e:  # from_arcs: sums that could pass int64 (the message says why)
        raise GraphFormatError(where, None, str(e).removeprefix("graph: ")) from None
    graph.name = name or _stem(path)
    return graph


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".xz", ".tgz", ".tar", ".gr", ".txt", ".mtx", ".el", ".tsv"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _read_bytes(path: Path, fmt: str) -> tuple[str, np.ndarray]:
    """(the name errors should use, the file's bytes); archives name their member too."""
    try:
        if _is_tar(path):
            return _read_tar_member(path, fmt)
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as f:
                data = _bounded_read(f, path, fmt)
        elif path.name.lower().endswith(".xz"):
            with lzma.open(path, "rb") as f:
                data = _bounded_read(f, path, fmt)
        else:
            data = path.read_bytes()
    except (OSError, EOFError, gzip.BadGzipFile, tarfile.TarError, zlib.error,
            lzma.LZMAError) as e:
        what = e.strerror if isinstance(e, OSError) and e.strerror else e
        raise GraphFormatError(path, None, f"cannot read: {what}") from None
    return str(path), np.frombuffer(data, dtype=np.uint8)


# Bytes a data line may take: three numbers of at most 18 digits (the scanner's limit) and their
# separators, with room for padding. A compressed file that expands past its header's lines at
# this width plus some slack is refused while it is read, not after it has filled the memory.
_LINE_BYTES = 128
_SLACK = 1 << 20
_CHUNK = 1 << 22
_ANNOUNCED = {
    "dimacs": re.compile(rb"^p[ \t]+(?:sp|tw)[ \t]+\d+[ \t]+(\d+)", re.M),
    "pace": re.compile(rb"^p[ \t]+tw[ \t]+\d+[ \t]+(\d+)", re.M),
    "snap": re.compile(rb"^#.*Edges:[ \t]*(\d+)", re.M),
    "mtx": re.compile(rb"^[ \t]*\d+[ \t]+\d+[ \t]+(\d+)[ \t]*\r?$", re.M),
}


def _bounded_read(f, path, fmt: str) -> bytearray:
    """All of a decompressing stream, refused as soon as it grows past what the header announces
    (or, without a header count, past half of this machine's memory)."""
    host = host_memory()
    limit = host // 2 if host else None
    announced = None
    data = bytearray()
    while chunk := f.read(_CHUNK):
        data += chunk
        if announced is None:
            found = _ANNOUNCED[fmt].search(data, 0, 1 << 20)
            if found:
                announced = int(found.group(1))
                own = found.end() + announced * _LINE_BYTES + _SLACK
                limit = own if limit is None else min(limit, own)
        if limit is not None and len(data) > limit:
            said = (f"more than its header's {announced:,} lines can take" if announced is not None
                    else "more than half of this machine's memory")
            raise GraphFormatError(path, None, f"expands to over {limit:,} bytes, {said}: a "
                                   "compression bomb or a damaged file; refused while reading")
    return data


def _read_tar_member(path: Path, fmt: str = "mtx") -> tuple[str, np.ndarray]:
    """The matrix of a SuiteSparse archive: ``<Name>/<Name>.mtx``, or the archive's only .mtx.

    SuiteSparse archives may also hold right-hand sides or coordinates (``<Name>_b.mtx``,
    ``<Name>_coord.mtx``), so "the only .mtx" is not enough in general.
    """
    with tarfile.open(path, "r:*") as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.lower().endswith(".mtx")]
        stem = _stem(path)
        main = [m for m in members if Path(m.name).name == f"{stem}.mtx"]
        if not main and len(members) == 1:
            main = members
        if not main:
            listed = ", ".join(m.name for m in members) or "none"
            raise GraphFormatError(path, None, f"archive holds no {stem}.mtx (.mtx members: {listed})")
        try:
            ArchiveBound(path).check(main[0])
        except BadFile as e:
            raise GraphFormatError(path, None, str(e).removeprefix(f"{path}: ")) from None
        data = _bounded_read(tar.extractfile(main[0]), f"{path}!{main[0].name}", fmt)
    return f"{path}!{main[0].name}", np.frombuffer(data, dtype=np.uint8)


# --- the byte-level scanner -------------------------------------------------------------------

@numba.njit(cache=True)
def _is_space(c):
    return c == 32 or c == 9 or c == 13


@numba.njit(cache=True)
def _scan(buf, pos, prefix, comment, nfields, out, ignore_rest=False):
    """Parse data lines from byte ``pos`` on into ``out[row, field]``.

    Lines starting with ``comment`` and blank lines are skipped; with ``prefix`` != 0 every data
    line must start with that character; with ``ignore_rest`` whatever follows the first
    ``nfields`` fields is skipped unread. Returns (rows, status, byte offset of the bad line).
    """
    n = len(buf)
    row = 0
    while pos < n:
        line = pos
        while pos < n and _is_space(buf[pos]):
            pos += 1
        if pos >= n:
            break
        c = buf[pos]
        if c == 10:
            pos += 1
            continue
        if c == comment:
            while pos < n and buf[pos] != 10:
                pos += 1
            pos += 1
            continue
        if prefix != 0:
            if c != prefix or pos + 1 >= n or not _is_space(buf[pos + 1]):
                return row, 2, line  # _LINE_TYPE
            pos += 1
        if row >= out.shape[0]:
            return row, 4, line  # _TOO_MANY
        for f in range(nfields):
            while pos < n and _is_space(buf[pos]):
                pos += 1
            if pos >= n or buf[pos] == 10:
                return row, 3, line  # _FIELD_COUNT
            negative = False
            if buf[pos] == 45:  # '-'
                negative = True
                pos += 1
            value = 0
            digits = 0
            while pos < n and 48 <= buf[pos] <= 57:
                value = value * 10 + (buf[pos] - 48)
                digits += 1
                pos += 1
            if digits == 0 or digits > 18 or (pos < n and not _is_space(buf[pos]) and buf[pos] != 10):
                return row, 1, line  # _BAD_NUMBER
            out[row, f] = -value if negative else value
        if ignore_rest:
            while pos < n and buf[pos] != 10:
                pos += 1
        while pos < n and _is_space(buf[pos]):
            pos += 1
        if pos < n and buf[pos] != 10:
            return row, 3, line  # _FIELD_COUNT: trailing fields
        pos += 1
        row += 1
    return row, 0, -1


@numba.njit(cache=True)
def _offset_of_row(buf, pos, prefix, comment, target):
    """Byte offset of data row ``target`` (0-based), scanning as ``_scan`` does; for error messages."""
    n = len(buf)
    row = 0
    while pos < n:
        line = pos
        while pos < n and _is_space(buf[pos]):
            pos += 1
        if pos < n and buf[pos] != 10 and buf[pos] != comment:
            if row == target:
                return line
            row += 1
        while pos < n and buf[pos] != 10:
            pos += 1
        pos += 1
    return -1


def _line_number(buf: np.ndarray, offset: int) -> int:
    return int(np.count_nonzero(buf[:offset] == 10)) + 1


class _Body:
    """The data lines of one file: parsed columns plus enough to point at any row's line."""

    def __init__(self, path, buf, start, prefix, comment, nfields, expect, ignore_rest=False):
        self.path, self.buf, self.start = path, buf, start
        self.prefix = ord(prefix) if prefix else 0
        self.comment = ord(comment)
        capacity = int(np.count_nonzero(buf[start:] == 10)) + 1
        out = np.empty((capacity, nfields), dtype=np.int64)
        rows, status, bad = _scan(buf, start, self.prefix, self.comment, nfields, out, ignore_rest)
        if status != _OK:
            problem = _PROBLEMS[status].format(expect=expect, fields=nfields)
            if status == _BAD_NUMBER and "integers" in expect:
                problem += " (weights must be integers)"
            raise GraphFormatError(path, _line_number(buf, bad), problem)
        self.columns = out[:rows]

    def fail(self, row: int, problem: str):
        offset = _offset_of_row(self.buf, self.start, self.prefix, self.comment, row)
        raise GraphFormatError(self.path, _line_number(self.buf, offset), problem)

    def check_range(self, col: int, lo: int, hi: int, what: str):
        values = self.columns[:, col]
        bad = np.flatnonzero((values < lo) | (values > hi))
        if len(bad):
            self.fail(int(bad[0]), f"{what} {int(values[bad[0]])} out of range {lo}..{hi}")

    def check_weights(self, col: int):
        bad = np.flatnonzero(self.columns[:, col] < 0)
        if len(bad):
            self.fail(int(bad[0]), f"negative weight {int(self.columns[bad[0], col])}")


def _header_lines(buf: np.ndarray):
    """Yield (line number, byte offset of the next line, text) for each line, from the top.

    Readers stop after the few header lines they need, so this never walks the whole file.
    """
    pos, number, n = 0, 1, len(buf)
    while pos < n:
        end, window = n, 4096
        while True:  # widen the search until a newline turns up or the file ends
            nl = np.flatnonzero(buf[pos: pos + window] == 10)
            if len(nl):
                end = pos + int(nl[0])
                break
            if pos + window >= n:
                break
            window *= 4
        text = bytes(buf[pos:end]).decode("utf-8", "replace").strip()
        yield number, end + 1, text
        pos, number = end + 1, number + 1


def _ints(path, number, fields, what):
    try:
        return [int(x) for x in fields]
    except ValueError:
        raise GraphFormatError(path, number, f"bad number in {what}") from None


# --- DIMACS -----------------------------------------------------------------------------------

def _read_dimacs(path, buf, pace: bool = False) -> CSRGraph:
    for number, next_pos, text in _header_lines(buf):
        if not text or text.startswith("c"):
            continue
        fields = text.split()
        if fields[0] != "p":
            raise GraphFormatError(path, number, "arc before the 'p sp n m' problem line")
        if len(fields) == 4 and fields[1] == "tw":
            return _read_pace(path, buf, number, next_pos, fields)
        if pace:
            raise GraphFormatError(path, number, "problem line must be 'p tw <vertices> <edges>'")
        if len(fields) != 4 or fields[1] != "sp":
            raise GraphFormatError(path, number, "problem line must be 'p sp <vertices> <arcs>' "
                                   "(DIMACS) or 'p tw <vertices> <edges>' (PACE 2016)")
        n, m = _ints(path, number, fields[2:], "problem line")
        if n < 0 or m < 0:
            raise GraphFormatError(path, number, "negative count in the problem line")
        _check_announced(path, number, n, m, f"{n:,} vertices and {m:,} arcs")
        break
    else:
        raise GraphFormatError(path, None, "no 'p sp n m' problem line")
    body = _Body(path, buf, next_pos, "a", "c", 3, "'a u v w' or a 'c' comment")
    cols = _announced_pairs(body, path, number, n, m, "arcs")
    body.check_weights(2)
    return CSRGraph.from_arcs(n, cols[:, 0] - 1, cols[:, 1] - 1, cols[:, 2], base=1)


def _check_announced(path, number, n: int, arcs: int, what: str) -> None:
    """Refuse a header whose counts this machine cannot build, before anything is allocated."""
    problem = host_memory_problem(csr_bytes(n, arcs))
    if problem:
        raise GraphFormatError(path, number, f"the header announces {what}: that graph {problem}")


def _announced_pairs(body, path, number: int, n: int, m: int, unit: str):
    """The body's columns, as many rows as the problem line announced, with both endpoints
    1-based vertex ids up to n (DIMACS arcs and PACE edges alike)."""
    cols = body.columns
    if len(cols) != m:
        raise GraphFormatError(path, number, f"the problem line announces {m} {unit} but the "
                               f"file has {len(cols)}")
    body.check_range(0, 1, n, "vertex")
    body.check_range(1, 1, n, "vertex")
    return cols


def _read_pace(path, buf, number, next_pos, fields) -> CSRGraph:
    """PACE 2016: ``p tw n m`` and m undirected edges ``u v``; each edge both ways, weight 1."""
    n, m = _ints(path, number, fields[2:], "problem line")
    if n < 0 or m < 0:
        raise GraphFormatError(path, number, "negative count in the problem line")
    _check_announced(path, number, n, 2 * m, f"{n:,} vertices and {m:,} edges")
    body = _Body(path, buf, next_pos, None, "c", 2, "'u v' or a 'c' comment")
    cols = _announced_pairs(body, path, number, n, m, "edges")
    u, v = cols[:, 0] - 1, cols[:, 1] - 1
    return CSRGraph.from_arcs(n, np.concatenate([u, v]), np.concatenate([v, u]),
                              np.ones(2 * len(cols), dtype=np.int32), base=1)


def write_dimacs(graph: CSRGraph, path, comment: str = "") -> None:
    """Write DIMACS ``.gr`` (gzip when the name ends in .gz), atomically."""
    path = Path(path)
    src = graph.arc_sources().astype(np.int64) + 1
    lines = ["c " + line for line in comment.splitlines()]
    lines.append(f"p sp {graph.num_vertices} {graph.num_arcs}")
    head = ("\n".join(lines) + "\n").encode()
    import pandas as pd  # its C writer is ~20x faster than np.savetxt on millions of arcs

    table = pd.DataFrame({"a": np.full(graph.num_arcs, "a"), "u": src,
                          "v": graph.indices.astype(np.int64) + 1, "w": graph.weights})
    opener = gzip.open if path.name.endswith(".gz") else open
    with replacing(path) as tmp, opener(tmp, "wb") as f:
        f.write(head)
        f.write(table.to_csv(sep=" ", header=False, index=False, lineterminator="\n").encode())


# --- SNAP -------------------------------------------------------------------------------------

_SNAP_COUNTS = re.compile(r"Nodes:\s*(\d+)\s+Edges:\s*(\d+)")


def _read_snap(path, buf, vertices: str = "present") -> CSRGraph:
    announced = None  # SNAP's header comment "# Nodes: N Edges: M", where the file has one
    for number, _, text in _header_lines(buf):
        if text.startswith("#") and announced is None:
            found = _SNAP_COUNTS.search(text)
            if found:
                announced = (number, int(found.group(1)), int(found.group(2)))
        if text and not text.startswith("#"):
            nfields = len(text.split())
            break
    else:
        raise GraphFormatError(path, None, "no edges: only comments or blank lines")
    if nfields not in (2, 3):
        raise GraphFormatError(path, number, "expected 'from to' or 'from to weight'")
    body = _Body(path, buf, 0, None, "#", nfields, "an edge line")
    cols = body.columns
    body.check_range(0, 0, np.iinfo(np.int64).max, "vertex id")
    body.check_range(1, 0, np.iinfo(np.int64).max, "vertex id")
    if nfields == 3:
        body.check_weights(2)
        weights = cols[:, 2]
    else:
        weights = np.ones(len(cols), dtype=np.int32)
    if announced is not None:  # catches a truncated download that still decompresses
        line, nodes, edges = announced
        if edges != len(cols):
            raise GraphFormatError(path, line, f"the header announces {edges} edges but the "
                                   f"file has {len(cols)}")
        present = len(np.unique(cols[:, :2]))
        if nodes != present:
            raise GraphFormatError(path, line, f"the header announces {nodes} nodes but the "
                                   f"file's edges name {present}")
    if vertices == "max_id":
        n = int(cols[:, :2].max()) + 1 if len(cols) else 0
        problem = host_memory_problem(csr_bytes(n, len(cols)))
        if problem:
            body.fail(int(np.argmax(cols[:, :2].max(axis=1))),
                      f"vertex id {n - 1} numbers 0..max id: a graph of {n:,} vertices {problem}")
        if n > np.iinfo(np.int32).max:
            body.fail(int(np.argmax(cols[:, :2].max(axis=1))),
                      f"vertex id {n - 1} is too large to number vertices 0..max id")
        return CSRGraph.from_arcs(n, cols[:, 0], cols[:, 1], weights, base=0)
    labels, inverse = np.unique(cols[:, :2], return_inverse=True)
    inverse = inverse.reshape(-1, 2)
    return CSRGraph.from_arcs(len(labels), inverse[:, 0], inverse[:, 1], weights, labels=labels)


# --- MatrixMarket -----------------------------------------------------------------------------

def _read_mtx(path, buf, ignore_values: bool = False) -> CSRGraph:
    lines = _header_lines(buf)
    number, _, banner = next(lines, (1, 0, ""))
    parts = banner.lower().split()
    if len(parts) != 5 or parts[0] != "%%matrixmarket" or parts[1] != "matrix":
        raise GraphFormatError(path, number, "not a MatrixMarket file: expected "
                               "'%%MatrixMarket matrix coordinate <field> <symmetry>'")
    _, _, layout, field, symmetry = parts
    if layout != "coordinate":
        raise GraphFormatError(path, number, "only coordinate (sparse) matrices are graphs")
    if field not in ("integer", "pattern", "real"):
        raise GraphFormatError(path, number, f"field {field!r} is not supported")
    if symmetry not in ("general", "symmetric"):
        raise GraphFormatError(path, number, f"symmetry {symmetry!r} is not supported")
    for number, next_pos, text in lines:
        if text and not text.startswith("%"):
            size = text.split()
            if len(size) != 3:
                raise GraphFormatError(path, number, "size line must be 'rows cols entries'")
            rows, cols_, nnz = _ints(path, number, size, "size line")
            if min(rows, cols_, nnz) < 0:
                raise GraphFormatError(path, number, "negative count in the size line")
            break
    else:
        raise GraphFormatError(path, None, "no size line")
    if rows != cols_:
        raise GraphFormatError(path, number, f"a graph needs a square matrix, not {rows} x {cols_}")
    _check_announced(path, number, rows, 2 * nnz, f"{rows:,} rows and {nnz:,} entries")
    nfields = 2 if field == "pattern" or ignore_values else 3
    body = _Body(path, buf, next_pos, None, "%", nfields,
                 "an entry line" + (" (weights must be integers)" if field == "real" else ""),
                 ignore_rest=ignore_values and field != "pattern")
    cols = body.columns
    if len(cols) != nnz:
        raise GraphFormatError(path, number, f"the size line announces {nnz} entries but the file "
                               f"has {len(cols)}")
    body.check_range(0, 1, rows, "row")
    body.check_range(1, 1, rows, "column")
    if nfields == 3:
        body.check_weights(2)
        weights = cols[:, 2]
    else:
        weights = np.ones(len(cols), dtype=np.int64)
    src, dst = cols[:, 0] - 1, cols[:, 1] - 1
    if symmetry == "symmetric":
        off = src != dst
        src, dst, weights = (np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]]),
                             np.concatenate([weights, weights[off]]))
    return CSRGraph.from_arcs(rows, src, dst, weights, base=1)
