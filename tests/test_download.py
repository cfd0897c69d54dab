"""Downloads against a loopback HTTP server serving small real-format files: a good download,
an interrupted one that resumes, a wrong checksum, a 404, a stall past the timeout, the offline
check, and the lock file of first-seen checksums. Nothing half-written is left under the name a
later step reads."""

import gzip
import hashlib
import io
import tarfile
import time

import pytest
from loopback import Server

from graphrepro.datasets.download import (DownloadError, download, reachable, read_lock,
                                          record_lock)
from graphrepro.graph.formats import read_graph

DIMACS = b"c tiny road graph\np sp 4 6\na 1 2 7\na 2 1 7\na 2 3 3\na 3 2 3\na 3 4 1\na 4 3 1\n"
SNAP = b"# Directed graph: tiny\n# FromNodeId\tToNodeId\n0\t1\n1\t0\n1\t3\n3\t1\n"
MTX = b"%%MatrixMarket matrix coordinate real symmetric\n% tiny\n3 3 4\n1 1 4.0\n2 1 -1.5\n3 2 0.0\n3 3 2e1\n"


def tar_gz(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


# Big enough (and incompressible enough) that "half" is many network chunks; still real DIMACS.
BIG = gzip.compress(DIMACS + b"".join(b"c %s\n" % hashlib.sha256(b"%d" % i).hexdigest().encode()
                                      for i in range(12000)))
FILES = {
    "/road/tiny.gr.gz": gzip.compress(DIMACS),
    "/snap/tiny.txt.gz": gzip.compress(SNAP),
    "/mm/tiny.tar.gz": tar_gz({"tiny/tiny.mtx": MTX, "tiny/tiny_b.mtx": b"%%MatrixMarket x\n"}),
    "/cut/big.gr.gz": BIG,
    "/norange/big.gr.gz": BIG,
    "/stall/tiny.gr.gz": gzip.compress(DIMACS),
    "/drip/tiny.gr.gz": gzip.compress(DIMACS),
}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def server():
    with Server(FILES, stall_seconds=3.0) as s:
        yield s


FAST = dict(timeout=(2.0, 1.0), retries=1, backoff=0.01, progress=False)


@pytest.mark.parametrize("path, fmt", [("/road/tiny.gr.gz", "dimacs"), ("/snap/tiny.txt.gz", "snap"),
                                       ("/mm/tiny.tar.gz", "mtx")])
def test_good_download_is_verified_and_parses(server, tmp_path, path, fmt):
    dest = tmp_path / path.rsplit("/", 1)[1]
    download(server.url + path, dest, sha256=sha(FILES[path]), size=len(FILES[path]), **FAST)
    assert dest.read_bytes() == FILES[path]
    assert not dest.with_name(dest.name + ".part").exists()
    g = read_graph(dest, mtx_values="ignore")
    assert g.num_arcs == {"dimacs": 6, "snap": 4, "mtx": 6}[fmt]  # symmetric: 2 loops + 2 x 2


def test_interrupted_download_resumes_with_range(server, tmp_path):
    dest = tmp_path / "big.gr.gz"
    download(server.url + "/cut/big.gr.gz", dest, sha256=sha(BIG), **FAST)
    assert dest.read_bytes() == BIG
    ranges = [r for p, r in server.requests if p == "/cut/big.gr.gz"]
    assert ranges[0] is None and ranges[1].startswith("bytes=") and ranges[1] != "bytes=0-"
    assert read_graph(dest).num_arcs == 6


def test_partial_file_left_by_an_earlier_run_is_resumed(server, tmp_path):
    dest = tmp_path / "tiny.gr.gz"
    data = FILES["/road/tiny.gr.gz"]
    dest.with_name(dest.name + ".part").write_bytes(data[:10])
    download(server.url + "/road/tiny.gr.gz", dest, sha256=sha(data), **FAST)
    assert dest.read_bytes() == data
    assert server.requests[-1] == ("/road/tiny.gr.gz", "bytes=10-")


def test_server_ignoring_range_restarts_cleanly(server, tmp_path):
    dest = tmp_path / "big.gr.gz"
    dest.with_name(dest.name + ".part").write_bytes(b"garbage that must not be kept")
    download(server.url + "/norange/big.gr.gz", dest, sha256=sha(BIG), **FAST)
    assert dest.read_bytes() == BIG


def test_wrong_checksum_deletes_and_explains(server, tmp_path):
    dest = tmp_path / "tiny.gr.gz"
    with pytest.raises(DownloadError) as err:
        download(server.url + "/road/tiny.gr.gz", dest, sha256="0" * 64, **FAST)
    message = str(err.value)
    assert server.url + "/road/tiny.gr.gz" in message and "does not match" in message
    assert f"at {dest} by hand" in message
    assert not dest.exists() and not dest.with_name(dest.name + ".part").exists()


def test_wrong_size_is_refused(server, tmp_path):
    dest = tmp_path / "tiny.gr.gz"
    with pytest.raises(DownloadError, match="expected 5"):
        download(server.url + "/road/tiny.gr.gz", dest, size=5, **FAST)
    assert not dest.exists()


def test_404_is_final_and_tries_the_mirror(server, tmp_path):
    dest = tmp_path / "tiny.gr.gz"
    download(server.url + "/missing/tiny.gr.gz", dest, mirrors=[server.url + "/road/tiny.gr.gz"],
             **FAST)
    assert dest.read_bytes() == FILES["/road/tiny.gr.gz"]
    assert [p for p, _ in server.requests].count("/missing/tiny.gr.gz") == 1  # never retried
    with pytest.raises(DownloadError, match="HTTP 404"):
        download(server.url + "/missing/x.gr.gz", tmp_path / "x.gr.gz", **FAST)
    assert not (tmp_path / "x.gr.gz").exists()


def test_stalled_server_times_out_with_a_clear_reason(server, tmp_path):
    dest = tmp_path / "tiny.gr.gz"
    t0 = time.monotonic()
    with pytest.raises(DownloadError) as err:
        download(server.url + "/stall/tiny.gr.gz", dest, timeout=(2.0, 0.5), retries=0,
                 progress=False)
    assert time.monotonic() - t0 < 2.5
    assert "stalled" in str(err.value) or "timed out" in str(err.value)
    assert not dest.exists()


def test_connection_refused_names_url_and_what_to_do(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/x.gr.gz"
    with pytest.raises(DownloadError) as err:
        download(url, tmp_path / "x.gr.gz", **FAST)
    assert url in str(err.value) and "by hand" in str(err.value)


def test_reachable_answers_fast(server):
    assert reachable(server.url + "/road/tiny.gr.gz", timeout=2)[0]
    ok, why = reachable(server.url + "/missing/x", timeout=2)
    assert not ok and "404" in why
    t0 = time.monotonic()
    ok, why = reachable("http://no-such-host.invalid/x.gr.gz", timeout=2)
    assert not ok and time.monotonic() - t0 < 5


def test_lock_records_the_first_seen_checksum_only(tmp_path):
    lock = tmp_path / "datasets.lock.json"
    first = record_lock(lock, "ny", url="u", file="f", size=3, sha256="a" * 64)
    again = record_lock(lock, "ny", url="u", file="f", size=4, sha256="b" * 64)
    assert first == again and read_lock(lock)["ny"]["sha256"] == "a" * 64


def test_a_dripping_server_is_given_up_on_within_the_deadline(server, tmp_path):
    """A byte every 0.1 s never trips a read timeout; the whole download still has its limit."""
    dest = tmp_path / "tiny.gr.gz"
    t0 = time.monotonic()
    with pytest.raises(DownloadError, match="deadline"):
        download(server.url + "/drip/tiny.gr.gz", dest, timeout=(2.0, 30.0), retries=0,
                 progress=False, deadline_s=1.0)
    assert time.monotonic() - t0 < 2.5
    assert not dest.exists()


def test_a_dripping_server_stalls_within_the_read_timeout(server, tmp_path):
    """Less than a block within the read timeout is a stall, as no data at all would be."""
    dest = tmp_path / "tiny.gr.gz"
    t0 = time.monotonic()
    with pytest.raises(DownloadError, match="stalled"):
        download(server.url + "/drip/tiny.gr.gz", dest, timeout=(2.0, 0.8), retries=0,
                 progress=False)
    assert time.monotonic() - t0 < 2.5
    assert not dest.exists()


def test_a_good_file_is_not_replaced_by_a_different_unvouched_one(server, tmp_path):
    dest = tmp_path / "tiny.gr.gz"
    good = gzip.compress(DIMACS.replace(b"c", b"c good", 1))
    dest.write_bytes(good)
    with pytest.raises(DownloadError, match="server now sends a different file"):
        download(server.url + "/road/tiny.gr.gz", dest, retries=0, progress=False)
    assert dest.read_bytes() == good and not list(tmp_path.glob("*.part"))
    # the same bytes, or bytes a published checksum vouches for, do replace it
    served = FILES["/road/tiny.gr.gz"]
    download(server.url + "/road/tiny.gr.gz", dest, sha256=sha(served), progress=False)
    assert dest.read_bytes() == served
    download(server.url + "/road/tiny.gr.gz", dest, progress=False)
    assert dest.read_bytes() == served
