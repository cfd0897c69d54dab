"""Where a number came from: machine, devices, software versions, commit, config, date."""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import os
import platform
import re
import subprocess
from importlib import metadata
from pathlib import Path

from .. import gpu
from ..errors import InputError



# the packages a reader of a timing looks for first: the page names these beside each run and
# keeps the rest of the environment folded away
STUDY_PACKAGES = ("graphrepro", "numpy", "numba", "numba-cuda", "cupy-cuda13x", "cupy-cuda12x",
                  "pandas", "scipy", "snakemake")


def canonical_name(name: str) -> str:
    """A distribution's name as PEP 503 compares them (``Typing_Extensions`` is
    ``typing-extensions``), so that a record and a lock file name a package alike."""
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def installed_packages() -> dict[str, str]:
    """Every distribution this interpreter imports from, {canonical name: version}, sorted: the
    whole environment, so that `lock-from-run` pins all of it. Read once a process (a scan of
    site-packages' metadata, about 0.1 s for 97 packages); where a name is installed twice, the
    first on sys.path is the one imported, as ``metadata.version`` says."""
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonical_name(name), dist.version)
    return dict(sorted(found.items()))


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit(cwd=None) -> str:
    """HEAD (with -dirty), or GRAPHREPRO_COMMIT where the tree was copied without its .git."""
    if os.environ.get("GRAPHREPRO_COMMIT"):
        return os.environ["GRAPHREPRO_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True,
                             text=True, timeout=10)
        commit = out.stdout.strip() if out.returncode == 0 else "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return commit + ("-dirty" if dirty and commit != "unknown" else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def config_hash(config) -> str:
    text = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def gpu_info() -> dict:
    from ..placement import placement_record

    info = {"gpu": gpu.device_name(), "driver": None, "cuda_runtime": None,
            "placement": placement_record(), "pci_bus_id": None}
    if gpu.simulated() or not gpu.cuda_available():
        return info
    try:
        from numba import cuda

        dev = cuda.get_current_device()
        info["pci_bus_id"] = f"{dev.PCI_DOMAIN_ID:04x}:{dev.PCI_BUS_ID:02x}:{dev.PCI_DEVICE_ID:02x}"
        info["devices_seen"] = len(cuda.gpus)  # one where the job was bound to its own GPU
    except Exception:  # informative only, as below
        pass
    try:
        from numba import cuda

        info["driver"] = ".".join(map(str, cuda.cudadrv.driver.driver.get_version()))
        info["cuda_runtime"] = ".".join(map(str, cuda.runtime.get_version()))
    except Exception:  # versions are informative; a failure to read them must not stop a run
        pass
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        if smi.returncode == 0 and smi.stdout.strip():
            info["driver"] = smi.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError):
        pass
    return info


LAUNCH_PATH = "graphrepro.launch"

def name_the_run(name: str | None) -> None:
    """Have every process this one starts record ``name`` (config ``run_name``) as its run's."""
    if name:
        os.environ["GRAPHREPRO_RUN_NAME"] = str(name)


_STATIC: dict = {}  # a GPU worker's machine record, read once (nvidia-smi, git, package metadata)


def provenance(config=None) -> dict:
    if os.environ.get("GRAPHREPRO_IN_WORKER") == "1":
        if not _STATIC:
            _STATIC.update(_provenance(None))
        return {**_STATIC, "date": _now(),
                "config_hash": config_hash(config) if config is not None else None}
    return _provenance(config)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _provenance(config=None) -> dict:
    return {
        "date": _now(),
        "host": platform.node(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        **gpu_info(),
        "packages": installed_packages(),
        # the list is the whole environment (older records name seven packages)
        "packages_complete": True,
        "commit": git_commit(Path(__file__).parent),
        "config_hash": config_hash(config) if config is not None else None,
        # how host loops launch kernels: a run's record without it predates this path (numba's
        # own launches, several times native a Harish round), and claims/runs.py keeps such
        # times apart
        "launch_path": LAUNCH_PATH,
        # which reference run this is (config `run_name`, set by the Snakefile for every job)
        "run_name": os.environ.get("GRAPHREPRO_RUN_NAME") or None,
        # which device call made it, with its arguments (workflow/scripts/device_call.py)
        **({"call": _call()} if os.environ.get("GRAPHREPRO_CALL") else {}),
    }


def _call() -> dict:
    text = os.environ["GRAPHREPRO_CALL"]
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"GRAPHREPRO_CALL is not a JSON record of the call ({e})") from None
    if not isinstance(record, dict):
        raise InputError("GRAPHREPRO_CALL is not a JSON record of the call (an object)")
    return record
