"""Real data first (issue 19): offline mirrors, PACE 2016 topologies with a named weight model,
connected road stand-ins, GeoTIFF terrain, and the standins comparison.

Everything here writes its own small files; nothing needs ../shared. The one test marked
``realdata`` reads the real files where ``../shared/realdata`` exists beside the repository
(or where ``GRAPHREPRO_REALDATA`` points).
"""

import hashlib
import lzma
import os
from pathlib import Path

import numpy as np
import pytest

from graphrepro.datasets import build_graph
from graphrepro.datasets.build import list_datasets
from graphrepro.datasets.download import DownloadError
from graphrepro.errors import GraphFormatError
from graphrepro.graph import roadstats, weight_model
from graphrepro.graph.formats import read_graph
from graphrepro.graph.roads import road_network

REPO = Path(__file__).resolve().parents[1]
# ../shared/realdata beside the checkout (a worktree elsewhere may point at it by the variable)
REALDATA = Path(os.environ.get("GRAPHREPRO_REALDATA", REPO.parent / "shared" / "realdata"))

# A 5-vertex road: a square 1-2-3-4 with a tail 4-5, both ways, DIMACS distances
DIMACS = b"""c tiny distance graph
p sp 5 10
a 1 2 10
a 2 1 10
a 2 3 20
a 3 2 20
a 3 4 30
a 4 3 30
a 4 1 40
a 1 4 40
a 4 5 50
a 5 4 50
"""
PACE = b"c the same roads, once each\np tw 5 5\n1 2\n2 3\n3 4\n4 1\n4 5\n"


def _registry(tmp_path, *, sha=None, topology_url="https://no-such-host.invalid/T.gr.xz"):
    sha_line = f"    sha256: {sha}\n" if sha else ""
    text = f"""datasets:
  ny:
    name: New York
    title: tiny DIMACS
    documents: {{safari2017: "Table 1"}}
    source: download
    url: https://no-such-host.invalid/tiny.gr.gz
    format: dimacs
{sha_line}    vertices: 5
    arcs: 10
    weights: file
    standin: {{generator: road_network, seed: 1, weights: distance}}
  col:
    name: Colorado
    title: tiny topology only
    documents: {{safari2017: "Table 1"}}
    source: download
    url: https://no-such-host.invalid/col.gr.gz
    format: dimacs
    vertices: 5
    arcs: 10
    weights: file
    standin: {{generator: road_network, seed: 2, weights: distance}}
    topology:
      url: {topology_url}
      format: pace
      weights: {{model: ny_distance_v1, seed: 3}}
"""
    path = tmp_path / "datasets.yaml"
    path.write_text(text)
    return path


def _gz(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, mtime=0)


# --- offline mirrors -----------------------------------------------------------------------------

def test_mirror_serves_the_file_by_name_and_is_recorded_as_such(tmp_path):
    data = _gz(DIMACS)
    reg = _registry(tmp_path, sha=hashlib.sha256(data).hexdigest())
    mirror = tmp_path / "mirror" / "nested"
    mirror.mkdir(parents=True)
    (mirror / "tiny.gr.gz").write_bytes(data)
    g, origin = build_graph("ny", mode="standin", data_dir=tmp_path / "d", registry=reg,
                            lock_path=tmp_path / "lock.json", mirrors=[tmp_path / "mirror"])
    assert (g.num_vertices, g.num_arcs) == (5, 10)
    assert origin["kind"] == "real" and origin["via"] == "offline mirror"
    assert origin["mirror"] == str(mirror / "tiny.gr.gz")
    rows = {r["key"]: r for r in list_datasets(tmp_path / "d", registry=reg,
                                               lock_path=tmp_path / "lock.json",
                                               mirrors=[tmp_path / "mirror"])}
    assert rows["ny"]["state"].startswith("offline mirror")
    # without a mirror the same call is the stand-in, at the registry's counts
    g2, o2 = build_graph("ny", mode="standin", data_dir=tmp_path / "d", registry=reg,
                         lock_path=tmp_path / "lock.json", mirrors=None)
    assert o2["kind"] == "stand-in" and g2.num_arcs == 10


def test_mirror_from_the_environment(tmp_path, monkeypatch):
    data = _gz(DIMACS)
    reg = _registry(tmp_path, sha=hashlib.sha256(data).hexdigest())
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "tiny.gr.gz").write_bytes(data)
    monkeypatch.setenv("GRAPHREPRO_OFFLINE_MIRRORS", str(tmp_path / "env"))
    _, origin = build_graph("ny", mode="standin", data_dir=tmp_path / "d", registry=reg,
                            lock_path=tmp_path / "lock.json")
    assert origin["kind"] == "real" and origin["via"] == "offline mirror"


def test_a_wrong_file_in_a_mirror_is_refused_and_never_used(tmp_path):
    good = _gz(DIMACS)
    reg = _registry(tmp_path, sha=hashlib.sha256(good).hexdigest())
    bad_dir, good_dir = tmp_path / "bad", tmp_path / "good"
    bad_dir.mkdir()
    good_dir.mkdir()
    (bad_dir / "tiny.gr.gz").write_bytes(_gz(DIMACS.replace(b"a 4 5 50", b"a 4 5 51")))
    with pytest.raises(DownloadError) as e:
        build_graph("ny", mode="paper", data_dir=tmp_path / "d", registry=reg,
                    lock_path=tmp_path / "lock.json", mirrors=[bad_dir])
    assert e.value.verification and "refused" in str(e.value) and str(bad_dir) in str(e.value)
    # a second mirror with the right file serves; the wrong copy is passed over
    (good_dir / "tiny.gr.gz").write_bytes(good)
    _, origin = build_graph("ny", mode="paper", data_dir=tmp_path / "d", registry=reg,
                            lock_path=tmp_path / "lock.json", mirrors=[bad_dir, good_dir])
    assert origin["mirror"] == str(good_dir / "tiny.gr.gz")


def test_a_mirror_file_without_a_published_checksum_is_locked_on_first_sight(tmp_path):
    reg = _registry(tmp_path)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "tiny.gr.gz").write_bytes(_gz(DIMACS))
    lock = tmp_path / "lock.json"
    build_graph("ny", mode="standin", data_dir=tmp_path / "d", registry=reg, lock_path=lock,
                mirrors=[tmp_path / "m"])
    assert "ny" in lock.read_text()
    (tmp_path / "m" / "tiny.gr.gz").write_bytes(_gz(DIMACS + b"c changed\n"))
    with pytest.raises(DownloadError, match="refused"):
        build_graph("ny", mode="standin", data_dir=tmp_path / "d", registry=reg, lock_path=lock,
                    mirrors=[tmp_path / "m"])


# --- PACE 2016 and the real topology with declared weights -----------------------------------

def test_pace_files_read_plain_and_xz(tmp_path):
    (tmp_path / "t.gr").write_bytes(PACE)
    (tmp_path / "t.gr.xz").write_bytes(lzma.compress(PACE))
    for name in ("t.gr", "t.gr.xz"):
        g = read_graph(tmp_path / name)
        assert (g.num_vertices, g.num_arcs) == (5, 10)
        assert np.all(g.weights == 1)
        pairs = set(zip(g.arc_sources().tolist(), g.indices.tolist()))
        assert all((v, u) in pairs for u, v in pairs)  # every edge both ways
    assert read_graph(tmp_path / "t.gr", "pace").num_arcs == 10


def test_pace_errors_name_the_line(tmp_path):
    (tmp_path / "short.gr").write_bytes(b"p tw 5 6\n1 2\n2 3\n")
    with pytest.raises(GraphFormatError, match="announces 6 edges"):
        read_graph(tmp_path / "short.gr")
    (tmp_path / "range.gr").write_bytes(b"p tw 3 1\n1 9\n")
    with pytest.raises(GraphFormatError, match=r"range\.gr:2"):
        read_graph(tmp_path / "range.gr")
    with pytest.raises(GraphFormatError, match="p tw"):
        read_graph(tmp_path / "x.gr", "pace") if (tmp_path / "x.gr").write_bytes(
            b"p sp 2 1\na 1 2 3\n") else None


def test_real_topology_gets_the_named_weight_model(tmp_path):
    reg = _registry(tmp_path)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "T.gr.xz").write_bytes(lzma.compress(PACE))
    g, origin = build_graph("col", mode="standin", data_dir=tmp_path / "d", registry=reg,
                            lock_path=tmp_path / "lock.json", mirrors=[tmp_path / "m"])
    assert origin["kind"] == "real topology" and origin["weights"] == {
        "model": "ny_distance_v1", "seed": 3}
    assert (g.num_vertices, g.num_arcs) == (5, 10) and g.weights.min() >= 1
    from graphrepro.datasets.origin import describe_origin

    assert describe_origin(origin).startswith("real topology, synthetic weights "
                                              "(ny_distance_v1, seed 3)")


def test_weight_model_matches_its_quantiles_and_is_symmetric_and_seeded():
    q = np.asarray(weight_model.get_model("ny_distance_v1")["quantiles"])
    assert q[0] == 1 and q[-1] == 36946 and q[128] == 951  # NY: 1..36,946, median 951
    rng = np.random.default_rng(0)
    u = rng.integers(0, 10**6, 60000)
    v = u + 1 + rng.integers(0, 10**6, 60000)
    w = weight_model.sample(u, v, "ny_distance_v1", seed=5)
    # the sample's CDF against the model's (piecewise log-linear between the quantiles)
    grid = np.quantile(w, np.linspace(0.02, 0.98, 49))
    model_cdf = np.interp(np.log(grid), np.log(q), np.linspace(0, 1, len(q)))
    sample_cdf = np.searchsorted(np.sort(w), grid, side="right") / len(w)
    assert np.max(np.abs(model_cdf - sample_cdf)) < 0.02
    assert np.array_equal(w, weight_model.sample(v, u, "ny_distance_v1", seed=5))  # per street
    assert not np.array_equal(w, weight_model.sample(u, v, "ny_distance_v1", seed=6))


# --- road stand-ins ---------------------------------------------------------------------------

@pytest.mark.parametrize("n,arcs,seed", [(300, 730, 1), (2000, 4851, 2), (2000, 4800, 3),
                                         (20000, 55520, 4)])
def test_road_network_is_one_component_with_exact_counts(n, arcs, seed):
    g = road_network(n, arcs, seed=seed, parallel_share=0.005, long_share=0.03)
    assert (g.num_vertices, g.num_arcs) == (n, arcs)
    assert roadstats.components(g) == 1
    assert np.all(np.diff(g.indptr) > 0)  # no isolated vertex


def test_road_network_follows_its_degree_histogram_and_seed():
    h = (0.19, 0.34, 0.37, 0.10)
    n = 20000
    mean = sum((k + 1) * p for k, p in enumerate(h))
    g = road_network(n, int(round(n * mean)), seed=7, degrees=h, weights="unit")
    got = roadstats.degree_histogram(g)
    assert np.max(np.abs(got[1:5] - np.array(h))) < 0.03
    assert np.array_equal(g.indices, road_network(n, int(round(n * mean)), seed=7, degrees=h,
                                                  weights="unit").indices)
    # the depth knob: longer links make fewer BFS levels
    shallow = road_network(n, int(round(n * mean)), seed=7, degrees=h, long_share=0.06)
    assert np.median(roadstats.bfs_depths(shallow, [0, 999, 5000])) < np.median(
        roadstats.bfs_depths(g, [0, 999, 5000]))


def test_harish_rounds_on_the_cpu_equal_the_gpu_solver_in_the_simulator():
    from graphrepro.solvers import resolve

    g = road_network(120, 300, seed=3)
    spec, params = resolve("harish")
    solver = spec.factory(g, **params)
    for s in (0, 57):
        assert roadstats.harish_iterations(g, s) == solver.solve(s).counters["iterations"]


def test_standins_table_and_goal(tmp_path):
    from graphrepro.datasets.standins import compare, default_recipe_check, goal

    data = _gz(DIMACS)
    reg = _registry(tmp_path, sha=hashlib.sha256(data).hexdigest())
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "tiny.gr.gz").write_bytes(data)
    table = compare(data_dir=tmp_path / "d", registry=reg, mirrors=[tmp_path / "m"], sources=3,
                    seed=1, log=lambda m: None)
    assert list(table["dataset"]) == ["ny", "ny"] and list(table["graph"]) == ["real", "stand-in"]
    real, stand = table.iloc[0], table.iloc[1]
    assert real["sccs"] == 1 and real["vertices"] == 5  # the stand-in: at least 16 vertices
    assert real["arcs"] == stand["arcs"] == 10 and not np.isnan(real["harish_median"])
    assert stand["goal"] == "meets" or stand["goal"].startswith("misses: ")
    # ny's stand-in has no fitted knob: it checks the default recipe, which col's stand-in uses
    # with no real graph of its own at hand
    assert table["recipe"].isna().iloc[0] and table["recipe"].iloc[1] == "default"
    said = default_recipe_check(table, reg)
    assert said.startswith(f"The default road recipe, checked on ny: ny: {stand['goal']}.")
    assert "also builds the stand-ins of col, whose own real graphs are not at hand" in said
    fitted = table.assign(recipe=["", "fitted"])
    assert default_recipe_check(fitted, reg) is None
    assert default_recipe_check(table.drop(columns="recipe"), reg) is None  # an older table
    miss = goal({"depth_median": 100, **{f"deg{k}_%": 0.0 for k in range(7)}},
                {"depth_median": 120, "sccs": 3, **{f"deg{k}_%": 5.0 * (k == 2) for k in range(7)}})
    assert miss["goal"] == ("misses: median BFS depth +20.0% (limit +-10%); 3 components (goal 1); "
                            "degree share off by 5.00 pp (limit 2)")


# --- GeoTIFF terrain --------------------------------------------------------------------------

def _converted(path, tmp_path):
    from graphrepro.terrain import convert_file, open_zgrid, to_rows

    meta = convert_file(path, tmp_path / (Path(path).stem + ".zgrid"))
    z, meta = open_zgrid(tmp_path / (Path(path).stem + ".zgrid"))
    return to_rows(z, meta), meta


def test_geotiff_float32_strips_convert_as_the_ascii_grids(tmp_path):
    from graphrepro.terrain import write_grass_ascii
    from graphrepro.terrain.geotiff import GeoTiff, write_geotiff

    rng = np.random.default_rng(1)
    elev = (rng.random((37, 53)) * 150 + 50).astype(np.float32)
    elev[3, 4] = -12.5  # a negative: 0, as section 1.5.1 says
    write_geotiff(tmp_path / "f.tif", elev, cell=(30.0, 30.0), corner=(630000.0, 228500.0))
    tif = GeoTiff(tmp_path / "f.tif")
    assert (tif.rows, tif.cols, tif.dtype, tif.tiled) == (37, 53, "float32", False)
    assert tif.georef["cell_x"] == 30.0 and tif.georef["north"] == 228500.0
    rows, meta = _converted(tmp_path / "f.tif", tmp_path)
    write_grass_ascii(tmp_path / "f.asc", [(0, elev.astype(np.float64))], 37, 53, north=228500.0,
                      west=630000.0, cell=30.0, decimals=6)
    ascii_rows, _ = _converted(tmp_path / "f.asc", tmp_path)
    assert np.array_equal(rows, ascii_rows) and rows[3, 4] == 0
    assert meta["source"]["dialect"] == "geotiff" and meta["negatives_set_to_zero"] == 1


def test_geotiff_int16_nodata_tiled_and_world_file(tmp_path):
    from graphrepro.terrain.geotiff import GeoTiff, write_geotiff

    elev = np.full((40, 70), 400, dtype=np.int16)
    elev[:, 35:] = 2295
    elev[5, 6] = elev[30, 60] = 32767  # SRTM's nodata
    write_geotiff(tmp_path / "s.tif", elev, nodata=32767, tile=(16, 16))
    (tmp_path / "s.tfw").write_text("30.0\n0.0\n0.0\n-30.0\n376328.6\n3807902.8\n")
    tif = GeoTiff(tmp_path / "s.tif")
    assert tif.tiled and tif.nodata == 32767 and tif.dtype == "int16"
    assert tif.georef["from"] == "world file s.tfw" and tif.georef["west"] == pytest.approx(376313.6)
    rows, meta = _converted(tmp_path / "s.tif", tmp_path)
    assert meta["unknown_values"] == 2 and rows[5, 6] == 0 and rows[30, 60] == 0
    assert rows[0, 0] == 400 and rows[0, 69] == 2295 and meta["side"] == 128


def test_geotiff_is_a_dem_for_the_commands(tmp_path):
    from graphrepro.graph.load import load_graph
    from graphrepro.terrain.geotiff import write_geotiff

    write_geotiff(tmp_path / "g.tif", np.arange(12, dtype=np.float32).reshape(3, 4))
    g = load_graph(tmp_path / "g.tif")
    assert g.num_vertices == 16 and g.terrain.shape == (4, 4)


def test_no_package_imports_the_command_line():
    src = REPO / "src" / "graphrepro"
    offenders = [p.relative_to(src).as_posix() for p in src.rglob("*.py")
                 if p.relative_to(src).parts[0] not in ("cli", "__main__.py")
                 and ("from ..cli" in p.read_text() or "graphrepro.cli import" in p.read_text()
                      or "from .cli" in p.read_text())]
    assert offenders == []


# --- the real files, where they are at hand ---------------------------------------------------

@pytest.mark.realdata
@pytest.mark.skipif(not REALDATA.is_dir(), reason=f"no real data at {REALDATA} (a checkout "
                    "without ../shared/realdata beside it)")
def test_real_files_have_their_published_counts():
    from graphrepro.terrain.geotiff import GeoTiff

    ny = read_graph(REALDATA / "USA-road-d.NY.gr.gz")
    assert (ny.num_vertices, ny.num_arcs) == (264346, 733846)
    assert (int(ny.weights.min()), int(ny.weights.max())) == (1, 36946)
    counts = {"NY": (264346, 365050), "COL": (435666, 521200), "FLA": (1070376, None),
              "NW": (1207945, 1410387), "NE": (1524453, None)}
    for name, (n, m) in counts.items():
        g = read_graph(REALDATA / "road-graphs-pace16" / f"{name}.gr.xz")
        assert g.num_vertices == n and (m is None or g.num_arcs == 2 * m)
        assert roadstats.components(g) == 1
    wake = GeoTiff(REALDATA / "dem" / "elev_ned_30m.tif")
    assert (wake.rows, wake.cols, wake.dtype, wake.nodata) == (450, 500, "float32", None)
    a = wake.array()
    assert 55.1 < a.min() < 55.2 and 156.3 < a.max() < 156.4
    srtm = GeoTiff(REALDATA / "dem" / "srtm_bigtujunga30m_utm11.tif")
    assert (srtm.rows, srtm.cols, srtm.dtype, srtm.nodata) == (643, 1197, "int16", 32767)
    b = srtm.array()
    assert b.min() == 315 and b.max() == 2295


def test_datasets_command_shows_what_a_mirror_serves(tmp_path, capsys):
    from graphrepro.cli import main

    data = _gz(DIMACS)
    reg = _registry(tmp_path, sha=hashlib.sha256(data).hexdigest())
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "tiny.gr.gz").write_bytes(data)
    (tmp_path / "m" / "T.gr.xz").write_bytes(lzma.compress(PACE))
    assert main(["datasets", "--registry", str(reg), "--data", str(tmp_path / "d"),
                 "--mirror", str(tmp_path / "m")]) == 0
    out = capsys.readouterr()
    lines = {line.split()[0]: line for line in out.out.splitlines()[1:]}
    assert "offline mirror" in lines["ny"] and str(tmp_path / "m") in out.err
    assert "real topology (offline mirror" in lines["col"] and "ny_distance_v1" in lines["col"]
