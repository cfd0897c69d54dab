"""Offline mirrors: local folders searched, by file name, before any URL is tried.

A cluster without internet, or a machine with a pre-staged data folder, names one or more
folders in the config (``offline_mirrors: [DIR, ...]``), on the command line (``--mirror DIR``)
or in the environment (``GRAPHREPRO_OFFLINE_MIRRORS``, folders separated by ``os.pathsep``).
(The registry's own ``mirrors:`` are other URLs of a file, tried after its ``url``.) A dataset's
file is looked for there under its own name (``USA-road-d.NY.gr.gz``, ``NW.gr.xz``), at the top of a
folder or anywhere below it (a mirror may keep ``road-graphs-pace16/NW.gr.xz``). A file found
there is checked exactly as a download is (the registry's sha256, else the lock's first-seen
one, else it becomes the lock's) and used where it lies; a file that fails the check is refused
with one clear error, never used, and never replaced by a stand-in.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import safepath

ENV = "GRAPHREPRO_OFFLINE_MIRRORS"


def mirror_dirs(given=()) -> list[Path]:
    """The mirror folders in search order: those given (config, command line), then the
    environment's; folders that do not exist are skipped (a mirror may be mounted elsewhere).
    ``None``: no mirror at all, not even the environment's (a stand-in asked for by name)."""
    if given is None:
        return []
    dirs = [Path(d) for d in given]
    dirs += [Path(d) for d in os.environ.get(ENV, "").split(os.pathsep) if d]
    seen, out = set(), []
    for d in dirs:
        key = str(d.resolve()) if d.exists() else str(d)
        if key not in seen and d.is_dir():
            seen.add(key)
            out.append(d)
    return out


def candidates(filename: str, dirs) -> list[Path]:
    """Every file called ``filename`` in the mirrors, in search order (top level first). The
    name is a plain file name (a registry's word), and a copy reached through a link that leads
    out of its mirror is not one of them (``safepath``)."""
    filename = safepath.name(filename, what="a file looked for in the offline mirrors")
    out = []
    for d in dirs:
        top = d / filename
        found = ([top] if top.is_file() else []) + sorted(
            p for p in d.rglob(filename) if p.is_file() and p != top)
        out += [p for p in found if _inside(d, p)]
    return out


def _inside(mirror: Path, path: Path) -> bool:
    try:
        safepath.within(mirror, path, what="an offline mirror's copy")
        return True
    except safepath.UnsafePath:
        return False


def find(filename: str | None, dirs, verify) -> tuple[Path | None, str, list[str]]:
    """The first copy of ``filename`` that passes ``verify(path) -> sha256``.

    Returns (path, sha256, refusals): path None when no mirror holds the file. ``verify`` raises
    on a wrong file (a verification DownloadError); such copies are listed in ``refusals`` and
    skipped, so a second mirror with the right file still serves; the caller raises when every
    copy was refused.
    """
    if not filename:
        return None, "", []
    refusals = []
    for path in candidates(filename, dirs):
        try:
            return path, verify(path), refusals
        except Exception as e:  # noqa: BLE001 - the verifier's own error says why; re-raised below
            if not getattr(e, "verification", False):
                raise
            refusals.append(str(e))  # the verifier names the file
    return None, "", refusals
