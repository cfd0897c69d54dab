"""Every output written whole or not at all, and never through someone else's file.

A writer gets a temporary path of its own in the target's folder: created new with a unique
name (``mkstemp``: O_EXCL, so a planted file or link of that name is never opened, and two
writers of one output never share one), then renamed over the target in one step once the
write has succeeded and is on the disk (fsync: without it a crash soon after the rename can
leave the new name holding part of the write, or nothing, in place of the old file). On any
failure, Ctrl-C included, the temporary is removed and the error names the target. Two writers
of one output each write a whole file; the last rename wins.

A pipe or character device (``--output /dev/stdout``) has no folder to rename in and must not be
replaced by a regular file: it is written straight, and so is a link to one of the process's own
open files (``/dev/stdout`` -> ``/proc/self/fd/1`` with stdout redirected to a file: replacing it
would replace the link, the machine's own ``/dev/stdout`` when run as root). Anything else that
exists and is not a regular file (a directory, a socket) is refused.

A file written in place, not renamed (a download's ``.part``, resumed; a lock file; a journal
appended to), is opened with ``open_nofollow``: a symbolic link planted at its name is refused
with one line, and the file it points to is neither written nor truncated.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .credentials import strip_credentials
from .errors import InputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once, at import: asking again per write would set umask 0 for a moment, process-wide,
# while other threads (parallel downloads) may be creating files.
_UMASK = _umask()


# A process's own open files: /dev/stdout is a link to /proc/self/fd/1, which names whatever fd 1
# is (a pipe, a terminal, or a regular file when stdout is redirected to one).
_OWN_FD = re.compile(r"/proc/(?:self|thread-self|\d+)/fd/\d+|/dev/fd/\d+|/dev/std(?:in|out|err)")


def _names_an_open_file(path: Path) -> bool:
    """True when ``path``, or a link on the way from it, is one of the process's open files:
    replacing it would replace the link (``/dev/stdout`` itself, run as root), not write to it."""
    here = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links followed
        if _OWN_FD.fullmatch(os.path.normpath(here)):
            return True
        if not os.path.islink(here):
            return False
        here = os.path.join(os.path.dirname(here), os.readlink(here))
    return False


def _streamed(path: Path) -> bool:
    """True for an existing pipe or character device (followed through links), or a link to one
    of the process's open files (``/dev/stdout`` with stdout redirected to a file); raises for an
    existing target that is neither such a stream nor a regular file."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return True
    if stat.S_ISREG(mode) and _names_an_open_file(path):
        return True  # written through, as the shell's `> file` would be
    if stat.S_ISREG(mode):
        return False
    kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
    raise InputError(f"{path} is {kind}; name a file")


@contextmanager
def replacing(path) -> Iterator[Path]:
    """``with replacing(out) as tmp: write(tmp)``: ``out`` holds the whole of what was written to
    ``tmp``, or is left as it was. ``tmp`` keeps ``out``'s suffix (numpy and matplotlib pick
    the format from it) and holds ``.part`` in its name."""
    path = Path(path)
    if _streamed(path):
        yield path
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f"{path.stem}.", suffix=f".part{path.suffix}",
                                dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # as an ordinary new file; mkstemp makes it private
        yield tmp
        _on_disk(tmp)  # else a crash soon after the rename can leave the new name half-written
        os.replace(tmp, path)
        _on_disk(path.parent)  # the rename itself
    except BaseException as e:
        with _signals_held():  # a second Ctrl-C must not skip the clean-up
            try:
                tmp.unlink()
            except OSError:
                pass
        if isinstance(e, OSError) and not e.filename:  # "No space left on device": say where
            raise OSError(e.errno, e.strerror or str(e), str(path)) from e
        raise


def _on_disk(path: Path) -> None:
    """Wait until what is written to ``path`` (a file, or a folder's entries) is on the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:  # a folder on a file system that cannot sync one: nothing to wait for
        if not path.is_dir():
            raise
    finally:
        os.close(fd)


@contextmanager
def _signals_held():
    """SIGINT and SIGTERM wait until the block is done (they are delivered right after it)."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def write_text(path, text: str) -> Path:
    """``text`` with any URL's credentials removed (graphrepro.credentials)."""
    with replacing(path) as tmp:
        tmp.write_text(strip_credentials(text))
    return Path(path)


def write_bytes(path, data: bytes) -> Path:
    with replacing(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_csv(table, path) -> Path:
    """A pandas table, without its index, as ``csv_text`` writes it."""
    return write_text(path, csv_text(table))


def open_nofollow(path, flags: int, mode: int = 0o644) -> int:
    """``os.open`` that never follows a symbolic link at ``path`` (``O_NOFOLLOW``; add
    ``O_EXCL`` for a file that must be new): a planted link is an InputError naming it."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise InputError(f"{path} is a symbolic link: not opened, nothing written through "
                             f"it (remove the link and run again)") from None
        raise


def open_file(path, mode: str):
    """A file object on ``open_nofollow``: ``"wb"`` (created or emptied), ``"xb"`` (must be
    new), ``"r+b"`` (an existing file, not emptied), ``"ab"`` (appended to)."""
    flags = {"wb": os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "xb": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
             "r+b": os.O_RDWR, "ab": os.O_WRONLY | os.O_APPEND | os.O_CREAT}[mode]
    return os.fdopen(open_nofollow(path, flags), mode.replace("x", "w"))


def open_lock(path) -> int:
    """A lock file's descriptor (for ``fcntl.flock``): created where missing, never emptied, and
    never a link's target."""
    return open_nofollow(path, os.O_RDWR | os.O_CREAT)


# A spreadsheet runs a cell starting with one of these as a formula (or a DDE command).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# A cell led by a sign that holds only digits, signs, '.', ',', '%', 'x', spaces and brackets is a
# number or a range ("-1.5", "-233.5--232.5", "-295% (3.95x)"): no function name or command can
# be spelled with these, so it is left as the number it is.
_NUMBER_LIKE = re.compile(r"[+-][0-9.,%x() +-]*")


def _inert(cell):
    if not isinstance(cell, str):
        return cell
    if "\r" in cell:  # pandas leaves a bare CR unquoted, which ends the row in a reader
        cell = cell.replace("\r\n", "\n").replace("\r", "\n")
        if cell.startswith("\n"):
            return "'" + cell
    if not cell.startswith(_FORMULA_START):
        return cell
    if cell[0] in "+-" and _NUMBER_LIKE.fullmatch(cell):
        return cell
    try:
        float(cell)  # "-inf", "-1e-05"
        return cell
    except ValueError:
        return "'" + cell  # shown as text, never run


def csv_text(table) -> str:
    """A pandas table as CSV text, without its index, every text cell (and header) that a
    spreadsheet would run as a formula led by a quote instead; numbers are left as they are."""
    table = table.copy()
    table.columns = [_inert(c) for c in table.columns]
    for i, dtype in enumerate(table.dtypes):
        if dtype.kind == "O":  # text (numbers' columns cannot hold a formula)
            table.isetitem(i, table.iloc[:, i].map(_inert))
    return strip_credentials(table.to_csv(index=False))
