"""The drift between jobs, measured by their anchors, as the rule's ``job_drift`` (issue 51).

Every job records how long fixed anchors took before and after its work (harness/anchors.py),
per kind of device: CPU, GPU, transfer. Where a claim's sides were timed in different jobs
(calls, host leases, cards), how far those jobs' machines ran apart is the spread of their anchors
of the kind the times were taken on: the largest anchor median over the smallest, across the
jobs and across each job's before and after. That spread, less one, is the relative drift the
rule widens the interval by (``Evidence.job_drift``), and ``drift_basis`` says which anchor moved
how far between which jobs. A claim that rests on one value in one job takes that job's own
before/after drift: its distance from the band decides it where it exceeds that drift.

Where any job behind a claim has no anchor of a kind it needs (tables from before anchors, as
run 3's, or a GPU anchor skipped for want of a device), nothing is measured here and the rule
behaves as it did: a comparison across jobs is refused, a single value is inconclusive.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .rule import Bootstrap, Evidence, Exact, Fit, Spread, Untestable

WORDS = {"cpu": "CPU", "gpu": "GPU", "transfer": "transfer"}


def add_measured_drift(evidence: Evidence, runs: pd.DataFrame,
                       benchmarks: dict | None = None) -> None:
    """Set ``job_drift`` and ``drift_basis`` from the anchors of the jobs behind each piece of
    evidence (and each part of one) that crosses jobs or rests on a single value, where the
    evidence function has not set a drift of its own and every job behind it has anchors."""
    from .origin import read_rows

    for part in getattr(evidence, "parts", ()) or ():
        add_measured_drift(part, runs, benchmarks)
    if (evidence.job_drift is not None or isinstance(evidence, (Exact, Untestable))
            or not getattr(evidence, "reads", ())):
        return
    crossing = len([j for j in dict.fromkeys(evidence.jobs) if j]) >= 2
    if not crossing and not single_value(evidence):
        return
    tables = [rows for _, rows in read_rows(evidence, runs, benchmarks)]
    if not tables:
        return
    found = anchor_drift(pd.concat(tables, ignore_index=True))
    if found is not None:
        evidence.job_drift, evidence.drift_basis = found
        evidence.drift_from_anchors = True


def single_value(evidence: Evidence) -> bool:
    """Whether the evidence is one measured value with nothing to weigh it against (as
    ``Estimate.single``), found without resampling."""
    if isinstance(evidence, Spread):
        return int(np.isfinite(np.asarray(evidence.values, dtype=float)).sum()) < 2
    if isinstance(evidence, Bootstrap):
        return all(len(g) < 2 for g in evidence.groups)
    if isinstance(evidence, Fit):
        return not evidence.counted and all(len(v) < 2 for v in evidence.ys)
    return False


def kinds_of(rows: pd.DataFrame) -> list[str]:
    """The kinds of device whose speed the rows' times move with (their ``device``)."""
    if "device" not in rows:
        return []
    return sorted({"gpu" if str(d) == "gpu" else "cpu" for d in rows["device"].dropna()})


def anchor_drift(rows: pd.DataFrame) -> tuple[float, str] | None:
    """(relative drift, what measured it) over the jobs behind ``rows``, per kind of device the
    rows were timed on, compounded where a comparison spans kinds (a GPU time over a CPU time
    moves with both); None where a row's job left no anchor of a kind it needs."""
    kinds = kinds_of(rows)
    if not kinds or "anchors" not in rows or rows["anchors"].isna().any():
        return None
    jobs: dict = {}
    for text in rows["anchors"].unique():
        items = json.loads(text) if str(text) else []
        if not items:
            return None
        jobs.update({item["job"]: item["anchors"] for item in items})
    total, words = 1.0, []
    for kind in kinds:
        moved = spread(jobs, kind)
        if moved is None:
            return None
        factor, what = moved
        total *= factor
        words.append(what)
    return total - 1.0, "; ".join(words)


def spread(jobs: dict, kind: str) -> tuple[float, str] | None:
    """(largest over smallest anchor median of ``kind``, the words saying where) across the
    jobs' before and after timings; None where a job has no such anchor."""
    readings = []
    for job, record in jobs.items():
        anchor = (record or {}).get(kind) or {}
        if "before_ms" not in anchor or "after_ms" not in anchor:
            return None
        # a one-core timing's slot core, so the words say which side-by-side slot moved
        named = job if anchor.get("slot") is None else f"{job} on slot core {anchor['slot']}"
        readings += [(float(anchor["before_ms"]), named, "before"),
                     (float(anchor["after_ms"]), named, "after")]
    low, high = min(readings), max(readings)
    if not low[0] > 0:
        return None
    factor = high[0] / low[0]
    name = WORDS[kind]
    if len(jobs) == 1:
        where = f"within job {low[1]} ({low[2]} its work {low[0]:.4g} ms, {high[2]} {high[0]:.4g})"
    else:
        where = (f"between jobs {low[1]} ({low[0]:.4g} ms) and {high[1]} ({high[0]:.4g} ms), "
                 f"{len(jobs)} jobs")
    return factor, f"{name} anchor moved {factor:.3g}x {where}"


def drift_words(evidence: Evidence) -> str:
    """The drifts the anchors measured behind a claim (its own and its parts'), for its reason;
    a drift an evidence function measured otherwise is said in the interval, as before."""
    return "; ".join(dict.fromkeys(_bases(evidence)))


def _bases(evidence: Evidence) -> list:
    own = [evidence.drift_basis] if evidence.drift_from_anchors and evidence.drift_basis else []
    return own + [b for part in getattr(evidence, "parts", ()) or () for b in _bases(part)]
