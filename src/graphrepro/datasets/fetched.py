"""The record of one dataset's fetch (``build.fetch_record``) as a file: a workflow fetches in a
local job, where the network is, and parses in a submitted one, which reads only this record
and the file it names, so a compute node never needs the network and a login node never parses
a paper-size graph.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import atomic
from ..errors import InputError
from .download import sha256_of

REAL = ("real", "real topology")


def write_record(path, record: dict) -> None:
    atomic.write_text(path, json.dumps(record, indent=1) + "\n")


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
        if not file.is_file():
            raise InputError(f"{path}: the file it names, {file}, is gone: {redo}")
        digest = sha256_of(file)
        if digest != record["sha256"]:
            raise InputError(f"{path}: {file} has sha256 {digest}, not the {record['sha256']} "
                             f"it was fetched with (the file changed since): {redo}")
    return record
