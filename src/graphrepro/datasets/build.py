"""From a registry entry to what the workflow reads: a CSR cache or a converted terrain, with an
origin record that says exactly what the numbers were measured on.

``mode='paper'`` uses the real file, whatever ``scale`` says: already downloaded (and verified),
or downloaded now when the host answers; otherwise, and always with ``mode='standin'``, the
registry's stand-in is built, deterministic by seed, at the dataset's exact published counts
times ``scale`` (a config's small stand-ins; a real file is never shrunk). The origin record (``NAME.origin.json`` beside ``NAME.npz``) carries either
the URL and sha256 of the real file or the generator, seed and parameters of the stand-in, the
counts the original has, and why a stand-in was used.
"""

from __future__ import annotations

import datetime as _dt
import json
import sys
from pathlib import Path

import numpy as np

from .. import atomic, safepath
from ..errors import InputError
from ..graph.csr import CSRGraph
from . import mirror
from .download import (DownloadError, download, forget_lock, reachable, read_lock, record_lock,
                       sha256_of)
from .registry import DEFAULT_LOCK, DEFAULT_REGISTRY, Dataset, get_dataset, load_registry

MODES = ("paper", "standin")


def local_path(ds: Dataset, data_dir) -> Path | None:
    """Where the real file lives once downloaded (shared by same_as aliases): inside the data
    folder, whatever the registry's file name or a link in the folder says (``safepath``)."""
    if not ds.filename:
        return None
    name = safepath.name(ds.filename, what=f"dataset {ds.key}: its file name")
    return safepath.under(data_dir, f"{ds.file_key}/{name}", what=f"dataset {ds.key}: its file")


def lock_for(registry=None) -> Path:
    """The lock file of first-seen checksums: beside the registry it belongs to; the default
    registry's is DEFAULT_LOCK (the user's, for an installed wheel)."""
    if registry and Path(registry).resolve() != DEFAULT_REGISTRY.resolve():
        return Path(registry).with_name("datasets.lock.json")
    return DEFAULT_LOCK


def expected_checksum(ds: Dataset, lock_path=DEFAULT_LOCK) -> tuple[str | None, int | None, str]:
    """(sha256, size, where it comes from): the registry's published one, else the lock's."""
    if ds.sha256:
        return ds.sha256, ds.size, "published"
    entry = read_lock(lock_path).get(ds.file_key)
    if entry:
        return entry["sha256"], entry.get("size"), f"first seen {entry.get('first_seen', '?')}"
    return None, ds.size, "none yet"


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _content_problem(ds: Dataset, path: Path) -> str | None:
    from .validate import InvalidDatasetFile, validate_dataset_file

    try:
        validate_dataset_file(path, ds)
    except InvalidDatasetFile as e:
        return str(e)
    return None


def _set_aside(path: Path) -> Path:
    """Move a wrong file out of the way (kept to look at, never read as the dataset)."""
    bad = path.with_name(path.name + ".invalid")
    path.replace(bad)
    _stamp(path).unlink(missing_ok=True)
    return bad


def verify_local(ds: Dataset, path: Path, lock_path=DEFAULT_LOCK, *, validated: bool = False) -> str:
    """Check a file that is present (downloaded or put there by hand); returns its sha256.

    A stamp beside the file remembers a check (size and mtime), so listing datasets does not
    rehash gigabytes each time. Where no checksum is published the file must pass the format's
    checks (``validated``: it just did) before its own checksum becomes the lock's; and where the
    lock disagrees with a file that passes them, the error says how to drop the lock's entry.
    """
    st = path.stat()
    stamp = _stamp(path)
    if stamp.is_file():
        digest, size, mtime = (stamp.read_text().split() + ["", "", ""])[:3]
        if size.isdigit() and int(size) == st.st_size and mtime == repr(st.st_mtime):
            known, _, _ = expected_checksum(ds, lock_path)
            if known in (None, digest):
                return digest
    digest = sha256_of(path)
    known, size, where = expected_checksum(ds, lock_path)
    recover = (f"python -m graphrepro fetch {ds.file_key} --forget-lock (or delete the entry "
               f"{ds.file_key!r} from {lock_path})")
    if known is not None and digest != known:
        if ds.sha256 is None:  # a first-seen entry: the format's check says which one is wrong
            problem = _content_problem(ds, path)
            if problem:
                bad = _set_aside(path)
                raise DownloadError(f"{path}: sha256 {digest} does not match the {where} {known} "
                                    f"and the file is not the dataset ({problem}); it was moved "
                                    f"to {bad}: fetch again", verification=True)
            raise DownloadError(f"{path}: sha256 {digest} does not match the {where} {known}, yet "
                                f"the file passes the format's checks (header and counts agree "
                                f"with the registry), so the lock's entry may be the wrong one. "
                                f"If you trust this file: {recover}, and run again",
                                verification=True)
        raise DownloadError(f"{path}: sha256 {digest} does not match the {where} {known}; "
                            f"delete the file and fetch it again", verification=True)
    if size is not None and st.st_size != size:
        raise DownloadError(f"{path}: {st.st_size:,} bytes, expected {size:,}", verification=True)
    if ds.sha256 is None and not validated:
        problem = _content_problem(ds, path)
        if problem:
            dropped = known is not None and forget_lock(lock_path, ds.file_key) is not None
            bad = _set_aside(path)
            raise DownloadError(f"{path}: not the dataset ({problem}); it was moved to {bad}"
                                + (" and the lock entry recorded from it was dropped"
                                   if dropped else "") + ": fetch again", verification=True)
    if known is None:
        record_lock(lock_path, ds.file_key, url=ds.url or "", file=ds.filename,
                    size=st.st_size, sha256=digest)
    atomic.write_text(stamp, f"{digest} {st.st_size} {st.st_mtime!r}\n")  # never through a link
    return digest


def fetch(ds: Dataset, data_dir, *, lock_path=DEFAULT_LOCK, progress: bool = True,
          timeout=(10.0, 60.0), retries: int = 4, deadline_s: float = 4 * 3600.0,
          forget: bool = False) -> tuple[Path, str]:
    """The real file, downloaded if absent, verified; (path, sha256). ``forget``: drop the
    lock's first-seen entry first (the way out when it was recorded from a wrong file)."""
    if ds.source != "download":
        raise InputError(f"{ds.key}: nothing to download ({ds.source})")
    from .download import _locked
    from .validate import validate_dataset_file

    if forget:
        if ds.sha256:
            raise InputError(f"{ds.key}: its sha256 is published, not first seen: nothing to forget")
        forget_lock(lock_path, ds.file_key)
    path = local_path(ds, data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):  # parallel jobs (calnev and its alias roadnet_cal) share one download
        validated = False
        if not path.is_file():
            # Only a published checksum is checked during the download: a first-seen one is
            # compared after it, by verify_local, which can tell a wrong file from a wrong entry.
            check = None if ds.sha256 else (lambda part: validate_dataset_file(part, ds))
            download(ds.url, path, sha256=ds.sha256, size=ds.size,
                     mirrors=ds.mirrors, timeout=timeout, retries=retries, progress=progress,
                     validate=check, deadline_s=deadline_s)
            validated = check is not None
        return path, verify_local(ds, path, lock_path, validated=validated)


def state(ds: Dataset, data_dir, lock_path=DEFAULT_LOCK, mirrors=()) -> str:
    """What `graphrepro datasets` shows: verified / downloaded / in a mirror / stand-in /
    embedded, and where a real topology (PACE 2016) is at hand for a graph whose file is not."""
    text = _file_state(ds, data_dir, lock_path, mirrors)
    if ds.topology and not text.startswith(("downloaded, verified", "offline mirror")):
        topo = _file_state(topology_dataset(ds), data_dir, lock_path, mirrors)
        if topo.startswith(("downloaded, verified", "offline mirror")):
            text = f"real topology ({topo}); synthetic weights {ds.topology['weights']['model']}"
    return text


def _mirror_state(ds: Dataset, lock_path, mirrors) -> str | None:
    dirs = mirror.mirror_dirs(mirrors)
    if not dirs or not mirror.candidates(ds.filename or "", dirs):
        return None
    try:
        path, _ = from_mirror(ds, mirrors, lock_path)
    except DownloadError as e:
        return f"offline mirror copy BAD: {e}"
    _, _, where = expected_checksum(ds, lock_path)
    return f"offline mirror {path} (verified, sha256 {where})"


def _file_state(ds: Dataset, data_dir, lock_path, mirrors) -> str:
    if ds.source == "embedded":
        try:
            _embedded_array(ds)
            return "embedded (real, installed with " + ds.package + ")"
        except Exception as e:  # noqa: BLE001 - any failure to load means "not available"
            return f"embedded but unavailable ({e}); stand-in"
    if ds.source == "unpublished":
        return "stand-in (no public copy)"
    path = local_path(ds, data_dir)
    part = path.with_name(path.name + ".part")
    if path.is_file():
        try:
            verify_local(ds, path, lock_path)
        except DownloadError as e:
            return f"downloaded but BAD: {e}"
        _, _, where = expected_checksum(ds, lock_path)
        return f"downloaded, verified (sha256 {where})"
    in_mirror = _mirror_state(ds, lock_path, mirrors)
    if in_mirror:
        return in_mirror
    if part.is_file():
        return f"partial download ({part.stat().st_size:,} bytes; fetch resumes); stand-in"
    return "not downloaded: stand-in"


# --- stand-ins ------------------------------------------------------------------------------

def scaled_counts(ds: Dataset, scale: float) -> tuple[int, int]:
    if not 0 < scale <= 1:
        raise InputError(f"scale must be in (0, 1], not {scale}")
    n = max(16, int(round(ds.vertices * scale)))
    a = int(round(ds.arcs * scale))
    if ds.arcs % 2 == 0:
        a -= a % 2  # symmetric graphs keep an even arc count
    return n, a


def standin_graph(ds: Dataset, scale: float = 1.0) -> tuple[CSRGraph, dict]:
    from ..graph import generate

    params = dict(ds.standin)
    kind = params.pop("generator")
    seed = params.pop("seed")
    n, a = scaled_counts(ds, scale)
    if kind == "road_network":
        from ..graph.roads import road_network

        graph = road_network(n, a, seed=seed, **params)
    elif kind == "road_like":
        graph = generate.road_like(n, a, seed=seed, **params)
    elif kind == "rmat":
        graph = generate.rmat(n, a, seed=seed, **params)
    elif kind == "mesh3d":
        graph = generate.mesh3d(n, a, seed=seed, **params)
    else:
        raise InputError(f"{ds.key}: {kind} makes terrain, not a graph")
    return graph, {"generator": kind, "seed": seed, "params": params, "scale": scale,
                   "vertices": n, "arcs": a}


def _apply_weights(graph: CSRGraph, ds: Dataset) -> CSRGraph:
    if isinstance(ds.weights, dict):
        from ..graph.generate import reweight

        r = ds.weights["random"]
        return reweight(graph, r["low"], r["high"], r["seed"])
    return graph


# --- graphs ---------------------------------------------------------------------------------

def _published(ds: Dataset) -> dict:
    return {"vertices": ds.vertices, "arcs": ds.arcs, "rows": ds.rows, "cols": ds.cols}


def verify_mirror_file(ds: Dataset, path: Path, lock_path=DEFAULT_LOCK) -> str:
    """The check a download gets (size, then the published or first-seen sha256; with neither,
    the file's own becomes the lock's), for a copy in an offline mirror; returns its sha256."""
    have = path.stat().st_size
    known, size, where = expected_checksum(ds, lock_path)
    if size is not None and have != size:
        raise DownloadError(f"{path} (offline mirror, {ds.key}): {have:,} bytes, expected "
                            f"{size:,}; refused", verification=True)
    digest = sha256_of(path)
    if known is not None and digest != known:
        raise DownloadError(f"{path} (offline mirror, {ds.key}): sha256 {digest} does not match "
                            f"the {where} {known}; refused: replace or remove that copy",
                            verification=True)
    if known is None:
        # no checksum to hold it to: the file must pass its format's own checks (as a download
        # without a published checksum does) before it becomes the truth in the lock
        problem = _content_problem(ds, path)
        if problem:
            raise DownloadError(f"{path} (offline mirror, {ds.key}): {problem}; refused",
                                verification=True)
        record_lock(lock_path, ds.file_key, url=ds.url or "", file=ds.filename, size=have,
                    sha256=digest)
    return digest


def from_mirror(ds: Dataset, mirrors=(), lock_path=DEFAULT_LOCK) -> tuple[Path | None, str]:
    """(path, sha256) of the first verified copy in the offline mirrors, or (None, "").

    Copies that fail the check are never used; if every copy failed, that is an error (as a
    wrong download is), not a reason for a stand-in."""
    path, digest, refused = mirror.find(ds.filename, mirror.mirror_dirs(mirrors),
                                        lambda p: verify_mirror_file(ds, p, lock_path))
    if path is None and refused:
        raise DownloadError("; ".join(refused), verification=True)
    return path, digest


def obtain_real(ds: Dataset, data_dir, *, lock_path=DEFAULT_LOCK, online_timeout: float = 3.0,
                mirrors=(), online: bool = True, log=print) -> tuple[Path | None, str, str, str]:
    """(path, sha256, "", via) of the verified real file, or (None, "", why not, "").

    Looked for in this order: a verified download under ``data_dir``, the offline mirrors (by
    file name), then the URL (only when ``online``). ``via``: 'download' or 'offline mirror'.
    """
    if ds.source != "download":
        return None, "", {"unpublished": "no public copy of this dataset is known",
                          "embedded": "embedded"}.get(ds.source, ds.source), ""
    path = local_path(ds, data_dir)
    if not path.is_file():
        found, digest = from_mirror(ds, mirrors, lock_path)
        if found is not None:
            return found, digest, "", "offline mirror"
        if not online:
            return None, "", "not in the offline mirrors", ""
        ok, why = reachable(ds.url, timeout=online_timeout)
        if not ok and not why.startswith("HTTP"):  # an HTTP answer: let the download say more
            return None, "", f"{ds.url} cannot be reached ({why})", ""
    try:
        path, digest = fetch(ds, data_dir, lock_path=lock_path, progress=True)
    except DownloadError as e:
        if e.verification:  # the wrong file is an error to fix, not a reason for a stand-in
            raise
        return None, "", str(e), ""
    return path, digest, "", "download"


def topology_dataset(ds: Dataset) -> Dataset:
    """The registry entry's ``topology:`` file (PACE 2016) as a dataset of its own, so that it is
    fetched, mirrored, checked and locked exactly as any other file."""
    import dataclasses

    t = ds.topology
    return dataclasses.replace(
        ds, key=f"{ds.file_key}_topology", same_as=None, url=t["url"], file=t.get("file"),
        sha256=t.get("sha256"), sha256_source=t.get("sha256_source"), size=t.get("size"),
        mirrors=tuple(t.get("mirrors", ())), format="pace", topology=None,
        weights=t["weights"])


def _real_origin(path, digest, via, ds: Dataset) -> dict:
    origin = {"url": ds.url, "file": str(path), "sha256": digest, "via": via}
    if via == "offline mirror":
        origin["mirror"] = str(path)
    return origin


def _outcome(key: str, mode: str, kind: str, **fields) -> dict:
    return {"dataset": key, "mode": mode, "kind": kind, **fields}


def _real(key, mode, kind, path, digest, via, **fields) -> dict:
    return _outcome(key, mode, kind, file=str(path), sha256=digest, via=via, **fields)


def obtain_graph(key: str, ds: Dataset, *, mode: str, data_dir, lock_path, mirrors=(),
                 log=print) -> dict:
    """Which file a graph dataset is built from, found (downloaded, verified) but not parsed:
    the real file, else its real topology, else the stand-in and why (see ``fetch_record``)."""
    online = mode == "paper"
    why = "config asks for stand-ins (datasets: standin)"
    if online or mirror.mirror_dirs(mirrors):
        path, digest, real_why, via = obtain_real(ds, data_dir, lock_path=lock_path, log=log,
                                                  mirrors=mirrors, online=online)
        if path is not None:
            return _real(key, mode, "real", path, digest, via)
        why = real_why if online else f"{why}; the real file is {real_why}"
        if ds.topology:
            tpath, tdigest, twhy, tvia = obtain_real(topology_dataset(ds), data_dir, log=log,
                                                     lock_path=lock_path, mirrors=mirrors,
                                                     online=online)
            if tpath is not None:
                return _real(key, mode, "real topology", tpath, tdigest, tvia, reason=why)
            why += f"; its real topology: {twhy}"
        if online:
            log(f"{key}: using the stand-in: {why}")
    return _outcome(key, mode, "stand-in", reason=why)


def fetch_record(key: str, *, mode: str = "standin", data_dir="resources/datasets",
                 registry=None, mirrors=(), lock_path=None,
                 log=lambda m: print(m, file=sys.stderr)) -> dict:
    """What ``build_graph`` or ``convert_terrain`` will read for ``key``, obtained now (the one
    step that may use the network) so the parsing can run elsewhere: ``kind`` 'real' or 'real
    topology' with the verified file's path, sha256 and ``via``; 'stand-in' with the reason the
    origin will carry; 'embedded' (nothing to obtain). Either function takes it as ``fetched``."""
    if mode not in MODES:
        raise InputError(f"datasets mode must be one of {MODES}, not {mode!r}")
    ds = get_dataset(key, registry)
    lock_path = lock_path or lock_for(registry)
    obtain = obtain_terrain if ds.is_terrain else obtain_graph
    return obtain(key, ds, mode=mode, data_dir=data_dir, lock_path=lock_path, mirrors=mirrors,
                  log=log)


def build_graph(key: str, *, mode: str = "standin", data_dir="resources/datasets",
                scale: float = 1.0, lock_path=None, registry=None, mirrors=(), fetched=None,
                log=lambda m: print(m, file=sys.stderr)) -> tuple[CSRGraph, dict]:
    """The graph a config's ``dataset: KEY`` entry means, and its origin record.

    ``paper``: the real file (downloaded, in an offline mirror, or downloaded now), else the real
    topology with the named weight model, else the stand-in. ``standin``: the stand-in, unless an
    offline mirror is configured and holds the real file or topology: a file at hand is used.
    ``fetched``: what ``fetch_record`` found earlier (then nothing is looked for here).
    """
    if mode not in MODES:
        raise InputError(f"datasets mode must be one of {MODES}, not {mode!r}")
    ds = get_dataset(key, registry)
    lock_path = lock_path or lock_for(registry)
    origin = {"dataset": key, "document_name": ds.name, "documents": ds.documents,
              "title": ds.title, "published": _published(ds),
              "made": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    if ds.is_terrain:
        from ..terrain import grid_graph

        elevation, terrain_origin = terrain_array(ds, mode=mode, data_dir=data_dir, scale=scale,
                                                  lock_path=lock_path, mirrors=mirrors, log=log,
                                                  fetched=fetched)
        graph = grid_graph(elevation, neighbours=8, weight="sssp", name=key)
        origin.update(terrain_origin, graph="8-neighbour grid graph, weight |h(i) - h(j)| "
                      "(gerritsen2012 section 1.5.1, SSSP)")
        return graph, origin
    got = fetched or obtain_graph(key, ds, mode=mode, data_dir=data_dir, lock_path=lock_path,
                                  mirrors=mirrors, log=log)
    if got["kind"] == "real":
        from ..graph.formats import read_graph

        graph = read_graph(Path(got["file"]), ds.format, name=key, snap_vertices=ds.snap_vertices,
                           mtx_values=ds.mtx_values)
        graph = _apply_weights(graph, ds)
        origin.update(kind="real", weights=ds.weights,
                      **_real_origin(got["file"], got["sha256"], got["via"], ds))
        return graph, origin
    if got["kind"] == "real topology":
        from .topology import topology_graph

        topo = topology_dataset(ds)
        graph, record = topology_graph(Path(got["file"]), topo, name=key)
        origin.update(kind="real topology", reason=got["reason"], **record,
                      **_real_origin(got["file"], got["sha256"], got["via"], topo))
        return graph, origin
    graph, info = standin_graph(ds, scale)
    graph.name = key
    graph = _apply_weights(graph, ds)
    weights = ds.weights if isinstance(ds.weights, dict) else ds.standin.get("weights", "unit")
    origin.update(kind="stand-in", reason=got["reason"], weights=weights, **info)
    return graph, origin


# --- terrain --------------------------------------------------------------------------------

def _embedded_array(ds: Dataset) -> np.ndarray:
    if ds.package != "matplotlib":
        raise InputError(f"{ds.key}: embedded data from {ds.package} is not supported")
    from matplotlib import cbook

    with cbook.get_sample_data(ds.resource) as z:  # an NpzFile for .npz sample data
        return np.array(z["elevation"])


def _scaled_dims(ds: Dataset, scale: float) -> tuple[int, int]:
    if not 0 < scale <= 1:
        raise InputError(f"scale must be in (0, 1], not {scale}")
    return max(2, int(round(ds.rows * scale))), max(2, int(round(ds.cols * scale)))


def terrain_standin_file(ds: Dataset, data_dir, scale: float = 1.0, log=print) -> tuple[Path, dict]:
    """The stand-in in the dataset's own ASCII format (Listing 1.1), written once and kept."""
    from ..terrain import write_standin
    from .download import _locked

    rows, cols = _scaled_dims(ds, scale)
    params = dict(ds.standin)
    kind, seed = params.pop("generator"), params.pop("seed")
    if kind != "diamond_square":
        raise InputError(f"{ds.key}: terrain stand-ins are diamond_square, not {kind}")
    path = Path(data_dir) / ds.key / f"{ds.key}_standin_{rows}x{cols}_seed{seed}.asc"
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):  # two terrains of one dataset (real and its stand-in) may ask at once
        if not path.is_file():
            log(f"{ds.key}: writing the diamond-square stand-in {rows} x {cols} to {path}")
            write_standin(path, rows=rows, cols=cols, seed=seed, **params)
    return path, {"generator": kind, "seed": seed, "params": params, "scale": scale,
                  "rows": rows, "cols": cols, "file": str(path)}


def terrain_array(ds: Dataset, *, mode: str, data_dir, scale: float, lock_path=DEFAULT_LOCK,
                  mirrors=(), log=print, fetched=None) -> tuple[np.ndarray, dict]:
    """A terrain as a cleaned integer array (for grid graphs), with its origin."""
    import tempfile

    from ..terrain import open_zgrid, to_rows

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{ds.key}.zgrid"
        origin = convert_terrain(ds.key, out, mode=mode, data_dir=data_dir, scale=scale,
                                 lock_path=lock_path, mirrors=mirrors, log=log, fetched=fetched)
        z, meta = open_zgrid(out)
        rows = to_rows(z, meta)
        del z
    return rows, origin


def obtain_terrain(key: str, ds: Dataset, *, mode: str, data_dir, lock_path, mirrors=(),
                   log=print) -> dict:
    """``obtain_graph`` for a terrain: the real grid, or the stand-in and why."""
    if ds.source == "embedded":
        return _outcome(key, mode, "embedded")
    why = ""
    online = mode == "paper"
    if ds.source == "download" and (online or mirror.mirror_dirs(mirrors)):
        path, digest, why, via = obtain_real(ds, data_dir, lock_path=lock_path, log=log,
                                             mirrors=mirrors, online=online)
        if path is not None:
            return _real(key, mode, "real", path, digest, via)
        if online:
            log(f"{key}: using the stand-in: {why}")
        else:
            why = f"config asks for stand-ins (datasets: standin); the real file is {why}"
    reason = ("no public copy of this dataset is known" if ds.source == "unpublished"
              else why or "config asks for stand-ins")
    return _outcome(key, mode, "stand-in", reason=reason)


def convert_terrain(key: str, output, *, mode: str = "standin", data_dir="resources/datasets",
                    scale: float = 1.0, dtype: str = "uint16", lock_path=None, registry=None,
                    mirrors=(), fetched=None, log=lambda m: print(m, file=sys.stderr)) -> dict:
    """Convert a terrain dataset as gerritsen2012 section 1.5.1 says; returns the origin.

    Embedded real data (Jacksboro) is always used as it is; a downloadable grid is used in paper
    mode when it can be had, and in either mode when an offline mirror holds it; otherwise the
    diamond-square stand-in (times ``scale``). ``fetched``: as for ``build_graph``.
    """
    from ..terrain import convert_array, convert_file

    ds = get_dataset(key, registry)
    lock_path = lock_path or lock_for(registry)
    if not ds.is_terrain:
        raise InputError(f"{key} is a graph, not a terrain")
    origin = {"dataset": key, "document_name": ds.name, "documents": ds.documents,
              "title": ds.title, "published": _published(ds)}
    if ds.source == "embedded":
        if scale != 1:
            raise InputError(f"{key} is real embedded data; it has no reduced stand-in (scale 1)")
        origin.update(kind="real", embedded=f"{ds.package} sample data {ds.resource}")
        meta = convert_array(_embedded_array(ds), output, source=dict(origin), dtype=dtype)
    else:
        got = fetched or obtain_terrain(key, ds, mode=mode, data_dir=data_dir,
                                        lock_path=lock_path, mirrors=mirrors, log=log)
        if got["kind"] == "real":
            path = Path(got["file"])
            origin.update(kind="real", **_real_origin(path, got["sha256"], got["via"], ds))
        else:
            path, info = terrain_standin_file(ds, data_dir, scale, log=log)
            origin.update(kind="stand-in", reason=got["reason"], **info)
        meta = convert_file(path, output, dtype=dtype, source=dict(origin))
    origin["converted"] = {k: meta[k] for k in ("rows", "cols", "side", "dtype", "unknown_values",
                                                "negatives_set_to_zero", "max", "bytes")}
    return origin


def list_datasets(data_dir, lock_path=None, registry=None, mirrors=()) -> list[dict]:
    rows = []
    lock_path = lock_path or lock_for(registry)
    for key, ds in load_registry(str(registry) if registry else None).items():
        rows.append({"key": key, "name": ds.name, "documents": ", ".join(ds.documents),
                     "format": ds.format, "source": ds.source + (f" ({ds.same_as})" if ds.same_as else ""),
                     "size": (f"{ds.vertices:,} V / {ds.arcs:,} A" if ds.vertices
                              else f"{ds.rows:,} x {ds.cols:,}" if ds.rows else ""),
                     "state": state(ds, data_dir, lock_path, mirrors)})
    return rows


def write_origin(path, origin: dict) -> None:
    atomic.write_text(path, json.dumps(origin, indent=1, default=str) + "\n")


def origin_path(npz_path) -> Path:
    p = Path(npz_path)
    return p.with_name(p.name[:-4] + ".origin.json" if p.name.endswith(".npz") else p.name + ".origin.json")
