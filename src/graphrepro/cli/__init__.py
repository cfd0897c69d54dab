"""``python -m graphrepro``: every workflow step is one of these subcommands, so each runs by hand.

Each family of commands is a module of this package, every command's parser beside its body."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from ..credentials import strip_credentials
from ..errors import ExitCode, GraphreproError, InputError, interrupt_in
from . import experiments, graphs, native, report, runs, solve, terrain, worker
from .common import load_graph
from .exitcodes import epilog, exit_code

__all__ = ["build_parser", "load_graph", "main"]

# `--help` lists the commands a user types first, then the workflow's steps (each rule of the
# Snakefile runs one; every one also runs by hand), each group in this order.
_STUDY = (
    experiments.add_study, experiments.add_targets, experiments.add_rerun, report.add_claims, runs.add_plan,
    experiments.add_retabulate, report.add_report,
    solve.add_solve, solve.add_solvers, solve.add_mst, terrain.add_io_sssp,
    graphs.add_datasets, graphs.add_fetch, graphs.add_generate, graphs.add_convert,
    terrain.add_dem, native.add_build_native, native.add_build_peers, native.add_launch_floor,
    report.add_provenance, report.add_lock_from_run,
)
_STEPS = (
    graphs.add_dense, graphs.add_fetch_record, graphs.add_dataset_graph, graphs.add_standins,
    terrain.add_dem_standin, runs.add_sources, runs.add_run, runs.add_merge_runs,
    runs.add_calibrate, runs.add_transfers, experiments.add_compare,
    terrain.add_mst_blocks, terrain.add_mst_block_refs, terrain.add_mst_grid_reference,
    terrain.add_merge_blocks, terrain.add_mst_io, terrain.add_terrain_compare,
    terrain.add_sssp_experiment, worker.add_worker,
)
GROUPS = (("study commands", _STUDY),
          ("workflow steps (the Snakefile's rules run these; each also runs by hand)", _STEPS))


class _Listed:
    """The subcommands' action, keeping each command's one-line help for the grouped listing
    (argparse lists subcommands in one flat group); the line is also the command's own
    description, so `COMMAND --help` says it."""

    def __init__(self, sub):
        self.sub, self.helps = sub, {}

    def add_parser(self, name, **kwargs):
        self.helps[name] = kwargs.pop("help", "")
        kwargs.setdefault("description", self.helps[name])
        return self.sub.add_parser(name, **kwargs)


def _listing(title: str, helps: dict) -> str:
    import textwrap

    width = max(map(len, helps)) + 2
    lines = [f"{title}:"]
    for name, text in helps.items():
        wrapped = textwrap.wrap(text, 96 - width - 2) or [""]
        lines.append(f"  {name.ljust(width)}{wrapped[0]}")
        lines += [" " * (width + 2) + more for more in wrapped[1:]]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    p = argparse.ArgumentParser(prog="python -m graphrepro",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"graphrepro {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    listings = []
    for title, adds in GROUPS:
        listed = _Listed(sub)
        for add in adds:
            add(listed)
        listings.append(_listing(title, listed.helps))
    p.description = "\n\n".join(["Reproduce published GPU graph-algorithm results.", *listings])
    p.epilog = epilog()
    return p


def _check_outputs(args) -> None:
    """An output naming a directory is refused before any work (it would fail at the rename)."""
    for key in ("output", "figure", "json"):
        value = getattr(args, key, None)
        if isinstance(value, str) and value and Path(value).is_dir():
            raise InputError(f"--{key} {value} is a directory; name a file")


def _resumable(args) -> bool:
    if args.command == "sssp-experiment":
        from ..experiments.gerritsen2012_sssp_work import RESUMABLE

        return args.table in RESUMABLE
    return bool(getattr(args, "work_dir", None))


class _Redacting:
    """A text stream that drops the credentials of any URL written to it (an error quoting a
    URL, a download's log line): the command line never prints a password."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        return self._stream.write(strip_credentials(text))

    def __getattr__(self, name):  # flush, isatty, fileno, buffer, encoding: the stream's own
        return getattr(self._stream, name)


def main(argv=None) -> int:
    streams = sys.stdout, sys.stderr
    if not isinstance(sys.stderr, _Redacting):  # the worker calls main() once a job
        sys.stdout, sys.stderr = _Redacting(sys.stdout), _Redacting(sys.stderr)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = streams


def _main(argv) -> int:
    import zlib

    previous = _stop_on_sigterm()
    try:
        # a signal held while `python -m graphrepro` loaded (__main__) is raised here, handled
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
        if argv is None:  # a process of its own: its share of the host's cores (placement.py)
            from ..placement import pin_cpus

            pin_cpus()
        args = build_parser().parse_args(argv)
        _check_outputs(args)
        if args.command == "worker":
            args.main = main  # the worker runs each job it is handed through main()
        if args.command in ("run", "mst-blocks", "mst-io", "sssp-experiment"):
            from .. import client

            # a resumable job (mst-io --work-dir, Table 5.7) starts whenever a minimum of the
            # call is left
            if client.past_deadline(args.output, resumable=_resumable(args)):
                return int(ExitCode.NOT_STARTED)  # nothing written; the next call runs it
            # a run is handed to this GPU's worker (`__main__` does it sooner)
            if args.command == "run" and client.enabled():
                return client.submit(sys.argv[1:] if argv is None else list(argv))
        status = args.func(args)
        sys.stdout.flush()  # a reader gone shows here, not in the interpreter's flush at exit
        return status
    except BrokenPipeError as e:
        if not _stdout_reader_gone():  # a pipe of our own (a worker's socket): an error
            print(f"error: {e.strerror or e}", file=sys.stderr)
            return exit_code(e)
        # `graphrepro targets | head`: quiet, as a shell command is; what is left unwritten
        # goes nowhere, so the flush at exit does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.READER_GONE)
    except GraphreproError as e:
        print(f"error: {e}", file=sys.stderr)
        return exit_code(e)
    except OSError as e:  # permissions, a full disk, a directory where a file goes: one line
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return exit_code(e)
    except (zlib.error, EOFError) as e:
        print(f"error: corrupt or truncated compressed data ({e})", file=sys.stderr)
        return exit_code(e)
    except MemoryError as e:
        print("error: out of host memory (the graph is too large for this machine)", file=sys.stderr)
        return exit_code(e)
    except KeyboardInterrupt as e:
        return _interrupted(e)
    except Exception as e:  # a CUDA error deserves one clear line too, not a driver traceback
        if type(e).__module__.startswith(("numba.cuda", "numba_cuda")):
            print(f"error: CUDA: {e}", file=sys.stderr)
            return int(ExitCode.UNAVAILABLE)
        if (interrupt := interrupt_in(e)) is not None:
            return _interrupted(interrupt)
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _stdout_reader_gone() -> bool:
    """Whether standard output is a pipe whose reader has closed it (poll reports an error)."""
    import select

    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), 0)  # errors are reported whatever is asked
        return any(event & select.POLLERR for _, event in poll.poll(0))
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's StringIO)
        return False


class Terminated(KeyboardInterrupt):
    """SIGTERM (snakemake stopping its jobs, a batch system's time limit), unwound like Ctrl-C so
    that every writer removes its temporary on the way out."""

    signum = signal.SIGTERM


def _raise_terminated(signum, frame):
    raise Terminated()


def _stop_on_sigterm():
    if threading.current_thread() is not threading.main_thread():
        return None  # only the main thread may set handlers; a caller's thread keeps its own
    return signal.signal(signal.SIGTERM, _raise_terminated)


def _interrupted(e) -> int:
    signum = getattr(e, "signum", signal.SIGINT)
    # every output goes through graphrepro.atomic, so what was being written is gone, not cut
    print(f"interrupted ({signal.Signals(signum).name}): nothing half-written was left (each "
          "output is written whole or not at all)", file=sys.stderr)
    return 128 + signum
