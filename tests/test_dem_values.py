"""DEM values: a positive NODATA is unknown, not an elevation; values past the sample type are
refused, never cast to 0; a header that promises more than the file holds ends in one line and
leaves no sparse .part behind."""

import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrepro.errors import ExitCode, GraphFormatError, InputError
from graphrepro.harness.files import DamagedFile
from graphrepro.terrain import convert_file, open_zgrid, to_rows


def grass(values, nodata=None, rows=None, cols=None) -> str:
    r, c = np.shape(values)
    head = (f"north: 1\nsouth: 0\neast: 1\nwest: 0\nrows: {rows or r}\ncols: {cols or c}\n"
            + (f"null: {nodata}\n" if nodata is not None else ""))
    return head + "".join(" ".join(f"{v:g}" for v in row) + "\n" for row in values)


def esri(values, nodata) -> str:
    r, c = np.shape(values)
    return (f"ncols {c}\nnrows {r}\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value {nodata}\n"
            + "".join(" ".join(f"{v:g}" for v in row) + "\n" for row in values))


def leftovers(d):
    return sorted(p.name for p in d.iterdir() if ".part" in p.name)  # the writers' temporaries


@settings(max_examples=40, deadline=None)
@given(nodata=st.sampled_from([32767, 65535, 9999, 255, 1]),
       grid=st.lists(st.lists(st.integers(0, 3000), min_size=3, max_size=3), min_size=2,
                     max_size=5),
       holes=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), max_size=4),
       dialect=st.sampled_from(["grass", "esri"]))
def test_a_positive_nodata_is_unknown_not_an_elevation(tmp_path_factory, nodata, grid, holes,
                                                       dialect):
    d = tmp_path_factory.mktemp("nodata")
    values = np.array(grid, dtype=np.int64)
    values[values == nodata] = 0  # the value only where a hole is
    for r, c in holes:
        if r < len(values):
            values[r, c] = nodata
    (d / "g.asc").write_text(grass(values, nodata) if dialect == "grass" else esri(values, nodata))
    meta = convert_file(d / "g.asc", d / "g.zgrid")
    z, m = open_zgrid(d / "g.zgrid")
    want = np.where(values == nodata, 0, values)
    assert to_rows(z, m).tolist() == want.tolist()
    assert meta["unknown_values"] == int((values == nodata).sum())
    assert meta["max"] == int(want.max())


@pytest.mark.parametrize("value, dtype", [(1e20, "uint32"), (1e300, "uint32"), (np.inf, "uint32"),
                                          (65535.5, "uint16"), (2**32, "uint32")])
@pytest.mark.parametrize("ascii", [True, False])
def test_values_past_the_sample_type_are_refused_not_zeroed(tmp_path, value, dtype, ascii):
    if ascii and np.isinf(value):
        pytest.skip("ASCII grids hold numbers; inf comes in .npy")
    grid = [[1, 2], [3, value]]
    if ascii:
        (tmp_path / "g.asc").write_text(grass(grid))
    else:
        np.save(tmp_path / "g.npy", np.array(grid, dtype=np.float64))
    with pytest.raises(InputError, match="does not fit " + dtype):
        convert_file(tmp_path / ("g.asc" if ascii else "g.npy"), tmp_path / "g.zgrid", dtype=dtype)
    assert not (tmp_path / "g.zgrid").exists() and leftovers(tmp_path) == []


def test_the_largest_value_that_fits_is_kept(tmp_path):
    (tmp_path / "g.asc").write_text(grass([[1, 65535], [65534.4, 0]]))
    convert_file(tmp_path / "g.asc", tmp_path / "g.zgrid")
    z, m = open_zgrid(tmp_path / "g.zgrid")
    assert to_rows(z, m).tolist() == [[1, 65535], [65534, 0]]


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(10**3, 10**7), cols=st.integers(10**3, 10**7), gz=st.booleans())
def test_a_huge_header_over_little_data_is_refused_at_once(tmp_path_factory, rows, cols, gz):
    d = tmp_path_factory.mktemp("huge")
    text = grass([[1, 2, 3]] * 3, rows=rows, cols=cols).encode()
    path = d / ("g.asc.gz" if gz else "g.asc")
    path.write_bytes(gzip.compress(text) if gz else text)
    with pytest.raises(GraphFormatError, match="more than a .*file can hold"):
        convert_file(path, d / "g.zgrid")
    assert leftovers(d) == [] and not (d / "g.zgrid").exists()


def test_a_plausible_header_over_a_short_body_leaves_no_part(tmp_path):
    """2000^2 zeros compress to a few kB, so only the rows themselves can tell."""
    text = grass(np.zeros((1999, 2000), dtype=int), rows=2000).encode()
    (tmp_path / "g.asc.gz").write_bytes(gzip.compress(text))
    with pytest.raises(GraphFormatError, match="announces 2000 rows but the file has 1999"):
        convert_file(tmp_path / "g.asc.gz", tmp_path / "g.zgrid")
    assert leftovers(tmp_path) == []


def _npy_bytes(shape, dtype="<f8", body=b""):
    head = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape}, }}".encode()
    head += b" " * (63 - (len(head) + 10) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head + body


@pytest.mark.parametrize("name, data, says", [
    ("a.npy", _npy_bytes((100000, 100000), body=b"\0" * 64), "not a readable array file"),
    ("b.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': garbage", "not a readable array file"),
    ("c.npy", _npy_bytes((2, 2), dtype="|O", body=b"\0" * 32), "not a readable array file"),
    ("d.npz", b"PK\x03\x04 not really a zip", "not a readable array file"),
    ("e.asc", b"rows: 2\ncols: 2\nmultiplier: lots\n1 2\n3 4\n", "bad multiplier"),
    ("f.asc.gz", gzip.compress(b"rows: 2\ncols: 2\n1 2\n3 4\n" * 50)[:-30], "cannot read"),
])
def test_malformed_grid_files_end_in_one_line(tmp_path, name, data, says):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(GraphFormatError, match=says):
        convert_file(tmp_path / name, tmp_path / "x.zgrid")
    r = subprocess.run([sys.executable, "-m", "graphrepro", "dem", str(tmp_path / name),
                        "--output", str(tmp_path / "x.zgrid")], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == ExitCode.BAD_DATA, r.stderr
    assert r.stderr.count("\n") == 1 and says in r.stderr, r.stderr
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("edit, says", [
    (lambda m: m.update(side=3), "not a power of two"),
    (lambda m: m.update(dtype="float64"), "not a zgrid record"),
    (lambda m: m.update(side=8), "its record says"),
    (lambda m: m.pop("rows"), "not a zgrid record"),
])
def test_a_damaged_zgrid_record_is_named(tmp_path, edit, says):
    (tmp_path / "g.asc").write_text(grass([[1, 2, 3], [4, 5, 6]]))
    convert_file(tmp_path / "g.asc", tmp_path / "g.zgrid")
    meta_path = tmp_path / "g.zgrid.json"
    meta = json.loads(meta_path.read_text())
    edit(meta)
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(DamagedFile, match=says):
        open_zgrid(tmp_path / "g.zgrid")
