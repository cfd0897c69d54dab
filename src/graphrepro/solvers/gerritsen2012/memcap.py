"""A memory cap that counts memory-mapped files: this process in a memory cgroup of its own.

gerritsen2012 ran its I/O-efficient SSSP on a machine of 238 MB, where the grid and G' on disk
were paged through that memory. RLIMIT_DATA (``sssp_io.apply_memory_cap``'s fallback) bounds the
heap and private mappings only; a cgroup's limit charges every page the process touches after it
joins, the page cache of its memory-mapped files too, and the kernel reclaims those pages under
the limit as that machine did. What is charged before the process joins (interpreter, compiled
kernels) stays with the cgroup it came from, so the limit bounds the algorithm, not the start-up.
Going over the limit with pages the kernel cannot reclaim ends the process (the OOM killer): a
run that finishes stayed within it, and the cgroup's peak usage says by how much.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")


def _own_memory_cgroup() -> tuple[Path, str] | None:
    """(this process's memory cgroup folder, "v1" or "v2"), or None where there is none."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            return ROOT / "memory" / path.lstrip("/"), "v1"
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0" and controllers == "":
            unified = ROOT if (ROOT / "cgroup.controllers").is_file() else ROOT / "unified"
            if "memory" in (unified / "cgroup.controllers").read_text().split():
                return unified / path.lstrip("/"), "v2"
    return None


_FILES = {"v1": ("memory.limit_in_bytes", "memory.max_usage_in_bytes"),
          "v2": ("memory.max", "memory.peak")}


def join_capped_cgroup(budget_mb: float) -> dict:
    """Move this process into a new memory cgroup limited to ``budget_mb``; the record says
    where and how. Raises OSError (with the reason) where this process may not make one."""
    found = _own_memory_cgroup()
    if found is None:
        raise OSError("no memory cgroup controller for this process")
    parent, version = found
    child = parent / f"graphrepro-cap-{os.getpid()}"
    limit_file, _ = _FILES[version]
    child.mkdir()
    try:
        limit = int(budget_mb * 2 ** 20)
        (child / limit_file).write_text(str(limit))
        if version == "v2" and (child / "memory.swap.max").is_file():
            (child / "memory.swap.max").write_text("0")  # paged from its files, not swapped
        (child / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        child.rmdir()
        raise
    return {"rlimit": f"cgroup {version} {limit_file}", "cgroup": str(child),
            "parent_cgroup": str(parent), "limit_mib": round(limit / 2 ** 20, 1),
            "baseline_mib": 0.0, "budget_mib": float(budget_mb)}


def leave_capped_cgroup(cap: dict) -> None:
    """Back to the cgroup this process came from; the cap's peak usage (MiB, page cache of its
    mapped files included) into ``cap``; the capped cgroup removed."""
    child = Path(cap["cgroup"])
    version = "v1" if "v1" in cap["rlimit"] else "v2"
    peak = child / _FILES[version][1]
    if peak.is_file():
        cap["peak_mib"] = round(int(peak.read_text().split()[0]) / 2 ** 20, 1)
    (Path(cap["parent_cgroup"]) / "cgroup.procs").write_text(str(os.getpid()))
    try:
        child.rmdir()  # what it still charged goes to the parent
    except OSError:
        pass
