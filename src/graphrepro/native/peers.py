"""The peers (ADDS, Gunrock) as programs this machine runs: their binaries, the graph files they
read, and one long-lived process per prepared graph with a deadline on every answer.

``graphrepro.datasets.peers`` downloads each peer's public source at its pinned commit, verifies
and patches it, and builds it with nvcc into ``build/peers/`` (or ``GRAPHREPRO_PEERS_DIR``),
writing ``manifest.json`` there: each built peer's binary and what it was built from, and for
each peer not built, why. This module only reads that manifest, so the solvers (a layer below
the datasets) can run the peers without knowing how they were fetched.

A peer's driver (``adds_driver.cu``, ``gunrock_driver.cu``: the study's own C++ around the peer's
kernels) loads the graph once and answers every source named on its stdin in binary:
``f8 peer_ms, f8 call_ms, f8 download_ms, i8 work`` then ``n`` int32 distances (INT32_MAX:
unreachable). ADDS can hang on the H100 (a persistent worker grid whose manager never signals the
end), so every answer has a deadline: a process that misses it is killed and the solve raises
:class:`PeerHung`, which the harness records as a ``hung`` row and goes on.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from pathlib import Path

import numpy as np

from ..bounded import load_json
from ..errors import GraphreproError, InputError
from . import NotBuildableHere, temp_file

PEERS = ("adds", "gunrock")
MANIFEST = "manifest.json"
NOT_BUILT_NO_NVCC = "not built: no nvcc"
HUNG = "hung"
INT32_MAX = np.iinfo(np.int32).max


class PeerNotBuilt(NotBuildableHere):
    """The peer has no binary here (no nvcc, no source reachable, not built yet): its run's rows
    say so, as the native baselines' do."""

    def __init__(self, message: str, status: str):
        super().__init__(message)
        self.status = status


class PeerHung(GraphreproError):
    """The peer did not answer within its deadline; its process was killed. ``status`` is the
    run table's word for it: ``hung``, or ``not run: ...`` once the solver has given up."""

    def __init__(self, message: str, status: str = HUNG):
        super().__init__(message)
        self.status = status


class PeerRefused(PeerHung):
    """The peer is not asked at all: its answer could not be right (its distances are 32-bit and
    this source's would not fit). Recorded per source as a hang is, with its own status, but never
    counted as one: no process was started or killed for it."""


def peers_dir() -> Path:
    return Path(os.environ.get("GRAPHREPRO_PEERS_DIR", "build/peers"))


def read_manifest(directory: Path | None = None) -> dict:
    path = Path(directory or peers_dir()) / MANIFEST
    try:
        record = load_json(path)
    except (FileNotFoundError, ValueError):
        return {"peers": {}, "not_built": {}}
    return record if isinstance(record, dict) else {"peers": {}, "not_built": {}}


def binary(peer: str, directory: Path | None = None) -> Path:
    """The built peer's program, or :class:`PeerNotBuilt` saying why there is none."""
    directory = Path(directory or peers_dir())
    manifest = read_manifest(directory)
    entry = (manifest.get("peers") or {}).get(peer)
    if entry and (directory / entry["binary"]).is_file():
        return directory / entry["binary"]
    why = (manifest.get("not_built") or {}).get(peer)
    if why:
        status = why if why.startswith("not built") else f"not built: {why}"
        raise PeerNotBuilt(f"{peer}: {status}", status.split("\n")[0][:200])
    raise PeerNotBuilt(f"{peer} is not built in {directory}: run `python -m graphrepro build-peers`"
                       " (or `snakemake build_peers`)", "not built: no build (build-peers)")


# --- the files the peers read ---------------------------------------------------------------

def _int32_weights(graph) -> np.ndarray:
    w = np.asarray(graph.weights)
    if len(w) and (int(w.min()) < 0 or int(w.max()) >= INT32_MAX):
        raise InputError(f"{graph.name}: the peers read 32-bit weights; this graph has "
                              f"weights outside 0..{INT32_MAX - 1}")
    return w.astype("<u4")


def write_galois_gr(graph, path: Path) -> None:
    """Galois's binary .gr, version 1 (what ADDS's ``readFromGR`` maps): a header of four u64
    (version, edge-data size, vertices, arcs), each vertex's end offset (u64), the heads (u32,
    padded to 8 bytes) and the weights (u32)."""
    n, m = graph.num_vertices, graph.num_arcs
    if n >= INT32_MAX or m >= 2**32:
        raise InputError(f"{graph.name}: too big for the .gr format's 32-bit vertex ids")
    with open(path, "wb") as f:
        f.write(np.array([1, 4, n, m], dtype="<u8").tobytes())
        f.write(np.asarray(graph.indptr[1:], dtype="<u8").tobytes())
        f.write(np.asarray(graph.indices, dtype="<u4").tobytes())
        if m % 2:
            f.write(b"\0\0\0\0")
        f.write(_int32_weights(graph).tobytes())


def write_matrix_market(graph, path: Path) -> None:
    """Matrix Market coordinate, integer, general (what Gunrock's ``matrix_market_t`` reads):
    one 1-based ``row col weight`` line per arc, in CSR order."""
    import pandas as pd

    n, m = graph.num_vertices, graph.num_arcs
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(np.asarray(graph.indptr)))
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate integer general\n")
        f.write(f"{n} {n} {m}\n")
        pd.DataFrame({"u": tails + 1, "v": np.asarray(graph.indices, dtype=np.int64) + 1,
                      "w": _int32_weights(graph).astype(np.int64)}).to_csv(
            f, sep=" ", header=False, index=False, lineterminator="\n")


# --- a running peer -------------------------------------------------------------------------

class PeerProcess:
    """One driver process: the graph loaded once, then one source per request, each answer
    read against a deadline. A missed deadline kills the process (its whole process group, so a
    hung GPU context goes with it) and raises :class:`PeerHung`."""

    def __init__(self, peer: str, args: list[str], n: int, load_deadline_s: float):
        self.peer, self.n = peer, n
        self.proc = subprocess.Popen([str(binary(peer)), *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True)
        self._err = temp_file(".log")
        self._err_file = open(self._err, "wb")
        self._drain = None
        self._start_drain()
        loaded = int(np.frombuffer(self.read(8, load_deadline_s, "loading the graph"), "<i8")[0])
        if loaded != n:
            self.kill()
            raise GraphreproError(f"{peer} loaded {loaded} vertices, expected {n}")

    def _start_drain(self) -> None:
        """The peer's chatter on stderr goes to a file, so a full pipe never blocks it."""
        import shutil
        import threading

        def drain(src=self.proc.stderr, dst=self._err_file):
            try:
                shutil.copyfileobj(src, dst)
            except (OSError, ValueError):
                pass

        self._drain = threading.Thread(target=drain, daemon=True)
        self._drain.start()

    def stderr_tail(self) -> str:
        try:
            self._err_file.flush()
            return self._err.read_bytes()[-600:].decode(errors="replace").strip()
        except OSError:
            return ""

    def read(self, nbytes: int, deadline_s: float, what: str) -> bytes:
        fd = self.proc.stdout.fileno()
        out = bytearray()
        end = time.monotonic() + deadline_s
        while len(out) < nbytes:
            left = end - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                self.kill()
                raise PeerHung(f"{self.peer}: no answer within {deadline_s:g} s ({what}); "
                               f"killed")
            chunk = os.read(fd, min(nbytes - len(out), 1 << 20))
            if not chunk:
                self.proc.wait()
                raise GraphreproError(f"{self.peer} stopped (exit {self.proc.returncode}) "
                                      f"{what}: {self.stderr_tail() or 'no message'}")
            out += chunk
        return bytes(out)

    def solve(self, source: int, deadline_s: float):
        """(peer_ms, call_ms, download_ms, work, int64 distances with INF for unreachable)."""
        try:
            self.proc.stdin.write(f"{int(source)}\n".encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.read(1, 1.0, f"source {source}")  # raises with the program's message
        head = self.read(32, deadline_s, f"source {source}")
        peer_ms, call_ms, down_ms = (float(x) for x in np.frombuffer(head[:24], "<f8"))
        work = int(np.frombuffer(head[24:], "<i8")[0])
        raw = np.frombuffer(self.read(4 * self.n, deadline_s, f"source {source}"), "<i4")
        dist = raw.astype(np.int64)
        dist[raw == INT32_MAX] = np.iinfo(np.int64).max
        return peer_ms, call_ms, down_ms, work, dist

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        self.proc.wait()
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        if self._drain is not None:
            self._drain.join(timeout=5)
        try:
            self._err_file.close()
        except OSError:
            pass
        self._err.unlink(missing_ok=True)
