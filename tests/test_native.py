"""The native baselines, built for real with g++ and boost-headers: BGL's Dijkstra and the plain
C++ Dijkstra against the reference, the build's errors, and the bench_cpu table."""

import json
import os

import numpy as np
import pandas as pd
import pytest

from graphrepro import native
from graphrepro.errors import GraphreproError
from graphrepro.graph.csr import CSRGraph
from graphrepro.graph.generate import random_digraph, road_grid
from graphrepro.solvers import INF, get_solver, solve
from workflow_files import one_grid_config

NATIVE = ("bgl_dijkstra", "cpp_dijkstra")


@pytest.fixture(scope="module", autouse=True)
def fresh_build(tmp_path_factory):
    """One real build into a scratch directory for the whole module, as on a fresh machine."""
    directory = tmp_path_factory.mktemp("native")
    old = os.environ.get("GRAPHREPRO_NATIVE_DIR")
    os.environ["GRAPHREPRO_NATIVE_DIR"] = str(directory)
    manifest = native.build(directory, log=lambda m: None)
    yield directory, manifest
    if old is None:
        del os.environ["GRAPHREPRO_NATIVE_DIR"]
    else:
        os.environ["GRAPHREPRO_NATIVE_DIR"] = old


def test_build_writes_every_program_and_a_manifest(fresh_build):
    directory, manifest = fresh_build
    for program in native.PROGRAMS:
        assert os.access(directory / program, os.X_OK)
        assert manifest["programs"][program]["source_digest"] == native.source_digest(program)
    assert manifest["flags"][0] == "-O3" and manifest["boost"].startswith("1.")
    assert json.loads((directory / "manifest.json").read_text()) == manifest


def test_a_stale_binary_is_rebuilt(fresh_build):
    directory, _ = fresh_build
    manifest = json.loads((directory / "manifest.json").read_text())
    manifest["programs"]["cpp_dijkstra"]["source_digest"] = "old"
    (directory / "manifest.json").write_text(json.dumps(manifest))
    before = (directory / "bgl_dijkstra").stat().st_mtime_ns
    native.binary("cpp_dijkstra")
    after = json.loads((directory / "manifest.json").read_text())
    assert after["programs"]["cpp_dijkstra"]["source_digest"] == native.source_digest("cpp_dijkstra")
    assert (directory / "bgl_dijkstra").stat().st_mtime_ns == before  # only the stale one


GRAPHS = {
    "islands": (road_grid(30, 30, keep=0.55, seed=4), [15, 0, 899]),
    "connected": (road_grid(40, 40, keep=0.9, seed=1, max_weight=20), [55, 1599]),
    "zero_weights": (random_digraph(500, 2000, max_weight=3, seed=7), [3, 499]),
    # parallel arcs, a zero-weight cycle, a self-loop, an unreachable vertex
    "hand_made": (CSRGraph.from_arcs(5, [0, 0, 1, 2, 2, 2], [1, 1, 2, 1, 2, 3], [5, 2, 0, 0, 0, 4]),
                  [0, 2, 4]),
}


@pytest.mark.parametrize("case", list(GRAPHS))
@pytest.mark.parametrize("name", NATIVE)
def test_native_dijkstra_matches_reference(case, name):
    graph, sources = GRAPHS[case]
    prepared = get_solver(name).prepare(graph)
    for source in sources:  # one process answers every source
        result = prepared.solve(source)
        assert result.distances.dtype == np.int64 and result.solve_ms >= 0
        np.testing.assert_array_equal(result.distances, solve(graph, source))
    prepared.close()


def test_cpp_dijkstra_relaxes_what_the_numba_reference_relaxes():
    from graphrepro.solvers.reference import dijkstra_csr

    graph, [source, *_] = GRAPHS["connected"]
    relaxed = get_solver("cpp_dijkstra").prepare(graph).solve(source).counters["arcs_relaxed"]
    assert relaxed == dijkstra_csr(graph.indptr, graph.indices, graph.weights, source)[1]
    assert get_solver("bgl_dijkstra").prepare(graph).solve(source).counters == {}


def test_unreachable_is_inf_and_bad_sources_are_refused():
    graph, _ = GRAPHS["hand_made"]
    prepared = get_solver("bgl_dijkstra").prepare(graph)
    assert prepared.solve(2).distances.tolist() == [INF, 0, 0, 4, INF]
    with pytest.raises(GraphreproError, match="bad source line"):
        prepared.solve(5)


def test_native_runs_pass_the_harness():
    from graphrepro import verify
    from graphrepro.harness import RunSpec, draw_sources, measure

    graph = road_grid(10, 10, seed=4, name="native_grid")
    sources = [int(s) for s in draw_sources(graph, 2, seed=1)]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in sources]
    for name in NATIVE:
        table = measure(graph, RunSpec(name, sources, digests, trials=2, warmup=1), log=lambda m: None)
        assert set(table["status"]) == {"ok"} and len(table) == 4


def test_truncated_graph_file_is_a_clear_error(tmp_path):
    graph, _ = GRAPHS["connected"]
    path = tmp_path / "g.csr"
    native.write_csr(graph, path)
    path.write_bytes(path.read_bytes()[:-100])
    process = native.Process("cpp_dijkstra", [str(path)], path)
    with pytest.raises(GraphreproError, match="truncated while reading weights"):
        process.read(8)


def test_missing_compiler_and_boost_are_named(tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-g++"))
    with pytest.raises(native.NativeBuildError, match="install g\\+\\+"):
        native.build(tmp_path / "out", log=lambda m: None)
    monkeypatch.delenv("CXX")
    monkeypatch.setenv("BOOST_INCLUDE", str(tmp_path))
    with pytest.raises(native.NativeBuildError, match="pip install boost-headers"):
        native.build(tmp_path / "out", log=lambda m: None)


def test_boost_subset_holds_what_the_programs_include(tmp_path):
    import tarfile

    archive = tmp_path / "boost-subset.tgz"
    packed = native.pack_boost_subset(archive)
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
    assert {"boost/version.hpp", "boost/graph/dijkstra_shortest_paths.hpp",
            "boost/graph/kruskal_min_spanning_tree.hpp"} <= names
    assert packed["headers"] == len(names)
    assert not any(n.startswith(("/", "..")) for n in names)
    # a subset: a small part of what boost-headers installs
    assert len(names) < sum(1 for _ in native.boost_include().rglob("*.hpp")) / 4


@pytest.mark.slow
def test_the_programs_build_from_the_boost_subset_alone(tmp_path, monkeypatch):
    import tarfile

    native.pack_boost_subset(tmp_path / "boost-subset.tgz")
    with tarfile.open(tmp_path / "boost-subset.tgz") as tar:
        tar.extractall(tmp_path / "include", filter="data")
    monkeypatch.setenv("BOOST_INCLUDE", str(tmp_path / "include"))
    manifest = native.build(tmp_path / "out", log=lambda m: None)
    assert set(manifest["programs"]) == set(native.PROGRAMS)
    assert manifest["boost_include"] == str(tmp_path / "include")


def test_bench_cpu_table_puts_bgl_on_calnev_beside_the_paper():
    from graphrepro.experiments import get_target, published

    rows = []
    for graph in ("calnev", "road_small"):
        for solver, ms in (("bgl_dijkstra", 400.0), ("dijkstra", 500.0), ("delta_stepping_par", 300.0)):
            for source in (1, 2):
                rows.append({"graph": graph, "solver": solver, "source": source, "trial": 0,
                             "status": "ok", "solve_ms": ms, "params": "{}"})
    stats = {g: {"vertices": 10, "arcs": 20, "stands_for": None} for g in ("calnev", "road_small")}
    table = get_target("bench_cpu").compare(pd.DataFrame(rows), stats, published("safari2017"))
    bgl = table[(table["graph"] == "calnev") & (table["solver"] == "bgl_dijkstra")].iloc[0]
    assert bgl["published (ms)"] == 588 and bgl["ours / published"] == pytest.approx(400 / 588)
    assert pd.isna(table[(table["graph"] == "road_small")
                         & (table["solver"] == "bgl_dijkstra")]["published (ms)"]).all()
    dij = table[(table["graph"] == "calnev") & (table["solver"] == "dijkstra")].iloc[0]
    assert dij["time / BGL"] == pytest.approx(1.25)
    assert dij["goal"] == "within 1.5x of BGL (ours 1.25x BGL's time)"  # stated, not judged
    par = table[(table["graph"] == "calnev") & (table["solver"] == "delta_stepping_par")].iloc[0]
    assert par["goal"] == "faster than BGL (ours 0.75x BGL's time)"
    assert bgl["claim_id"] == "cn.bgl_time"  # its verdict comes from the ledger
    missing = table[(table["graph"] == "calnev") & (table["solver"] == "cpp_dijkstra")].iloc[0]
    assert missing["median (ms)"] == "not in this run"


@pytest.mark.slow
def test_workflow_builds_the_binaries_and_prints_bench_cpu(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    cfg = tmp_path / "config.yaml"
    cfg.write_text(one_grid_config("bench_cpu", tmp_path / "no-reference"))
    env = {k: v for k, v in os.environ.items() if k != "GRAPHREPRO_NATIVE_DIR"}
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(repo / "Snakefile"), "-d", str(tmp_path),
         "build_native", "bench_cpu", "--cores", "2", "--configfile", str(cfg),
         "--replace-workflow-config"],
        capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    manifest = json.loads((tmp_path / "build" / "native" / "manifest.json").read_text())
    assert set(manifest["programs"]) == set(native.PROGRAMS)
    # the benchmark's table goes to its log, not the terminal (the run ends with a short summary)
    printed = (tmp_path / "results" / "logs" / "targets" / "bench_cpu.log").read_text()
    assert "bench_cpu:" in printed and "bgl_dijkstra" in printed
    table = pd.read_csv(tmp_path / "results" / "targets" / "bench_cpu.csv")
    assert (table.loc[table["solver"] == "bgl_dijkstra", "time / BGL"] == 1).all()
    assert table["median (ms)"].astype(float).gt(0).all()
