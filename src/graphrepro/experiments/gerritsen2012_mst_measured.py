"""gerritsen2012 chapter 3, our side: the benchmark tables' names and their reductions the
thesis's way (per block, fastest version, three phases), read alike by the chapter's targets
(``gerritsen2012_mst``) and its evidence (``gerritsen2012_mst_evidence``).

A version's table may hold a second pass of some of its shards (``pass`` 2, `merge-blocks
--repeats`): the measure of the drift between passes (``block_drift``), never a statistic of the
version. Every statistic, table and figure reads a version through ``variant_table``, its first
pass alone."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError, VerificationError
from ..harness.block_shards import passes

PARTS = ("mst", "copy_back", "dead_ends", "contraction", "other")
SWEEP = "gerritsen2012_mst_io_sweep"
PHASES = ("gerritsen2012_mst_phases_cpu", "gerritsen2012_mst_phases_gpu")
PHASES_FULL = ("gerritsen2012_mst_phases_full_cpu", "gerritsen2012_mst_phases_full_gpu")
# the whole grid's MST weight (`mst-grid-reference`): the whole-grid runs' weight check
FULL_REFERENCE = "gerritsen2012_mst_full_reference"


def bench(variant: str) -> str:
    return f"gerritsen2012_mst_{variant}"


def variant_table(benchmarks: dict | None, variant: str) -> pd.DataFrame | None:
    """A version's table, its first pass: what every statistic of it is made of."""
    df = (benchmarks or {}).get(bench(variant))
    return df if df is None else df[passes(df) == 1]


def repeat_rows(benchmarks: dict | None, variant: str) -> pd.DataFrame | None:
    """A version's shards timed again (pass 2), or None where none was."""
    df = (benchmarks or {}).get(bench(variant))
    if df is None or not (passes(df) == 2).any():
        return None
    return df[passes(df) == 2]


def block_drift(benchmarks: dict | None) -> list[float]:
    """How far passes drifted: for each version with a second pass and each shard of it timed
    again, |log| of the second pass's mean per-block total over the first pass's on the same
    blocks. Pooled over the versions given: a drift is the machine's, whichever version showed
    it, so a comparison allows for it whichever versions it compares."""
    out = []
    for name in sorted(benchmarks or {}):
        variant = name.removeprefix("gerritsen2012_mst_")
        again = repeat_rows(benchmarks, variant)
        first = variant_table(benchmarks, variant)
        if again is None or not_run_reason(first) is not None or not (again["status"] == "ok").any():
            continue
        first_totals = per_block(first)["total_ms"]
        for _, shard in again.groupby("shard") if "shard" in again else [(None, again)]:
            second = per_block(shard)["total_ms"]
            before = first_totals.reindex(second.index).dropna()
            after = second.loc[before.index]
            if len(before) and before.mean() > 0 and after.mean() > 0:
                out.append(abs(float(np.log(after.mean() / before.mean()))))
    return out


def timed_as(df: pd.DataFrame | None) -> str:
    """How a version's blocks were timed where not as the thesis did (one at a time, in one
    job): the sentence `merge-blocks` put on a sharded table's first row; '' otherwise."""
    if df is None or "timed_as" not in df:
        return ""
    said = df["timed_as"].dropna()
    return str(said.iloc[0]) if len(said) else ""


def timing_note(benchmarks: dict | None, variants) -> str:
    """The named versions' ``timed_as``, as "version and version: sentence", joined; '' where
    none was sharded (the tables then read as before)."""
    by_text: dict = {}
    for v in dict.fromkeys(variants):
        text = timed_as(variant_table(benchmarks, v)) if v else ""
        if text:
            by_text.setdefault(text, []).append(v)
    return "; ".join(f"{' and '.join(vs)}: {text}" for text, vs in by_text.items())


def not_run_reason(df: pd.DataFrame | None) -> str | None:
    """None when the variant ran, else why not."""
    if df is None:
        return "not in this config"
    if "status" not in df or not (df["status"] == "ok").any():
        return str(df["status"].iloc[0]) if len(df) and "status" in df else "no rows"
    return None


def per_block(df: pd.DataFrame) -> pd.DataFrame:
    """One row per block: the median over trials of each part and of their total (ms)."""
    ok = df[df["status"] == "ok"]
    cols = [f"{p}_ms" for p in PARTS] + ["total_ms"]
    return ok.groupby("block")[cols].median()


def stats(df: pd.DataFrame | None) -> dict | None:
    """{'Maximum', 'Minimum', 'Average'} of the per-block total, or None when not run."""
    if not_run_reason(df) is not None:
        return None
    t = per_block(df)["total_ms"]
    return {"Maximum": float(t.max()), "Minimum": float(t.min()), "Average": float(t.mean())}


def fastest_version(benchmarks: dict | None, device: str):
    """(variant, its stats) of the ``device`` ("cpu" or "gpu") version with the lowest average
    per-block time, or None when none of them ran (Table 3.7)."""
    best = None
    for name in (benchmarks or {}):
        if not name.startswith("gerritsen2012_mst_") or name in (SWEEP, *PHASES, *PHASES_FULL):
            continue
        variant = name[len("gerritsen2012_mst_"):]
        if not variant.startswith(device):
            continue
        s = stats(variant_table(benchmarks, variant))
        if s is not None and (best is None or s["Average"] < best[1]["Average"]):
            best = (variant, s)
    return best


def phase_times(benchmarks: dict | None, name: str) -> dict | None:
    """The three phases' median ms and their total, with the run's tree digest, weight, grid side,
    check and how it ran (processes, resumed phases, each call's seconds; keys starting with
    ``_``), or None when it did not run (Table 3.8)."""
    df = (benchmarks or {}).get(name)
    if not_run_reason(df) is not None:
        return None
    ok = df[df["status"] == "ok"]
    out = {f"Phase {i}": float(ok[f"phase{i}_ms"].median()) for i in (1, 2, 3)}
    out["Total"] = sum(out.values())
    out["_digest"] = str(ok["edges_digest"].iloc[0])
    out["_weight"] = int(ok["weight"].iloc[0])
    out["_side"] = int(ok["side"].iloc[0])
    out["_verified"] = str(ok["verified"].iloc[0])
    # a run resumed across time-boxed calls (mst-io --work-dir); absent: one process
    processes = pd.to_numeric(ok["processes"], errors="coerce").max() if "processes" in ok else 1
    out["_processes"] = 1 if pd.isna(processes) else int(processes)
    out["_resumed"] = [f"Phase {i}" for i in (1, 2, 3)
                       if f"phase{i}_resumed" in ok and ok[f"phase{i}_resumed"].astype(str)
                       .str.lower().eq("true").any()]
    out["_trials"] = len(ok)
    calls = ok["call_wall_s"].iloc[0] if "call_wall_s" in ok and len(ok) == 1 else ""
    out["_calls"] = "" if pd.isna(calls) else str(calls)
    return out


def check_against_reference(benchmarks: dict | None, runs: dict) -> None:
    """Check each whole-grid run of ``runs`` ({label: phase_times(...) or None}) against the
    grid's reference weight (``FULL_REFERENCE``), where there is one: a run past mst-io's own
    Kruskal check (verify_max_vertices) has only had its spanning tree checked. A differing
    weight is a wrong answer and stops the table; a matching one says so in ``_verified``."""
    ref = (benchmarks or {}).get(FULL_REFERENCE)
    if ref is None:
        return
    if len(ref) != 1 or not {"weight", "side"} <= set(ref.columns):
        raise InputError(f"{FULL_REFERENCE}: one row with the grid's side and weight expected, "
                         f"not {len(ref)} row(s) of {', '.join(map(str, ref.columns))}")
    weight, side = int(ref["weight"].iloc[0]), int(ref["side"].iloc[0])
    for label, t in runs.items():
        if not t:
            continue
        if t["_side"] != side:
            raise InputError(f"{FULL_REFERENCE} is of a {side}^2 grid, the {label} run of a "
                             f"{t['_side']}^2 one: not the same grid")
        if t["_weight"] != weight:
            raise VerificationError(f"WRONG ANSWER: the {label} run's tree on the whole {side}^2 "
                                    f"grid weighs {t['_weight']}, the grid's minimum spanning "
                                    f"tree {weight} ({FULL_REFERENCE})")
        if not t["_verified"].startswith("weight = "):
            t["_verified"] = f"weight = the whole grid's reference ({weight}), spanning tree checked"
