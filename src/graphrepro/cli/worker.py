"""One process per GPU that runs the GPU jobs handed to it: start-up paid once, not per run file.

A timed GPU job started as its own process pays for the interpreter, numpy/numba/pandas imports,
the CUDA context, loading the compiled kernels and the graph before its first solve: seconds,
against a fraction of a second of solving on a small run. Under GRAPHREPRO_WORKER=1 (the gpu-host
profile, for GPU-timed runs) `python -m graphrepro run ...` is a thin client (graphrepro/client.py)
that hands its arguments to its GPU's worker, started by the first client that finds none. Each
run file is still one snakemake job with its own output, log and provenance; only the process
that does the work stays.

The worker sees its device only (CUDA_VISIBLE_DEVICES set before CUDA starts), keeps the graphs
it has loaded (by path, size and mtime, with their digests) and the static part of the
provenance, and exits after `--idle-s` without a job, or after a CUDA error (a fresh one starts
for the next job). One job at a time: its clients hold the device's lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
from pathlib import Path

from .. import atomic
from ..errors import ExitCode


class _SocketWriter:
    """sys.stderr inside the worker while a job runs: each write goes to the job's client."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        if text:
            try:
                self.stream.write(json.dumps({"log": text}).encode() + b"\n")
                self.stream.flush()
            except OSError:
                pass  # the client went away (killed): the job still ends whole
        return len(text)

    def flush(self):
        pass


def cmd_worker(args) -> int:
    from .. import placement

    path = Path(args.socket)
    # one worker a socket: a second one started meanwhile (the run's start-up and a client
    # both finding none) leaves at once, and the clients reach the first
    guard = atomic.open_lock(path.with_suffix(".lock"))  # never a planted link's target
    try:
        fcntl.flock(guard, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0
    placement.narrow_to(args.device)  # this GPU only (each client holds its lock)
    os.environ["GRAPHREPRO_IN_WORKER"] = "1"
    from ..gpu import cuda_available

    cuda_available()  # the context now, not in the first job
    path.unlink(missing_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)
    server.settimeout(args.idle_s)
    main = args.main  # the command line's main(), handed over by it (no import cycle)
    pid_file = path.with_suffix(".pid")  # who to stop where a caller wants its workers gone now
    atomic.write_text(pid_file, f"{os.getpid()}\n")
    jobs = 0
    try:
        while True:
            try:
                conn, _ = server.accept()
            except socket.timeout:
                return 0  # idle: the run is over
            with conn, conn.makefile("rwb") as stream:
                request = json.loads(stream.readline() or b"{}")
                if not request.get("argv"):
                    continue
                rc = _serve(request, stream, main)
                jobs += 1
                try:
                    stream.write(json.dumps({"rc": rc}).encode() + b"\n")
                    stream.flush()
                except OSError:
                    pass
            if rc == ExitCode.UNAVAILABLE:  # a CUDA error may leave the context unusable: a fresh worker next
                return 0
    finally:
        server.close()
        path.unlink(missing_ok=True)
        pid_file.unlink(missing_ok=True)
        print(f"worker for GPU {args.device}: {jobs} jobs", file=sys.stderr)


def _serve(request: dict, stream, main) -> int:
    import gc

    old_err, old_cwd = sys.stderr, os.getcwd()
    sys.stderr = _SocketWriter(stream)
    os.environ["GRAPHREPRO_CLIENT_STARTUP_S"] = str(request.get("client_startup_s") or 0.0)
    try:
        os.chdir(request["cwd"])
        return main(request["argv"])
    except BaseException as e:  # anything main() let through: the job fails, the worker goes on
        import traceback

        sys.stderr.write("".join(traceback.format_exception(e)))
        return 1
    finally:
        os.environ.pop("GRAPHREPRO_CLIENT_STARTUP_S", None)
        os.chdir(old_cwd)
        sys.stderr = old_err
        gc.collect()  # the job's device arrays go now, before the next job uploads its own


def add_worker(sub) -> None:
    sp = sub.add_parser("worker", help="(started by `run` under GRAPHREPRO_WORKER=1) one "
                                       "process for one GPU that runs the GPU jobs handed to it")
    sp.add_argument("--device", required=True, help="the CUDA_VISIBLE_DEVICES entry it binds")
    sp.add_argument("--socket", required=True)
    sp.add_argument("--idle-s", type=float, default=60.0,
                    help="exit after this long without a job (default: %(default)s)")
    sp.set_defaults(func=cmd_worker)
