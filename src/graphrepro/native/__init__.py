"""Native (C++) baselines: their sources ship inside the package, the binaries are built on demand.

The C++ sources live here, as package data, so that ``python -m graphrepro build-native`` works
from any install (a wheel, an editable checkout, the workflow) without knowing where the
repository is; the binaries go to ``build/native/`` of the working directory (git-ignored; the
workflow's ``build_native`` rule makes the same files), or wherever ``GRAPHREPRO_NATIVE_DIR``
points. Boost comes from the PyPI package ``boost-headers``, so no system Boost is needed.

A binary is rebuilt whenever its sources change: ``manifest.json`` records each one's source
digest, the compiler and the flags. The programs read a graph exported by :func:`write_csr` or
:func:`write_edges` once, then answer many requests, and time only the algorithm.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import numpy as np

from .. import atomic
from ..bounded import load_json
from ..errors import GraphreproError

PROGRAMS = ("cpp_dijkstra", "bgl_dijkstra", "bgl_mst")
HEADER = "graphrepro_io.hpp"
FLAGS = ["-O3", "-DNDEBUG", "-std=c++17"]
CSR_MAGIC = b"GRCSR01\0"
EDGES_MAGIC = b"GREDG01\0"


class NativeBuildError(GraphreproError):
    """The native baselines cannot be built here (no compiler, no Boost, a compile error)."""


NOT_BUILT_NO_CXX = "not built: no C++ compiler"
NOT_BUILT_NO_BOOST = "not built: no Boost headers"


class NotBuildableHere(NativeBuildError):
    """A toolchain piece this machine lacks: the native baselines' runs say so (``status``) and
    the rest of the study goes on. A compile error is no such thing: it still fails."""

    status = "not built"


class NoCompilerError(NotBuildableHere):
    status = NOT_BUILT_NO_CXX


class NoBoostError(NotBuildableHere):
    status = NOT_BUILT_NO_BOOST


def unavailable_reason() -> str | None:
    """Why the native programs cannot be built here (a run status), or None where they are built
    or can be; any other build failure still raises."""
    try:
        build(log=lambda _: None)
    except NotBuildableHere as e:
        return e.status
    return None


def available() -> bool:
    return unavailable_reason() is None


def native_dir() -> Path:
    return Path(os.environ.get("GRAPHREPRO_NATIVE_DIR", "build/native"))


def _source(name: str) -> str:
    return (resources.files(__name__) / name).read_text()


def source_digest(program: str) -> str:
    h = hashlib.blake2b(digest_size=12)
    for name in (f"{program}.cpp", HEADER):
        h.update(_source(name).encode())
    h.update(" ".join(FLAGS).encode())
    return h.hexdigest()


def find_compiler() -> str:
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx or not shutil.which(shlex.split(cxx)[0]):
        raise NoCompilerError(
            "no C++ compiler found for the native baselines (bgl_dijkstra, cpp_dijkstra, "
            "bgl_kruskal, bgl_prim): install g++ (Debian/Ubuntu: apt-get install g++; "
            "Fedora: dnf install gcc-c++; conda: conda install -c conda-forge gxx) or set CXX")
    return cxx


def boost_include() -> Path:
    explicit = os.environ.get("BOOST_INCLUDE")
    if explicit:
        path = Path(explicit)
    else:
        try:
            import boost_headers
        except ImportError:
            raise NoBoostError(
                "Boost headers not found for the native baselines: pip install boost-headers "
                "(graphrepro's boost extra) or set BOOST_INCLUDE to a directory holding "
                "boost/graph/") from None
        path = Path(boost_headers.get_include())
    if not (path / "boost" / "graph" / "dijkstra_shortest_paths.hpp").is_file():
        raise NoBoostError(f"{path} holds no boost/graph/: pip install boost-headers or "
                               f"point BOOST_INCLUDE at a Boost include directory")
    return path


@contextmanager
def _locked(directory: Path):
    """One builder at a time per directory (parallel workflow jobs may ask together)."""
    directory.mkdir(parents=True, exist_ok=True)
    lock = atomic.open_lock(directory / ".lock")  # never emptied, never a planted link's target
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        os.close(lock)  # closing releases the lock


def _manifest(directory: Path) -> dict:
    try:
        return load_json((directory / "manifest.json"))
    except (FileNotFoundError, ValueError):
        return {"programs": {}}


def _up_to_date(directory: Path, manifest: dict, program: str) -> bool:
    entry = manifest.get("programs", {}).get(program)
    return bool(entry and entry.get("source_digest") == source_digest(program)
                and (directory / program).is_file())


def build(directory: Path | None = None, *, force: bool = False, log=None) -> dict:
    """Compile every program that is missing or stale into ``directory``; return the manifest."""
    directory = Path(directory or native_dir())
    log = log or (lambda m: print(m, file=sys.stderr))
    with _locked(directory):
        manifest = _manifest(directory)
        stale = [p for p in PROGRAMS if force or not _up_to_date(directory, manifest, p)]
        if stale:
            cxx = find_compiler()
            include = boost_include()
            version = subprocess.run([*shlex.split(cxx), "--version"], capture_output=True,
                                     text=True).stdout.splitlines()[:1]
            with tempfile.TemporaryDirectory(prefix="graphrepro-native-") as tmp:
                for name in (HEADER, *(f"{p}.cpp" for p in PROGRAMS)):
                    Path(tmp, name).write_text(_source(name))
                for program in stale:
                    target = directory / program
                    partial = directory / f"{program}.part"
                    partial.unlink(missing_ok=True)  # the compiler must not write through a link
                    cmd = [*shlex.split(cxx), *FLAGS, "-isystem", str(include),
                           str(Path(tmp, f"{program}.cpp")), "-o", str(partial)]
                    log(f"building {target}: {' '.join(cmd)}")
                    done = subprocess.run(cmd, capture_output=True, text=True)
                    if done.returncode != 0:
                        partial.unlink(missing_ok=True)
                        raise NativeBuildError(f"compiling {program} failed:\n{done.stderr[-4000:]}")
                    partial.replace(target)
                    manifest.setdefault("programs", {})[program] = {
                        "binary": program, "source_digest": source_digest(program)}
            manifest.update(compiler=cxx, compiler_version=(version or [""])[0],
                            flags=FLAGS, boost_include=str(include), boost=_boost_version(include))
            atomic.write_text(directory / "manifest.json", json.dumps(manifest, indent=1) + "\n")
        return manifest


def pack_boost_subset(archive: Path) -> dict:
    """Pack only the Boost headers the programs include (``g++ -M``) into a ``.tar.gz``, for a
    machine with a compiler but neither boost-headers nor room to carry its 27 MB wheel (the GPU
    image): unpack it anywhere there and point ``BOOST_INCLUDE`` at that directory."""
    import tarfile

    from .. import atomic

    cxx, include = find_compiler(), boost_include()
    root = os.path.normpath(include)
    # what boost_include() checks and the manifest reads, whatever the programs include
    headers = {"boost/version.hpp", "boost/graph/dijkstra_shortest_paths.hpp"}
    with tempfile.TemporaryDirectory(prefix="graphrepro-native-") as tmp:
        for name in (HEADER, *(f"{p}.cpp" for p in PROGRAMS)):
            Path(tmp, name).write_text(_source(name))
        for program in PROGRAMS:
            done = subprocess.run([*shlex.split(cxx), *FLAGS, "-isystem", str(include), "-M",
                                   str(Path(tmp, f"{program}.cpp"))], capture_output=True, text=True)
            if done.returncode != 0:
                raise NativeBuildError(f"listing the headers of {program} failed:\n"
                                       f"{done.stderr[-4000:]}")
            for token in done.stdout.replace("\\\n", " ").split():
                path = os.path.normpath(token)
                if path.startswith(root + os.sep):
                    headers.add(os.path.relpath(path, root))
    with atomic.replacing(archive) as part, tarfile.open(part, "w:gz") as tar:
        for rel in sorted(headers):
            tar.add(Path(root, rel), arcname=rel)
    return {"headers": len(headers), "boost": _boost_version(include),
            "bytes": Path(archive).stat().st_size}


# --- CUDA C++ programs (nvcc): the launch floor -------------------------------------------------

CUDA_PROGRAMS = ("launch_floor",)
# -arch=native: code for the GPU of the machine that builds it, which is the one the floor is for
CUDA_FLAGS = ["-O3", "-std=c++17", "-arch=native"]
CUDA_MANIFEST = "cuda.json"


def find_nvcc() -> str | None:
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    for candidate in (os.environ.get("NVCC"), shutil.which("nvcc"), str(Path(home, "bin", "nvcc"))):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _cuda_digest(program: str) -> str:
    h = hashlib.blake2b(digest_size=12)
    h.update(_source(f"{program}.cu").encode())
    h.update(" ".join(CUDA_FLAGS).encode())
    return h.hexdigest()


def build_cuda(directory: Path | None = None, *, force: bool = False, log=None) -> dict:
    """Compile the CUDA programs with nvcc where one is found. Never raises for a machine that
    cannot build them (no nvcc, no GPU for -arch=native): the manifest says why instead, and the
    floor is then reported without its native column."""
    directory = Path(directory or native_dir())
    log = log or (lambda m: print(m, file=sys.stderr))
    with _locked(directory):
        path = directory / CUDA_MANIFEST
        try:
            manifest = load_json(path)
        except (FileNotFoundError, ValueError):
            manifest = {}
        nvcc = find_nvcc()
        programs = manifest.get("programs", {})
        fresh = {"nvcc": nvcc, "flags": CUDA_FLAGS, "programs": {}, "not_built": {}}
        if nvcc:
            version = subprocess.run([nvcc, "--version"], capture_output=True,
                                     text=True).stdout.strip().splitlines()[-1:]
            fresh["nvcc_version"] = (version or [""])[0]
        for program in CUDA_PROGRAMS:
            entry = programs.get(program)
            if (not force and entry and entry.get("source_digest") == _cuda_digest(program)
                    and (directory / program).is_file()):
                fresh["programs"][program] = entry
                continue
            if not nvcc:
                fresh["not_built"][program] = "no nvcc found (set NVCC or CUDA_HOME)"
                continue
            with tempfile.TemporaryDirectory(prefix="graphrepro-cuda-") as tmp:
                src = Path(tmp, f"{program}.cu")
                src.write_text(_source(f"{program}.cu"))
                partial = directory / f"{program}.part"
                partial.unlink(missing_ok=True)  # nvcc must not write through a link
                cmd = [nvcc, *CUDA_FLAGS, str(src), "-o", str(partial)]
                log(f"building {directory / program}: {' '.join(cmd)}")
                done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                partial.unlink(missing_ok=True)
                fresh["not_built"][program] = f"nvcc failed: {done.stderr.strip()[-500:]}"
                continue
            partial.replace(directory / program)
            fresh["programs"][program] = {"binary": program,
                                          "source_digest": _cuda_digest(program)}
        atomic.write_text(path, json.dumps(fresh, indent=1) + "\n")
        return fresh


def _boost_version(include: Path) -> str:
    for line in (include / "boost" / "version.hpp").read_text().splitlines():
        if line.startswith("#define BOOST_LIB_VERSION"):
            return line.split('"')[1].replace("_", ".")
    return "unknown"


def binary(program: str) -> Path:
    """The program's binary, built first if it is missing or its sources changed."""
    directory = native_dir()
    if not _up_to_date(directory, _manifest(directory), program):
        build(directory)
    return directory / program


# --- the files the programs read ---------------------------------------------------------------

def _write(path: Path, magic: bytes, n: int, m: int, arrays) -> None:
    with open(path, "wb") as f:
        f.write(magic)
        f.write(np.array([n, m], dtype="<i8").tobytes())
        for a in arrays:
            f.write(np.ascontiguousarray(a, dtype="<i8").tobytes())


def write_csr(graph, path: Path) -> None:
    _write(path, CSR_MAGIC, graph.num_vertices, graph.num_arcs,
           (graph.indptr, graph.indices, graph.weights))


def write_edges(num_vertices: int, u, v, w, path: Path) -> None:
    _write(path, EDGES_MAGIC, num_vertices, len(u), (u, v, w))


class Process:
    """A native program fed requests on stdin and answering in binary on stdout.

    The graph file it reads (if any) is deleted when the process is closed.
    """

    def __init__(self, program: str | Path, args: list[str], graph_file: Path | None = None):
        """``program``: one of ours by name (built here first if need be), or a plugin's binary
        by its path (built by the plugin: ``graphrepro.solvers.plugins``)."""
        self.program = str(program)
        self._graph_file = graph_file
        path = binary(program) if isinstance(program, str) else Path(program)
        self.proc = subprocess.Popen([str(path), *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def read(self, nbytes: int) -> bytes:
        data = self.proc.stdout.read(nbytes)
        if len(data) != nbytes:
            self.proc.wait()
            err = self.proc.stderr.read().decode(errors="replace").strip()
            raise GraphreproError(f"{self.program} stopped (exit {self.proc.returncode}): "
                                  f"{err or 'no message'}")
        return data

    def request(self, line: str) -> None:
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.read(1)  # raises with the program's message

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            stream.close()
        if self._graph_file is not None:
            self._graph_file.unlink(missing_ok=True)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def temp_file(suffix: str) -> Path:
    fd, name = tempfile.mkstemp(prefix="graphrepro-", suffix=suffix)
    os.close(fd)
    return Path(name)
