"""The dataset registry, stand-ins, origins and safari2017 Table 1.

Real downloads go to a loopback server (tests/loopback.py) serving small real-format files
through a registry written for the test; the project's own registry is checked for what the
documents need, without the network.
"""

import gzip
import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from loopback import Server
from test_download import FILES, SNAP

from graphrepro.cli import main
from graphrepro.datasets import build_graph, get_dataset, load_registry
from graphrepro.datasets.build import list_datasets, scaled_counts, standin_graph
from graphrepro.errors import InputError
from graphrepro.experiments import get_target, published
from graphrepro.graph import generate
from graphrepro.graph.csr import CSRGraph, degree_stats

TABLE1 = ["ny", "col", "roadnet_pa", "nw", "calnev", "roadnet_ca", "western"]


# --- the project's registry -------------------------------------------------------------------

def test_registry_has_every_dataset_the_documents_use():
    reg = load_registry()
    for key in TABLE1 + ["web_google", "amazon0312", "msdoor", "roadnet_cal", "neuse_dem",
                         "jacksboro_dem"]:
        assert key in reg
    for key in TABLE1:
        ds = reg[key]
        assert ds.source == "download" and ds.url.startswith("http") and ds.standin
        assert "safari2017" in ds.documents
    assert reg["neuse_dem"].rows == 12555 and reg["neuse_dem"].cols == 17630


def test_table1_counts_in_the_registry_are_the_papers():
    pub = published("safari2017")
    pub = pub[pub["item"] == "Table 1"]
    for key in TABLE1:
        ds = get_dataset(key)
        row = pub[pub["row"] == ds.name].set_index("column")["value"]
        assert (ds.vertices, ds.arcs) == (int(row["vertices"]), int(row["arcs"])), key


def test_roadnet_cal_is_the_dimacs_cal_file():
    cal, alias = get_dataset("calnev"), get_dataset("roadnet_cal")
    assert alias.url == cal.url and alias.file_key == "calnev" and alias.name == "roadNet-CAL"
    assert "senthilkumar" in alias.documents and "Davidson" in alias.notes


def test_bad_registry_names_the_entry(tmp_path):
    bad = tmp_path / "reg.yaml"
    bad.write_text("datasets:\n  x:\n    name: X\n    title: t\n    documents: {a: b}\n"
                   "    source: download\n    format: dimacs\n")
    with pytest.raises(InputError, match="datasets/x"):
        load_registry(str(bad))


def test_unknown_dataset_lists_the_known_ones():
    with pytest.raises(InputError, match="ny"):
        get_dataset("nope")


# --- stand-ins --------------------------------------------------------------------------------

def is_symmetric(g: CSRGraph) -> bool:
    a = set(zip(g.arc_sources().tolist(), g.indices.tolist(), g.weights.tolist()))
    return all((v, u, w) in a for u, v, w in a)


@pytest.mark.parametrize("key", ["ny", "roadnet_pa", "western"])
def test_road_standins_have_the_scaled_counts_and_road_shape(key):
    ds = get_dataset(key)
    g, info = standin_graph(ds, scale=0.002)
    n, a = scaled_counts(ds, 0.002)
    assert (g.num_vertices, g.num_arcs) == (n, a) == (info["vertices"], info["arcs"])
    s = degree_stats(g)
    assert 2.3 <= s["mean_outdegree"] <= 2.9 and 4 <= s["max_outdegree"] <= 8
    assert is_symmetric(g)
    if ds.standin["weights"] == "unit":
        assert s["min_weight"] == s["max_weight"] == 1
    else:
        assert s["min_weight"] >= 1 and s["max_weight"] > 100


def test_road_like_hop_diameter_grows_like_sqrt_v():
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    g = generate.road_like(40000, 98000, seed=5)
    m = csr_matrix((np.ones(g.num_arcs), g.indices, g.indptr), shape=(g.num_vertices,) * 2)
    _, labels = connected_components(m, directed=False)
    giant = np.argmax(np.bincount(labels))
    assert np.mean(labels == giant) > 0.8
    start = int(np.flatnonzero(labels == giant)[0])
    order, pred = breadth_first_order(m, start, directed=False)
    depth = np.zeros(g.num_vertices, dtype=int)
    for v in order[1:]:
        depth[v] = depth[pred[v]] + 1
    assert 0.5 * 200 < depth.max() < 10 * 200  # sqrt(40000) = 200


def test_standins_are_deterministic_by_seed():
    a = generate.road_like(5000, 12000, seed=3)
    b = generate.road_like(5000, 12000, seed=3)
    c = generate.road_like(5000, 12000, seed=4)
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.weights, b.weights)
    assert not np.array_equal(a.indices, c.indices)
    r1, r2 = generate.rmat(3000, 20000, seed=9), generate.rmat(3000, 20000, seed=9)
    assert np.array_equal(r1.indptr, r2.indptr) and np.array_equal(r1.indices, r2.indices)


def test_rmat_and_mesh_counts_and_shape():
    r = generate.rmat(4000, 32000, seed=1)
    assert (r.num_vertices, r.num_arcs) == (4000, 32000)
    assert not np.any(r.arc_sources() == r.indices)  # no self-loops
    assert degree_stats(r)["max_outdegree"] > 20 * 8  # skewed, unlike a road graph
    m = generate.mesh3d(3000, 3000 + 2 * 120000, seed=1)
    assert (m.num_vertices, m.num_arcs) == (3000, 243000)
    assert np.count_nonzero(m.arc_sources() == m.indices) == 3000  # the diagonal
    assert is_symmetric(m)


def test_odd_arc_counts_are_met_exactly():
    assert generate.road_like(100, 201, seed=1).num_arcs == 201
    assert generate.mesh3d(400, 400 + 2 * 3000 + 1, seed=1).num_arcs == 6401


def test_reweight_is_seeded_and_in_range(tiny_graph):
    a = generate.reweight(tiny_graph, 1, 10, seed=4)
    b = generate.reweight(tiny_graph, 1, 10, seed=4)
    assert np.array_equal(a.weights, b.weights) and a.weights.min() >= 1 and a.weights.max() <= 10
    assert np.array_equal(a.indices, tiny_graph.indices)


# --- real files through a registry of loopback URLs -------------------------------------------

@pytest.fixture(scope="module")
def server():
    files = dict(FILES)
    files["/snap/gappy.txt.gz"] = gzip.compress(b"# ids 0..5, 2 and 4 absent\n0\t1\n1\t0\n1\t3\n3\t5\n")
    with Server(files) as s:
        yield s


def registry_file(tmp_path, server, *, ny_sha=None):
    sha = ny_sha or hashlib.sha256(FILES["/road/tiny.gr.gz"]).hexdigest()
    text = f"""datasets:
  ny:
    name: New York
    title: tiny DIMACS
    documents: {{safari2017: "Table 1"}}
    source: download
    url: {server.url}/road/tiny.gr.gz
    format: dimacs
    sha256: {sha}
    vertices: 264346
    arcs: 733846
    weights: file
    standin: {{generator: road_like, seed: 1, weights: distance}}
  gappy:
    name: Gappy
    title: SNAP with absent ids
    documents: {{safari2017: "none"}}
    source: download
    url: {server.url}/snap/gappy.txt.gz
    format: snap
    snap_vertices: max_id
    vertices: 6
    arcs: 4
    weights: unit
    standin: {{generator: road_like, seed: 2, weights: unit}}
  door:
    name: door
    title: tiny SuiteSparse archive
    documents: {{senthilkumar: "table"}}
    source: download
    url: {server.url}/mm/tiny.tar.gz
    format: mtx
    mtx_values: ignore
    weights: {{random: {{low: 1, high: 1000, seed: 3}}}}
    vertices: 3
    arcs: 6
    standin: {{generator: mesh3d, seed: 4}}
  offline:
    name: Offline
    title: a host that does not exist
    documents: {{safari2017: "none"}}
    source: download
    url: https://no-such-host.invalid/x.gr.gz
    format: dimacs
    vertices: 1000
    arcs: 2400
    weights: file
    standin: {{generator: road_like, seed: 5, weights: distance}}
"""
    path = tmp_path / "datasets.yaml"
    path.write_text(text)
    return path


def test_paper_mode_downloads_verifies_and_records_origin(tmp_path, server):
    reg = registry_file(tmp_path, server)
    lock = tmp_path / "lock.json"
    g, origin = build_graph("ny", mode="paper", data_dir=tmp_path / "data", registry=reg,
                            lock_path=lock)
    assert (g.num_vertices, g.num_arcs) == (4, 6)
    assert origin["kind"] == "real" and origin["url"].endswith("/road/tiny.gr.gz")
    assert origin["sha256"] == hashlib.sha256(FILES["/road/tiny.gr.gz"]).hexdigest()
    assert origin["published"]["vertices"] == 264346
    assert not lock.exists()  # a published checksum needs no lock entry
    rows = {r["key"]: r["state"] for r in list_datasets(tmp_path / "data", lock, reg)}
    assert rows["ny"] == "downloaded, verified (sha256 published)"
    assert rows["gappy"] == "not downloaded: stand-in"


def test_first_seen_checksum_is_locked_and_checked(tmp_path, server):
    reg = registry_file(tmp_path, server)
    lock = tmp_path / "lock.json"
    g, origin = build_graph("gappy", mode="paper", data_dir=tmp_path / "data", registry=reg,
                            lock_path=lock)
    assert json.loads(lock.read_text())["gappy"]["sha256"] == origin["sha256"]
    # SNAP ids 0..5 with 2 and 4 absent: max_id numbering keeps them as isolated vertices
    assert g.num_vertices == 6 and g.labels is None and g.out_degrees().tolist() == [1, 2, 0, 1, 0, 0]
    # a different file later must not pass as the dataset
    local = tmp_path / "data" / "gappy" / "gappy.txt.gz"
    local.write_bytes(gzip.compress(SNAP))
    rows = {r["key"]: r["state"] for r in list_datasets(tmp_path / "data", lock, reg)}
    assert rows["gappy"].startswith("downloaded but BAD") and "does not match" in rows["gappy"]


def test_suitesparse_archive_with_random_weights(tmp_path, server):
    reg = registry_file(tmp_path, server)
    g, origin = build_graph("door", mode="paper", data_dir=tmp_path / "data", registry=reg,
                            lock_path=tmp_path / "lock.json")
    assert origin["kind"] == "real" and (g.num_vertices, g.num_arcs) == (3, 6)
    assert g.weights.min() >= 1 and g.weights.max() <= 1000  # the real values were not weights


def test_offline_paper_mode_falls_back_to_a_labelled_standin(tmp_path, server):
    reg = registry_file(tmp_path, server)
    messages = []
    g, origin = build_graph("offline", mode="paper", data_dir=tmp_path / "data", registry=reg,
                            lock_path=tmp_path / "lock.json", log=messages.append)
    assert origin["kind"] == "stand-in" and "cannot be reached" in origin["reason"]
    assert (g.num_vertices, g.num_arcs) == (1000, 2400)
    assert messages and "stand-in" in messages[0]
    assert not (tmp_path / "data" / "offline" / "x.gr.gz").exists()


def test_paper_mode_refuses_a_wrong_file_instead_of_standing_in(tmp_path, server):
    from graphrepro.datasets import DownloadError

    reg = registry_file(tmp_path, server, ny_sha="ab" * 32)
    with pytest.raises(DownloadError, match="does not match"):
        build_graph("ny", mode="paper", data_dir=tmp_path / "data", registry=reg,
                    lock_path=tmp_path / "lock.json")
    assert not list((tmp_path / "data").rglob("*.gz"))


def test_paper_mode_404_falls_back_with_the_reason(tmp_path, server):
    reg = registry_file(tmp_path, server)
    reg.write_text(reg.read_text().replace("/road/tiny.gr.gz", "/gone/tiny.gr.gz"))
    _, origin = build_graph("ny", mode="paper", scale=0.001, data_dir=tmp_path / "data",
                            registry=reg, lock_path=tmp_path / "lock.json", log=lambda m: None)
    assert origin["kind"] == "stand-in" and "HTTP 404" in origin["reason"]


def test_standin_mode_never_touches_the_network(tmp_path, server):
    reg = registry_file(tmp_path, server)
    before = len(server.requests)
    _, origin = build_graph("ny", mode="standin", scale=0.01, data_dir=tmp_path / "d",
                            registry=reg, lock_path=tmp_path / "lock.json")
    assert origin["kind"] == "stand-in" and origin["scale"] == 0.01
    assert len(server.requests) == before


def test_cli_dataset_graph_and_sources_carry_the_origin(tmp_path):
    out = tmp_path / "g" / "ny.npz"
    assert main(["dataset-graph", "ny", "--scale", "0.001", "--reweight", "1", "10", "4",
                 "--output", str(out)]) == 0
    origin = json.loads((tmp_path / "g" / "ny.origin.json").read_text())
    assert origin["kind"] == "stand-in" and origin["reweight"] == {"low": 1, "high": 10, "seed": 4}
    g = CSRGraph.load(out)
    assert g.name == "ny" and g.weights.max() <= 10
    src = tmp_path / "s.json"
    assert main(["sources", str(out), "--count", "2", "--seed", "1", "--output", str(src)]) == 0
    record = json.loads(src.read_text())
    assert record["stands_for"] == "New York" and record["origin"]["generator"] == "road_network"


def _origin_without_time(npz):
    origin = json.loads(npz.with_name(npz.stem + ".origin.json").read_text())
    origin.pop("made")
    return origin


def test_fetched_record_builds_what_the_whole_command_builds_without_the_network(tmp_path, server,
                                                                                capsys):
    """Issue 36: `fetch-record` obtains (here: downloads) and records; `dataset-graph --fetched`
    parses that file, or builds the recorded stand-in, touching no network, into the same origin
    as `dataset-graph` alone; a record whose file changed since is refused in one line."""
    reg = registry_file(tmp_path, server)
    data = ["--mode", "paper", "--data", str(tmp_path / "data"), "--registry", str(reg)]
    for key, kind in (("ny", "real"), ("offline", "stand-in")):
        record = tmp_path / "downloads" / f"{key}.json"
        assert main(["fetch-record", key, *data, "--output", str(record)]) == 0
        assert json.loads(record.read_text())["kind"] == kind
        before = len(server.requests)
        fetched, whole = tmp_path / "fetched" / f"{key}.npz", tmp_path / "whole" / f"{key}.npz"
        assert main(["dataset-graph", key, *data, "--scale", "0.01", "--fetched", str(record),
                     "--output", str(fetched)]) == 0
        assert len(server.requests) == before
        assert main(["dataset-graph", key, *data, "--scale", "0.01", "--output", str(whole)]) == 0
        assert _origin_without_time(fetched) == _origin_without_time(whole)
        assert _origin_without_time(fetched)["kind"] == kind
        assert np.array_equal(CSRGraph.load(fetched).weights, CSRGraph.load(whole).weights)
    assert "cannot be reached" in json.loads(record.read_text())["reason"]

    record = tmp_path / "downloads" / "ny.json"
    capsys.readouterr()
    (tmp_path / "data" / "ny" / "tiny.gr.gz").write_bytes(gzip.compress(SNAP))
    assert main(["dataset-graph", "ny", *data, "--fetched", str(record),
                 "--output", str(tmp_path / "bad.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has sha256" in err and f"delete {record}" in err
    (tmp_path / "data" / "ny" / "tiny.gr.gz").unlink()
    (tmp_path / "downloads" / "ny.files" / "tiny.gr.gz").unlink()  # its declared copy too
    assert main(["dataset-graph", "ny", *data, "--fetched", str(record),
                 "--output", str(tmp_path / "bad.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is gone" in err
    assert not (tmp_path / "bad.npz").exists()
    # a record of another dataset (or mode) is not this one's
    assert main(["dataset-graph", "offline", "--mode", "standin", "--registry", str(reg),
                 "--fetched", str(tmp_path / "downloads" / "offline.json"),
                 "--output", str(tmp_path / "bad.npz")]) == 2
    assert "in mode 'paper', not of 'offline' in mode 'standin'" in capsys.readouterr().err


def test_dem_with_a_fetched_record_converts_as_dem_alone(tmp_path):
    record = tmp_path / "neuse.json"
    args = ["--mode", "standin", "--no-mirrors", "--data", str(tmp_path / "data")]
    assert main(["fetch-record", "neuse_wake", *args, "--output", str(record)]) == 0
    assert json.loads(record.read_text()) == {"dataset": "neuse_wake", "mode": "standin",
                                              "kind": "stand-in",
                                              "reason": "config asks for stand-ins"}
    origins = []
    for name, extra in (("fetched", ["--fetched", str(record)]), ("whole", [])):
        out = tmp_path / name / "n.zgrid"
        assert main(["dem", "neuse_wake", *args, "--scale", "0.2", *extra,
                     "--output", str(out)]) == 0
        origins.append(out.with_name("n.zgrid.origin.json").read_text())
    assert origins[0] == origins[1] and '"kind": "stand-in"' in origins[0]
    assert main(["dem", str(tmp_path / "fetched" / "n.zgrid"), "--fetched", str(record),
                 "--output", str(tmp_path / "x.zgrid")]) == 2


def test_cli_datasets_lists_every_entry(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for key in TABLE1 + ["msdoor", "jacksboro_dem", "neuse_dem"]:
        assert f"\n{key} " in out
    assert "embedded (real" in out and "stand-in (no public copy)" in out


# --- safari2017 Table 1 -----------------------------------------------------------------------

def test_table1_compares_real_rows_and_labels_standins():
    stats = {
        "ny": {"vertices": 264346, "arcs": 733846, "max_outdegree": 8, "std_outdegree": 1.2449,
               "median_outdegree": 3.0, "mean_outdegree": 2.776, "stands_for": "New York",
               "origin": {"kind": "real", "url": "http://x/NY.gr.gz", "sha256": "ab" * 32}},
        "roadnet_pa": {"vertices": 1090920, "arcs": 3083796, "max_outdegree": 20,
                       "std_outdegree": 1.31, "median_outdegree": 3.0, "mean_outdegree": 2.83,
                       "stands_for": "Pennsylvania", "origin": {"kind": "real", "url": "u"}},
        "western": {"vertices": 6262, "arcs": 15248, "max_outdegree": 8, "std_outdegree": 1.0,
                    "median_outdegree": 2.0, "mean_outdegree": 2.4, "stands_for": "Western",
                    "origin": {"kind": "stand-in", "generator": "road_like", "seed": 7,
                               "scale": 0.001, "reason": "offline", "document_name": "Western"}},
    }
    from graphrepro.claims import fill_verdicts, judge_target

    t = get_target("safari2017_table1")
    rows = judge_target(t, pd.DataFrame(), stats)
    table = fill_verdicts(t.compare(pd.DataFrame(), stats, published("safari2017")), rows)
    table, ledger = table.set_index("graph"), rows.set_index("claim_id")
    assert table.loc["ny", "verdict"] == "not reproduced"
    assert "mean outdegree 2.776 vs 2" in ledger.loc["t1.ny", "reason"]  # the caption says 2
    assert "vertices 1,090,920 vs 1,090,903" in ledger.loc["t1.pa", "reason"]
    assert table.loc["western", "verdict"] == "not testable here"
    assert ledger.loc["t1.western", "reason"].startswith("data: a stand-in")
    assert table.loc["western", "data"].startswith("STAND-IN (scale 0.001 road_like, seed 7)")
    assert table.loc["ny", "data"].startswith("real: http://x/NY.gr.gz")
    assert table.loc["ny", "published vertices"] == "264346"


# --- the workflow, paper mode, against the loopback server and an unreachable host -------------

@pytest.mark.slow
def test_workflow_paper_mode_uses_real_files_and_labels_standins(tmp_path, server):
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    reg = registry_file(tmp_path, server)
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"""results: results
report: reports/index.html
reference: {tmp_path / 'no-reference'}
registry: {reg}
datasets: paper
data: {tmp_path / 'data'}
seed: 1
measure: {{sources: 2, trials: 1, warmup: 0}}
graphs:
  tiny: {{dataset: gappy}}
  gone: {{dataset: offline, scale: 0.1}}
targets:
  safari2017_table1: {{graphs: [tiny, gone]}}
""")
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(repo / "Snakefile"), "-d", str(tmp_path),
         "--cores", "2", "--configfile", str(cfg), "--replace-workflow-config"],
        capture_output=True, text=True, env=dict(os.environ), timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    origin = json.loads((tmp_path / "results" / "graphs" / "tiny.origin.json").read_text())
    assert origin["kind"] == "real" and origin["url"] == f"{server.url}/snap/gappy.txt.gz"
    assert json.loads((tmp_path / "datasets.lock.json").read_text())["gappy"]["sha256"] == origin["sha256"]
    gone = json.loads((tmp_path / "results" / "graphs" / "gone.origin.json").read_text())
    assert gone["kind"] == "stand-in" and "cannot be reached" in gone["reason"]
    table = pd.read_csv(tmp_path / "results" / "targets" / "safari2017_table1.csv").set_index("graph")
    assert table.loc["tiny", "data"].startswith("real: http://127.0.0.1")
    assert table.loc["gone", "data"].startswith("STAND-IN (scale 0.1 road_like")
    html = (tmp_path / "reports" / "index.html").read_text()
    assert "STAND-IN (scale 0.1 road_like" in html and "<b>a stand-in</b>" in html
