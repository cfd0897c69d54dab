"""Table 5.1's stopped GPU algorithm 1 cells: the time of a whole I/O-block extrapolated from a
child's progress lines (``T progress part1|part2 DONE/TOTAL``, T the wall clock), and the check
of that extrapolation on a cell that finished its I/O-block."""

from __future__ import annotations

import numpy as np


def extrapolation_point(stderr: str, fraction: float = 0.0):
    """The check of ``extrapolate_alg1`` on a child that finished an I/O-block: what it would
    have said had the child been stopped once ``fraction`` of that first block's boundary
    vertices were done (by default after the first, as early as a stopped cell can be
    extrapolated), beside the block's finished time: (estimate ms, finished ms), or None
    (no progress lines, or no block finished). The claims ledger trusts extrapolations only as
    far as these pairs agree (experiments.gerritsen2012_sssp_evidence.extrapolation_check)."""
    lines = (stderr or "").splitlines()
    starts = [i for i, line in enumerate(lines) if "timing starts" in line]
    if not starts:
        return None
    start = float(lines[starts[-1]].split()[0])
    cut = None
    for i, line in enumerate(lines[starts[-1]:], starts[-1]):
        f = line.split()
        if len(f) != 4 or f[1] != "progress" or f[2] != "part2":
            continue
        done, total = (int(x) for x in f[3].split("/"))
        if cut is None and fraction * total <= done < total:
            cut = i
        if done == total:
            if cut is None:
                return None
            estimate = extrapolate_alg1("\n".join(lines[:cut + 1]), start)
            if estimate is None or not estimate[1].startswith("part 1"):
                return None
            return estimate[0], (float(f[0]) - start) * 1e3
    return None


def extrapolate_alg1(stderr: str, timing_start: float):
    """(ms per I/O-block, what it rests on) from a stopped GPU algorithm 1 child's progress lines
    (``T progress part1|part2 DONE/TOTAL``, T the wall clock), or None when it had not got far
    enough: the mean of its whole I/O-blocks, else one block's part 1 plus its part 2 scaled from
    the boundary vertices done to all of them (the thesis: "we calculated the total time by
    extrapolating the time")."""
    start, part1_end, last = timing_start, None, None
    whole: list[float] = []
    for line in stderr.splitlines():
        f = line.split()
        if len(f) != 4 or f[1] != "progress":
            continue
        t = float(f[0])
        done, total = (int(x) for x in f[3].split("/"))
        if t < timing_start:
            continue
        if f[2] == "part1" and done == total:
            part1_end = t
        elif f[2] == "part2" and part1_end is not None:
            last = (t, done, total)
            if done == total:
                whole.append((t - start) * 1e3)
                start, part1_end, last = t, None, None
    if whole:
        return float(np.mean(whole)), f"{len(whole)} whole I/O-block{'s' if len(whole) > 1 else ''}"
    if last is None:
        return None
    t, done, total = last
    ms = ((part1_end - start) + (t - part1_end) * total / done) * 1e3
    return ms, f"part 1 and {done} of {total} boundary vertices of one I/O-block"
