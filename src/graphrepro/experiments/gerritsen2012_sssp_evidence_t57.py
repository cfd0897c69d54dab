"""gerritsen2012 Table 5.7's evidence: the three phases on the window (the thesis's middle 8192^2),
phase 1 on the CPU and GPU algorithm 2, phases 2 and 3 on the CPU under a memory cap.

The cap is a memory cgroup of the capped process's own where the host delegates one (it charges
every page the phases touch, the memory-mapped grid and G' too, as the thesis's 238 MB machine
held them), else RLIMIT_DATA (the heap and private mappings; the mapped files' pages are not
charged). The table records which (its ``cap`` column, its provenance's ``memory_cap``), and the
claims resting on phase 2's time say which cap bound (:func:`cap_check`, :func:`cap_bound`).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..claims.rule import Bootstrap, Fit, Spread, Sweep, Untestable
from .gerritsen2012_sssp_evidence import _across, _data, _missing, reads_table
from .gerritsen2012_sssp_measured import bench_table, rescaled, scaled_sample


# --- Table 5.7: the three phases on the window ----------------------------------------------------

def cap_reading(b: pd.DataFrame) -> tuple[str | None, str | None]:
    """(which cap bound phases 2 and 3 and what it charged, None), or (None, why none bound).

    A memory cgroup binds as the thesis's 238 MB machine did when the runs' peak, mapped files'
    pages included, stayed under its limit. RLIMIT_DATA, the fallback where the host delegates no
    cgroup, binds the heap and private mappings by construction (an allocation past it fails, and
    so does the run), but not the pages of the memory-mapped grid and G': the sentence says so."""
    capped = b[b["impl"] == "cpu (capped)"] if len(b) else b
    if not len(capped):
        return None, "phases 2 and 3 did not run under a cap here"
    caps = [c for c in capped.get("cap", pd.Series(dtype=str)).astype(str)
            if c not in ("", "nan", "{}")]
    if not caps:
        return None, "phases 2 and 3 recorded no memory cap"
    cap = json.loads(caps[0])
    limit = float(cap.get("limit_mib", np.nan))
    budget = float(cap.get("budget_mib", 238))
    if "cgroup" in cap:  # it charged every page touched under the cap, mapped files' too
        peaks = [json.loads(c).get("peak_mib") for c in caps]
        if all(p is not None and p <= limit for p in peaks):
            return (f"the cap that bound phases 2 and 3: a memory cgroup of {limit:g} MiB "
                    f"({cap.get('rlimit')}), charging every page they touched, the memory-mapped "
                    f"grid and G' too, as the thesis's {budget:g} MB machine did; peak "
                    f"{max(peaks):g} MiB"), None
        return None, (f"phases 2 and 3 ran in a memory cgroup of {limit:g} MiB but did not record "
                      f"a peak under it")
    if cap.get("rlimit") != "RLIMIT_DATA" or not np.isfinite(limit):
        return None, f"phases 2 and 3 recorded a memory cap of no known kind ({cap.get('rlimit')})"
    rss = pd.to_numeric(capped.get("max_rss_mib"), errors="coerce")
    held = (f"RLIMIT_DATA held their heap and private mappings to {budget:g} MB over the "
            f"start-up's {float(cap.get('baseline_mib', 0)):g} MiB ({limit:g} MiB in all)")
    # issue 51: an allocator limit binds as the thesis's machine did only where resident memory
    # stayed under it too; the mapped grid and G' it does not charge are what phase 2 reads
    if not rss.notna().any():
        return None, f"{held}, but no resident memory was recorded to check it bound" + _no_cgroup(cap)
    if rss.max() > limit:
        return None, (f"{held}, but resident memory reached {rss.min():.0f}-{rss.max():.0f} MiB "
                      f"(the memory-mapped grid and G', which it does not charge): the cap did "
                      f"not bind as the thesis's {budget:g} MB machine's did" + _no_cgroup(cap))
    return (f"the cap that bound phases 2 and 3: {held}; resident memory stayed under it "
            f"({rss.min():.0f}-{rss.max():.0f} MiB)" + _no_cgroup(cap)), None


def cap_check(b: pd.DataFrame) -> str | None:
    """None when a memory cap bound phases 2 and 3 (:func:`cap_reading`), else why not."""
    return cap_reading(b)[1]


def cap_bound(b: pd.DataFrame) -> str | None:
    """Which cap bound phases 2 and 3, and what it charged; None where none did."""
    return cap_reading(b)[0]


def memory_cap_record(table: pd.DataFrame) -> dict | None:
    """Table 5.7's provenance entry ``memory_cap``: which cap its capped runs had (a memory cgroup,
    or RLIMIT_DATA where the host delegated none, and why), what it charged, and the sentence the
    claims read; None for a table without capped runs."""
    caps = [json.loads(c) for c in map(str, table.get("cap", pd.Series(dtype=str)))
            if c.startswith("{") and c != "{}"]
    if not caps:
        return None
    kinds = sorted({c.get("rlimit", "?") for c in caps})
    bound, why_not = cap_reading(table)
    return {"kind": kinds[0] if len(kinds) == 1 else kinds,
            "budget_mib": caps[0].get("budget_mib"),
            "charges": ("every page touched, memory-mapped files too" if "cgroup" in caps[0] else
                        "the heap and private mappings, not memory-mapped files' pages"),
            "why_not_cgroup": caps[0].get("why_not_cgroup", ""),
            "bound": bound or "", "why_not_bound": why_not or ""}


def _no_cgroup(cap: dict) -> str:
    """Why the cap that charges mapped pages too (a memory cgroup, memcap.py) was not used: where
    the host refused one, no setting makes the cap bind there, and the rows say so."""
    why = str(cap.get("why_not_cgroup") or "")
    if not why:
        return ""
    denied = " (permission denied)" if "Permission denied" in why else ""
    return f"; a memory cgroup, which would charge those pages, was refused: {why.split(' (')[0]}{denied}"


def _cpu_samples(b) -> dict:
    """{M: per-block ms of each batch} of the CPU phase-1 cells timed on a sample and scaled."""
    rows = b[(b["impl"] == "cpu_dijkstra") & (b["status"] == "ok")] if len(b) else b
    out = {}
    for _, r in rows.iterrows():
        if (s := scaled_sample(r)) is not None:
            out[int(float(r["block"]))] = s
    return out


def _cells57(b) -> dict:
    """{(M, phase, impl): seconds} of the cells with a time."""
    out = {}
    for _, r in b[b["status"] == "ok"].iterrows():
        if str(r["block"]) in ("", "nan"):
            continue
        out[(int(float(r["block"])), r["phase"], r["impl"])] = float(r["seconds"])
    return out


@reads_table("table5_7", drift=True)
def evidence_table5_7(claims, runs, stats, benchmarks=None) -> dict:
    b = bench_table(benchmarks, "table5_7")
    out = {"t57.minutes": Untestable(reason="see the claim")}
    if not len(b):
        for c in claims["claim_id"]:
            out[c] = _missing(b, "Table 5.7")
        return out
    data, cells = _data(b), _cells57(b)
    window = int(b["window"].iloc[0])
    phase3 = [v for (m, phase, impl), v in cells.items() if phase == "phase 3"]
    out["t57.phase3"] = Untestable(reason="see the claim",  # shown in minutes, not judged
                                   ours=float(np.mean(phase3)) / 60 if phase3 else None)
    n = f"one run per cell on the {window}^2 window"
    scaled = b[(b["impl"] == "cpu_dijkstra") & b.get("extrapolated", pd.Series(dtype=str))
               .astype(str).str.startswith("from")] if "extrapolated" in b else b.iloc[:0]
    # the CPU phase 1 timed on centre blocks and scaled to the window (the thesis's way for
    # Table 5.4): said beside every claim resting on it
    sampled = ("the CPU phase 1 scaled to the window from centre blocks (" + ", ".join(
        f"M={int(float(r['block']))}^2 {str(r['extrapolated']).split(' (')[0]}"
        for _, r in scaled.iterrows()) + ")" if len(scaled) else "")

    def p1(m, impl):
        return cells.get((m, "phase 1", impl))

    samples = _cpu_samples(b)

    def ratio(m, num, den, what, num_m=None, den_m=None):
        """num / den; a side that is the CPU phase 1 scaled from the M = ``num_m`` (``den_m``)
        sample carries its sampling spread: a bootstrap over its batches' per-block times."""
        if num is None or den is None:
            return Untestable(reason=f"M = {m}^2: {what} did not give a time")
        detail = f"M = {m}^2: {num:.3g} s / {den:.3g} s"
        sides = [(num, samples.get(num_m)), (den, samples.get(den_m))]
        if all(s is None for _, s in sides):
            return Spread(values=[num / den], what="run", n=n, data=data, detail=detail)

        def statistic(groups):
            it = iter(groups)
            top, bottom = (v if s is None else rescaled(v, s, next(it)[:, 0]) for v, s in sides)
            return top / bottom
        return Bootstrap(groups=[s.reshape(-1, 1) for _, s in sides if s is not None],
                         statistic=statistic, units="batches of the sampled blocks", n=n,
                         data=data, detail=detail + "; the scaling's error in the interval: "
                         + ", ".join(f"M={k}^2 {len(samples[k])} batches" for k in (num_m, den_m)
                                     if samples.get(k) is not None))

    def cpu_detail(ev):
        if sampled and not isinstance(ev, Untestable):
            ev.detail = "; ".join(x for x in (ev.detail, sampled) if x)
        return ev

    out["t57.gpu_p1_faster"] = cpu_detail(_across(
        {f"M={m}^2": ratio(m, p1(m, "cpu_dijkstra"), p1(m, "gpu_alg2"), "phase 1", num_m=m)
         for m in (16, 32)}, "values of M", data, n))
    out["t57.gpu64_slower"] = cpu_detail(ratio(64, p1(64, "gpu_alg2"), p1(64, "cpu_dijkstra"),
                                               "phase 1", den_m=64))
    out["t57.cpu_m128"] = (
        ratio(128, p1(128, "cpu_dijkstra"), p1(64, "cpu_dijkstra"), "the CPU phase 1",
              num_m=128, den_m=64)
        if (128, "phase 1", "cpu_dijkstra") in cells or 128 in set(pd.to_numeric(
            b["block"], errors="coerce").dropna().astype(int)) else
        Untestable(reason="config: M = 128^2 is not among this config's Table 5.7 block sizes"))
    cpu_detail(out["t57.cpu_m128"])
    ms = [m for m in (16, 32, 64) if p1(m, "cpu_dijkstra") is not None]
    out["t57.cpu_p1_trend"] = (Fit(xs=[float(m * m) for m in ms],
                                   ys=[[p1(m, "cpu_dijkstra")] for m in ms], units="runs", n=n,
                                   data=data, detail=", ".join(f"M={m}^2 {p1(m, 'cpu_dijkstra'):.3g} s"
                                                               for m in ms))
                               if len(ms) >= 2 else Untestable(reason="fewer than two M"))
    cpu_detail(out["t57.cpu_p1_trend"])
    why = cap_check(b)
    p2 = {m: cells.get((m, "phase 2", "cpu (capped)")) for m in (16, 32, 64)}
    p23 = {m: p2[m] + cells[(m, "phase 3", "cpu (capped)")] for m in (16, 32, 64)
           if p2.get(m) is not None and (m, "phase 3", "cpu (capped)") in cells}
    totals = {m: p1(m, "cpu_dijkstra") + p23[m] for m in ms if m in p23}
    # the totals' ordering (section 5.6.2) is phase 1's, phases 2 and 3 being the same CPU runs
    # on both sides: merged into t57.gpu_p1_faster (one measurement, one verdict)
    # Phase 2's trend in M is the phase's own, judged whether or not the cap bound (here it
    # did not: it ran with more memory than the thesis's machine had); its block reads beside
    have = [m for m in (16, 32, 64) if p2.get(m) is not None]
    reads = {int(float(r["block"])): float(r["block_reads"]) for _, r in
             b[(b["phase"] == "phase 2") & (b["impl"] == "cpu (capped)")].iterrows()
             if pd.notna(r.get("block_reads"))}
    out["t57.p2_faster_m"] = (Fit(xs=[float(m * m) for m in have], ys=[[p2[m]] for m in have],
                                  units="runs", n=n, data=data, detail="; ".join(
                                      f"M={m}^2 {p2[m]:.3g} s" + (f", {reads[m]:,.0f} block reads"
                                                                  if m in reads else "")
                                      for m in have) + f"; {why or cap_bound(b)}")
                              if len(have) >= 2 else Untestable(reason="fewer than two M"))
    if why:
        dom = [p2[m] / p1(m, "gpu_alg2") for m in (16, 32)
               if p2.get(m) is not None and p1(m, "gpu_alg2")]
        out["t57.p2_dominates"] = Untestable(reason=why, ours=float(np.median(dom)) if dom else None)
        out["t57.cpu_best_m"] = Untestable(reason=why, ours=float(min(totals, key=totals.get))
                                           if totals else None)
        return out
    bound = cap_bound(b)
    out["t57.p2_dominates"] = _across(
        {f"M={m}^2": ratio(m, p2.get(m), p1(m, "gpu_alg2"), "phase 2 or the GPU phase 1")
         for m in (16, 32)}, "values of M", data, n, detail=bound)
    out["t57.cpu_best_m"] = (Sweep(params=list(totals), groups=[np.array([list(totals.values())])],
                                   units="runs", n=n, data=data,
                                   detail=", ".join(f"M={m}^2 {t:.3g} s" for m, t in totals.items())
                                   + f"; {bound}")
                             if len(totals) >= 2 else Untestable(reason="fewer than two M"))
    return out
