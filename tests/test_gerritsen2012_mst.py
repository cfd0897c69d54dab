"""gerritsen2012 chapters 2-3 on the CPU: DEM grids for the `mst` and `solve` commands, dead-end
removal and path contraction (observations 3, 4), the per-block MST steps, and Haverkort's
I/O-efficient framework against Kruskal on hand-made and real grids."""

import gzip

import numpy as np
import pytest

from graphrepro import mst
from graphrepro.cli import main
from graphrepro.errors import InputError
from graphrepro.terrain import dem

# A 2 x 3 grid with an unknown value, a negative and a value that rounds up; padded to 4 x 4.
VALUES = [[1, 2.6, -9999], [4, -3, 6]]
PADDED = np.array([[1, 3, 0, 0], [4, 0, 6, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
ESRI = "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n"
GRASS = "north: 1\nsouth: 0\neast: 3\nwest: 0\nrows: 2\ncols: 3\n"
BODY = "1 2.6 -9999\n4 -3 6\n"


def grid_mst_weight(grid) -> int:
    u, v, w = dem.grid_edges(np.asarray(grid), "mst")
    return mst.reference_weight(mst.from_arrays(np.asarray(grid).size, u, v, w))


def dem_files(tmp_path):
    (tmp_path / "esri.asc").write_text(ESRI + BODY)
    (tmp_path / "grass.txt").write_text(GRASS + BODY)
    with gzip.open(tmp_path / "grass.asc.gz", "wt") as f:
        f.write(GRASS + BODY)
    (tmp_path / "esri_named_oddly.dem").write_text(ESRI + BODY)  # by content, not by name
    np.save(tmp_path / "grid.npy", np.array(VALUES))
    return [tmp_path / n for n in ("esri.asc", "grass.txt", "grass.asc.gz",
                                   "esri_named_oddly.dem", "grid.npy")]


# --- DEM input -------------------------------------------------------------------------------

def test_dem_read_converts_as_section_1_5_1(tmp_path):
    for path in dem_files(tmp_path):
        assert dem.is_dem(path), path
        grid, meta = dem.read_padded(path)
        np.testing.assert_array_equal(grid, PADDED, err_msg=str(path))
        assert grid.dtype == np.int64


def test_snap_text_is_not_taken_for_a_dem(tmp_path):
    p = tmp_path / "g.txt"
    p.write_text("# a SNAP file\n0 1\n1 2\n")
    assert not dem.is_dem(p)


def test_grid_edges_are_the_8_neighbour_grid():
    grid = np.arange(12).reshape(3, 4)
    u, v, w = dem.grid_edges(grid, "mst")
    # 3 x 4: horizontal 9, vertical 8, two diagonals 6 each
    assert len(u) == 9 + 8 + 12
    assert (u < v).all()
    assert len(set(zip(u.tolist(), v.tolist()))) == len(u)
    np.testing.assert_array_equal(w, np.maximum(grid.ravel()[u], grid.ravel()[v]))
    _, _, ws = dem.grid_edges(grid, "sssp")
    np.testing.assert_array_equal(ws, np.abs(grid.ravel()[u] - grid.ravel()[v]))


def test_mst_command_on_dem_grids(tmp_path, capsys):
    want = grid_mst_weight(PADDED)
    for path in dem_files(tmp_path):
        out = tmp_path / "tree.txt"
        assert main(["mst", str(path), "--solver", "kruskal", "--output", str(out)]) == 0
        last = capsys.readouterr().out.strip().splitlines()[-1]
        assert last == f"weight {want} edges 15"
        lines = [tuple(map(int, l.split())) for l in out.read_text().splitlines()]
        assert len(lines) == 15
        flat = PADDED.ravel()
        for a, b, c in lines:
            assert c == max(flat[a], flat[b])


def test_mst_edge_list_carries_the_grid(tmp_path):
    path = dem_files(tmp_path)[0]
    edges = mst.load_edges(path)
    np.testing.assert_array_equal(edges.grid, PADDED)
    assert edges.num_vertices == 16


def test_solve_on_dem_uses_absolute_differences(tmp_path):
    from graphrepro.cli import load_graph

    path = dem_files(tmp_path)[1]
    graph = load_graph(path)
    np.testing.assert_array_equal(graph.terrain, PADDED)
    out = tmp_path / "dist.txt"
    assert main(["solve", str(path), "--source", "0", "--output", str(out)]) == 0
    dist = dict(tuple(map(int, l.split())) for l in out.read_text().splitlines())
    assert len(dist) == 16
    assert dist[0] == 0 and dist[1] == 2 and dist[5] == 1  # |1-3|; |1-0|


def test_solvers_mst_listing_same_format(capsys):
    assert main(["solvers", "--problem", "mst"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    names = [l.split("\t")[0] for l in lines]
    assert "kruskal" in names and "gerritsen_io" in names
    for l in lines:
        assert len(l.split("\t")) == 4


def test_mst_refuses_what_a_solver_cannot_represent(tmp_path, capsys):
    g = tmp_path / "g.gr"
    g.write_text("p sp 3 2\na 1 2 5\na 2 3 4\n")
    assert main(["mst", str(g), "--solver", "gerritsen_io", "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "grid" in err[0]
    assert not (tmp_path / "o").exists()
