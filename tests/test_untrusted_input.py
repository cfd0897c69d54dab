"""Security round 3 (issue 52): command-line bounds, plain http, files read back, archives and
downloads bounded, and writes that survive any kill. Each test plants what an attacker (or a
broken disk) would."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from graphrepro.cli import main
from graphrepro.datasets.registry import DEFAULT_REGISTRY, load_registry
from graphrepro.errors import InputError

SHA = "ab" * 32


# --- config and command-line bounds -----------------------------------------------------------

@pytest.mark.parametrize("cores", ["-1", "0", "16", "100000"])
def test_plan_refuses_timed_cores_that_no_host_has(capsys, cores):
    assert main(["plan", "--cores", "16", "--timed-cores", cores]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --timed-cores {cores}: must be from 1 to") and err.count("\n") == 1


def _registry(tmp_path, **entry_changes):
    raw = yaml.safe_load(DEFAULT_REGISTRY.read_text())
    raw["datasets"]["col"].update(entry_changes)
    path = tmp_path / "reg.yaml"
    path.write_text(yaml.safe_dump(raw))
    return str(path)


@pytest.mark.parametrize("changes", [
    {"url": "http://example.org/d/COL.gr.gz"},
    {"mirrors": ["http://example.org/d/COL.gr.gz"]},
])
def test_plain_http_without_a_checksum_is_refused(tmp_path, changes):
    with pytest.raises(InputError, match="datasets/col: http://example.org/d/COL.gr.gz is plain "
                                         "http and the entry has no sha256: refused"):
        load_registry(_registry(tmp_path, **changes))


@pytest.mark.parametrize("changes", [
    {"url": "http://example.org/d/COL.gr.gz", "sha256": SHA},  # checked before it is used
    {"url": "https://example.org/d/COL.gr.gz"},
    {"url": "http://127.0.0.1:8123/d/COL.gr.gz"},  # no network between us and it
])
def test_plain_http_is_taken_with_a_checksum_https_or_on_this_machine(tmp_path, changes):
    assert load_registry(_registry(tmp_path, **changes))["col"].url == changes["url"]


def test_the_shipped_registry_has_no_unchecked_plain_http():
    load_registry.cache_clear()
    registry = load_registry()
    for ds in registry.values():
        for url in (ds.url or "", *ds.mirrors):
            assert not url.startswith("http://") or ds.sha256, ds.key


# --- files read back --------------------------------------------------------------------------

RUN_HEADER = "graph,solver,source,trial,status,solve_ms,upload_ms,arcs_relaxed\n"


@pytest.mark.parametrize("row, says", [
    ("g,dijkstra,1,0,ok,inf,0.0,10", ":2: solve_ms inf is not a time"),
    ("g,dijkstra,1,0,ok,-1500,0.0,10", ":2: solve_ms -1500 is not a time"),
    ("g,dijkstra,1,0,ok,1.5,-0.5,10", ":2: upload_ms -0.5 is not a time"),
    ("g,dijkstra,1,0,ok,1.5,0.0,2.5", ":2: arcs_relaxed 2.5 is not a count"),
    ("g,dijkstra,1,-1,ok,1.5,0.0,10", ":2: trial -1 is not a count"),
])
def test_a_run_table_with_impossible_times_or_counts_is_refused_at_its_line(tmp_path, row, says):
    """What retabulate reads (report/tables.py reads every run table through read_run_table)."""
    from graphrepro.harness.files import read_run_table

    path = tmp_path / "dijkstra.csv"
    path.write_text(RUN_HEADER + row + "\n")
    with pytest.raises(InputError, match=says) as e:
        read_run_table(path)
    assert "\n" not in str(e.value)
    path.write_text(RUN_HEADER + "g,dijkstra,1,0,ok,1.5,0.0,10\ng,dijkstra,2,,failed: x,,,\n")
    assert len(read_run_table(path)) == 2


def test_formula_text_is_neutralised_in_every_csv_and_numbers_are_kept(tmp_path, capsys):
    import pandas as pd

    from graphrepro import atomic

    hostile = ["+SUM(1,2)", "=HYPERLINK(\"http://x\")", "@A1", "\tx", "\rx", "-2+3+cmd|' /C calc'!A0"]
    kept = ["-1.5", "-233.5--232.5", "-295% (3.95x)", "-inf", "plain", "a=b"]
    table = pd.DataFrame({"stands_for": hostile + kept, "value": range(12), "=h": [-1.5] * 12})
    out = tmp_path / "t.csv"
    atomic.write_csv(table, out)
    back = pd.read_csv(out, dtype=str, keep_default_na=False)
    hostile[4] = "\nx"  # a bare CR would end the row: written as a line break, quoted
    assert list(back["stands_for"]) == ["'" + h for h in hostile] + kept
    assert list(back.columns) == ["stands_for", "value", "'=h"] and back["'=h"][0] == "-1.5"


def test_a_malformed_terrain_origin_record_is_one_line(tmp_path):
    from graphrepro.datasets.origin import read_origin

    for text in ('["not", "a", "record"]', '{"kind": "real", "reweight": 3}',
                 '{"kind": "stand-in", "converted": [1]}', "{" * 5000 + "}" * 5000, "\x00garbage"):
        path = tmp_path / "t.zgrid.origin.json"
        path.write_text(text)
        with pytest.raises(InputError) as e:
            read_origin(path)
        assert str(e.value).startswith(str(path)) and "\n" not in str(e.value)


@pytest.mark.parametrize("depth", [100, 200_000])
def test_a_deeply_nested_record_is_one_line_not_a_recursion_error(tmp_path, depth):
    from graphrepro.harness.files import read_record

    path = tmp_path / "run.provenance.json"
    path.write_text('{"a": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(InputError, match="nested past any record of ours") as e:
        read_record(path, "a provenance record")
    assert "\n" not in str(e.value)


def test_changed_from_a_1_gb_file_answers_at_once(tmp_path, capsys):
    import time

    big = tmp_path / "old.csv"
    with open(big, "wb") as f:
        f.truncate(1 << 30)  # sparse: costs nothing to make, minutes to parse
    started = time.monotonic()
    code = main(["claims", "--ledger", "reports/reference/claims.csv", "--changed-from", str(big)])
    assert code == 4 and time.monotonic() - started < 10  # bad input data (cli/exitcodes.py)
    err = capsys.readouterr().err
    assert "refused unread" in err and err.count("\n") == 1


# --- archives and network ---------------------------------------------------------------------

def _sparse_tar(path, name: str, size: int = 1 << 40):
    """A 200-byte tar.gz whose member declares 1 TiB (GNU sparse, all hole): read, it is an hour
    of zeros."""
    import io
    import tarfile

    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo(name)
        info.pax_headers = {"GNU.sparse.map": "0,0", "GNU.sparse.realsize": str(size)}
        tar.addfile(info)
        small = tarfile.TarInfo(name.rsplit("/", 1)[0] + "/README")
        small.size = 3
        tar.addfile(small, io.BytesIO(b"hi\n"))
    return path


def test_a_sparse_1_tib_member_is_refused_before_extraction(tmp_path):
    import time

    from graphrepro.datasets.peers import tree_digest
    from graphrepro.datasets.validate import InvalidDatasetFile
    from graphrepro.errors import GraphFormatError
    from graphrepro.graph.formats import read_graph

    started = time.monotonic()
    with pytest.raises(InvalidDatasetFile, match="declares 1,099,511,627,776 bytes.*refused "
                                                 "before extraction"):
        tree_digest(_sparse_tar(tmp_path / "peer.tar.gz", "peer-abc/src/big.cu"))
    with pytest.raises(GraphFormatError, match="refused before extraction"):
        read_graph(_sparse_tar(tmp_path / "m.tar.gz", "m/m.mtx"), mtx_values="ignore")
    assert time.monotonic() - started < 5


def test_a_gzip_encoded_download_stops_at_the_registrys_size(tmp_path):
    import gzip

    from graphrepro.datasets.download import DownloadError, download
    from loopback import Server

    bomb = gzip.compress(b"\0" * (8 << 20))  # 8 KB sent, 8 MiB decoded
    with Server({"/gzenc/bomb.gr": bomb}) as server:
        dest = tmp_path / "bomb.gr"
        with pytest.raises(DownloadError, match="passes the expected 82,000 bytes"):
            download(server.url + "/gzenc/bomb.gr", dest, size=82_000, timeout=(2.0, 2.0),
                     retries=0, progress=False)
    assert not dest.exists() and not dest.with_name("bomb.gr.part").exists()


# --- faults -----------------------------------------------------------------------------------

def test_an_output_linked_to_an_open_file_of_the_process_is_written_through(tmp_path):
    """`--output /dev/stdout` with stdout redirected to a file: /dev/stdout is a link to
    /proc/self/fd/1; replacing it would replace the link (as root, the machine's /dev/stdout)."""
    import os

    from graphrepro import atomic

    log = tmp_path / "stdout.log"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        near = tmp_path / "stdout"  # a link as /dev/stdout is one, and a link to that link
        near.symlink_to(f"/proc/self/fd/{fd}")
        far = tmp_path / "out.txt"
        far.symlink_to(near)
        for link in (near, far):
            atomic.write_text(link, f"through {link.name}\n")
            assert link.is_symlink() and log.read_text() == f"through {link.name}\n"
    finally:
        os.close(fd)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt", "stdout", "stdout.log"]


def test_the_old_output_is_replaced_only_by_a_whole_write_already_on_disk(tmp_path, monkeypatch):
    """A kill (or a crash) at any moment leaves the old file or the whole new one: the rename
    comes after the temporary's fsync, and the folder is synced after the rename."""
    import os

    from graphrepro import atomic

    out = tmp_path / "dist.txt"
    out.write_text("the old answer\n")
    new = "1 0\n2 7\n" * 1000
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        st = os.fstat(fd)
        events.append(("fsync", "dir" if os.path.isdir(f"/proc/self/fd/{fd}") else st.st_size))
        real_fsync(fd)

    def replace(a, b):
        events.append(("replace", Path(b).name))
        real_replace(a, b)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    monkeypatch.setattr(atomic.os, "replace", replace)
    atomic.write_text(out, new)
    assert events == [("fsync", len(new)), ("replace", "dist.txt"), ("fsync", "dir")]
    assert out.read_text() == new
