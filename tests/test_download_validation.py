"""Downloads no published checksum vouches for: what arrives is checked as its format before it
becomes the lock's truth; Content-Range is honoured; a wrong lock entry can always be undone.

Real requests against the loopback server (tests/loopback.py) serving real-format files, some
paths misbehaving as real servers do.
"""

import gzip
import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from loopback import Server

from graphrepro.datasets.build import fetch, verify_local
from graphrepro.datasets.download import DownloadError, download, read_lock
from graphrepro.datasets.registry import Dataset
from graphrepro.datasets.validate import InvalidDatasetFile, validate_dataset_file


def dimacs(n: int, arcs) -> bytes:
    return (f"c test\np sp {n} {len(arcs)}\n" + "".join(f"a {u} {v} {w}\n" for u, v, w in arcs)
            ).encode()


def snap(edges, header=True) -> bytes:
    nodes = len({x for e in edges for x in e})
    head = f"# Directed graph\n# Nodes: {nodes} Edges: {len(edges)}\n# FromNodeId\tToNodeId\n"
    return ((head if header else "") + "".join(f"{u}\t{v}\n" for u, v in edges)).encode()


# ~200 KB compressed: many network chunks, so cuts and resumes happen mid-file
ARCS = [(1 + i % 5000, 1 + (i * 7919) % 5000, 1 + (i * 31) % 997) for i in range(40000)]
BIG = dimacs(5000, ARCS)
BIG_GZ = gzip.compress(BIG)
EDGES = [(i, (i * 13) % 500) for i in range(3000)]
SNAP_GZ = gzip.compress(snap(EDGES))
NAMES = ["nolength", "shortlength", "offrange", "html", "gzenc", "flaky", "plain", "stall", "ok"]
FILES = {f"/{kind}/big.gr.gz": BIG_GZ for kind in NAMES}
FILES["/ok/web.txt.gz"] = SNAP_GZ
FILES["/badenc/big.gr"] = BIG


def record(url, fmt="dimacs", **kw) -> Dataset:
    counts = {"dimacs": dict(vertices=5000, arcs=len(ARCS)),
              "snap": dict(vertices=len({x for e in EDGES for x in e}), arcs=len(EDGES),
                           snap_vertices="present")}[fmt]
    return Dataset(key="big", name="Big", title="t", documents={"x": "y"}, source="download",
                   format=fmt, url=url, **{**counts, **kw})


@pytest.fixture(scope="module")
def server():
    with Server(FILES, stall_seconds=4.0) as s:
        yield s


FAST = dict(timeout=(2.0, 1.0), retries=1, progress=False)


def _fetch(server, tmp_path, kind, **kw):
    ds = record(f"{server.url}/{kind}/big.gr.gz", **kw.pop("ds", {}))
    return ds, fetch(ds, tmp_path / "data", lock_path=tmp_path / "lock.json", **{**FAST, **kw})


# --- the content check itself ---------------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(1, n), st.integers(1, n), st.integers(0, 99)),
                         min_size=1, max_size=60))), st.floats(0, 1, exclude_max=True),
       st.booleans())
def test_any_cut_of_a_real_format_file_is_refused(tmp_path_factory, graph, frac, gz):
    n, arcs = graph
    whole = dimacs(n, arcs)
    data = gzip.compress(whole) if gz else whole
    d = tmp_path_factory.mktemp("v")
    name = "g.gr.gz" if gz else "g.gr"
    ds = Dataset(key="g", name="g", title="t", documents={}, source="download", format="dimacs",
                 url=f"http://h/{name}", vertices=n, arcs=len(arcs))
    (d / name).write_bytes(data)
    assert validate_dataset_file(d / name, ds) == {"vertices": n, "arcs": len(arcs)}
    (d / name).write_bytes(data[: int(frac * len(data))])
    with pytest.raises(InvalidDatasetFile):
        validate_dataset_file(d / name, ds)


@pytest.mark.parametrize("edit, says", [
    (lambda: dimacs(5000, ARCS).replace(b"p sp 5000", b"p sp 4999"), "announces vertices 4,999"),
    (lambda: dimacs(5000, ARCS[:-1]), "arcs 39,999, the registry says 40,000"),
    (lambda: b"<!DOCTYPE html><html>not found</html>\n", "HTML page"),
    (lambda: snap(EDGES), "not DIMACS"),
    (lambda: b"", "empty"),
])
def test_a_whole_file_that_is_not_the_dataset_is_refused(tmp_path, edit, says):
    (tmp_path / "big.gr.gz").write_bytes(gzip.compress(edit()))
    with pytest.raises(InvalidDatasetFile, match=says):
        validate_dataset_file(tmp_path / "big.gr.gz", record("http://h/big.gr.gz"))


def test_snap_counts_and_header(tmp_path):
    ds = record("http://h/web.txt.gz", "snap")
    (tmp_path / "web.txt.gz").write_bytes(SNAP_GZ)
    assert validate_dataset_file(tmp_path / "web.txt.gz", ds) == {"edges": len(EDGES)}
    (tmp_path / "web.txt.gz").write_bytes(gzip.compress(snap(EDGES)[:-40] + b"\n"))
    with pytest.raises(InvalidDatasetFile, match="edge lines, the header announces"):
        validate_dataset_file(tmp_path / "web.txt.gz", ds)


# --- downloads --------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, says", [("nolength", "not a whole gzip file"),
                                        ("shortlength", "not a whole gzip file"),
                                        ("html", "HTML page")])
def test_a_bad_transfer_never_becomes_the_truth(server, tmp_path, kind, says):
    with pytest.raises(DownloadError, match=says) as e:
        _fetch(server, tmp_path, kind)
    assert e.value.verification or kind == "html"
    assert not (tmp_path / "data" / "big" / "big.gr.gz").exists()
    assert read_lock(tmp_path / "lock.json") == {}


def test_a_206_from_another_byte_is_written_where_it_starts(server, tmp_path):
    part = tmp_path / "data" / "big" / "big.gr.gz.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(BIG_GZ[:50000])
    _, (path, digest) = _fetch(server, tmp_path, "offrange")
    assert path.read_bytes() == BIG_GZ
    assert ("/offrange/big.gr.gz", "bytes=50000-") in server.requests


def test_a_416_for_a_stale_longer_part_restarts_it(server, tmp_path):
    part = tmp_path / "data" / "big" / "big.gr.gz.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(b"x" * (len(BIG_GZ) + 500))  # left by another version of the file
    _, (path, _) = _fetch(server, tmp_path, "ok")
    assert path.read_bytes() == BIG_GZ


def test_a_gz_served_with_content_encoding_gzip_is_kept_as_sent(server, tmp_path):
    _, (path, _) = _fetch(server, tmp_path, "gzenc")
    assert path.read_bytes() == BIG_GZ


def test_progress_is_kept_across_many_drops(server, tmp_path):
    """Every connection drops after 4 KiB: far more drops than retries, each one resumed."""
    _, (path, _) = _fetch(server, tmp_path, "flaky", retries=1)
    assert path.read_bytes() == BIG_GZ
    assert sum(p == "/flaky/big.gr.gz" for p, _ in server.requests) > 10


def test_the_whole_download_has_a_deadline(server, tmp_path):
    with pytest.raises(DownloadError, match="deadline") as e:
        _fetch(server, tmp_path, "stall", deadline_s=1.5, retries=10)
    assert "\n" not in str(e.value)


def test_a_wrong_lock_entry_says_how_to_recover_and_the_right_file_then_passes(server, tmp_path):
    lock = tmp_path / "lock.json"
    lock.write_text(json.dumps({"big": {"file": "big.gr.gz", "url": "u", "size": 3,
                                        "sha256": "ab" * 32, "first_seen": "2020-01-01T00:00:00Z"}}))
    with pytest.raises(DownloadError, match="--forget-lock") as e:
        _fetch(server, tmp_path, "ok")
    assert "passes the format's checks" in str(e.value)
    _, (path, digest) = _fetch(server, tmp_path, "ok", forget=True)
    assert digest == hashlib.sha256(BIG_GZ).hexdigest() == read_lock(lock)["big"]["sha256"]


def test_a_lock_entry_recorded_from_a_bad_file_is_dropped_with_it(server, tmp_path):
    """An older version locked a truncated download: the file fails the format's check, so the
    entry goes with it and the next fetch gets the right file."""
    ds = record(f"{server.url}/ok/big.gr.gz")
    lock = tmp_path / "lock.json"
    bad = tmp_path / "data" / "big" / "big.gr.gz"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(BIG_GZ[:1000])
    lock.write_text(json.dumps({"big": {"file": "big.gr.gz", "url": "u", "size": 1000,
                                        "sha256": hashlib.sha256(BIG_GZ[:1000]).hexdigest()}}))
    with pytest.raises(DownloadError, match="lock entry recorded from it was dropped"):
        verify_local(ds, bad, lock)
    assert read_lock(lock) == {} and (bad.parent / "big.gr.gz.invalid").exists()
    path, _ = fetch(ds, tmp_path / "data", lock_path=lock, **FAST)
    assert path.read_bytes() == BIG_GZ


@pytest.mark.parametrize("url, says", [
    ("{s}/loop/big.gr.gz", "TooManyRedirects"),
    ("ftp://127.0.0.1/big.gr.gz", "InvalidSchema"),
    ("http://[::1/big.gr.gz", "InvalidURL"),
    ("{s}/ok/", "names no file"),
    ("{s}/badenc/big.gr", "cannot be decoded"),
])
def test_every_download_failure_is_one_line(server, tmp_path, url, says):
    url = url.format(s=server.url)
    dest = tmp_path / (url.rstrip("/").rsplit("/", 1)[-1] if not url.endswith("/") else "x")
    with pytest.raises(DownloadError, match=says) as e:
        download(url, dest if not url.endswith("/") else tmp_path / "", **FAST, backoff=0.01)
    assert "\n" not in str(e.value) and "Traceback" not in str(e.value)
