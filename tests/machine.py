"""What this machine is, for tests whose expectations follow it (the same suite on a laptop, CI
and an H200): a real CUDA device or not, Boost headers or not, memory cgroups delegated or not."""

from __future__ import annotations

import functools
import os
import subprocess
import sys


@functools.cache
def real_cuda_device() -> bool:
    """Whether a process with the simulator off finds a CUDA device: what the workflow's GPU
    steps find (a test process under the simulator cannot ask numba itself)."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    done = subprocess.run([sys.executable, "-c",
                           "from numba import cuda; print(int(cuda.is_available()))"],
                          capture_output=True, text=True, env=env, timeout=120)
    return done.returncode == 0 and done.stdout.strip() == "1"


def on_device() -> bool:
    """Whether this test process runs its kernels on a real GPU (`pytest --gpu`)."""
    from graphrepro import gpu

    return not gpu.simulated() and gpu.cuda_available()


@functools.cache
def boost_missing() -> str | None:
    """Why the native baselines cannot find Boost headers here, or None where they can."""
    from graphrepro.native import NoBoostError, boost_include

    try:
        boost_include()
    except NoBoostError as e:
        return str(e)
    return None


@functools.cache
def memory_cgroup_refused() -> str | None:
    """Why a child process may not make and join a memory cgroup of its own here (cgroups not
    delegated to this user or container), or None where it may: tried, in a child, as the memory
    cap does it."""
    code = ("from graphrepro.solvers.gerritsen2012 import memcap\n"
            "memcap.leave_capped_cgroup(memcap.join_capped_cgroup(256))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ})
    if done.returncode == 0:
        return None
    return (done.stderr.strip().splitlines() or ["it failed"])[-1]
