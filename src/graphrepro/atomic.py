"""Every output written whole or not at all, and never through someone else's file.

A writer gets a temporary path of its own in the target's folder: created new with a unique
name (``mkstemp``: O_EXCL, so a planted file or link of that name is never opened, and two
writers of one output never share one), then renamed over the target in one step once the
write has succeeded. On any failure, Ctrl-C included, the temporary is removed and the error
names the target. Two writers of one output each write a whole file; the last rename wins.

A pipe or character device (``--output /dev/stdout``) has no folder to rename in and must not be
replaced by a regular file: it is written straight. Anything else that exists and is not a
regular file (a directory, a socket) is refused.

A file written in place, not renamed (a download's ``.part``, resumed; a lock file; a journal
appended to), is opened with ``open_nofollow``: a symbolic link planted at its name is refused
with one line, and the file it points to is neither written nor truncated.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import InputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once, at import: asking again per write would set umask 0 for a moment, process-wide,
# while other threads (parallel downloads) may be creating files.
_UMASK = _umask()


def _streamed(path: Path) -> bool:
    """True for an existing pipe or character device (followed through links); raises for an
    existing target that is neither such a stream nor a regular file."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return True
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
        os.replace(tmp, path)
    except BaseException as e:
        with _signals_held():  # a second Ctrl-C must not skip the clean-up
            try:
                tmp.unlink()
            except OSError:
                pass
        if isinstance(e, OSError) and not e.filename:  # "No space left on device": say where
            raise OSError(e.errno, e.strerror or str(e), str(path)) from e
        raise


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
    with replacing(path) as tmp:
        tmp.write_text(text)
    return Path(path)


def write_bytes(path, data: bytes) -> Path:
    with replacing(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_csv(table, path) -> Path:
    """A pandas table, without its index."""
    with replacing(path) as tmp:
        table.to_csv(tmp, index=False)
    return Path(path)


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
