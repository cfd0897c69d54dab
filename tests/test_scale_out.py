"""Issue 56 item 8: what a cluster without a shared file system or network needs. The peers'
source archives are fetched by a local job into a declared output folder (the build, which may
run on an offline compute node, reads only that); dataset fetches are local jobs; a `results:`
folder may be an absolute path (a scratch disk)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_peers import FAKE_NVCC, MIRROR

from graphrepro.configcheck import schema_errors
from graphrepro.datasets import peers

REPO = Path(__file__).resolve().parents[1]


def graphrepro(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "graphrepro", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_results_may_be_an_absolute_folder_but_not_a_system_one():
    def errors(results):
        return [e for e in schema_errors({"results": results}) if "results" in e]

    for fine in ("results", "runs/h200", "/scratch/me/results", "/tmp/x/res/"):
        assert errors(fine) == [], fine
    for bad in ("/", "/etc", "/scratch/../etc", "/scratch/./x", "-results", "../results",
                "/scratch/me\n/x"):
        assert errors(bad), bad


def test_the_peers_are_fetched_where_the_network_is_and_built_from_that_alone(tmp_path,
                                                                           monkeypatch):
    if not MIRROR.is_dir():
        pytest.skip("no offline mirror ../shared/peers here")
    out = tmp_path / "peers"
    fetched = graphrepro("build-peers", "--fetch-only", "--offline", "--mirror", str(MIRROR),
                         "--peer", "adds", "--out", str(out))
    assert fetched.returncode == 0, fetched.stderr
    assert [p.name for p in (out / "downloads").iterdir()] == [peers.PEER_SOURCES["adds"].filename]
    nvcc = tmp_path / "nvcc"
    nvcc.write_text(FAKE_NVCC)
    nvcc.chmod(0o755)
    monkeypatch.setattr(peers, "find_nvcc", lambda: str(nvcc))
    built = peers.build_peers(["adds"], out, [], offline=True, arch="sm_90", log=lambda m: None)
    assert built["not_built"] == {} and (out / "adds").read_text() == "built\n"


def test_a_peer_that_cannot_be_fetched_is_left_for_the_build_to_record(tmp_path):
    out = tmp_path / "peers"
    fetched = graphrepro("build-peers", "--fetch-only", "--offline", "--no-mirrors",
                         "--peer", "gunrock", "--out", str(out))
    assert fetched.returncode == 0, fetched.stderr
    assert "gunrock: not fetched" in fetched.stderr
    assert list((out / "downloads").iterdir()) == []


@pytest.mark.slow
def test_a_dry_run_with_absolute_results_fetches_locally_and_builds_from_declared_files(tmp_path):
    results = tmp_path / "scratch" / "results"
    # --forceall: the checkout may hold the peers a main job fetched already (CI runs it first)
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--forceall",
                          "--workflow-profile", "none",
                          "--cores", "1", "--config", f"results={results}", "--", "build_peers",
                          "downloads"], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "HOME": str(tmp_path)})
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    assert "\nrule fetch_peers:" in text and "\nrule build_peers:" in text
    assert "input: " + ", ".join(f"{REPO}/src/graphrepro/native/{f}" for f in (
        "adds_driver.cu", "gunrock_driver.cu", "gunrock_device.hpp")) + ", build/peers/downloads" in text
    assert f"{results}/downloads/graphs/" in text and f"{results}/logs/build_peers.log" in text
    assert not results.exists()  # a dry run


def test_fetches_are_local_jobs():
    """(A dry run does not say which jobs are local: snakemake decides that with the executor.)"""
    rules = REPO / "workflow" / "rules"
    assert "\nlocalrules:\n    fetch_peers,\n" in (rules / "peers.smk").read_text()
    assert "\nlocalrules:\n    fetch_dataset,\n" in (rules / "datasets.smk").read_text()


def test_a_fetched_file_travels_in_the_records_declared_folder(tmp_path):
    """A node without the login node's file system sees the fetch's declared outputs only: the
    record and its folder, which holds the real file (a link where it can be)."""
    from graphrepro.datasets.download import sha256_of
    from graphrepro.datasets.fetched import copy_folder, read_record, write_record

    data = tmp_path / "data" / "ny.gr"
    data.parent.mkdir()
    data.write_text("p sp 2 1\na 1 2 5\n")
    record_path = tmp_path / "res" / "downloads" / "graphs" / "ny.json"
    record = {"kind": "real", "file": str(data), "sha256": sha256_of(data), "via": "mirror",
              "dataset": "ny", "mode": "paper"}
    write_record(record_path, record)
    copy = copy_folder(record_path) / "ny.gr"
    assert copy.is_file() and os.path.samefile(copy, data)  # linked, not a second copy
    assert read_record(record_path, "ny", "paper")["file"] == str(data)  # where it lies, if seen
    data.unlink()  # the compute node: no data folder, only what the job declared
    assert read_record(record_path, "ny", "paper")["file"] == str(copy)
    standin = tmp_path / "res" / "downloads" / "graphs" / "col.json"
    write_record(standin, {"kind": "standin", "dataset": "col", "mode": "standin"})
    assert list(copy_folder(standin).iterdir()) == []  # a stand-in: the folder, empty
