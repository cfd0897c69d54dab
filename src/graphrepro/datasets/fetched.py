"""The record of one dataset's fetch (``build.fetch_record``) as a file: a workflow fetches in a
local job, where the network is, and parses in a submitted one, which reads only this record
and the file it names, so a compute node never needs the network and a login node never parses
a paper-size graph. The real file itself goes into a folder beside the record (``copy_folder``:
a hard link where it can be, else a copy), which the workflow declares as the fetch's output, so
that an executor without a shared file system brings it to the job that parses it.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import atomic
from ..errors import InputError
from .download import sha256_of

REAL = ("real", "real topology")


def copy_folder(record_path) -> Path:
    """The folder beside a fetch record that holds its real file (empty for a stand-in)."""
    path = Path(record_path)
    return path.with_name(path.name.removesuffix(".json") + ".files")


def write_record(path, record: dict) -> None:
    folder = copy_folder(path)
    folder.mkdir(parents=True, exist_ok=True)
    if record.get("kind") in REAL:
        _keep(Path(record["file"]), folder / Path(record["file"]).name)
    atomic.write_text(path, json.dumps(record, indent=1) + "\n")


def _keep(file: Path, dest: Path) -> None:
    """``dest`` the same file as ``file``: linked (no second copy of a large file on one file
    system), else copied whole."""
    import os
    import shutil

    if dest.exists() and os.path.samefile(file, dest):
        return
    with atomic.replacing(dest) as tmp:
        tmp.unlink()
        try:
            os.link(file, tmp)
        except OSError:  # another file system, or links not allowed there
            shutil.copyfile(file, tmp)


def read_record(path, key: str, mode: str) -> dict:
    """The record at ``path``, for dataset ``key`` in ``mode``; the real file it names must still
    be the one fetched (its sha256 is checked again: the file may have been replaced since)."""
    redo = f"delete {path} and run again (the fetch verifies the file anew)"
    from ..harness.files import read_record as read_json

    record = read_json(path, "a fetch record")
    if "kind" not in record:
        raise InputError(f"{path}: not a fetch record (no kind)")
    if (record.get("dataset"), record.get("mode")) != (key, mode):
        raise InputError(f"{path}: the fetch record of {record.get('dataset')!r} in mode "
                         f"{record.get('mode')!r}, not of {key!r} in mode {mode!r}")
    if record["kind"] in REAL:
        file = Path(record["file"])
        copy = copy_folder(path) / file.name
        if not file.is_file() and copy.is_file():  # a node that sees only the declared outputs
            file, record = copy, {**record, "file": str(copy)}
        if not file.is_file():
            raise InputError(f"{path}: the file it names, {file}, is gone: {redo}")
        digest = sha256_of(file)
        if digest != record["sha256"]:
            raise InputError(f"{path}: {file} has sha256 {digest}, not the {record['sha256']} "
                             f"it was fetched with (the file changed since): {redo}")
    return record
