"""Half-written or corrupt intermediate files are refused where a step reads them, with the file's
name and how to rebuild it; none is read as NaNs, none crashes the process."""

import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrepro import verify
from graphrepro.errors import ExitCode
from graphrepro.graph.csr import CSRGraph
from graphrepro.harness import RunSpec, draw_sources, measure
from graphrepro.harness.files import DamagedFile, read_run_table, read_sources
from graphrepro.report.tables import load_runs

from strategies import graphs_and_sources

FS = settings(max_examples=60, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A real graph cache, sources record and run table, as the workflow writes them."""
    d = tmp_path_factory.mktemp("files")
    from graphrepro.graph import generate

    g = generate.road_grid(5, 5, keep=1.0, max_weight=9, seed=1)
    g.name = "grid"
    g.save(d / "grid.npz")
    sources = draw_sources(g, 3, 1)
    record = {"graph": "grid", "sources": [int(s) for s in sources],
              "labels": [int(x) for x in g.label_of(sources)],
              "digests": [verify.digest(verify.reference_distances(g, int(s))) for s in sources],
              "stats": {"vertices": g.num_vertices}}
    (d / "grid.json").write_text(json.dumps(record, indent=1) + "\n")
    runs = d / "runs" / "grid"
    runs.mkdir(parents=True)
    table = measure(g, RunSpec("dijkstra", record["sources"], record["digests"], trials=2,
                               warmup=0), log=lambda m: None)
    table.to_csv(runs / "dijkstra.csv", index=False)
    return d, g, record


def _cut(src, dst, at):
    data = src.read_bytes()
    dst.write_bytes(data[:at])
    return dst


@FS
@given(frac=st.floats(0, 0.999))
def test_a_run_table_cut_anywhere_is_refused(written, tmp_path, frac):
    d, g, record = written
    src = d / "runs" / "grid" / "dijkstra.csv"
    path = _cut(src, tmp_path / "dijkstra.csv", int(frac * src.stat().st_size))
    with pytest.raises(DamagedFile, match="dijkstra.csv: .*delete it and run again"):
        read_run_table(path, record["labels"])
    assert path.stat().st_mtime == 0  # marked out of date: snakemake's mtime trigger reruns it


def test_the_whole_run_table_reads(written):
    d, g, record = written
    df = load_runs([d / "runs" / "grid" / "dijkstra.csv"], {"grid": record["labels"]})
    assert len(df) == 6 and not df["solve_ms"].isna().any()


@FS
@given(frac=st.floats(0, 0.999))
def test_a_graph_cache_cut_anywhere_is_refused(written, tmp_path, frac):
    d, g, record = written
    src = d / "grid.npz"
    path = _cut(src, tmp_path / "grid.npz", int(frac * src.stat().st_size))
    with pytest.raises(DamagedFile, match="grid.npz: "):
        CSRGraph.load(path)


@FS
@given(data=st.data())
def test_a_flipped_byte_gives_the_same_graph_a_valid_one_or_a_refusal(written, tmp_path, data):
    d, g, record = written
    raw = bytearray((d / "grid.npz").read_bytes())
    i = data.draw(st.integers(0, len(raw) - 1))
    raw[i] ^= data.draw(st.integers(1, 255))
    path = tmp_path / "flipped.npz"
    path.write_bytes(bytes(raw))
    try:
        back = CSRGraph.load(path)
    except DamagedFile:
        return
    assert back.invariant_problem() is None  # whatever loads is a graph solvers can index


@pytest.mark.parametrize("field, offset, mask", [
    ("flag bit 5, patched data", 8, 0x20), ("flag bit 6, strong encryption", 8, 0x40),
    ("flag bit 0, encrypted", 8, 0x01), ("compression method", 10, 0x63),
    ("version needed", 6, 0x40)])
def test_a_zip_entry_header_byte_flipped_is_refused(written, tmp_path, field, offset, mask):
    # zipfile answers these with NotImplementedError or RuntimeError, not BadZipFile
    d, g, record = written
    raw = bytearray((d / "grid.npz").read_bytes())
    first_entry = raw.index(b"PK\x01\x02")  # the central directory, which zipfile trusts
    raw[first_entry + offset] ^= mask
    path = tmp_path / "flipped.npz"
    path.write_bytes(bytes(raw))
    with pytest.raises(DamagedFile, match="flipped.npz: cannot be read as a graph cache"):
        CSRGraph.load(path)


def _save_arrays(path, **arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)


@FS
@given(case=graphs_and_sources(), bad=st.sampled_from(
    ["index_high", "index_negative", "indptr_short", "indptr_decreasing", "indptr_start",
     "weights_float", "weights_negative", "weights_2d", "labels_short", "no_base"]))
def test_a_hand_made_cache_that_breaks_csr_is_refused(tmp_path, case, bad):
    g, _ = case
    a = {"indptr": g.indptr.astype(np.int64), "indices": g.indices.astype(np.int64),
         "weights": g.weights.astype(np.int64), "base": np.int64(0), "name": np.str_("h")}
    n, m = g.num_vertices, g.num_arcs
    if bad == "index_high":
        a["indices"] = np.append(a["indices"], n + 1000)
        a["weights"] = np.append(a["weights"], 1)
        a["indptr"][-1] += 1
    elif bad == "index_negative":
        a["indices"] = np.append(a["indices"], -1)
        a["weights"] = np.append(a["weights"], 1)
        a["indptr"][-1] += 1
    elif bad == "indptr_short":
        a["indptr"] = np.append(a["indptr"][:-1], m + 5)
    elif bad == "indptr_decreasing":
        a["indptr"] = np.array([0, 3, 1, *([m] * (n - 1))]) if n >= 2 else np.array([0, -1])
    elif bad == "indptr_start":
        a["indptr"] = a["indptr"] + 1
    elif bad == "weights_float":
        a["weights"] = a["weights"].astype(np.float64)
    elif bad == "weights_negative":
        a["indices"] = np.append(a["indices"], 0)
        a["weights"] = np.append(a["weights"], -3)
        a["indptr"][-1] += 1
    elif bad == "weights_2d":
        a["weights"] = a["weights"].reshape(1, -1)
    elif bad == "labels_short":
        a["labels"] = np.arange(n + 1)
    else:
        del a["base"]
    path = tmp_path / f"{bad}.npz"
    _save_arrays(path, **a)
    with pytest.raises(DamagedFile, match=f"{bad}.npz: "):
        CSRGraph.load(path)


def test_out_of_range_indices_end_in_one_line_not_a_crash(tmp_path):
    """The process must not die by SIGSEGV: a run on a hand-made cache exits with one line, as
    bad data (4)."""
    path = tmp_path / "evil.npz"
    _save_arrays(path, indptr=np.array([0, 2, 2], dtype=np.int32),
                 indices=np.array([1, 10**9], dtype=np.int32), weights=np.array([1, 1], np.int32),
                 base=np.int64(1), name=np.str_("evil"))
    sources = tmp_path / "s.json"
    sources.write_text(json.dumps({"graph": "evil", "sources": [0], "digests": ["0" * 32]}))
    r = subprocess.run([sys.executable, "-m", "graphrepro", "run", str(path), "--solver",
                        "dijkstra", "--sources", str(sources), "--output", str(tmp_path / "o.csv")],
                       capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == ExitCode.BAD_DATA, r.stderr
    assert r.stderr.count("\n") == 1 and "evil.npz: an arc points at vertex 1000000000" in r.stderr


@FS
@given(frac=st.floats(0, 0.999))
def test_a_sources_record_cut_anywhere_is_refused(written, tmp_path, frac):
    d, g, record = written
    src = d / "grid.json"  # the final newline alone may go: the record is whole without it
    path = _cut(src, tmp_path / "grid.json", int(frac * (src.stat().st_size - 1)))
    with pytest.raises(DamagedFile, match="grid.json: "):
        read_sources(path, g.num_vertices)


@pytest.mark.parametrize("edit, says", [
    (lambda r: r.update(sources=[10**6] * len(r["sources"])), "is not a vertex"),
    (lambda r: r.update(digests=r["digests"][:1]), "one 32-hex-digit digest per source"),
    (lambda r: r.update(sources="1,2"), "non-empty list"),
    (lambda r: r.pop("graph"), "no graph name"),
])
def test_a_sources_record_that_does_not_fit_its_graph_is_refused(written, tmp_path, edit, says):
    d, g, record = written
    bad = dict(record)
    edit(bad)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(DamagedFile, match=says):
        read_sources(path, g.num_vertices)


def test_a_zip_that_is_no_npz_is_refused(tmp_path):
    path = tmp_path / "z.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("indptr.npy", b"not an array")
    with pytest.raises(DamagedFile, match="z.npz: "):
        CSRGraph.load(path)
