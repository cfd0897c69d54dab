"""The launch-path rule, for every document: a time a GPU host loop measured on numba's own
launches (before ``graphrepro.launch``) decides no claim.

Such a loop pays several times the native cost a round (154 us against 18 us for a Harish round
on the H100: the ``launch_floor`` target), and which claims lean on round costs is not something
each evidence function should have to know. So the rule is applied from outside them: the target's
evidence is computed a second time with every superseded host-loop time scaled by its own random
factor, and a claim whose numbers move with those times was judged from them. Counts (launches,
iterations, arcs) are never scaled: a count does not depend on what a launch cost.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .rule import Evidence, Untestable
from .runs import OLD_LAUNCH_PATH

# Times a host loop's launch cost is part of: a run table's solve time, a benchmark's step,
# batch and per-2^20 times, and an2017's solve and its overlap with the transfer. Transfers
# alone (pageable_ms, pinned_ms), uploads and downloads launch nothing.
LOOP_TIMES = ("solve_ms", "two_stream_ms", "step_ms", "batch_ms", "seconds_per_2_20")
WHY = ("timed on the superseded launch path (numba's own host launches, before "
       "graphrepro.launch, several times its cost a round), to be rerun on graphrepro.launch")


def superseded(frame: pd.DataFrame) -> pd.Series:
    """Which rows of a run or benchmark table are GPU host loops timed on the superseded path: a
    provenance record without ``launch_path`` (an unknown path, no record, is not held against a
    row), and a loop of launches: a GPU run with a host round trip or more than one launch, one
    of gerritsen2012's GPU algorithms (each a loop of launches), or an2017's solve (one launch
    and read-back per Bellman-Ford iteration)."""
    if frame is None or frame.empty or "launch_path" not in frame.columns:
        return pd.Series(False, index=getattr(frame, "index", None), dtype=bool)
    old = frame["launch_path"] == OLD_LAUNCH_PATH
    if "device" in frame.columns:  # a run table
        trips = _col(frame, "host_round_trips")
        launches = _col(frame, "kernel_launches")
        loop = (frame["device"] == "gpu") & ((trips > 0) | (launches > 1))
    elif "impl" in frame.columns:  # gerritsen2012's benchmark tables
        loop = frame["impl"].astype(str).str.startswith("gpu_alg")
    else:  # an2017's transfer benchmark: its solve is the same loop as an2017's runs
        loop = _col(frame, "iterations") > 0
    return old & loop


def _col(frame, name) -> pd.Series:
    if name not in frame.columns:
        return pd.Series(0.0, index=frame.index)
    return pd.to_numeric(frame[name], errors="coerce").fillna(0.0)


def shaken(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The table with every superseded host-loop time multiplied by its own factor (1/4 to 4,
    log-uniform, per row): a ratio of two such times moves too, as a common factor would not."""
    rows = superseded(frame)
    if not rows.any():
        return frame
    frame = frame.copy()
    rng = np.random.default_rng(seed)
    for c in (c for c in LOOP_TIMES if c in frame.columns):
        if not pd.api.types.is_float_dtype(frame[c]):
            frame[c] = frame[c].astype(object)
        for i in frame.index[rows]:
            frame.at[i, c] = _scaled(frame.at[i, c], float(np.exp(rng.uniform(-1, 1) * np.log(4))))
    return frame


def _scaled(cell, factor):
    """A time, or a JSON list of times (gerritsen2012's batch times), times ``factor``."""
    if isinstance(cell, str) and cell.lstrip().startswith("["):
        return json.dumps([v * factor for v in json.loads(cell)])
    try:
        return float(cell) * factor
    except (TypeError, ValueError):
        return cell


def any_superseded(runs: pd.DataFrame, benchmarks: dict | None) -> bool:
    frames = [runs, *(benchmarks or {}).values()]
    return any(bool(superseded(f).any()) for f in frames if isinstance(f, pd.DataFrame))


def shake_inputs(runs: pd.DataFrame, extra: dict, seed: int) -> tuple[pd.DataFrame, dict]:
    extra = dict(extra)
    if isinstance(extra.get("benchmarks"), dict):
        extra["benchmarks"] = {k: shaken(v, seed + 1 + i) if isinstance(v, pd.DataFrame) else v
                               for i, (k, v) in enumerate(extra["benchmarks"].items())}
    return shaken(runs, seed), extra


def fingerprint(evidence: Evidence, seed: int) -> tuple:
    """What a claim's judgement is made of: its estimate and, for a claim over parts, each
    part's (an Untestable has none), and the numbers its reason quotes (a best parameter that
    stays best while the times behind it move was still chosen from those times)."""
    if isinstance(evidence, Untestable):
        return ("untestable",)
    est = evidence.estimate(np.random.default_rng(seed))
    parts = tuple((str(k), e.ours, e.low, e.high)
                  for k, e in sorted((est.parts_estimates or {}).items(), key=lambda kv: str(kv[0])))
    reps = tuple(map(str, est.replicates)) if est.replicates is not None else ()
    quoted = (evidence.detail, getattr(evidence, "basis", ""))
    return (_r(est.ours), _r(est.low), _r(est.high), parts, reps, quoted)


def _r(v):
    return None if v is None or not np.isfinite(v) else float(v)


def moved(evidence: dict, again: dict, seeds: dict) -> set[str]:
    """The claim ids whose numbers differ between two evidence computations."""
    return {cid for cid, e in evidence.items()
            if cid in again and fingerprint(e, seeds[cid]) != fingerprint(again[cid], seeds[cid])}


def struck(evidence: Evidence, seed: int) -> Untestable:
    """A claim judged from a superseded time, as the ledger shows it until it is rerun: its
    value beside the published one, not judged."""
    ours = evidence.estimate(np.random.default_rng(seed)).ours
    return Untestable(reason=WHY, ours=ours if np.isfinite(ours) else None, n=evidence.n,
                      data=evidence.data, detail=evidence.detail)

