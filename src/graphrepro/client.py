"""The thin side of a GPU worker (cli/worker.py): `python -m graphrepro run ...` handed to the
worker of a free GPU, without loading numpy, numba or the command line.

Where the workflow sets GRAPHREPRO_WORKER=1 (the gpu-host profile, for GPU-timed runs),
`__main__` sends a `run` here before anything heavy is imported: the client takes a free device's
placement lock (placement.bind_gpu, as a job in a process of its own would, so no other job times
on that GPU meanwhile), hands its arguments to that device's worker over a Unix socket (starting
the worker if none answers), writes what the worker logs to its stderr (the rule's log) and exits
with the job's status. The interpreter's start and this module are all a job pays for itself.

Also here, for the same reason: the deadline of a time-boxed call (workflow/scripts/timeboxed.py),
which a run checks before it starts.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from .bounded import load_json
from .errors import DeviceUnavailable, ExitCode
from .placement import process_age_s

_CONNECT_WAIT_S = 120.0  # a worker's start: imports, CUDA context (it answers once bound)


def enabled(env=None) -> bool:
    env = os.environ if env is None else env
    return env.get("GRAPHREPRO_WORKER") == "1" and env.get("GRAPHREPRO_IN_WORKER") != "1"


def socket_path(device: str) -> Path:
    """The device's worker for this environment and this code: a worker started from another
    checkout or environment, or before the code was edited, is never handed a job (the lock
    directory is the host's, shared by every working directory). The environment is the
    interpreter's prefix, so `python` and `python3` of one environment share their workers."""
    import hashlib

    from .placement import lock_dir

    package = Path(__file__).resolve().parent
    newest = max((p.stat().st_mtime_ns for p in package.rglob("*.py")), default=0)
    tag = hashlib.blake2b(repr((sys.prefix, str(package), newest)).encode(),
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
    start_worker(device, sock_path)  # (one already starting keeps its place: it holds its lock)
    deadline = time.monotonic() + _CONNECT_WAIT_S
    while time.monotonic() < deadline:
        s = attempt()
        if s is not None:
            return s
        time.sleep(0.05)
    raise DeviceUnavailable(f"the worker for GPU {device} did not start in {_CONNECT_WAIT_S:.0f} s "
                     f"(its log: {sock_path.with_suffix('.log')})")


def start_worker(device: str, sock_path: Path | None = None, idle_s: float | None = None) -> None:
    """Start the device's worker in the background (it exits at once where another holds the
    worker's lock: started, or starting)."""
    sock_path = sock_path or socket_path(device)
    env = {**os.environ, "GRAPHREPRO_IN_WORKER": "1"}
    env.pop("GRAPHREPRO_PIN", None)
    idle = ["--idle-s", str(idle_s)] if idle_s else []
    with open(sock_path.with_suffix(".log"), "ab") as log:
        subprocess.Popen([sys.executable, "-m", "graphrepro", "worker", "--device", device,
                          "--socket", str(sock_path), *idle], env=env, stdin=subprocess.DEVNULL,
                         stdout=log, stderr=log, start_new_session=True, close_fds=True)


def stop_workers(devices) -> None:
    """End the workers of these devices that this environment and code started (their pid
    files): a run's last step, so no worker keeps a GPU's context after it."""
    import signal

    for device in devices:
        try:
            os.kill(int(socket_path(device).with_suffix(".pid").read_text()), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def submit(argv: list[str]) -> int:
    """Run `python -m graphrepro ARGV` in a GPU worker; its log lines to stderr; its status."""
    from .placement import bind_gpu, candidate_devices

    # the device's lock, held by this client while its job runs in the worker: no other job,
    # worker or not, times on that GPU meanwhile (one device: snakemake's gpu=1 keeps them apart)
    device = bind_gpu() or (candidate_devices() or ["0"])[0]
    sock_path = socket_path(device)
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
    return int(ExitCode.UNAVAILABLE)


RESUMABLE_MIN_S = 60.0  # start-up, compiling the steps, and some work before the deadline


def past_deadline(output: str | None, *, resumable: bool = False) -> bool:
    """Under a time-boxed call (GRAPHREPRO_DEADLINE, a Unix time, and GRAPHREPRO_ESTIMATES, the
    plan's seconds per output), a run that would end after the deadline is not started: it says
    so (the caller exits 75, writing nothing) and leaves its output to the next call.

    A ``resumable`` job journals its work and stops itself at the deadline, so however long it
    takes in all it starts wherever GRAPHREPRO_RESUMABLE_MIN_S (timeboxed's --resumable-min-s)
    are left; otherwise a job longer than one call would never start."""
    deadline = os.environ.get("GRAPHREPRO_DEADLINE")
    if not deadline or not output or os.environ.get("GRAPHREPRO_IN_WORKER") == "1":
        return False
    estimates = {}
    if os.environ.get("GRAPHREPRO_ESTIMATES"):
        try:
            estimates = load_json(Path(os.environ["GRAPHREPRO_ESTIMATES"]))
        except (OSError, ValueError):
            estimates = {}
    known = estimates.get(os.path.normpath(output))
    need = float(known if known is not None else estimates.get("default", 0.0))
    if resumable:
        least = float(os.environ.get("GRAPHREPRO_RESUMABLE_MIN_S") or RESUMABLE_MIN_S)
        need = least if known is None else min(float(known), least)
    left = float(deadline) - time.time()
    if need <= left:
        return False
    print(f"not started: {output} needs {'at least' if resumable else 'about'} {need:.0f} s and "
          f"the call ends in {max(left, 0):.0f} s (the next call runs it)", file=sys.stderr)
    return True


def deadline_stop():
    """For a resumable job under a time-boxed call (GRAPHREPRO_DEADLINE): whether ``seconds``
    more work (none by default) would end past the deadline; None outside one."""
    deadline = os.environ.get("GRAPHREPRO_DEADLINE")
    if not deadline:
        return None
    return lambda seconds=0.0: time.time() + seconds >= float(deadline)


def run_from_main(argv: list[str]) -> int | None:
    """`python -m graphrepro run ...` under GRAPHREPRO_WORKER=1: its status, or None where the
    full command line must answer (help, or no --output: it says what is wrong)."""
    if "-h" in argv or "--help" in argv:
        return None
    output = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--output"),
                  next((a.split("=", 1)[1] for a in argv if a.startswith("--output=")), None))
    if output is None:
        return None
    if past_deadline(output):
        return int(ExitCode.NOT_STARTED)  # nothing written; the next call runs it
    try:
        return submit(argv)
    except (DeviceUnavailable, RuntimeError) as e:  # no worker came up; no GPU came free
        print(f"error: {e}", file=sys.stderr)
        return int(ExitCode.UNAVAILABLE)
