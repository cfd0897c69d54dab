"""The peers (issue 33): their source fetched (a local HTTP server, the offline mirror), verified
by its unpacked tree, patched by our edits, and run through the harness, where a peer without a
build says "not built" and a peer that misses its deadline is recorded as "hung". No nvcc and no
GPU are needed: a small Python program stands in for a peer's driver, speaking its protocol."""

from __future__ import annotations

import io
import json
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest
from loopback import Server

from graphrepro.datasets import peers
from graphrepro.datasets.download import DownloadError
from graphrepro.graph.generate import random_digraph
from graphrepro.harness import RunSpec, measure
from graphrepro.harness.files import read_run_table
from graphrepro import verify
from graphrepro.native import peers as native_peers

MIRROR = Path(__file__).resolve().parents[1].parent / "shared" / "peers"

FILES = {
    "ads_int/kernel.cu": '#include "../cub-1.8.0/cub/cub.cuh"\nint x = cub::LaneId();\n'
                         "int main(int argc, char *argv[]) {\n  return 0;\n}\n",
    "ads_int/wl.h": "#define MAX_TB 128\n",
    "ads_int/csr_graph.cu": "#include <boost/mpl/if.hpp>\n#include <vector>\n",
    "README.md": "a peer\n",
}


def tarball(files, top="adds-abc", mode="w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def fake_peer(tmp_path, files=FILES) -> peers.PeerSource:
    path = tmp_path / "probe.tar.gz"
    path.write_bytes(tarball(files))
    return peers.PeerSource("adds", "UCLA-VAST/adds", "abc", peers.tree_digest(path), "none",
                            peers.ADDS_EDITS)


def test_the_tree_digest_is_the_files_not_the_compression_nor_the_top_folder(tmp_path):
    a, b, c = tmp_path / "a.tar.gz", tmp_path / "b.tar.xz", tmp_path / "c.tar.gz"
    a.write_bytes(tarball(FILES))
    b.write_bytes(tarball(FILES, top="adds-9ef8166", mode="w:xz"))
    c.write_bytes(tarball({**FILES, "README.md": "a peer!\n"}))
    assert peers.tree_digest(a) == peers.tree_digest(b) != peers.tree_digest(c)
    (tmp_path / "d.tar.gz").write_bytes(b"not a tarball")
    with pytest.raises(peers.InvalidDatasetFile, match="not a readable tar archive"):
        peers.tree_digest(tmp_path / "d.tar.gz")


def test_a_download_cut_half_way_resumes_and_its_tree_is_verified(tmp_path):
    peer = fake_peer(tmp_path)
    with Server({"/cut/adds.tar.gz": tarball(FILES)}) as s:
        path, origin = peers.fetch(peer, tmp_path / "out", None, url=f"{s.url}/cut/adds.tar.gz")
        assert [r for _, r in s.requests if r]  # the second request asked for the rest
    assert origin.startswith("url ") and path.is_file()
    assert peers.fetch(peer, tmp_path / "out", None)[1] == "kept"  # checked again, not fetched


def test_a_download_with_another_tree_is_refused_and_deleted(tmp_path):
    peer = fake_peer(tmp_path)
    other = tarball({**FILES, "ads_int/wl.h": "#define MAX_TB 512\n"})
    with Server({"/adds.tar.gz": other}) as s, pytest.raises(DownloadError) as e:
        peers.fetch(peer, tmp_path / "out", None, url=f"{s.url}/adds.tar.gz")
    assert e.value.verification and "tree digest" in str(e.value)
    assert not list((tmp_path / "out" / "downloads").glob("*.tar.gz*"))


def test_the_mirror_is_searched_first_and_a_wrong_copy_there_stops(tmp_path):
    peer = fake_peer(tmp_path)
    good, bad = tmp_path / "good", tmp_path / "bad"
    for d, files in ((good, FILES), (bad, {**FILES, "README.md": "tampered\n"})):
        (d / "deep").mkdir(parents=True)
        (d / "deep" / peer.filename).write_bytes(tarball(files))
    path, origin = peers.fetch(peer, tmp_path / "out", [good], offline=True)
    assert origin == f"mirror {path}" and path.parent == good / "deep"
    with pytest.raises(DownloadError, match="tree digest") as e:
        peers.fetch(peer, tmp_path / "out2", [bad], offline=True)
    assert e.value.verification
    with pytest.raises(DownloadError, match="not in any offline mirror"):
        peers.fetch(peer, tmp_path / "out3", [tmp_path / "none"], offline=True)


def test_the_patch_applies_each_edit_exactly_once_or_says_why_not(tmp_path):
    peer = fake_peer(tmp_path)
    tree = peers.unpack(tmp_path / "probe.tar.gz", peer, tmp_path / "out")
    kernel = (tree / "ads_int" / "kernel.cu").read_text()
    assert "<cub/cub.cuh>" in kernel and "threadIdx.x % 32" in kernel
    assert "adds_published_main" in kernel and "boost" not in (tree / "ads_int/csr_graph.cu").read_text()
    assert (tree / "ads_int" / "wl.h").read_text() == "#define MAX_TB 512\n"
    twice = {**FILES, "ads_int/wl.h": "#define MAX_TB 128\n#define MAX_TB 128\n"}
    peer2 = fake_peer(tmp_path, twice)
    with pytest.raises(peers.PeerSourceError, match=r"wl.h holds .*2 times, not once"):
        peers.unpack(tmp_path / "probe.tar.gz", peer2, tmp_path / "out")
    assert tree.is_dir()  # the earlier unpacked tree is left as it was


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no offline mirror ../shared/peers here")
@pytest.mark.parametrize("name", sorted(peers.PEER_SOURCES))
def test_the_pinned_commits_verify_from_the_mirror_and_adds_patch_applies(tmp_path, name):
    peer = peers.PEER_SOURCES[name]
    path, origin = peers.fetch(peer, tmp_path, [MIRROR], offline=True)
    assert origin.startswith("mirror")
    tree = peers.unpack(path, peer, tmp_path)
    if name == "adds":
        assert "#define MAX_TB 512" in (tree / "ads_int" / "wl.h").read_text()
    else:
        assert (tree / "include" / "gunrock" / "algorithms" / "sssp.hxx").is_file()


def test_without_nvcc_the_manifest_and_the_run_rows_say_not_built(tmp_path, monkeypatch):
    monkeypatch.setattr(peers, "find_nvcc", lambda: None)
    manifest = peers.build_peers(None, tmp_path, None, offline=True, log=lambda m: None)
    assert manifest["not_built"] == {"adds": "not built: no nvcc", "gunrock": "not built: no nvcc"}
    monkeypatch.setenv("GRAPHREPRO_PEERS_DIR", str(tmp_path))
    table = run(graph(), "gunrock")
    assert set(table["status"]) == {"not built: no nvcc"}


# --- a stand-in for a peer's driver: the protocol of native/adds_driver.cu ---------------------

DRIVER = '''#!{python}
import sys, time
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
raw = open(sys.argv[1], "rb").read()
_, _, n, m = (int(x) for x in np.frombuffer(raw, "<u8", 4))
ends = np.frombuffer(raw, "<u8", n, 32).astype(np.int64)
heads = np.frombuffer(raw, "<u4", m, 32 + 8 * n)
w = np.frombuffer(raw, "<u4", m, 32 + 8 * n + 4 * m + 4 * (m % 2)).astype(float)
g = csr_matrix((w + 1e-9, heads, np.concatenate([[0], ends])), shape=(n, n))
out = sys.stdout.buffer
out.write(np.int64(n).tobytes()); out.flush()
for line in sys.stdin:
    s = int(line)
    if s == {hang}:
        time.sleep(60)
    d = dijkstra(g, indices=s)
    d = np.where(np.isinf(d), 2**31 - 1, np.round(d)).astype("<i4")
    out.write(np.array([1.5, 2.0, 0.1], "<f8").tobytes() + np.int64(7).tobytes() + d.tobytes())
    out.flush()
'''


def graph():
    return random_digraph(200, 800, max_weight=50, seed=5)


def run(g, solver, sources=(3, 17, 42)):
    digests = [verify.digest(verify.reference_distances(g, s)) for s in sources]
    return measure(g, RunSpec(solver, list(sources), digests, trials=2, warmup=1),
                   log=lambda m: None)


def install_driver(tmp_path, monkeypatch, hang=-1):
    program = tmp_path / "adds"
    program.write_text(DRIVER.format(python=sys.executable, hang=hang))
    program.chmod(0o755)
    (tmp_path / "manifest.json").write_text(json.dumps({"peers": {"adds": {"binary": "adds"}}}))
    monkeypatch.setenv("GRAPHREPRO_PEERS_DIR", str(tmp_path))


def test_a_peer_runs_through_the_harness_with_its_own_timer_beside_ours(tmp_path, monkeypatch):
    install_driver(tmp_path, monkeypatch)
    table = run(graph(), "adds")
    assert (table["status"] == "ok").all() and len(table) == 6
    assert (table["solve_ms"] == 2.0).all() and (table["peer_ms"] == 1.5).all()
    assert (table["work"] == 7).all() and (table["document"] == "peer").all()


def test_a_peer_that_misses_its_deadline_is_killed_recorded_hung_and_the_run_goes_on(
        tmp_path, monkeypatch):
    install_driver(tmp_path, monkeypatch, hang=17)
    table = run(graph(), "adds@deadline_s=3")
    by = table.groupby("source")["status"].apply(set).to_dict()
    assert by == {4: {"ok"}, 18: {"hung"}, 43: {"ok"}}  # labels are 1-based; 43: a new process
    table.to_csv(tmp_path / "adds.csv", index=False)  # a table with a hung source reads whole
    assert len(read_run_table(tmp_path / "adds.csv", labels=[4, 18, 43])) == 5
    table = run(graph(), "adds@deadline_s=3,max_hangs=1")  # then it stops trying
    assert list(table.drop_duplicates("source")["status"]) == ["ok", "hung",
                                                               "not run: adds hung 1 times"]


def test_the_files_the_peers_read_hold_the_graph(tmp_path):
    g = graph()
    native_peers.write_galois_gr(g, tmp_path / "g.gr")
    raw = (tmp_path / "g.gr").read_bytes()
    n, m = g.num_vertices, g.num_arcs
    assert list(np.frombuffer(raw, "<u8", 4)) == [1, 4, n, m]
    assert len(raw) == 32 + 8 * n + 8 * m + 4 * (m % 2)
    assert (np.frombuffer(raw, "<u4", m, 32 + 8 * n) == g.indices).all()
    native_peers.write_matrix_market(g, tmp_path / "g.mtx")
    lines = (tmp_path / "g.mtx").read_text().splitlines()
    assert lines[:2] == ["%%MatrixMarket matrix coordinate integer general", f"{n} {n} {m}"]
    first = g.indices[0] + 1
    assert lines[2] == f"1 {first} {g.weights[0]}" and len(lines) == m + 2


FAKE_NVCC = '''#!/bin/sh
# stands in for nvcc: --version, or writes the file named after -o
if [ "$1" = "--version" ]; then echo "Cuda compilation tools, fake"; exit 0; fi
while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then echo built > "$2"; fi; shift; done
'''


def test_a_build_is_kept_while_its_key_holds_and_redone_when_forced(tmp_path, monkeypatch):
    if not MIRROR.is_dir():
        pytest.skip("no offline mirror ../shared/peers here")
    nvcc = tmp_path / "nvcc"
    nvcc.write_text(FAKE_NVCC)
    nvcc.chmod(0o755)
    monkeypatch.setattr(peers, "find_nvcc", lambda: str(nvcc))
    out = tmp_path / "peers"
    first = peers.build_peers(["adds"], out, [MIRROR], offline=True, arch="sm_90",
                              log=lambda m: None)
    entry = first["peers"]["adds"]
    assert (out / "adds").read_text() == "built\n" and entry["nvcc"].endswith("fake")
    assert entry["tree_sha256"] == peers.PEER_SOURCES["adds"].tree_sha256
    assert json.loads((out / "adds.json").read_text())["key"] == entry["key"]
    (out / "manifest.json").unlink()  # snakemake deletes a rule's output before rerunning it
    monkeypatch.setattr(peers, "find_nvcc", lambda: None)  # kept even where no nvcc is
    again = peers.build_peers(["adds"], out, [], offline=True, arch="sm_90", log=lambda m: None)
    assert again["peers"]["adds"] == entry and native_peers.binary("adds", out) == out / "adds"
    other = peers.build_peers(["adds"], out, [MIRROR], offline=True, arch="sm_80",
                              log=lambda m: None)
    assert other["not_built"] == {"adds": "not built: no nvcc"}  # another GPU: another build


def test_a_reference_table_copied_from_its_own_call_is_credited_with_that_calls_runs(tmp_path):
    from graphrepro.experiments import get_target
    from graphrepro.report.provenance import table_provenance

    ref = tmp_path / "reference"
    for folder, commit in (("runs/ny", "old"), ("peers/runs/ny", "996ffc2")):
        (ref / folder).mkdir(parents=True)
        (ref / folder / "frontier.provenance.json").write_text(json.dumps(
            {"commit": commit, "gpu": "H100", "date": "2026-11-26T09:15:32+00:00"}))
    target = get_target("frontier_sssp")
    assert [g["commit"] for g in table_provenance(ref, target)] == ["old"]
    (ref / "targets").mkdir()
    (ref / "targets" / "frontier_sssp.runs").write_text("# why\npeers/runs/ny/frontier.provenance.json\n")
    assert [g["commit"] for g in table_provenance(ref, target)] == ["996ffc2"]


def test_a_table_merged_from_shards_of_two_commits_credits_both(tmp_path):
    from graphrepro.experiments import get_target
    from graphrepro.report.provenance import table_provenance

    ref = tmp_path / "reference"
    (ref / "runs/ny").mkdir(parents=True)
    shards = [{"commit": c, "gpu": "H200", "date": d} for c, d in (
        ("aaa", "2026-11-26T09:00:00"), ("bbb", "2026-11-27T10:00:00"), ("bbb", "2026-11-27T11:00:00"))]
    (ref / "runs/ny/frontier.provenance.json").write_text(json.dumps({**shards[0], "shards": shards}))
    (ref / "runs/ny/adds.provenance.json").write_text(json.dumps(shards[2]))
    got = table_provenance(ref, get_target("frontier_sssp"), {"graphs": ["ny"],
                                                              "runs": ["frontier", "adds"]})
    assert [(g["commit"], g["runs"], g["date"]) for g in got] == [
        ("aaa", 1, "2026-11-26 09:00"), ("bbb", 2, "2026-11-27 10:00 to 2026-11-27 11:00")]


def test_a_source_whose_distances_pass_int32_is_refused_not_hung(tmp_path, monkeypatch):
    """Issue 54: both peers hung where path sums pass 2^31 although each weight fit. On the path
    2^30, 2^30, 5 the first vertex's distances pass INT32_MAX; the second's fit, but one more
    relaxation of the heaviest arc would not (the peers add in 32 bits); the third's clear."""
    from graphrepro.graph.csr import CSRGraph
    from graphrepro.solvers.peer.peers import largest_sum_clears

    install_driver(tmp_path, monkeypatch, hang=0)  # asked for vertex 0, it would hang
    big = 2**30
    g = CSRGraph.from_arcs(4, np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([big, big, 5]),
                           base=1, name="path")
    assert not largest_sum_clears(g) and largest_sum_clears(graph())
    table = run(g, "adds@deadline_s=3", sources=(0, 1, 2))
    status = table.drop_duplicates("source").set_index("source")["status"].to_dict()
    assert status[1].startswith("not run: distances past int32 (largest 2,147,483,653")
    assert status[2].startswith("not run: distances past int32 (largest 1,073,741,829 + weight")
    assert status[3] == "ok"
    assert "hung" not in " ".join(status.values())  # nothing was killed or counted as a hang


def test_the_launch_grid_names_each_setting_once_and_each_resolves():
    from graphrepro.solvers.base import resolve
    from graphrepro.solvers.peer.peers import LAUNCH_GRID

    for peer, grid in LAUNCH_GRID.items():
        params = [tuple(sorted(resolve(run_id)[1].items())) for run_id in grid]
        assert len(set(params)) == len(grid) and grid[0] == peer  # its default first
