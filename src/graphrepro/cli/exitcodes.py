"""What `python -m graphrepro`'s exit status says: one code per kind of failure, so that a script
or CI tells a typo from a wrong answer from a machine without a GPU. ``EXIT_CODES`` is the one
table; ``--help``'s epilog prints it and the README repeats it."""

from __future__ import annotations

import zlib

from ..bounded import BadFile
from ..datasets.validate import InvalidDatasetFile
from ..errors import (DamagedFile, DeviceUnavailable, ExitCode, GraphFormatError,
                      GraphreproError, InputError, VerificationError)
from ..native import NativeBuildError

# (code, what it means, the exceptions that exit with it). An exception takes the code of the
# nearest class in its MRO that a row names, so DamagedFile, an InputError, is bad data, not usage.
EXIT_CODES = (
    (ExitCode.OK, "done", ()),
    (ExitCode.BUG, "an unexpected error (a traceback follows): a bug, please report it", ()),
    (ExitCode.USAGE, "usage: a bad flag or argument (an unknown solver, a source out of range, "
                     "a solver that cannot take this input)", (InputError,)),
    (ExitCode.UNAVAILABLE, "no CUDA device or GPU worker, a CUDA error, or a native program not "
                           "built or not buildable here", (DeviceUnavailable, NativeBuildError)),
    (ExitCode.BAD_DATA, "bad input data: a malformed, damaged or wrong input file",
     (GraphFormatError, DamagedFile, InvalidDatasetFile, BadFile, zlib.error, EOFError)),
    (ExitCode.WRONG_ANSWER, "a wrong answer: a solver's result differs from the reference",
     (VerificationError,)),
    (ExitCode.FAILED, "could not finish: a download, a file system error, out of memory, an "
                      "external program that stopped or hung", (GraphreproError, OSError,
                                                                MemoryError)),
    (ExitCode.NOT_STARTED, "not started: a time-boxed call's deadline is too near (nothing "
                           "written; the next call runs it)", ()),
    (ExitCode.READER_GONE, "what read the output stopped early (`graphrepro targets | head`): "
                           "quiet, as a command killed by SIGPIPE", ()),
    (ExitCode.INTERRUPTED, "interrupted by Ctrl-C (SIGINT); nothing half-written is left", ()),
    (ExitCode.TERMINATED, "stopped by SIGTERM (snakemake, a batch system's time limit)", ()),
)
_BY_CLASS = {cls: code for code, _, classes in EXIT_CODES for cls in classes}


def exit_code(e: BaseException) -> int:
    """The code ``e`` exits with (FAILED for an exception the table does not name)."""
    for cls in type(e).__mro__:
        if cls in _BY_CLASS:
            return int(_BY_CLASS[cls])
    return int(ExitCode.FAILED)


def epilog() -> str:
    """The table as ``--help`` prints it."""
    rows = (f"  {int(code):>3}  {meaning}" for code, meaning, _ in EXIT_CODES)
    return "exit status:\n" + "\n".join(rows)
