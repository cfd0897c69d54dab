"""Evidence from run tables: the helpers every target's evidence function shares.

The documents average one number per source over their random sources, so a source's number
is the median over its trials and ``ours`` is the mean over sources; intervals bootstrap over
the sources. Where a run has one source, its trials are the units instead (and ``n`` says so).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..datasets.origin import describe_origin
from .rule import Across, Bootstrap, Evidence, Untestable


def run_status(runs: pd.DataFrame, variant: str) -> str | None:
    """None when the run (a run id) succeeded somewhere in ``runs``, else why not."""
    mine = runs[runs["variant" if "variant" in runs else "solver"] == variant]
    if mine.empty:
        return "not in this config"
    if (mine["status"] == "ok").any():
        return None
    return str(mine["status"].iloc[0])



def per_source(runs: pd.DataFrame, graph: str, variant: str, column: str = "solve_ms") -> pd.Series:
    """One number per source (median over its trials), indexed by source; with one source, one
    number per trial instead (indexed by trial), so the interval still has units."""
    ok = runs[(runs["graph"] == graph) & (runs["variant"] == variant) & (runs["status"] == "ok")]
    if ok.empty or column not in ok or ok[column].isna().all():
        return pd.Series(dtype=float)
    if ok["source"].nunique() == 1 and len(ok) > 1:
        return ok.set_index("trial")[column].astype(float)
    return ok.groupby("source")[column].median().astype(float)


def aligned(series) -> np.ndarray | None:
    """Per-source series side by side, as columns over the sources every one of them has
    (None when one is empty or they share no source): the paired samples a bootstrap resamples."""
    if not series or any(s.empty for s in series):
        return None
    df = pd.concat(series, axis=1, join="inner")
    return df.to_numpy() if len(df) else None


def interleaved(runs: pd.DataFrame, graph: str, variants) -> bool:
    """Whether ``variants`` were timed interleaved on ``graph``: trial t of every one of them at
    a source back to back (``harness.measure.measure_interleaved``, its rows' ``interleaved``
    column naming one group), so a drift of the machine hits them alike."""
    if "interleaved" not in runs.columns:
        return False
    mine = runs[(runs["graph"] == graph) & runs["variant"].isin(list(variants))]
    groups = set(mine["interleaved"].fillna("").astype(str))
    return len(mine) > 0 and len(groups) == 1 and "" not in groups


def trial_table(runs: pd.DataFrame, graph: str, variants, column: str = "solve_ms"):
    """Rows (source, trial), columns ``variants``: the units a bootstrap over (source, trial)
    pairs resamples (None when one variant did not run or they share no such pair)."""
    series = []
    for v in variants:
        ok = runs[(runs["graph"] == graph) & (runs["variant"] == v) & (runs["status"] == "ok")]
        if ok.empty or column not in ok:
            return None
        series.append(ok.set_index(["source", "trial"])[column].astype(float))
    df = pd.concat(series, axis=1, join="inner")
    return df.to_numpy() if len(df) else None


def pass_drift(runs: pd.DataFrame, graph: str, variants, column: str = "solve_ms") -> list[float]:
    """How far whole passes drifted: for each variant, |log| of the mean over sources of one
    trial over another's (trial t of every source is one pass; a run times its sources' trials
    in turn, so its passes are minutes apart, as two runs timed one after the other are)."""
    out = []
    for v in variants:
        ok = runs[(runs["graph"] == graph) & (runs["variant"] == v) & (runs["status"] == "ok")]
        if ok.empty or column not in ok:
            continue
        means = ok.pivot_table(index="source", columns="trial", values=column).dropna().mean()
        out += [abs(float(np.log(means.iloc[j] / means.iloc[i])))
                for i in range(len(means)) for j in range(i + 1, len(means))]
    return out


def units_of(runs: pd.DataFrame, graph: str, variant: str) -> str:
    """'5 sources x 3 trials' for one (graph, run id)."""
    ok = runs[(runs["graph"] == graph) & (runs["variant"] == variant) & (runs["status"] == "ok")]
    if ok.empty:
        return ""
    sources = ok["source"].nunique()
    trials = int(ok.groupby("source").size().median())
    return f"{sources} source{'s' * (sources != 1)} x {trials} trial{'s' * (trials != 1)}"


def unit_name(runs: pd.DataFrame, graph: str, variant: str) -> str:
    ok = runs[(runs["graph"] == graph) & (runs["variant"] == variant) & (runs["status"] == "ok")]
    return "trials (one source)" if ok["source"].nunique() == 1 else "sources"


def data_of(stats: dict, graphs) -> str:
    """What the graphs behind a claim were: real files or stand-ins, and which."""
    graphs = list(dict.fromkeys(graphs))
    parts = []
    for g in graphs:
        origin = (stats.get(g) or {}).get("origin")
        parts.append(f"{g}: {describe_origin(origin, brief=True)}")
    return "; ".join(parts)


def graph_for(stats: dict, name: str, graphs=None) -> str | None:
    """Our graph standing for the document's graph ``name`` (first match in config order)."""
    for g in graphs if graphs is not None else stats:
        if (stats.get(g) or {}).get("stands_for") == name:
            return g
    return None


def missing(runs: pd.DataFrame, graph: str | None, *variants: str) -> Untestable | None:
    """Untestable with the run's status when one of ``variants`` did not run on ``graph``."""
    if graph is None:
        return Untestable(reason="not in this config: no graph stands for the document's")
    mine = runs[runs["graph"] == graph] if len(runs) else runs
    for v in variants:
        status = run_status(mine, v) if len(mine) else "not in this config"
        if status:
            return Untestable(reason=f"{v} on {graph}: {status}")
    return None


# A run timed before graphrepro.launch: numba's own kernel launches, 154 us a Harish round on
# the H100 against 18 us on graphrepro.launch and 21 us in native CUDA C++ (launch_floor,
# reports/reference/checks/merged-default-h100/). A host loop's time then is mostly launch cost,
# which is what safari2017 and its peers argue about.
OLD_LAUNCH_PATH = "numba host launches (before graphrepro.launch)"


def launch_problem(runs: pd.DataFrame, graph: str, *variants: str) -> str | None:
    """Why the times of ``variants`` on ``graph`` cannot decide a claim about host round trips:
    one of them was timed on numba's host launch path (its provenance predates
    ``graphrepro.launch``), which costs a host loop several times more per round. None when
    every run was timed on the native-cost path, or its path is unknown (no provenance)."""
    if "launch_path" not in runs.columns:
        return None
    mine = runs[(runs["graph"] == graph) & runs["variant"].isin(variants)]
    old = sorted(set(mine.loc[mine["launch_path"] == OLD_LAUNCH_PATH, "variant"]))
    if not old:
        return None
    which = " and ".join(old) if len(old) <= 2 else f"{len(old)} runs ({', '.join(old[:2])}, ...)"
    return (f"{which} {'was' if len(old) == 1 else 'were'} timed on numba's host "
            f"launch path, several times graphrepro.launch's cost a round (the launch_floor "
            f"target measures both), which decides a comparison of host round trips: to be "
            f"rerun on graphrepro.launch")


def ratio(runs: pd.DataFrame, stats: dict, graph: str, num: str, den: str,
          column: str = "solve_ms", label: str = "ms") -> Evidence:
    """mean(num) / mean(den) over the sources both ran (a speedup of ``den`` over ``num``),
    bootstrapped over those sources in pairs."""
    gone = missing(runs, graph, num, den)
    if gone:
        return gone
    a, b = per_source(runs, graph, num, column), per_source(runs, graph, den, column)
    both = a.index.intersection(b.index)
    rows = (trial_table(runs, graph, [num, den], column)
            if column == "solve_ms" and interleaved(runs, graph, [num, den]) else None)
    if rows is not None:  # timed back to back: trial t of each at a source is the unit
        return Bootstrap(groups=[rows], statistic=_ratio_paired, units="(source, trial) pairs",
                         n=units_of(runs, graph, num), data=data_of(stats, [graph]),
                         reads=tables(graph, [num, den]), job_drift=count_drift(column),
                         detail=f"{graph}: {num} {a.mean():.4g} {label}, {den} {b.mean():.4g} "
                                f"{label}, timed interleaved")
    if len(both):  # paired by source (or by trial, for one source)
        pairs = np.column_stack([a[both], b[both]])
        stat = _ratio_paired
        groups = [pairs]
    else:  # no shared units (different sources): each side resampled on its own
        groups = [a.to_numpy(), b.to_numpy()]
        stat = _ratio_unpaired
    return Bootstrap(groups=groups, statistic=stat, units=unit_name(runs, graph, num),
                     n=units_of(runs, graph, num), data=data_of(stats, [graph]),
                     reads=tables(graph, [num, den]), job_drift=count_drift(column),
                     drift=drift_between(runs, graph, [num, den], column),
                     detail=f"{graph}: {num} {a.mean():.4g} {label}, {den} {b.mean():.4g} {label}")


def drift_between(runs: pd.DataFrame, graph: str, variants, column: str = "solve_ms") -> list:
    """The drifts a comparison of ``variants``' times on ``graph`` must allow for: none when they
    were timed interleaved, or for counts (which do not drift), or with one source (its trials
    are already the units); else the drifts seen between passes of every run on the graph
    (pass_drift): a drift is the machine's, whichever run it happened to show in."""
    if column != "solve_ms" or interleaved(runs, graph, variants):
        return []
    mine = runs[(runs["graph"] == graph) & runs["variant"].isin(list(variants))]
    if mine["source"].nunique() < 2:
        return []
    return pass_drift(runs, graph, pd.unique(runs.loc[runs["graph"] == graph, "variant"]), column)


def count_drift(column: str) -> float | None:
    """The drift between jobs of a run table's column: none to measure for a time (``*_ms``:
    the rule then wants it measured), 0 for a count (iterations, arcs relaxed), which is the
    same whichever job and machine counted it."""
    return None if column.endswith("_ms") else 0.0


def tables(graphs, variants) -> tuple:
    """The run tables a claim read (Evidence.reads): every run id of ``variants`` on each of
    ``graphs``."""
    graphs = [graphs] if isinstance(graphs, str) else list(graphs)
    return tuple((g, v) for g in graphs for v in dict.fromkeys(variants))


def _ratio_paired(groups):
    g = groups[0]
    return g[:, 0].mean() / g[:, 1].mean()


def _ratio_unpaired(groups):
    return groups[0].mean() / groups[1].mean()


def left_out(reasons: dict) -> str:
    """"left out: a, b: why; c: why else" for {graph: reason}: graphs left out for the same
    reason are named once, together ("" when none is)."""
    by_reason: dict = {}
    for g, reason in reasons.items():
        by_reason.setdefault(reason, []).append(g)
    return ("left out: " + "; ".join(f"{', '.join(gs)}: {reason}"
                                     for reason, gs in by_reason.items()) if reasons else "")


def across(parts: dict, stats: dict, what: str = "graphs", whole: int | None = None,
           quote_parts: bool = False) -> Evidence:
    """One claim over several graphs: every part judged together (see rule.Across); parts that
    could not be measured are left out and named, and if none is left, the first reason. The
    claim speaks of ``whole`` graphs (default: every part given, the left-out ones too), so a
    claim judged on fewer is shown on part of its scope only. ``quote_parts``: the reason also
    quotes each part's own numbers (its detail)."""
    ok = {g: e for g, e in parts.items() if not isinstance(e, Untestable)}
    gone = {g: e for g, e in parts.items() if isinstance(e, Untestable)}
    if not ok:
        first = next(iter(gone.values()), Untestable(reason="no graph in this config"))
        return Untestable(reason=first.reason)
    detail = left_out({g: e.reason for g, e in gone.items()})
    if quote_parts:
        detail = "; ".join(x for x in [e.detail for e in ok.values()] + [detail] if x)
    ns = sorted({e.n for e in ok.values()})
    return Across(parts=list(ok.values()), labels=list(ok), what=what, detail=detail,
                  n=f"{len(ok)} {what} x " + " / ".join(ns) if ns else "",
                  data=data_of(stats, ok), whole=max(whole or 0, len(parts)))
