"""One process per GPU that runs the GPU jobs handed to it: start-up paid once, not per run file.

A timed GPU job started as its own process pays for the interpreter, numpy/numba/pandas imports,
the CUDA context, loading the compiled kernels and the graph before its first solve: seconds,
against a fraction of a second of solving on a small run. Where the workflow sets
GRAPHREPRO_WORKER=1 (the gpu-host profile, for GPU-timed runs), `python -m graphrepro run ...`
is a thin client: it takes a free device's placement lock (placement.bind_gpu, as a job in a
process of its own would), hands its arguments to that device's worker over a Unix socket (starting the worker if none answers), writes back what the worker logs
and exits with its status. Each run file is still one snakemake job with its own output, log and
provenance; only the process that does the work stays.

The worker sees its device only (CUDA_VISIBLE_DEVICES set before CUDA starts), keeps graphs it has loaded (by path, size and mtime) and the static
part of the provenance, and exits after `--idle-s` without a job, after a CUDA error (a fresh one
starts for the next job). One job at a time: its clients hold the device's lock.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from ..errors import InputError

_CONNECT_WAIT_S = 120.0  # a worker's start: imports, CUDA context (it answers once bound)


def enabled(env=None) -> bool:
    env = os.environ if env is None else env
    return env.get("GRAPHREPRO_WORKER") == "1" and env.get("GRAPHREPRO_IN_WORKER") != "1"


def _socket_path(device: str) -> Path:
    """The device's worker for this interpreter and this code: a worker started from another
    checkout, or before the code was edited, is never handed a job (the lock directory is the
    host's, shared by every working directory)."""
    import hashlib

    from ..placement import lock_dir

    package = Path(__file__).resolve().parents[1]
    newest = max((p.stat().st_mtime_ns for p in package.rglob("*.py")), default=0)
    tag = hashlib.blake2b(repr((sys.executable, str(package), newest)).encode(),
                          digest_size=6).hexdigest()
    root = lock_dir()
    root.mkdir(parents=True, exist_ok=True)
    return root / f"worker-{device}-{tag}.sock"


def _connect(device: str, sock_path: Path) -> socket.socket:
    """The device's worker, started here if none answers."""
    def attempt():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(str(sock_path))
            return s
        except OSError:
            s.close()
            return None

    s = attempt()
    if s is not None:
        return s
    env = {**os.environ, "GRAPHREPRO_IN_WORKER": "1"}
    env.pop("GRAPHREPRO_PIN", None)
    log = open(sock_path.with_suffix(".log"), "ab")
    subprocess.Popen([sys.executable, "-m", "graphrepro", "worker", "--device", device,
                      "--socket", str(sock_path)], env=env, stdin=subprocess.DEVNULL,
                     stdout=log, stderr=log, start_new_session=True, close_fds=True)
    log.close()
    deadline = time.monotonic() + _CONNECT_WAIT_S
    while time.monotonic() < deadline:
        s = attempt()
        if s is not None:
            return s
        time.sleep(0.05)
    raise InputError(f"the worker for GPU {device} did not start in {_CONNECT_WAIT_S:.0f} s "
                     f"(its log: {sock_path.with_suffix('.log')})")


def submit(argv: list[str]) -> int:
    """Run `python -m graphrepro ARGV` in a GPU worker; its log lines to stderr; its status."""
    from ..harness.provenance import process_age_s

    from ..placement import bind_gpu, candidate_devices

    # the device's lock, held by this client while its job runs in the worker: no other job,
    # worker or not, times on that GPU meanwhile (one device: snakemake's gpu=1 keeps them apart)
    device = bind_gpu() or (candidate_devices() or ["0"])[0]
    sock_path = _socket_path(device)
    s = _connect(device, sock_path)
    startup = process_age_s()  # with the wait for the worker to start (the first job pays it)
    with s, s.makefile("rwb") as stream:
        request = {"argv": argv, "cwd": os.getcwd(), "client_startup_s": startup,
                   "client_pid": os.getpid()}
        stream.write(json.dumps(request).encode() + b"\n")
        stream.flush()
        for line in stream:
            msg = json.loads(line)
            if "log" in msg:
                sys.stderr.write(msg["log"])
                sys.stderr.flush()
            elif "rc" in msg:
                return int(msg["rc"])
    print(f"error: the worker for GPU {device} ended before the job did (its log: "
          f"{sock_path.with_suffix('.log')})", file=sys.stderr)
    return 3


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

    placement.narrow_to(args.device)  # this GPU only (each client holds its lock)
    os.environ["GRAPHREPRO_IN_WORKER"] = "1"
    from ..gpu import cuda_available

    cuda_available()  # the context now, not in the first job
    path = Path(args.socket)
    path.unlink(missing_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)
    server.settimeout(args.idle_s)
    main = args.main  # the command line's main(), handed over by it (no import cycle)
    pid_file = path.with_suffix(".pid")  # who to stop where a caller wants its workers gone now
    pid_file.write_text(f"{os.getpid()}\n")
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
            if rc == 3:  # a CUDA error may leave the context unusable: a fresh worker next
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
