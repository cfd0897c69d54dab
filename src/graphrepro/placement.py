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
import re
import subprocess
import tempfile
import time
from pathlib import Path

from . import atomic
from .errors import InputError

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
    device, fd = _lock_one("gpu", devices, wait_s, poll_s,
                           "more GPU jobs than devices; run with --resources gpu=N where N is at "
                           "most the number of GPUs")
    _held.update(fd=fd, device=device, choices=list(devices))
    env["CUDA_VISIBLE_DEVICES"] = device
    return device


def _lock_one(kind: str, names: list, wait_s: float, poll_s: float, why: str):
    """(name, open file) of the first of ``names`` whose lock file (KIND-NAME.lock in lock_dir)
    no other process holds; the lock lasts as long as the file stays open (the process's life).
    Waits up to ``wait_s`` for one to come free."""
    root = lock_dir()
    root.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait_s
    while True:
        for name in names:
            fd = atomic.open_lock(root / f"{kind}-{name}.lock")  # never a planted link's target
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return name, fd
        if time.monotonic() > deadline:
            raise RuntimeError(f"no free {kind} among {', '.join(map(str, names))} after "
                               f"{wait_s:.0f} s (locks in {root}): {why}")
        time.sleep(poll_s)


def narrow_to(device: str, env=None) -> str:
    """Make ``device`` the only one this process sees, without a lock: a GPU worker's, whose
    clients each hold the device's lock (bind_gpu) while their job runs in it."""
    env = os.environ if env is None else env
    _held.update(device=device, choices=candidate_devices(env) or [device])
    env["CUDA_VISIBLE_DEVICES"] = device
    return device


def placement_record(env=None) -> dict:
    """What a run's provenance says about its device and cores: what it saw and what it chose."""
    env = os.environ if env is None else env
    return {"cuda_visible_devices": env.get("CUDA_VISIBLE_DEVICES"),
            "bound_from": _held.get("choices"),
            "slurm_job_id": env.get("SLURM_JOB_ID"),
            "slurm_job_gpus": env.get("SLURM_JOB_GPUS") or env.get("SLURM_STEP_GPUS"),
            "cpu_affinity": cpu_list_text(sorted(os.sched_getaffinity(0))),
            "pinned": _held.get("pinned"),
            "numba_num_threads": env.get("NUMBA_NUM_THREADS"),
            # one-core CPU timings that may run side by side on the slot cores (gpu-host profile)
            "cpu_slots": len(parse_cpu_list(env["GRAPHREPRO_SLOT_CPUS"]))
            if env.get("GRAPHREPRO_PIN") == "slot" and env.get("GRAPHREPRO_SLOT_CPUS") else None,
            "cpu_slots_basis": env.get("GRAPHREPRO_CPU_SLOTS_BASIS"),
            "numba_cache_dir": env.get("NUMBA_CACHE_DIR")}


# ---- cores: CPU-timed jobs on cores of their own (the gpu-host profile) -----------------------
# The workflow (common.smk, gpu-host profile) splits the host's cores in two and says so in the
# environment every job inherits: GRAPHREPRO_TIMED_CPUS for the CPU-timed baselines (one at a
# time, GRAPHREPRO_PIN=timed and NUMBA_NUM_THREADS = their number), GRAPHREPRO_UNTIMED_CPUS for
# everything else (GPU jobs' host threads, graphs, references). A GPU job's host loop or a
# reference Dijkstra then never takes a core from under a CPU timing.

def parse_cpu_list(text: str) -> list[int]:
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11] (the kernel's cpulist format)."""
    cpus = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()) or (high and int(high) < int(low)):
            raise ValueError(f"not a CPU list: {text!r} (give e.g. 0-3,8)")
        cpus.extend(range(int(low), int(high or low) + 1))
    return sorted(set(cpus))


def cpu_list_text(cpus) -> str:
    """[0, 1, 2, 3, 8] -> '0-3,8'."""
    runs, cpus = [], sorted(cpus)
    for c in cpus:
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ",".join(f"{a}-{b}" if b > a else str(a) for a, b in runs)


def split_cores(cpus, timed: int) -> tuple[list[int], list[int]]:
    """(timed cores, the rest): the last ``timed`` of ``cpus`` for CPU timings (on a two-socket
    host, cores of one socket), the rest for everything untimed; at least one core each."""
    cpus = sorted(cpus)
    if len(cpus) < 2:
        raise ValueError(f"{len(cpus)} core(s): a CPU-timed job needs cores of its own and the "
                         "other jobs at least one")
    timed = max(1, min(int(timed), len(cpus) - 1))
    return cpus[-timed:], cpus[:-timed]


# Cores a host keeps off the one-core CPU timings: each GPU worker's host thread and the thread
# that compiles its kernels while its first graph loads (harness/warm.py), and one for snakemake
# and the untimed steps (graphs, references, tables).
GPU_WORKER_CORES = 2
WORKFLOW_CORES = 1


def host_split(cpus, gpus: int, timed="auto", slots="auto"):
    """(timed cores, the rest, one-core slots, why that many) on a host of ``cpus`` and ``gpus``.

    ``slots`` auto: one slot a core of every core not reserved for the GPU workers and the
    workflow (``timed`` auto), or of the ``timed`` cores given. A number of slots with ``timed``
    auto keeps the quarter of the cores (at most 16) of one-at-a-time timings, and must fit."""
    cpus, gpus = sorted(cpus), int(gpus)
    auto_timed, auto_slots = str(timed) == "auto", str(slots) == "auto"
    reserved = GPU_WORKER_CORES * gpus + WORKFLOW_CORES
    if auto_timed:
        timed = len(cpus) - reserved if auto_slots else max(1, min(16, len(cpus) // 4))
    timed_cpus, rest = split_cores(cpus, max(1, int(timed)))
    if auto_slots:
        why = (f"{len(cpus)} cores less {GPU_WORKER_CORES} a GPU worker x {gpus} and "
               f"{WORKFLOW_CORES} for the workflow" if auto_timed
               else f"one a core of the {len(timed_cpus)} kept for CPU timings")
        return timed_cpus, rest, len(timed_cpus), why
    if int(slots) > len(timed_cpus):
        raise ValueError(f"host_cpu_slots={slots}: only {len(timed_cpus)} cores are kept for CPU "
                         "timings (host_timed_cores): at most one slot a core")
    return timed_cpus, rest, max(1, int(slots)), "host_cpu_slots"


def slot_cores(timed, slots: int) -> list[int]:
    """The cores of ``slots`` one-core CPU timings side by side: spread over the timed share
    (every len/slots-th core), so that neighbours share as little (an SMT sibling, a core
    complex's cache) as the share allows."""
    timed = sorted(timed)
    slots = max(1, min(int(slots), len(timed)))
    return [timed[i * len(timed) // slots] for i in range(slots)]


def host_resources(gpus: int, cpu_slots: int = 1) -> dict[str, int]:
    """The host's scheduling tokens: ``gpu`` (one timed GPU job per device), ``cpu_timed`` (the
    one-core CPU timings side by side, or one CPU timing on the whole timed share) and ``timing``,
    every timed job at once: each holds one token, and a native or peer build holds them all, so
    that no build overlaps a timing. ``timing`` must cover every GPU and every slot: at one token
    for the slots together, ``cpu_slots`` bought nothing (run 3's calls 14-15 timed three one-core
    shards at a time on two GPUs' host, with 16 slots)."""
    gpus, cpu_slots = int(gpus), max(1, int(cpu_slots))
    return {"gpu": gpus, "timing": gpus + cpu_slots, "cpu_timed": cpu_slots}


def export_host_split(env, gpus: int, timed, untimed, cpu_slots: int = 1,
                      slots_basis: str = "") -> None:
    """What every job of a GPU host's run inherits (the workflow's own environment): the two
    shares of the cores, the cores of the one-core CPU timings that may run side by side
    (``cpu_slots`` of them, and why that many), one numba cache for every worker and job (each
    kernel compiled once on the host, not once a worker), each GPU worker's warm-up and kernel
    compilation once (harness/warm.py; GRAPHREPRO_WARMUP=each to warm every job), and the first
    ``gpus`` devices to bind (unless GRAPHREPRO_GPUS says)."""
    env["GRAPHREPRO_TIMED_CPUS"] = cpu_list_text(timed)
    env["GRAPHREPRO_UNTIMED_CPUS"] = cpu_list_text(untimed)
    env["GRAPHREPRO_SLOT_CPUS"] = cpu_list_text(slot_cores(timed, cpu_slots))
    env["GRAPHREPRO_CPU_SLOTS_BASIS"] = slots_basis or "host_cpu_slots"
    env.setdefault("NUMBA_CACHE_DIR", str(numba_cache_dir()))
    env.setdefault("GRAPHREPRO_WARMUP", "once")
    if gpus and not env.get("GRAPHREPRO_GPUS"):
        env["GRAPHREPRO_GPUS"] = ",".join(candidate_devices(env)[:gpus])


def numba_cache_dir() -> Path:
    """The host-local numba cache the workers and jobs of a GPU host's run share (beside the
    device locks): where an installed package's own folder is not writable, numba would
    otherwise fall back to a cache per user that a scheduler's job may not see."""
    return Path(tempfile.gettempdir()) / f"graphrepro-numba-cache-{os.getuid()}"


def slot_core() -> int | None:
    """The core this process holds as a one-core timing's slot (pin_cpus), else None."""
    match = re.match(r"slot (\d+) of", str(_held.get("pinned") or ""))
    return int(match[1]) if match else None


def pin_cpus(env=None, wait_s: float = 600.0, poll_s: float = 0.2) -> list[int] | None:
    """Pin this process (and the threads it starts) to its share of the cores, where the workflow
    split them: the timed share under GRAPHREPRO_PIN=timed; one core of the slot cores, locked
    for the life of the process, under GRAPHREPRO_PIN=slot (a one-core timing beside others);
    else the untimed share. Call first thing, before numba starts its threads. None where no
    split is set."""
    env = os.environ if env is None else env
    if env.get("GRAPHREPRO_PIN") == "slot" and env.get("GRAPHREPRO_SLOT_CPUS"):
        cpu, _held["slot_fd"] = _lock_one("cpu", parse_cpu_list(env["GRAPHREPRO_SLOT_CPUS"]),
                                          wait_s, poll_s, "more one-core timings at once than "
                                          "host_cpu_slots")
        os.sched_setaffinity(0, [cpu])
        _held["pinned"] = f"slot {cpu} of {env['GRAPHREPRO_SLOT_CPUS']}"
        return [cpu]
    which = "timed" if env.get("GRAPHREPRO_PIN") == "timed" else "untimed"
    spec = env.get(f"GRAPHREPRO_{which.upper()}_CPUS")
    if not spec:
        return None
    cpus = [c for c in parse_cpu_list(spec) if c in os.sched_getaffinity(0)] or None
    if cpus:
        os.sched_setaffinity(0, cpus)
        _held["pinned"] = which
    return cpus


def last_level_caches(cpus=None) -> list[str] | None:
    """The cores sharing each last-level cache of ``cpus`` (default: this process's), as the
    kernel lists them ('0-15'): one-core timings side by side share that cache where their
    lists are one. None where sysfs does not say."""
    found = set()
    for cpu in sorted(os.sched_getaffinity(0) if cpus is None else cpus):
        levels = []
        for index in Path(f"/sys/devices/system/cpu/cpu{cpu}/cache").glob("index*"):
            try:
                kind = (index / "type").read_text().strip()
                if kind != "Instruction":
                    levels.append((int((index / "level").read_text()),
                                   (index / "shared_cpu_list").read_text().strip()))
            except (OSError, ValueError):
                continue
        if not levels:
            return None
        found.add(max(levels)[1])
    return sorted(found) or None


def process_age_s() -> float | None:
    """Seconds since this process started (the kernel's start time, so the interpreter's own
    start and imports count), or None where /proc does not say."""
    try:
        start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


# ---- the placement a workflow profile asks for, whatever --config says ------------------------
# Snakemake's command line replaces a profile's `config:` list whole, so `--config seed=1` used
# to drop the gpu-host profile's `host_gpus=auto` and with it every pin and binding, silently.
# The workflow reads the profile's own file instead (data: its `config:` entries named host_*).

def _profiles_named(argv, env) -> list[tuple[str, bool]]:
    """(profile, is it a workflow profile) for each profile on snakemake's command line (or in
    SNAKEMAKE_PROFILE), in the order snakemake applies them."""
    found, given = [], set()
    for i, arg in enumerate(argv):
        flag, eq, value = arg.partition("=")
        if flag in ("--workflow-profile", "--profile"):
            value = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            given.add(flag)
            found.append((value, flag == "--workflow-profile"))
    if "--profile" not in given and env.get("SNAKEMAKE_PROFILE"):
        found.insert(0, (env["SNAKEMAKE_PROFILE"], False))
    return [(p, wf) for p, wf in found if p and p != "none"]


_PROFILE_FILE = re.compile(r"(?:profile|config)(?:\.v(\d+)\+)?\.yaml")


def _profile_file(folder: Path) -> Path | None:
    """The file snakemake reads in a profile folder: config.yaml (or profile.yaml), or the
    config.vN+.yaml of the highest N."""
    if folder.is_file():
        return folder
    files = [(int(m[1] or 0), f) for f in (folder.iterdir() if folder.is_dir() else ())
             if (m := _PROFILE_FILE.fullmatch(f.name))]
    return max(files)[1] if files else None


def profile_host_settings(argv, roots, env=None) -> dict:
    """The host_* settings of the profiles on snakemake's command line ``argv``, each found as
    snakemake finds it (a path from the shell's directory, profiles/NAME under one of ``roots``,
    or a user's or the site's snakemake config folder), later ones winning: {} where none names
    any. A key given with --config still wins over these (the caller's)."""
    import yaml

    env = os.environ if env is None else env
    config_home = Path(env.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    settings = {}
    for name, workflow_profile in _profiles_named(argv, env):
        # snakemake found it before `-d` moved the working directory: the shell's PWD first
        bases = [Path(b) for b in (env.get("PWD"), *roots) if b]
        candidates = ([b / name for b in bases] + [b / "profiles" / name for b in bases]
                      + [config_home / "snakemake" / name, Path("/etc/xdg/snakemake") / name])
        path = next((f for c in candidates if (f := _profile_file(c)) is not None), None)
        if path is None:
            if workflow_profile:  # unread, its placement would be lost without a word
                raise InputError(f"workflow profile {name}: no config.yaml found from "
                                 f"{', '.join(map(str, bases))} (name it by an absolute path)")
            continue  # a user's global profile somewhere snakemake looks and this does not
        entries = (yaml.safe_load(path.read_text()) or {}).get("config") or []
        for entry in entries if isinstance(entries, list) else []:
            key, eq, value = str(entry).partition("=")
            if eq and key.strip().startswith("host_"):
                settings[key.strip()] = yaml.safe_load(value)
    return settings


def unplaced_refusal(devices: int) -> str:
    """Why a CPU-timed job does not start on a host of ``devices`` GPUs without the host's
    placement (a GPU-timed one binds itself to a free device: bind_gpu)."""
    return (f"refused: this host has {devices} GPUs and no placement, so a CPU timing would run "
            "unpinned, beside other jobs and seeing the GPUs; run with --workflow-profile "
            "workflow/profiles/gpu-host (or --config host_gpus=auto)")
