"""Errors a user is meant to read: each one says what went wrong and where, in one line."""

from __future__ import annotations


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
