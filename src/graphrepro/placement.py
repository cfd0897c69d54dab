"""One GPU per job on a host with several: each process binds itself to a free device.

Snakemake's ``--resources gpu=N`` lets N GPU jobs run at once but does not say which GPU each one
gets. Before CUDA starts, a process that sees several devices (``GRAPHREPRO_GPUS``, else a
``CUDA_VISIBLE_DEVICES`` that lists more than one, else every GPU ``nvidia-smi`` lists) takes the
first device whose lock file it can lock and narrows ``CUDA_VISIBLE_DEVICES`` to it. The lock
(``fcntl.flock``, held until the process exits, released by the kernel even if it is killed) lives
in a host-local directory, so jobs of any working directory on the host share the devices
correctly. Where SLURM allocated the job one GPU, ``CUDA_VISIBLE_DEVICES`` already names one
device and nothing is done.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import tempfile
import time
from pathlib import Path

_held: dict = {}  # the lock file kept open for the life of the process, and what it chose


def lock_dir() -> Path:
    default = Path(tempfile.gettempdir()) / f"graphrepro-gpu-locks-{os.getuid()}"
    return Path(os.environ.get("GRAPHREPRO_GPU_LOCKS") or default)


def candidate_devices(env=None) -> list[str]:
    """The devices this process may choose from, as CUDA_VISIBLE_DEVICES entries."""
    env = os.environ if env is None else env
    for key in ("GRAPHREPRO_GPUS", "CUDA_VISIBLE_DEVICES"):
        if env.get(key) is not None:
            return [d.strip() for d in env[key].split(",") if d.strip()]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return out.stdout.split() if out.returncode == 0 else []


def bind_gpu(env=None, wait_s: float | None = None, poll_s: float = 0.5) -> str | None:
    """Narrow CUDA_VISIBLE_DEVICES in ``env`` (default os.environ) to one free device; return it.

    None where there is nothing to choose (no GPU, or exactly one). Call before CUDA starts.
    Waits up to ``wait_s`` (GRAPHREPRO_GPU_WAIT, default 600 s) for a device to come free: the
    scheduler never starts more GPU jobs than devices, so a wait is only a job ending late.
    """
    env = os.environ if env is None else env
    if "device" in _held:
        return _held["device"]
    devices = candidate_devices(env)
    if len(devices) < 2:
        _held["device"] = None  # nothing to choose: asked once per process
        return None
    if wait_s is None:
        wait_s = float(env.get("GRAPHREPRO_GPU_WAIT", 600))
    root = lock_dir()
    root.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait_s
    while True:
        for device in devices:
            fd = os.open(root / f"gpu-{device}.lock", os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            _held.update(fd=fd, device=device, choices=list(devices))
            env["CUDA_VISIBLE_DEVICES"] = device
            return device
        if time.monotonic() > deadline:
            raise RuntimeError(f"no free GPU among {devices} after {wait_s:.0f} s (locks in "
                               f"{root}): more GPU jobs than devices; run with --resources gpu=N "
                               "where N is at most the number of GPUs")
        time.sleep(poll_s)


def placement_record(env=None) -> dict:
    """What a run's provenance says about its device: what it saw and what it chose."""
    env = os.environ if env is None else env
    return {"cuda_visible_devices": env.get("CUDA_VISIBLE_DEVICES"),
            "bound_from": _held.get("choices"),
            "slurm_job_id": env.get("SLURM_JOB_ID"),
            "slurm_job_gpus": env.get("SLURM_JOB_GPUS") or env.get("SLURM_STEP_GPUS")}
