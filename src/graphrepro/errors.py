"""Errors a user is meant to read: each one says what went wrong and where, in one line."""

from __future__ import annotations

import enum
import lzma
import os
import struct
import tokenize
import zipfile
import zlib

# Everything np.load raises on a damaged .npy/.npz: a malformed header is parsed as a Python
# literal (SyntaxError, TokenError), and zipfile answers a flipped flag or method byte with
# NotImplementedError or RuntimeError ("encrypted"). A reader catches these and names the file.
NUMPY_LOAD_ERRORS = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error,
                     lzma.LZMAError, struct.error, RuntimeError, MemoryError, OverflowError,
                     SyntaxError, tokenize.TokenError)


class ExitCode(enum.IntEnum):
    """`python -m graphrepro`'s exit statuses; cli/exitcodes.py says which error exits with which
    (here, below everything, so that the light GPU client answers with the same numbers)."""

    OK = 0
    BUG = 1  # an unexpected error, with its traceback
    USAGE = 2  # argparse's own code for a bad flag
    UNAVAILABLE = 3
    BAD_DATA = 4
    WRONG_ANSWER = 5
    FAILED = 6
    NOT_STARTED = 75  # EX_TEMPFAIL of sysexits.h: try again later
    READER_GONE = 141  # 128 + SIGPIPE: what read our output stopped (`graphrepro targets | head`)
    INTERRUPTED = 130  # 128 + SIGINT
    TERMINATED = 143  # 128 + SIGTERM


class GraphreproError(Exception):
    """Base class: the CLI prints these as one line and exits non-zero, never a traceback."""


class GraphFormatError(GraphreproError):
    """A malformed graph file; names the file, the 1-based line and the problem."""

    def __init__(self, path, line: int | None, problem: str):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


class InputError(GraphreproError):
    """A bad argument: a source out of range, an unknown solver, a bad parameter."""


class DeviceUnavailable(GraphreproError):
    """A GPU solver was asked for on a machine without a usable CUDA device."""


class VerificationError(GraphreproError):
    """A solver's answer differs from the reference: the experiment must fail, loudly."""


class DamagedFile(InputError):
    """An intermediate file that is truncated, empty or not what its step writes."""


def interrupt_in(e: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM) that ``e`` is, or None. A signal that lands inside a jitted function
    comes back from numba's dispatcher as a SystemError whose context is the KeyboardInterrupt, so
    a handler that catches only KeyboardInterrupt misses it wherever the signal happens to land."""
    if isinstance(e, KeyboardInterrupt):
        return e
    cause = e.__context__ or e.__cause__
    if isinstance(e, SystemError) and isinstance(cause, KeyboardInterrupt):
        return cause
    return None


def damaged(path, problem: str) -> DamagedFile:
    """The error for a damaged file (raise it); marks the file out of date for snakemake."""
    try:
        os.utime(path, (0, 0))  # snakemake's mtime trigger then remakes it
    except OSError:
        pass
    return DamagedFile(f"{path}: {problem}. The file is damaged (an interrupted step?): delete it "
                       f"and run again (snakemake reruns the step that makes it)")
