"""The dataset registry (``config/datasets.yaml``): one entry per dataset the documents use.

Loaded once, validated against ``config/schema/datasets.schema.yaml``; ``same_as`` entries
(senthilkumar's roadNet-CAL is DIMACS CAL) resolve to the entry they name for everything about
the file, and keep their own name and documents.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from ..bounded import load_yaml
from ..credentials import strip_credentials
from ..errors import InputError

# graphrepro/config is the repository's config/ (a link in the source tree; a copy in the wheel)
CONFIG = Path(__file__).resolve().parents[1] / "config"
DEFAULT_REGISTRY = CONFIG / "datasets.yaml"
SCHEMA = CONFIG / "schema" / "datasets.schema.yaml"
PACKAGED_LOCK = CONFIG / "datasets.lock.json"


def _user_lock() -> Path:
    """The lock an installed wheel records into: the user's data directory (XDG), never
    site-packages, which may be read-only or shared."""
    import os

    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "graphrepro" / "datasets.lock.json"


# A checkout (config is a link to the repository's config/) records into the repository's lock,
# which is committed; an installed wheel into the user's, starting from the packaged one.
DEFAULT_LOCK = PACKAGED_LOCK if CONFIG.is_symlink() else _user_lock()


def lock_seed(path) -> Path | None:
    """The lock a missing ``path`` starts from: the packaged one, for the user's lock."""
    return PACKAGED_LOCK if Path(path) == DEFAULT_LOCK != PACKAGED_LOCK else None
GRAPH_FORMATS = ("dimacs", "snap", "mtx", "pace")
TERRAIN_FORMATS = ("grass_ascii", "esri_ascii", "geotiff", "npy", "npz")


@dataclass(frozen=True)
class Dataset:
    key: str
    name: str
    title: str
    documents: dict
    source: str  # download | embedded | unpublished (same_as is resolved away)
    format: str
    url: str | None = None
    mirrors: tuple = ()
    file: str | None = None
    size: int | None = None
    sha256: str | None = None
    sha256_source: str | None = None
    vertices: int | None = None
    arcs: int | None = None
    rows: int | None = None
    cols: int | None = None
    snap_vertices: str = "present"
    mtx_values: str = "weights"
    weights: object = "file"
    standin: dict = field(default_factory=dict)
    package: str | None = None
    resource: str | None = None
    topology: dict | None = None  # the real arcs without weights (PACE 2016) and a weight model
    notes: str = ""
    same_as: str | None = None  # the key whose file this one is

    @property
    def is_terrain(self) -> bool:
        return self.format in TERRAIN_FORMATS

    @property
    def file_key(self) -> str:
        """The key whose file this is (downloads are shared between same_as aliases)."""
        return self.same_as or self.key

    @property
    def filename(self) -> str | None:
        if self.file:
            return self.file
        return self.url.rsplit("/", 1)[-1] if self.url else None


def _validate(raw: dict, path: Path) -> None:
    import jsonschema

    schema = load_yaml(SCHEMA)
    try:
        jsonschema.validate(raw, schema)
    except jsonschema.ValidationError as e:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        what = (f"{e.instance!r} is not {e.schema['description']}"
                if e.validator == "pattern" and e.schema.get("description") else e.message)
        raise InputError(strip_credentials(f"{path}: {where}: {what}")) from None
    _refuse_plain_http_unchecked(raw, path)


# A server on this machine is reached without a network in between: nothing to tamper on the way.
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def _refuse_plain_http_unchecked(raw: dict, path: Path) -> None:
    """Plain http lets anyone on the way swap the file; only a published sha256 (checked before
    the file is used) makes it safe. A lock's first-seen sha256 would record the swapped file."""
    for key, entry in raw["datasets"].items():
        for where, part in ((f"datasets/{key}", entry), (f"datasets/{key}/topology",
                                                          entry.get("topology") or {})):
            if part.get("sha256"):
                continue
            for url in [part.get("url") or "", *part.get("mirrors", ())]:
                host = url.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0]
                if url.startswith("http://") and host not in _LOOPBACK:
                    raise InputError(strip_credentials(
                        f"{path}: {where}: {url} is plain http and the entry has no sha256: "
                        "refused (anyone on the way could swap the file); give its sha256 or "
                        "an https URL"))


@functools.lru_cache(maxsize=4)
def load_registry(path: str | Path | None = None) -> dict[str, Dataset]:
    path = Path(path or DEFAULT_REGISTRY)
    if not path.is_file():
        raise InputError(f"{path}: no dataset registry there")
    raw = load_yaml(path)
    _validate(raw, path)
    entries = raw["datasets"]
    out = {}
    for key, entry in entries.items():
        entry = dict(entry)
        same_as = entry.pop("same_as", None)
        if same_as is not None:
            if same_as not in entries or "same_as" in entries[same_as]:
                raise InputError(f"{path}: {key}: same_as {same_as!r} must name a dataset with a file")
            own = {k: entry[k] for k in ("name", "title", "documents", "notes") if k in entry}
            entry = {**entries[same_as], **own}
        entry.setdefault("format", "npz")
        entry["mirrors"] = tuple(entry.get("mirrors", ()))
        out[key] = Dataset(key=key, same_as=same_as, **entry)
    return out


def get_dataset(key: str, registry: str | Path | None = None) -> Dataset:
    reg = load_registry(str(registry) if registry else None)
    if key not in reg:
        raise InputError(f"unknown dataset {key!r}; `python -m graphrepro datasets` lists them "
                         f"({', '.join(reg)})")
    return reg[key]
