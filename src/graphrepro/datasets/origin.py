"""How a graph's origin record is said in tables and in the report, and the record of a user's
own file."""

from __future__ import annotations

from pathlib import Path


def file_origin(path, fmt=None) -> dict:
    """The origin record of a user's own graph file: where it was, its sha256 and the format it
    was read as, so a table can say which file its numbers come from."""
    from ..graph.load import format_of
    from .download import sha256_of

    path = Path(path)
    return {"kind": "file", "file": str(path.resolve()), "name": path.name,
            "sha256": sha256_of(path), "format": format_of(path, fmt)}


def input_origin(path, fmt=None) -> dict:
    """The origin of a graph a command reads: the record beside it where one was written (a cache
    made by `convert`, a dataset), else the file's own (``file_origin``)."""
    import json

    from .build import origin_path

    beside = origin_path(path)
    return json.loads(beside.read_text()) if beside.is_file() else file_origin(path, fmt)


def describe_origin(origin: dict | None, *, brief: bool = False) -> str:
    """One line saying what a graph is: the real file (URL, sha256) or which stand-in.

    ``brief`` leaves out why a stand-in was used: table cells repeat it on every row, and the
    report says it once, in its list of what stands in.
    """
    if not origin:
        return "synthetic (config generator)"
    kind = origin.get("kind")
    extra = ""
    if origin.get("reweight"):
        r = origin["reweight"]
        extra = f"; weights replaced by random {r['low']}..{r['high']} (seed {r['seed']})"
    if kind == "real":
        where = origin.get("url") or origin.get("embedded") or origin.get("file", "")
        sha = origin.get("sha256")
        via = ((", from an offline mirror" if brief else f", from offline mirror {origin['mirror']}")
               if origin.get("mirror") else "")  # a path on the machine that ran it
        return f"real: {where}" + (f" (sha256 {sha[:12]}...{via})" if sha else "") + extra
    if kind == "real topology":
        w = origin.get("weights") or {}
        where = origin.get("url") or origin.get("file", "")
        via = " via offline mirror" if origin.get("via") == "offline mirror" else ""
        return (f"real topology, synthetic weights ({w.get('model')}, seed {w.get('seed')}): "
                f"{where}{via}" + extra)
    if kind == "stand-in":
        scale = origin.get("scale", 1)
        size = "paper-size" if scale == 1 else f"scale {scale:g}"
        why = "" if brief else f": {origin.get('reason', '')}"
        return (f"STAND-IN ({size} {origin.get('generator')}, seed {origin.get('seed')}) for "
                f"{origin.get('document_name', '?')}{why}{extra}")
    if kind == "file":  # a user's own file: its name, and the bytes it was (older records: path)
        name = origin.get("name") or Path(str(origin.get("file", ""))).name
        sha = origin.get("sha256")
        what = ", ".join(x for x in (origin.get("format"), sha and f"sha256 {sha[:12]}...") if x)
        return f"your file {name}" + (f" ({what})" if what else "") + extra
    return str(kind or "unknown") + extra


def read_origin(path) -> dict:
    """The origin record at ``path`` (a graph's or a terrain's), refused in one line naming it
    when it is no record of ours: not an object, or fields of the wrong kind."""
    from ..bounded import load_json
    from ..errors import InputError

    record = load_json(path)
    problem = None if isinstance(record, dict) else "not a JSON object"
    if problem is None:
        converted = record.get("converted", {})
        try:
            if not isinstance(converted, dict):
                raise TypeError("'converted' is not an object")
            describe_origin(record)
        except (TypeError, KeyError, AttributeError, ValueError, IndexError) as e:
            problem = str(e) or type(e).__name__
    if problem is not None:
        raise InputError(f"{path}: not an origin record ({problem})")
    return record


def data_kind(origin: dict | None) -> str:
    """What kind of data an origin record says a graph or terrain is, in the ledger's words:
    "real", "real topology, modelled weights" (a real network whose weights we drew, whether the
    file had none or its weights were replaced), "stand-in" (a generated graph or terrain in place
    of the document's data), or "synthetic" (a graph the config generates, as the documents
    generate theirs: random dense matrices, singla's random graphs)."""
    if not origin:
        return "synthetic"
    kind = origin.get("kind")
    if kind == "real":
        return "real topology, modelled weights" if origin.get("reweight") else "real"
    if kind == "real topology":
        return "real topology, modelled weights"
    if kind == "stand-in":
        return "stand-in"
    return str(kind or "unknown")
