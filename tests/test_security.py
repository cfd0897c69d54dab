"""Security, round 3 (issue 52): each test plants one attack a config, a registry, a mirror, a
data folder or a resume archive could carry, and checks it is refused in one line with nothing
run, written or overwritten. Fast: no snakemake run, no network past the loopback."""

from __future__ import annotations

import io
import json
import os
import sys
import tarfile
from pathlib import Path

import pytest

from graphrepro import atomic, safepath, snakemake_args
from graphrepro.cli import main
from graphrepro.errors import InputError

REPO = Path(__file__).resolve().parents[1]


def _timeboxed():
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import timeboxed

    return timeboxed


def _archive(path: Path, members: dict, *, links: dict | None = None) -> Path:
    """A tar.gz of {name: bytes or a dict (written as JSON)} and {name: link target}."""
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            data = json.dumps(data).encode() if isinstance(data, dict) else data
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return path


MANIFEST = ".timeboxed-manifest.json"
GOOD = {MANIFEST: {"packed": 1, "left_out": []}, "res/runs/g/dijkstra.csv": b"x\n",
        ".snakemake/metadata/cmVzL3J1bnM": b"{}"}


# ---- 1. the time-boxed call's resume archive -------------------------------------------------

@pytest.mark.parametrize("member", ["Snakefile", "workflow/rules/runs.smk", "config/config.yaml",
                                    "src/graphrepro/__init__.py", "elsewhere/x.csv",
                                    "../outside.csv", "/tmp/abs.csv", "res/../Snakefile",
                                    "./res/x.csv", "-s.csv"])
def test_a_resume_archive_unpacks_nothing_when_a_member_is_not_a_results_file(
        tmp_path, monkeypatch, member):
    timeboxed = _timeboxed()
    monkeypatch.chdir(tmp_path)
    archive = _archive(tmp_path / "a.tar.gz", {**GOOD, member: b"rule evil: shell: 'touch pwned'"})
    with pytest.raises(SystemExit) as e:
        timeboxed.unpack(archive, [], Path("res"))
    assert repr(member) in str(e.value) and "nothing was unpacked" in str(e.value)
    assert "\n" not in str(e.value)
    assert not (tmp_path / "res").exists() and not (tmp_path / "Snakefile").exists()


def test_a_resume_archive_with_a_link_member_or_a_link_out_of_the_results_is_refused(
        tmp_path, monkeypatch):
    timeboxed = _timeboxed()
    monkeypatch.chdir(tmp_path)
    linked = _archive(tmp_path / "l.tar.gz", GOOD, links={"res/runs/g/x.csv": "/etc/passwd"})
    with pytest.raises(SystemExit, match="not a regular file"):
        timeboxed.unpack(linked, [], Path("res"))
    # the results folder holds a link out (planted before the call): nothing goes through it
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "res").mkdir()
    (tmp_path / "res" / "runs").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SystemExit, match="symbolic link"):
        timeboxed.unpack(_archive(tmp_path / "a.tar.gz", GOOD), [], Path("res"))
    assert list((tmp_path / "elsewhere").iterdir()) == []


@pytest.mark.parametrize("entry", ["--snakefile=res/evil.smk", "-sres/evil.smk", "/etc/passwd",
                                   "res/../Snakefile", "../res/x", "other/x.npz", 7])
def test_a_manifests_left_out_entry_must_be_a_results_path_before_snakemake_sees_it(
        tmp_path, monkeypatch, entry):
    timeboxed = _timeboxed()
    monkeypatch.chdir(tmp_path)
    archive = _archive(tmp_path / "a.tar.gz", {**GOOD, MANIFEST: {"left_out": [entry]},
                                               "res/evil.smk": b"rule x: shell: 'touch pwned'"})
    with pytest.raises(SystemExit) as e:
        timeboxed.unpack(archive, ["--cores", "1"], Path("res"))
    assert "left_out" in str(e.value) and "nothing was unpacked" in str(e.value)
    assert not (tmp_path / "res").exists() and not (tmp_path / "pwned").exists()


def test_a_results_folder_over_the_checkouts_code_is_refused(tmp_path, monkeypatch):
    timeboxed = _timeboxed()
    monkeypatch.chdir(tmp_path)
    archive = _archive(tmp_path / "a.tar.gz", {MANIFEST: {}, "workflow/rules/x.smk": b""})
    with pytest.raises(SystemExit, match="part of the checkout's code"):
        timeboxed.unpack(archive, [], Path("workflow"))


def test_a_good_resume_archive_unpacks_its_results_and_metadata(tmp_path, monkeypatch):
    timeboxed = _timeboxed()
    monkeypatch.chdir(tmp_path)
    names = timeboxed.unpack(_archive(tmp_path / "a.tar.gz", GOOD), [], Path("res"))
    assert sorted(names) == sorted(GOOD)
    assert (tmp_path / "res/runs/g/dijkstra.csv").read_bytes() == b"x\n"


# ---- 2. rerun and every snakemake command line ------------------------------------------------

def test_rerun_refuses_a_results_folder_that_reads_as_an_option(tmp_path, capsys):
    cfg = tmp_path / "evil.yaml"
    cfg.write_text('results: "-s."\n')
    assert main(["rerun", "safari2017_table2", "--configfile", str(cfg), "-n", "--cores", "1"]) == 2
    err = capsys.readouterr().err
    assert "results: '-s.'" in err and len(err.strip().splitlines()) == 1
    assert not err.startswith("+ ")  # no snakemake command was built, let alone run


def test_snakemake_targets_come_after_a_double_dash_and_never_read_as_options():
    cmd = snakemake_args.command(["--cores", "1"], ["safari2017_table2", "res/runs/g/x.csv"])
    assert cmd[-3:] == ["--", "safari2017_table2", "./res/runs/g/x.csv"]
    for bad in ("-s.", "--snakefile=x.smk", "../x.csv", "res/../../x"):
        with pytest.raises(safepath.UnsafePath):
            snakemake_args.command([], [bad])


def test_the_schema_refuses_a_results_folder_or_path_that_is_an_option_or_the_checkout():
    from graphrepro import configcheck, configs

    base = configs.load([])
    for key, value in (("results", "-s."), ("results", "."), ("results", "./"),
                       ("results", "/tmp"), ("results", "/"), ("results", "/tmp/../x"),
                       ("results", "a/../.."), ("report", "--x.html"), ("report", "/tmp/x.html"),
                       ("data", "-d"), ("reference", "--snakefile=x")):
        with pytest.raises(InputError, match=key):
            configcheck.check_config({**base, key: value})


# ---- 3. paths from a registry stay in the data folder -----------------------------------------

def _registry(tmp_path, topology_file: str) -> Path:
    path = tmp_path / "datasets.yaml"
    path.write_text(f"""datasets:
  ny:
    name: New York
    title: t
    documents: {{safari2017: "Table 1"}}
    source: download
    url: http://127.0.0.1:9/road/ny.gr.gz
    format: dimacs
    vertices: 10
    arcs: 20
    standin: {{generator: road_like, seed: 1}}
    topology:
      url: http://127.0.0.1:9/pace/NY.gr.xz
      file: "{topology_file}"
      format: pace
      weights: {{model: distance, seed: 1}}
""")
    return path


@pytest.mark.parametrize("name", ["../../evil.gr", "/tmp/evil.gr", "sub/evil.gr", "-x.gr"])
def test_a_registrys_topology_file_is_a_plain_name(tmp_path, name):
    from graphrepro.datasets.registry import load_registry

    with pytest.raises(InputError, match="topology/file") as e:
        load_registry(_registry(tmp_path, name))
    assert "\n" not in str(e.value)


def test_a_dataset_file_is_written_inside_the_data_folder_whatever_the_entry_or_a_link_says(
        tmp_path):
    import dataclasses

    from graphrepro.datasets.build import local_path, topology_dataset
    from graphrepro.datasets.registry import load_registry

    ds = load_registry(_registry(tmp_path, "NY.gr.xz"))["ny"]
    data = tmp_path / "data"
    assert local_path(topology_dataset(ds), data) == data / "ny_topology" / "NY.gr.xz"
    for name in ("../../evil.gr", "/tmp/evil.gr"):  # past the schema (a hand-made entry)
        bad = dataclasses.replace(ds, topology={**ds.topology, "file": name})
        with pytest.raises(safepath.UnsafePath, match="plain file name|absolute"):
            local_path(topology_dataset(bad), data)
    (data).mkdir()
    (tmp_path / "elsewhere").mkdir()
    (data / "ny").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(safepath.UnsafePath, match="symbolic link"):
        local_path(ds, data)


# ---- 4. temporary, part and lock files never followed through a planted link --------------------

def test_a_planted_lock_link_is_refused_and_its_target_untouched(tmp_path):
    from graphrepro.datasets.download import _locked

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    dest = tmp_path / "data" / "ny.gr.gz"
    dest.parent.mkdir()
    dest.with_name("ny.gr.gz.lock").symlink_to(victim)
    with pytest.raises(InputError, match="symbolic link"):
        with _locked(dest):
            pass
    assert victim.read_text() == "keep me\n"


def test_a_planted_part_link_is_refused_and_its_target_untouched(tmp_path):
    from loopback import Server

    from graphrepro.datasets.download import download

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    dest = tmp_path / "ny.gr.gz"
    dest.with_name("ny.gr.gz.part").symlink_to(victim)
    with Server({"/ny.gr.gz": b"a dataset" * 100}) as server:
        with pytest.raises(InputError, match="symbolic link"):
            download(server.url + "/ny.gr.gz", dest, progress=False, retries=0,
                     timeout=(2.0, 2.0))
    assert victim.read_text() == "keep me\n" and not dest.exists()


@pytest.mark.parametrize("mode", ["wb", "r+b", "ab"])
def test_every_in_place_write_refuses_a_link(tmp_path, mode):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (tmp_path / "x.part").symlink_to(victim)
    with pytest.raises(InputError, match="symbolic link"):
        atomic.open_file(tmp_path / "x.part", mode)
    with pytest.raises(InputError, match="symbolic link"):
        os.close(atomic.open_lock(tmp_path / "x.part"))
    assert victim.read_text() == "keep me\n"


# ---- 6. the peers' tree digest cannot be spelt out by a member name ----------------------------

# long paths: a member name past 100 bytes travels in a pax record, which keeps a NUL
PEER_FILES = {"ads_int/a_rather_long_header_name_for_the_worklist.h": b"#define MAX_TB 128\n",
              "README.md": b"a peer\n"}


def _peer_tarball(path: Path, files: dict, top: str = "adds-abc/") -> Path:
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_a_one_member_tarball_spelling_out_the_listing_is_refused_in_one_line(tmp_path):
    import hashlib

    from graphrepro.datasets import peers
    from graphrepro.datasets.download import DownloadError

    genuine = _peer_tarball(tmp_path / "genuine.tar.gz", PEER_FILES)
    peer = peers.PeerSource("adds", "UCLA-VAST/adds", "abc", peers.tree_digest(genuine), "none")
    # the old listing was "PATH\0SHA" lines joined by "\n": one member named after the first
    # line and the second path, holding the second file, spelt the same text
    (first, a), (second, b) = sorted(PEER_FILES.items())
    forged_name = f"{first}\0{hashlib.sha256(a).hexdigest()}\n{second}"
    forged = _peer_tarball(tmp_path / "forged.tar.gz", {forged_name: b})
    with tarfile.open(forged) as tar:
        assert [m.name for m in tar.getmembers()] == [f"adds-abc/{forged_name}"]
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    forged.rename(mirror / peer.filename)
    with pytest.raises(DownloadError) as e:
        peers.fetch(peer, tmp_path / "out", [mirror], offline=True)
    assert e.value.verification and "unsafe path" in str(e.value) and "\n" not in str(e.value)
    assert peers.listing_digest([("a", "file", "b\0c")]) != peers.listing_digest(
        [("a", "file", "b"), ("c", "", "")])


def test_the_unpacked_tree_is_checked_against_the_pinned_digest(tmp_path):
    from graphrepro.datasets import peers

    genuine = _peer_tarball(tmp_path / "genuine.tar.gz", PEER_FILES)
    peer = peers.PeerSource("adds", "UCLA-VAST/adds", "abc", peers.tree_digest(genuine), "none")
    assert (peers.unpack(genuine, peer, tmp_path / "out") / "README.md").read_bytes() == b"a peer\n"
    # a tarball swapped after its check (or one whose members unpack over one another)
    other = _peer_tarball(tmp_path / "other.tar.gz", {**PEER_FILES, "README.md": b"tampered\n"})
    with pytest.raises(peers.PeerSourceError, match="unpacked tree's digest"):
        peers.unpack(other, peer, tmp_path / "out2")
    assert not (tmp_path / "out2" / "src" / "adds-abc").exists()


# ---- 7. a resumable work folder hands back only this run's rows --------------------------------

def _zgrid(tmp_path, seed=4):
    import numpy as np

    from graphrepro.terrain import convert_array

    z = tmp_path / f"g{seed}.zgrid"
    convert_array(np.random.default_rng(seed).integers(0, 900, (16, 16)), z, source={})
    return z


def test_mst_io_refuses_a_leftover_row_of_another_grid_in_its_work_dir(tmp_path, capsys):
    work, out = tmp_path / "work", tmp_path / "t.csv"
    work.mkdir()
    (work / "row_whole_t0.json").write_text(json.dumps(
        {"per_block": "cpu_prealloc", "status": "ok", "weight": 1, "verified": "weight = Kruskal's"}))
    assert main(["mst-io", str(_zgrid(tmp_path)), "--variant", "cpu_prealloc", "--block-side", "8",
                 "--output", str(out), "--work-dir", str(work)]) == 2
    err = capsys.readouterr().err
    assert "row_whole_t0.json is a row of another run" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_kept_row_is_used_by_the_same_run_only(tmp_path):
    from graphrepro.solvers.gerritsen2012.mst_journal import WorkDirMismatch
    from graphrepro.solvers.gerritsen2012.mst_measure import measure_io

    z, work = _zgrid(tmp_path), tmp_path / "work"
    run = dict(block=8, per_block="kruskal", reduce="cpu", warmup=0, work_dir=work,
               log=lambda m: None)
    first = measure_io(z, commit="c1", **run)
    again = measure_io(z, commit="c1", **run)  # the row the first left: read back, not redone
    assert again.to_dict("records") == first.to_dict("records")
    with pytest.raises(WorkDirMismatch, match="differs in: commit"):
        measure_io(z, commit="c2", **run)
    _zgrid(tmp_path, seed=5).replace(z)  # another grid under the same name
    with pytest.raises(WorkDirMismatch, match="grid_sha256"):
        measure_io(z, commit="c1", **run)


# ---- every place a snakemake command line or a file path is built from outside input -----------

OPTION, ABSOLUTE, PARENT = "-s.evil.smk", "/tmp/evil", "../evil"  # "-s." made rerun run a file


def _config_path(key):
    def plant(tmp_path, monkeypatch, value):
        from graphrepro import configcheck, configs

        if key == "results" and value == ABSOLUTE:
            # a results folder may be absolute two plain levels deep (a cluster's scratch:
            # issue 56's scale-out), never at the root or one level down
            configcheck.check_config({**configs.load([]), key: value})
            value = "/" + Path(value).name
        with pytest.raises(InputError, match=key):
            configcheck.check_config({**configs.load([]), key: value})
    return plant


def _snakemake_target(tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(safepath.UnsafePath):
        snakemake_args.command(["--cores", "1"], [value])


def _rerun_measured_file(tmp_path, monkeypatch, value):
    from graphrepro import configs

    # past the schema (a config built in code): the command line still refuses it
    files = configs.measured_files("safari2017_table2", {**configs.load([]), "results": value})
    monkeypatch.chdir(tmp_path)
    with pytest.raises(safepath.UnsafePath):
        snakemake_args.command([], files)


def _manifest_left_out(tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    archive = _archive(tmp_path / "a.tar.gz", {**GOOD, MANIFEST: {"left_out": [value]}})
    with pytest.raises(SystemExit, match="left_out"):
        _timeboxed().unpack(archive, [], Path("res"))


def _archive_member(tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    archive = _archive(tmp_path / "a.tar.gz", {**GOOD, value: b"x"})
    with pytest.raises(SystemExit, match="nothing was unpacked"):
        _timeboxed().unpack(archive, [], Path("res"))
    archive = _archive(tmp_path / "b.tar.gz", {**GOOD, f"res/{value}": b"x"})
    with pytest.raises(SystemExit, match="nothing was unpacked"):
        _timeboxed().unpack(archive, [], Path("res"))


def _provenance_grid(tmp_path, monkeypatch, value):
    res = tmp_path / "res"
    (res / "benchmarks").mkdir(parents=True)
    for i, grid in enumerate({value, value if value.startswith("/") else f"{res}/{value}"}):
        (res / f"benchmarks/m{i}.provenance.json").write_text(
            json.dumps({"settings": {"zgrid": grid}}))
    assert _timeboxed()._terrains(res) == []  # not the results folder's: never rebuilt


def _registry_file(tmp_path, monkeypatch, value):
    from graphrepro.datasets.registry import load_registry

    text = _registry(tmp_path, "NY.gr.xz").read_text().replace(
        "    format: dimacs\n", f'    format: dimacs\n    file: "{value}"\n', 1)
    (tmp_path / "datasets.yaml").write_text(text)
    with pytest.raises(InputError, match="ny/file"):
        load_registry(tmp_path / "datasets.yaml")


def _registry_topology_file(tmp_path, monkeypatch, value):
    from graphrepro.datasets.registry import load_registry

    with pytest.raises(InputError, match="topology/file"):
        load_registry(_registry(tmp_path, value))


def _data_folder_file(tmp_path, monkeypatch, value):
    import dataclasses

    from graphrepro.datasets.build import local_path
    from graphrepro.datasets.registry import load_registry

    ds = load_registry(_registry(tmp_path, "NY.gr.xz"))["ny"]
    with pytest.raises(safepath.UnsafePath):
        local_path(dataclasses.replace(ds, file=value), tmp_path / "data")


def _mirror_lookup(tmp_path, monkeypatch, value):
    from graphrepro.datasets import mirror

    with pytest.raises(safepath.UnsafePath):
        mirror.candidates(value, [tmp_path])


def _peer_member(tmp_path, monkeypatch, value):
    from graphrepro.datasets import peers

    tarball = _peer_tarball(tmp_path / "p.tar.gz", {**PEER_FILES, value: b"x"},
                            top="" if value.startswith("/") else "adds-abc/")
    with pytest.raises(peers.InvalidDatasetFile, match="unsafe path"):
        peers.tree_digest(tarball)


PLACES = {"config results": _config_path("results"), "config report": _config_path("report"),
          "snakemake target": _snakemake_target, "rerun's measured files": _rerun_measured_file,
          "resume manifest left_out": _manifest_left_out, "resume archive member": _archive_member,
          "provenance zgrid": _provenance_grid, "registry file": _registry_file,
          "registry topology.file": _registry_topology_file,
          "dataset file in the data folder": _data_folder_file,
          "offline mirror lookup": _mirror_lookup, "peer archive member": _peer_member}


@pytest.mark.parametrize("planted", [OPTION, ABSOLUTE, PARENT])
@pytest.mark.parametrize("place", sorted(PLACES))
def test_every_place_refuses_an_option_an_absolute_path_and_a_parent(tmp_path, monkeypatch,
                                                                     place, planted):
    PLACES[place](tmp_path, monkeypatch, planted)
