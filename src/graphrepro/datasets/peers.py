"""The peers' public source (issue 33): downloaded at a pinned commit, verified, patched for
today's toolchain and GPU, and built with nvcc into ``build/peers/``.

Each peer's source is GitHub's archive of one commit. It is looked for first in the offline
mirrors (``offline_mirrors`` / ``--mirror`` / ``GRAPHREPRO_OFFLINE_MIRRORS``, by its file name
``<repo>-<commit>.tar.gz``, as datasets are), then downloaded (``datasets.download``: atomic,
resumable, retried). What is checked is the tree, not the tarball's bytes: GitHub may compress
the same commit differently from one day to the next, so the digest is over the sorted list of
every file's path (below the archive's top folder) and the sha256 of its contents, each field
length-prefixed (``listing_digest``: no path can spell out other entries). A tarball whose tree
differs is refused and deleted, like any dataset that fails its check; the tree unpacked from it
is checked against the same digest again, as it lies on disk, before anything is built from it.

The study's patch is ours: scripted edits (``ADDS_EDITS``), each replacing one exact text that
must occur exactly once, so an edit that no longer applies fails with the file and the reason
instead of building something else. Gunrock needs no edit: a force-included header of ours
(``native/gunrock_device.hpp``) and its own CMake flags. The peers' source is never committed:
it lives under ``build/peers/src/`` (git-ignored) and is unpacked afresh for every build.

``manifest.json`` beside the binaries says what each was built from (commit, tree digest, patch
digest, flags, nvcc) and, for a peer not built here, why ("not built: no nvcc"); the solvers
(``solvers/peer``) read only that.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath

from .. import atomic
from ..bounded import ArchiveBound, BadFile, load_json
from ..errors import GraphreproError
from ..native import find_nvcc
from ..native.peers import MANIFEST, NOT_BUILT_NO_NVCC, peers_dir
from . import mirror
from .download import DownloadError, download, reachable, sha256_of
from .validate import InvalidDatasetFile


@dataclass(frozen=True)
class Edit:
    file: str  # below the archive's top folder
    old: str
    new: str
    why: str


@dataclass(frozen=True)
class PeerSource:
    name: str
    repo: str  # owner/name on GitHub
    commit: str
    tree_sha256: str  # tree_digest of the archive at that commit
    licence: str
    edits: tuple[Edit, ...] = ()

    @property
    def filename(self) -> str:
        return f"{self.repo.split('/')[1]}-{self.commit}.tar.gz"

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}/archive/{self.commit}.tar.gz"


# ADDS as published does not build against CUDA 13 nor fit an H100's grid (../shared/peers/
# README.md lists what was measured); these are the study's edits, nothing more.
ADDS_EDITS = (
    Edit("ads_int/kernel.cu", '#include "../cub-1.8.0/cub/cub.cuh"', "#include <cub/cub.cuh>",
         "its bundled cub-1.8.0 does not compile beside CUDA 13's thrust (CUB_NS_QUALIFIER): "
         "use the toolkit's CCCL CUB"),
    Edit("ads_int/kernel.cu", "cub::LaneId()", "(threadIdx.x % 32)",
         "CCCL's CUB has no LaneId(); the lane of a 1-D block is threadIdx.x % 32"),
    Edit("ads_int/kernel.cu", "int main(int argc, char *argv[]) {",
         "int adds_published_main(int argc, char *argv[]) {",
         "our driver (native/adds_driver.cu) includes kernel.cu and has the main"),
    Edit("ads_int/wl.h", "#define MAX_TB 128", "#define MAX_TB 512",
         "worker blocks = blocks per SM x (SMs - 1): 131 or 262 on an H100, past its 128"),
    Edit("ads_int/csr_graph.cu", "#include <boost/mpl/if.hpp>\n", "",
         "an unused Boost include: no Boost needed"),
)

PEER_SOURCES = {
    "adds": PeerSource(
        "adds", "UCLA-VAST/adds", "9ef8166e87d3f13cb458ce2f128bc862e841200b",
        "f4b84c6dee242daa057fb2b5f1c52cac65210622f7817164d3aba0b0f4a2e574",
        "none in the repository: built and run locally, never redistributed", ADDS_EDITS),
    "gunrock": PeerSource(
        "gunrock", "gunrock/gunrock", "01f125c85498c52ab0a1b8d33c2716d0b0dc3a57",
        "c454e0b7485d4acb3e9d16ae14c4309c64a7e9c5ad03398919402cd141d78a89", "Apache-2.0"),
}

# -gencode for the GPU it runs on; ADDS launches its worker grid from the device (-rdc, cudadevrt)
ADDS_FLAGS = ["-O3", "-std=c++17", "-rdc=true"]
ADDS_LIBS = ["-lcudadevrt"]
# Gunrock's own CMakeLists flags for the NVIDIA backend
GUNROCK_FLAGS = ["-O3", "-std=c++17", "-D__HIP_PLATFORM_NVIDIA__", "-DHIP_BACKEND=1",
                 "--expt-extended-lambda", "--expt-relaxed-constexpr", "--use_fast_math"]
DRIVERS = {"adds": ("adds_driver.cu",), "gunrock": ("gunrock_driver.cu", "gunrock_device.hpp")}


class PeerSourceError(GraphreproError):
    """A peer's source that is not the pinned commit's, or a patch that does not apply."""


# --- the tree and its digest -------------------------------------------------------------------

def _members(tar: tarfile.TarFile):
    """(path below the top folder, member) of every file and link, refusing unsafe paths: no
    absolute path, no ``..``, no NUL or line break (which could spell out other entries of a
    listing), no part that reads as an option, no path twice (a later member would replace
    an earlier one on unpacking), and no member that declares more than the archive can hold
    (a sparse 1 TiB member)."""
    seen = set()
    bound = ArchiveBound(tar.name)
    for member in tar.getmembers():
        if member.isdir() or member.type == tarfile.XGLTYPE or member.type == tarfile.XHDTYPE:
            continue
        parts = PurePosixPath(member.name).parts
        if (member.name.startswith("/") or ".." in parts or any(c in member.name for c in "\0\n\r")
                or any(p.startswith("-") for p in parts)):  # a build's command line: no option
            raise InvalidDatasetFile(f"unsafe path in the archive: {member.name!r}")
        if member.isfile():
            try:
                bound.check(member)
            except BadFile as e:
                raise InvalidDatasetFile(str(e)) from None
        if len(parts) < 2:
            continue  # the archive's own top-level entries (pax headers) carry no file
        path = "/".join(parts[1:])
        if path in seen:
            raise InvalidDatasetFile(f"the archive holds {path!r} twice")
        seen.add(path)
        yield path, member


def listing_digest(entries) -> str:
    """sha256 of a canonical listing: the (path, kind, value) entries sorted, each field
    length-prefixed, so that no path, whatever it holds, can spell out other entries."""
    h = hashlib.sha256()
    for entry in sorted(entries):
        for field in entry:
            data = field.encode("utf-8", "surrogateescape")
            h.update(b"%d:" % len(data) + data)
    return h.hexdigest()


def _entries(tarball) -> list[tuple[str, str, str]]:
    """(path, "file", sha256 of its contents) of every file and (path, "link", target) of every
    link of the archive."""
    entries = []
    try:
        with tarfile.open(tarball, "r:*") as tar:
            for path, member in _members(tar):
                if member.issym() or member.islnk():
                    entries.append((path, "link", member.linkname))
                elif member.isfile():
                    h = hashlib.sha256()
                    f = tar.extractfile(member)
                    while block := f.read(1 << 20):
                        h.update(block)
                    entries.append((path, "file", h.hexdigest()))
    except (tarfile.TarError, OSError, EOFError) as e:
        raise InvalidDatasetFile(f"{tarball}: not a readable tar archive ({e})") from None
    return entries


def tree_digest(tarball) -> str:
    """The digest (``listing_digest``) of every file's path below the top folder and the sha256
    of its contents, and every link's target. Independent of compression and of the top
    folder's name, so GitHub's archive and a `git archive` of the same commit agree."""
    return listing_digest(_entries(tarball))


def _unpacked_digest(root: Path, links) -> str:
    """The same digest over an unpacked tree as it lies on disk (with the archive's links, which
    are not unpacked): what the build will read, checked against the pinned one."""
    entries = list(links)
    for p in sorted(root.rglob("*")):
        if p.is_symlink() or not p.is_file():
            if p.is_symlink():
                entries.append((p.relative_to(root).as_posix(), "link", "(unpacked as a link)"))
            continue
        entries.append((p.relative_to(root).as_posix(), "file", sha256_of(p)))
    return listing_digest(entries)


def check_tree(tarball, peer: PeerSource) -> None:
    got = tree_digest(tarball)
    if got != peer.tree_sha256:
        raise InvalidDatasetFile(f"{Path(tarball).name}: its tree digest {got} is not {peer.name}'s "
                                 f"at {peer.commit[:7]} ({peer.tree_sha256})")


# --- fetching ----------------------------------------------------------------------------------

def fetch(peer: PeerSource, directory: Path, mirrors=(), *, offline: bool = False,
          deadline_s: float = 600.0, progress: bool = False,
          url: str | None = None) -> tuple[Path, str]:
    """The verified source archive and where it came from ("mirror PATH", "url URL", "kept").
    An archive already in ``directory/downloads`` is checked again and kept when it passes.
    ``url``: another address of the same archive (tests serve it from a local server)."""
    url = url or peer.url
    dest = Path(directory) / "downloads" / peer.filename
    if dest.is_file():
        try:
            check_tree(dest, peer)
            return dest, "kept"
        except InvalidDatasetFile:
            dest.unlink()  # wrong or damaged: fetch again

    def verify(path):
        try:
            check_tree(path, peer)
        except InvalidDatasetFile as e:
            raise DownloadError(f"mirror copy {path}: {e}", verification=True) from None
        return sha256_of(path)

    found, _, refusals = mirror.find(peer.filename, mirror.mirror_dirs(mirrors), verify)
    if found is not None:
        return found, f"mirror {found}"
    if refusals:  # a mirror holds a wrong copy: fix the mirror rather than download around it
        raise DownloadError("; ".join(refusals), verification=True)
    if offline:
        raise DownloadError(f"{peer.filename}: not in any offline mirror and downloads are off")
    ok, why = reachable(url)  # offline: say so in seconds, not after every retry
    if not ok:
        raise DownloadError(f"cannot download {url}: {why}; put {peer.filename} in an "
                            f"offline mirror (--mirror DIR) or at {dest}")
    download(url, dest, mirrors=(), validate=lambda part: check_tree(part, peer),
             progress=progress, deadline_s=deadline_s)
    return dest, f"url {url}"


# --- unpacking and patching --------------------------------------------------------------------

def patch_digest(peer: PeerSource) -> str:
    text = json.dumps([[e.file, e.old, e.new] for e in peer.edits])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def apply_edits(root: Path, edits) -> None:
    """Each edit's text must occur exactly once in its file, else nothing is built."""
    for edit in edits:
        path = root / edit.file
        try:
            text = path.read_text()
        except OSError as e:
            raise PeerSourceError(f"patch does not apply: {edit.file}: {e.strerror or e}") from None
        count = text.count(edit.old)
        if count != 1:
            raise PeerSourceError(f"patch does not apply: {edit.file} holds {edit.old!r} "
                                  f"{count} times, not once ({edit.why})")
        path.write_text(text.replace(edit.old, edit.new))


def unpack(tarball: Path, peer: PeerSource, directory: Path) -> Path:
    """A fresh, patched copy of the source under ``directory/src/<repo>-<commit>``."""
    target = Path(directory) / "src" / peer.filename.removesuffix(".tar.gz")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{peer.name}-", dir=target.parent))
    try:
        links = []
        try:
            with tarfile.open(tarball, "r:*") as tar:
                for path, member in _members(tar):
                    out = tmp / path
                    out.parent.mkdir(parents=True, exist_ok=True)
                    if member.isfile():
                        with tar.extractfile(member) as src, atomic.open_file(out, "xb") as dst:
                            shutil.copyfileobj(src, dst)
                        out.chmod(0o755 if member.mode & 0o111 else 0o644)
                    elif member.issym() or member.islnk():
                        links.append((path, "link", member.linkname))
                    # links are left out: nothing the builds read is one
        except (tarfile.TarError, OSError, EOFError, InvalidDatasetFile) as e:
            raise PeerSourceError(f"{Path(tarball).name}: cannot be unpacked as {peer.name}'s "
                                  f"source ({e})") from None
        got = _unpacked_digest(tmp, links)
        if got != peer.tree_sha256:  # what the build reads is the pinned tree, not the tarball's word
            raise PeerSourceError(f"{Path(tarball).name}: the unpacked tree's digest {got} is not "
                                  f"{peer.name}'s at {peer.commit[:7]} ({peer.tree_sha256})")
        apply_edits(tmp, peer.edits)
        if target.exists():
            shutil.rmtree(target)
        tmp.replace(target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


# --- building ----------------------------------------------------------------------------------

def default_arch() -> str:
    """The GPU here (nvidia-smi's compute capability), else sm_90: the H100 the study runs on."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        cap = out.stdout.strip().splitlines()[0].strip() if out.returncode == 0 else ""
        if cap.replace(".", "").isdigit():
            return "sm_" + cap.replace(".", "")
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    return "sm_90"


def _driver_text(name: str) -> str:
    from .. import native

    return "".join((resources.files(native) / f).read_text() for f in DRIVERS[name])


def build_key(peer: PeerSource, arch: str) -> str:
    """What a binary is made of: the verified tree, our patch, our driver, the flags, the arch.
    The same key is the same build, whatever machine or nvcc made it (so a build made here for
    sm_90 is used as it is on the H100)."""
    flags = ADDS_FLAGS + ADDS_LIBS if peer.name == "adds" else GUNROCK_FLAGS
    text = json.dumps([peer.tree_sha256, patch_digest(peer), _driver_text(peer.name), flags, arch])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _gencode(arch: str) -> list[str]:
    num = arch.removeprefix("sm_")
    return ["-gencode", f"arch=compute_{num},code=sm_{num}"]


def compile_peer(peer: PeerSource, tree: Path, out: Path, arch: str, nvcc: str, log) -> None:
    from .. import native

    with tempfile.TemporaryDirectory(prefix="graphrepro-peer-") as tmp:
        for f in DRIVERS[peer.name]:
            Path(tmp, f).write_text((resources.files(native) / f).read_text())
        if peer.name == "adds":
            src = tree / "ads_int"
            shutil.copy(Path(tmp, "adds_driver.cu"), src / "adds_driver.cu")
            cmd = [nvcc, *ADDS_FLAGS, *_gencode(arch), "adds_driver.cu", "support.cu",
                   "csr_graph.cu", *ADDS_LIBS, "-o", str(out.resolve())]
            cwd = src
        else:
            cmd = [nvcc, *GUNROCK_FLAGS, f"-DSM_TARGET={arch.removeprefix('sm_')}",
                   *_gencode(arch), "-include", str(Path(tmp, "gunrock_device.hpp")),
                   "-I", str((tree / "include").resolve()), str(Path(tmp, "gunrock_driver.cu")),
                   "-o", str(out.resolve())]
            cwd = tree
        log(f"building {out}: {' '.join(cmd)}")
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        out.unlink(missing_ok=True)
        raise PeerSourceError(f"nvcc failed for {peer.name}:\n{done.stderr[-3000:]}")


def build_peers(names=None, directory: Path | None = None, mirrors=(), *, arch: str | None = None,
                offline: bool = False, compile: bool = True, force: bool = False,
                log=None) -> dict:
    """Fetch, verify, patch and build each peer; write and return the manifest. A peer this
    machine cannot build (no nvcc, no source reachable) is listed under ``not_built`` with why;
    a wrong archive or a patch that does not apply raises."""
    directory = Path(directory or peers_dir())
    directory.mkdir(parents=True, exist_ok=True)
    log = log or (lambda m: print(m, file=sys.stderr))
    arch = arch or default_arch()
    manifest = {"arch": arch, "peers": {}, "not_built": {}}
    nvcc = find_nvcc()
    for name in names or PEER_SOURCES:
        peer = PEER_SOURCES[name]
        key = build_key(peer, arch)
        # each binary's record sits beside it (not in the manifest, which snakemake deletes
        # before rerunning its rule), so a build carried to another machine is found there
        entry = _record(directory / f"{name}.json")
        if (not force and entry and entry.get("key") == key
                and (directory / entry["binary"]).is_file()):
            manifest["peers"][name] = entry  # the same build: nothing to do (nvcc or not)
            log(f"{name}: up to date ({directory / entry['binary']})")
            continue
        if compile and not nvcc:  # nothing to build with: no need to fetch the source either
            manifest["not_built"][name] = NOT_BUILT_NO_NVCC
            log(f"{name}: {NOT_BUILT_NO_NVCC}")
            continue
        try:
            tarball, origin = fetch(peer, directory, mirrors, offline=offline)
        except DownloadError as e:
            if e.verification:
                raise
            manifest["not_built"][name] = f"not built: source not reachable ({e})"
            log(f"{name}: {manifest['not_built'][name]}")
            continue
        tree = unpack(tarball, peer, directory).resolve()
        log(f"{name}: {peer.repo}@{peer.commit[:7]} from {origin}, tree verified, patched "
            f"({len(peer.edits)} edits) in {tree}")
        entry = {"binary": name, "key": key, "repo": peer.repo, "commit": peer.commit,
                 "tree_sha256": peer.tree_sha256, "patch": patch_digest(peer),
                 "edits": [e.why for e in peer.edits], "licence": peer.licence, "arch": arch,
                 "source": origin, "tarball_sha256": sha256_of(tarball)}
        if not compile:
            manifest["not_built"][name] = "not built: verified and patched only (--no-compile)"
            continue
        part = directory / f"{name}.part"
        part.unlink(missing_ok=True)  # nvcc must not write through a link planted there
        compile_peer(peer, tree, part, arch, nvcc, log)
        part.replace(directory / name)
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        entry["nvcc"] = (version.strip().splitlines() or [""])[-1]
        atomic.write_text(directory / f"{name}.json", json.dumps(entry, indent=1) + "\n")
        manifest["peers"][name] = entry
    atomic.write_text(directory / MANIFEST, json.dumps(manifest, indent=1) + "\n")
    return manifest


def _record(path: Path) -> dict | None:
    try:
        record = load_json(path)
    except (FileNotFoundError, ValueError):
        return None
    return record if isinstance(record, dict) and "key" in record else None
