"""Our side of every comparison: run tables reduced the way the documents reduce theirs."""

from __future__ import annotations

import pandas as pd

from ..claims.runs import run_status  # noqa: F401  (the experiments read it here)


def per_source(runs: pd.DataFrame) -> pd.DataFrame:
    """Median over trials for each (graph, run id, source): one number per source, as the
    documents average one number per source over their random sources."""
    ok = runs[runs["status"] == "ok"]
    if "variant" not in ok:  # tables written before run ids: every run used its defaults
        ok = ok.assign(variant=ok["solver"])
    if ok.empty:
        return ok
    return ok.groupby(["graph", "solver", "variant", "source"], as_index=False).median(numeric_only=True)


def time_bars(src: pd.DataFrame, graphs, hue: str, order, title: str, ax) -> None:
    """Per-source solve times as bars per graph: the median, IQR whiskers, a log axis."""
    import seaborn as sns

    sns.barplot(data=src, x="graph", y="solve_ms", hue=hue, hue_order=order, order=list(graphs),
                estimator="median", errorbar=("pi", 50), ax=ax)
    ax.set_yscale("log")
    ax.set_ylabel("solve time per source, ms (median, IQR bars)")
    ax.set_title(title)


def summarise_times(runs: pd.DataFrame, column: str = "solve_ms") -> pd.DataFrame:
    """Median, mean and interquartile range over sources of the per-source time (ms)."""
    src = per_source(runs)
    if src.empty:
        return pd.DataFrame(columns=["graph", "variant", "median_ms", "mean_ms", "q25_ms", "q75_ms",
                                     "sources"])
    g = src.groupby(["graph", "variant"])[column]
    return pd.DataFrame({"median_ms": g.median(), "mean_ms": g.mean(), "q25_ms": g.quantile(0.25),
                         "q75_ms": g.quantile(0.75), "sources": g.size()}).reset_index()


def not_run(status) -> str:
    """A table cell for a run that did not happen: its status, said once as "not run: ..."."""
    status = str(status or "no run")
    return status if status.startswith("not run") else "not run: " + status


def median_counter(runs: pd.DataFrame, graph: str, variant: str, counter: str) -> float | None:
    """The median over sources (and trials) of a counter, or None when it was not measured."""
    ok = runs[(runs["graph"] == graph) & (runs["variant"] == variant) & (runs["status"] == "ok")]
    if ok.empty or counter not in ok or ok[counter].isna().all():
        return None
    return float(ok[counter].median())
