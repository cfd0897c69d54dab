"""Readers for files handed to us (configs, registries, manifests, records, run tables) that
answer a hostile or broken file in bounded time and memory with one line naming the file and,
where it has one, the line.

- YAML: a file over ``YAML_MAX_BYTES`` is refused before it is parsed; the safe loader refuses
  more than ``YAML_MAX_ALIASES`` aliases (a "billion laughs" file is a few hundred bytes whose
  aliases expand to 10^9 nodes: every walk over it, a schema check included, takes hours), a key
  given twice in one mapping (YAML says it is an error; PyYAML silently keeps the last), and every
  tag outside YAML's own (``!!python/object``, ``!custom``): a config is data, never code.
- JSON: a file over ``JSON_MAX_BYTES`` is refused unread, and nesting deeper than
  ``JSON_MAX_DEPTH`` (no record of ours is deeper than 6) is refused, never a RecursionError.
- CSV: a file over ``CSV_MAX_BYTES`` is refused unread (a results table is kilobytes; a run
  table of every source a few megabytes), and whatever pandas cannot parse is one line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from .errors import InputError


class BadFile(InputError, ValueError):
    """A file refused by a bounded reader: one line, naming it. A ValueError too, as what the
    plain parsers raise, so a caller that falls back on a broken file falls back on this."""


YAML_MAX_BYTES = 1 << 20  # our largest config or registry is 18 KB
YAML_MAX_ALIASES = 100  # ours use none; a hand-written one a few
JSON_MAX_BYTES = 64 << 20
JSON_MAX_DEPTH = 64
CSV_MAX_BYTES = 256 << 20


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


def _size_checked(path, limit: int, what: str) -> Path:
    """``path``, after refusing it when it is over ``limit`` bytes (from its size, unread).
    A missing or unreadable file raises the OSError that reading it would."""
    path = Path(path)
    size = os.stat(path).st_size
    if size > limit:
        raise BadFile(f"{path}: {size:,} bytes, more than any {what} ({_mib(limit)}); "
                         "refused unread")
    return path


def _read_at_most(path: Path, n: int, chunk: int = 1 << 20) -> bytes:
    """Up to ``n`` bytes of ``path``, read in chunks: ``f.read(n)`` would allocate all ``n`` at
    once, 64 MiB for every small JSON record (it failed a 64 MiB memory-capped child)."""
    parts, got = [], 0
    with open(path, "rb") as f:
        while got < n and (part := f.read(min(chunk, n - got))):
            parts.append(part)
            got += len(part)
    return b"".join(parts)


def _read(path, limit: int, what: str) -> str:
    path = _size_checked(path, limit, what)
    data = _read_at_most(path, limit + 1)  # a file that grew since stat is still cut
    if len(data) > limit:
        raise BadFile(f"{path}: more than any {what} ({_mib(limit)}); refused")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadFile(f"{path}: not UTF-8 text (byte {e.start})") from None


# --- YAML -------------------------------------------------------------------------------------

class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader (YAML's own tags only), with the alias count and duplicate keys
    refused."""

    def __init__(self, stream):
        super().__init__(stream)
        self.aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > YAML_MAX_ALIASES:
                raise yaml.YAMLError(_Problem(self.peek_event().start_mark,
                                              f"more than {YAML_MAX_ALIASES} aliases (*name): "
                                              "refused (an alias bomb expands without bound)"))
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key: the base class says so
                    break
                if duplicate:
                    raise yaml.YAMLError(_Problem(key_node.start_mark,
                                                  f"key {key!r} given twice in one mapping"))
        return super().construct_mapping(node, deep=deep)


class _Problem:
    def __init__(self, mark, text: str):
        self.problem_mark, self.text = mark, text


def _yaml_line(path, e: yaml.YAMLError) -> str:
    detail = e.args[0] if e.args and isinstance(e.args[0], _Problem) else None
    mark = detail.problem_mark if detail else getattr(e, "problem_mark", None)
    where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
    if detail:
        return f"{where}: {detail.text}"
    if isinstance(e, yaml.constructor.ConstructorError) and "tag" in str(e.problem):
        tag = str(e.problem).rsplit(" ", 1)[-1].strip("'")
        return (f"{where}: the tag {tag} is refused: a config holds data only (YAML's own "
                "types), never objects or code")
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    return f"{where}: not valid YAML ({problem})"


def yaml_text(text: str, source="<text>"):
    """The data of one YAML document in ``text``, bounded as ``load_yaml``; errors name
    ``source``."""
    if len(text.encode()) > YAML_MAX_BYTES:
        raise BadFile(f"{source}: more than any config ({_mib(YAML_MAX_BYTES)}); refused")
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as e:
        raise BadFile(_yaml_line(source, e)) from None
    except RecursionError:
        raise BadFile(f"{source}: nested too deeply") from None
    finally:
        loader.dispose()


def load_yaml(path):
    """The data of the YAML file ``path`` (None for an empty file); refuses what the module's
    docstring lists, in one line naming the file and line."""
    return yaml_text(_read(path, YAML_MAX_BYTES, "config"), path)


# --- JSON -------------------------------------------------------------------------------------

def nested_too_deep(value) -> bool:
    """True for parsed JSON nested deeper than ``JSON_MAX_DEPTH``."""
    return _depth(value) > JSON_MAX_DEPTH


def _depth(value) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, depth)
            if depth > JSON_MAX_DEPTH:
                return depth
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict)
                                                  else value))
    return deepest


def json_text(text: str, source="<text>"):
    """The data of a JSON text, nested no deeper than ``JSON_MAX_DEPTH``; errors name ``source``
    and the line."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadFile(f"{source}:{e.lineno}: not valid JSON ({e.msg})") from None
    except RecursionError:  # deeper than the interpreter's stack: far past the limit
        raise BadFile(_too_deep(source)) from None
    if _depth(value) > JSON_MAX_DEPTH:
        raise BadFile(_too_deep(source))
    return value


def _too_deep(source) -> str:
    return f"{source}: nested more than {JSON_MAX_DEPTH} deep; refused"


def load_json(path, *, max_bytes: int | None = None):
    """The data of the JSON file ``path``, bounded in size and depth."""
    return json_text(_read(path, max_bytes or JSON_MAX_BYTES, "record"), path)


# --- CSV --------------------------------------------------------------------------------------

def read_csv(path, *, max_bytes: int | None = None, **kwargs):
    """``pd.read_csv(path, **kwargs)`` for a file no larger than ``max_bytes``; a file pandas
    cannot read is one line naming it."""
    import pandas as pd

    if not hasattr(path, "read"):  # an open file is one of our packaged tables
        path = _size_checked(path, max_bytes or CSV_MAX_BYTES, "table")
    try:
        return pd.read_csv(path, **kwargs)
    except pd.errors.EmptyDataError:
        raise BadFile(f"{path}: empty, not a table") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        line = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise BadFile(f"{path}: not a CSV table ({line})") from None
    except ValueError as e:  # usecols or dtype the file does not fit
        raise BadFile(f"{path}: {e}") from None


def check_size(path, max_bytes: int, what: str = "file") -> Path:
    """``path``, refused in one line when it is over ``max_bytes`` (read from its size)."""
    return _size_checked(path, max_bytes, what)


# --- archives ---------------------------------------------------------------------------------

# What a tar member may expand to, per byte of the archive: text compresses about 5 to 10 times,
# gzip at most about 1000 times (a file of one repeated byte); a sparse member declares any size
# at all (1 TiB in a few hundred bytes). Checked from each member's header, before extraction.
ARCHIVE_RATIO = 100
ARCHIVE_SLACK = 1 << 20


class ArchiveBound:
    """Refuses a tar member (``check``) once the members' declared sizes add up to more than
    ``ARCHIVE_RATIO`` times the archive's own size, before a byte of it is extracted."""

    def __init__(self, archive):
        self.archive = archive
        self.limit = ARCHIVE_RATIO * os.stat(archive).st_size + ARCHIVE_SLACK
        self.total = 0

    def check(self, member) -> None:
        self.total += max(int(member.size), 0)
        if self.total > self.limit:
            raise BadFile(f"{self.archive}: member {member.name} declares {member.size:,} bytes, "
                          f"past {ARCHIVE_RATIO} times the archive's size ({self.limit:,} bytes "
                          "in all): a sparse or compression bomb; refused before extraction")
