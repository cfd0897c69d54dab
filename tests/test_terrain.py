"""gerritsen2012's terrain path: ASCII grids (GRASS Listing 1.1 and ESRI, gzip), .npy/.npz, the
section 1.5.1 conversion (unknown and negatives to 0, rounding, power-of-two padding, z-order,
memory-mapped), the Morton math both ways, the diamond-square stand-in and Jacksboro's real DEM."""

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrepro.cli import main
from graphrepro.datasets.build import convert_terrain
from graphrepro.errors import GraphFormatError
from graphrepro.terrain import (AsciiGrid, convert_array, convert_file, decode, diamond_square,
                                encode, grid_graph, open_zgrid, padded_side, to_rows,
                                write_standin)

GRASS = """north: 965200
south: 965080
east: 1931860
west: 1931700
rows: 3
cols: 4
1.4 2.5 -9999 7
0.0 -3.2 999.6 1000.0

4 5 6 7.49
"""
GRASS_CLEAN = np.array([[1, 3, 0, 7], [0, 0, 1000, 1000], [4, 5, 6, 7]])

ESRI = """ncols 3
nrows 2
xllcorner 0.0
yllcorner 0.0
cellsize 30
NODATA_value -1
1 2 -1
3.5 4 5
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    return path


# --- Morton ---------------------------------------------------------------------------------

def test_morton_small_square_is_the_theses_z():
    x, y = np.meshgrid(np.arange(4), np.arange(4))
    z = encode(x.ravel(), y.ravel()).reshape(4, 4)
    assert z.tolist() == [[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]]


@settings(deadline=None)  # the first call loads the kernels
@given(st.lists(st.tuples(st.integers(0, 2**31 - 1), st.integers(0, 2**31 - 1)), min_size=1,
                max_size=50))
def test_morton_round_trip(points):
    x, y = (np.array(v, dtype=np.int64) for v in zip(*points))
    z = encode(x, y)
    dx, dy = decode(z)
    assert np.array_equal(dx, x) and np.array_equal(dy, y)


def test_morton_is_a_bijection_on_a_square():
    z = np.arange(1 << 12)
    x, y = decode(z)
    assert x.max() == y.max() == 63
    assert np.array_equal(encode(x, y), z)


def test_aligned_blocks_are_contiguous():
    # the reason the thesis wants z-order: a 2^h block aligned at a multiple of 2^h is one run
    x, y = np.meshgrid(np.arange(8, 16), np.arange(16, 24))
    z = np.sort(encode(x.ravel(), y.ravel()))
    assert np.array_equal(z, np.arange(z[0], z[0] + 64))


def test_padded_side():
    assert padded_side(12555, 17630) == 32768
    assert padded_side(344, 403) == 512
    assert padded_side(1, 1) == 1


# --- ASCII grids ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["g.asc", "g.asc.gz"])
def test_grass_listing_1_1_conversion(tmp_path, name):
    src = write(tmp_path, name, GRASS)
    meta = convert_file(src, tmp_path / "g.zgrid")
    assert (meta["rows"], meta["cols"], meta["side"], meta["dtype"]) == (3, 4, 4, "uint16")
    assert meta["unknown_values"] == 1 and meta["negatives_set_to_zero"] == 2
    z, meta2 = open_zgrid(tmp_path / "g.zgrid")
    assert isinstance(z, np.memmap) and len(z) == 16
    assert (tmp_path / "g.zgrid").stat().st_size == 16 * 2
    assert to_rows(z, meta2).tolist() == GRASS_CLEAN.tolist()
    padded = to_rows(z, meta2, padded=True)
    assert padded[3].tolist() == [0, 0, 0, 0]  # padding is 0
    assert int(z[encode([2], [1])[0]]) == 1000  # stored at its Morton index


def test_esri_header(tmp_path):
    grid = AsciiGrid(write(tmp_path, "e.asc", ESRI))
    assert grid.dialect == "esri" and grid.nodata == -1 and (grid.rows, grid.cols) == (2, 3)
    meta = convert_file(tmp_path / "e.asc", tmp_path / "e.zgrid")
    z, m = open_zgrid(tmp_path / "e.zgrid")
    assert to_rows(z, m).tolist() == [[1, 2, 0], [4, 4, 5]] and meta["unknown_values"] == 1


def test_bands_stream_the_file(tmp_path):
    rng = np.random.default_rng(1)
    data = np.round(rng.random((37, 11)) * 1000, 1)
    text = "rows: 37\ncols: 11\nnorth: 0\nsouth: 0\neast: 0\nwest: 0\n" + \
        "\n".join(" ".join(f"{v:.1f}" for v in row) for row in data) + "\n"
    grid = AsciiGrid(write(tmp_path, "b.asc", text))
    bands = list(grid.bands(8))
    assert [r for r, _ in bands] == [0, 8, 16, 24, 32]
    assert np.allclose(np.vstack([b for _, b in bands]), data)


@pytest.mark.parametrize("body, line, fragment", [
    ("1 2 3 4\n1 2 x 4\n1 2 3 4\n", 8, "bad number"),
    ("1 2 3 4\n1 2 3\n1 2 3 4\n", 8, "3 values, expected cols = 4"),
    ("1 2 3 4\n1 2 3 4 5\n1 2 3 4\n", 8, "5 values"),
    ("1 2 3 4\n1 2 3 4\n1 2 3 4\n1 2 3 4\n", 10, "more rows than the header's 3"),
])
def test_ascii_errors_name_file_and_line(tmp_path, body, line, fragment):
    header = "north: 1\nsouth: 0\neast: 1\nwest: 0\nrows: 3\ncols: 4\n"
    path = write(tmp_path, "bad.asc", header + body)
    with pytest.raises(GraphFormatError) as err:
        convert_file(path, tmp_path / "bad.zgrid")
    assert err.value.line == line and fragment in str(err.value)
    assert str(err.value).startswith(f"{path}:{line}: ")
    assert not (tmp_path / "bad.zgrid").exists()


def test_ascii_too_few_rows_and_no_header(tmp_path):
    path = write(tmp_path, "short.asc", "rows: 3\ncols: 2\n1 2\n3 4\n")
    with pytest.raises(GraphFormatError, match="announces 3 rows but the file has 2"):
        convert_file(path, tmp_path / "s.zgrid")
    with pytest.raises(GraphFormatError, match="not an ASCII grid"):
        AsciiGrid(write(tmp_path, "x.asc", "1 2 3\n"))


def test_npy_and_wide_values(tmp_path):
    a = np.array([[70000.2, 1], [2, -5]])
    np.save(tmp_path / "a.npy", a)
    with pytest.raises(Exception, match="uint32"):
        convert_file(tmp_path / "a.npy", tmp_path / "a.zgrid")
    assert not (tmp_path / "a.zgrid").exists()
    convert_file(tmp_path / "a.npy", tmp_path / "a.zgrid", dtype="uint32")
    z, m = open_zgrid(tmp_path / "a.zgrid")
    assert to_rows(z, m).tolist() == [[70000, 1], [2, 0]]


# --- stand-in and real data -----------------------------------------------------------------

def test_diamond_square_standin_round_trips_through_ascii(tmp_path):
    write_standin(tmp_path / "n.asc.gz", rows=45, cols=70, seed=3)
    grid = AsciiGrid(tmp_path / "n.asc.gz")
    assert grid.dialect == "grass" and (grid.rows, grid.cols) == (45, 70)
    assert grid.header["north"] == "965200"  # Listing 1.1's header
    meta = convert_file(tmp_path / "n.asc.gz", tmp_path / "n.zgrid")
    assert meta["side"] == 128 and meta["unknown_values"] > 0  # outside the watershed outline
    terrain = diamond_square(45, 70, seed=3)
    expected = np.where(terrain < 0, 0, np.floor(np.round(terrain, 1) + 0.5))
    z, m = open_zgrid(tmp_path / "n.zgrid")
    assert np.array_equal(to_rows(z, m), expected)
    assert np.array_equal(diamond_square(45, 70, seed=3), terrain)
    inside = terrain[terrain >= 0]
    assert inside.min() >= 0 and inside.max() <= 1000 and inside.std() > 10


def test_jacksboro_real_dem_converts_exactly(tmp_path):
    from matplotlib import cbook

    with cbook.get_sample_data("jacksboro_fault_dem.npz") as f:
        elevation = np.array(f["elevation"])
    origin = convert_terrain("jacksboro_dem", tmp_path / "j.zgrid")
    assert origin["kind"] == "real" and "matplotlib" in origin["embedded"]
    z, m = open_zgrid(tmp_path / "j.zgrid")
    assert (m["rows"], m["cols"], m["side"]) == (344, 403, 512)
    assert np.array_equal(to_rows(z, m), elevation)


def test_neuse_standin_through_the_cli(tmp_path):
    out = tmp_path / "neuse.zgrid"
    assert main(["dem", "neuse_dem", "--scale", "0.004", "--data", str(tmp_path / "data"),
                 "--output", str(out)]) == 0
    z, m = open_zgrid(out)
    assert (m["rows"], m["cols"]) == (50, 71) and m["source"]["kind"] == "stand-in"
    assert list((tmp_path / "data" / "neuse_dem").glob("*.asc"))


def test_grid_graph_weights_follow_the_thesis():
    elev = np.array([[0, 10], [3, 7]])
    g = grid_graph(elev, neighbours=8, weight="sssp")
    assert (g.num_vertices, g.num_arcs) == (4, 12)
    arcs = dict(zip(zip(g.arc_sources().tolist(), g.indices.tolist()), g.weights.tolist()))
    assert arcs[(0, 1)] == 10 and arcs[(0, 3)] == 7 and arcs[(1, 2)] == 7
    m = grid_graph(elev, neighbours=4, weight="mst")
    arcs = dict(zip(zip(m.arc_sources().tolist(), m.indices.tolist()), m.weights.tolist()))
    assert m.num_arcs == 8 and arcs[(0, 2)] == 3 and arcs[(2, 3)] == 7


def test_convert_array_refuses_non_grids(tmp_path):
    with pytest.raises(Exception, match="2-D"):
        convert_array(np.zeros(5), tmp_path / "x.zgrid", source={})


# --- counted block I/O (shared by the chapter 2 MST and the chapter 4 SSSP) -----------------

def test_zblocks_read_every_block_as_rows_and_count(tmp_path):
    from graphrepro.terrain.blockio import BlockStore, IOCounter, ZBlocks
    rng = np.random.default_rng(3)
    grid = rng.integers(0, 1000, size=(13, 11))
    convert_array(grid, tmp_path / "g.zgrid", source={"test": True})
    counter = IOCounter()
    blocks = ZBlocks(tmp_path / "g.zgrid", counter)
    padded = np.zeros((16, 16), dtype=np.int64)
    padded[:13, :11] = grid
    seen = list(blocks.zorder_blocks(4))
    assert len(seen) == 16 and seen[:4] == [(0, 0), (1, 0), (0, 1), (1, 1)]
    for bx, by in seen:
        r0, c0 = blocks.block_origin(4, bx, by)
        assert np.array_equal(blocks.read(4, bx, by), padded[r0:r0 + 4, c0:c0 + 4])
    assert counter.block_reads == 16 and counter.bytes_read == 16 * 16 * 2
    with pytest.raises(Exception, match="power of two"):
        blocks.read(3, 0, 0)
    with pytest.raises(Exception, match="outside"):
        blocks.read(8, 2, 0)
    store = BlockStore(tmp_path / "side", counter)
    store.write("level1_0_0", u=np.arange(3), w=np.ones(3))
    back = store.read("level1_0_0")
    assert np.array_equal(back["u"], np.arange(3)) and counter.block_writes == 1
    assert counter.block_reads == 17 and counter.bytes_written > 0
    assert not list((tmp_path / "side").glob("*.part*"))
