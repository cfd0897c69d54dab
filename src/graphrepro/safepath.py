"""Every path that comes from outside the checkout, checked in one place before it is used.

A config, a registry, a manifest, an archive member or a command-line argument may be written by
someone who wants a file read or written elsewhere, or an argument taken for an option. So such a
path is resolved under the root it belongs to (the data folder, the results folder, the working
directory) and refused, with one line naming what it came from, when it is absolute (unless
asked for and still inside the root), climbs out with ``..``, leads out through a symbolic link,
or starts with ``-`` (a command line would read it as an option). A plain file name (a
registry's ``file:``) must be one name, never a path.

The checks are lexical first (the text), then on the real file system (links), so a path that
does not exist yet is checked as far as it exists.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path, PurePosixPath

from .errors import InputError


class UnsafePath(InputError):
    """A path from outside that would leave its root, follow a link out, or read as an option."""


def _refuse(what: str, text: str, why: str) -> UnsafePath:
    return UnsafePath(f"{what}: {text!r} {why}")


def _common(text, what: str) -> str:
    if not isinstance(text, (str, os.PathLike)):
        raise _refuse(what, str(text), "is not a path")
    text = os.fspath(text)
    if not text:
        raise _refuse(what, text, "is empty, not a path")
    if "\0" in text or "\n" in text or "\r" in text:
        raise _refuse(what, text, "holds a NUL or a line break")
    if text.startswith("-"):
        raise _refuse(what, text, "starts with '-' (it would be read as an option)")
    return text


def name(text, *, what: str) -> str:
    """A plain file name: one part, not ``.`` or ``..``, no ``/``, no leading ``-``."""
    text = _common(text, what)
    if "/" in text or "\\" in text or text in (".", ".."):
        raise _refuse(what, text, "is not a plain file name (no folders, no '..')")
    return text


def relative(text, *, what: str) -> PurePosixPath:
    """A relative path that stays where it starts: no leading ``/``, no ``..`` part, written
    the one way (``a/b``, not ``./a//b``), so that two spellings never name one file apart."""
    text = _common(text, what)
    if text.startswith("/"):
        raise _refuse(what, text, "is an absolute path; give one relative to its folder")
    parts = text.split("/")
    if ".." in parts:
        raise _refuse(what, text, "climbs out of its folder with '..'")
    if posixpath.normpath(text) != text or text == ".":
        raise _refuse(what, text, f"is not written plainly (as {posixpath.normpath(text)!r})")
    return PurePosixPath(text)


def under(root, text, *, what: str, absolute: bool = False) -> Path:
    """``text`` as ``root / text``, checked to lie inside ``root`` once links are followed. Relative
    paths are taken from ``root``; an absolute one is refused unless ``absolute`` and it lies
    inside ``root``. A link on the way that leads out of ``root`` is refused."""
    text = _common(text, what)
    real_root = Path(os.path.realpath(root))
    if text.startswith("/"):
        if not absolute:
            raise _refuse(what, text, f"is an absolute path; give one relative to {root}")
        if ".." in text.split("/"):
            raise _refuse(what, text, "climbs out of its folder with '..'")
        candidate = Path(text)
        # the lexical test first: a path written under the root as the caller knows it
        lexical = Path(os.path.abspath(root))
        if not (candidate.is_relative_to(lexical) or candidate.is_relative_to(real_root)):
            raise _refuse(what, text, f"is outside {root}")
        inside = candidate.relative_to(lexical if candidate.is_relative_to(lexical)
                                       else real_root)
    else:
        inside = Path(*relative(text.rstrip("/") or text, what=what).parts)
    real = Path(os.path.realpath(real_root / inside))
    if not real.is_relative_to(real_root):
        raise _refuse(what, text, f"leads out of {root} through a symbolic link (to {real})")
    return Path(root) / inside  # spelt from the root as the caller gave it


def within(root, path, *, what: str) -> Path:
    """``path`` (made by us from a checked root and checked names) still inside ``root`` once
    its links are followed: the last check before a write."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(real_root):
        raise _refuse(what, os.fspath(path), f"leads out of {root} (to {real})")
    return Path(path)


def argument(text, *, what: str) -> str:
    """A path handed to another program's command line: never an option. A relative path is
    given ``./`` in front (and may not climb out with ``..``), an absolute one is kept."""
    text = _common(text, what)
    if text.startswith("/"):
        return text
    if ".." in text.split("/"):
        raise _refuse(what, text, "climbs out of its folder with '..'")
    return "./" + posixpath.normpath(text)
