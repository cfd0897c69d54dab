"""safari2017 targets: published values beside ours, with a verdict for each claim."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import Target, target

LBR_PENDING = "not built yet (issue 5)"


def per_source(runs: pd.DataFrame) -> pd.DataFrame:
    """Median over trials for each (graph, solver, source): one number per source, as the paper
    averages one number per source over its 100 sources."""
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        return ok
    return ok.groupby(["graph", "solver", "source"], as_index=False).median(numeric_only=True)


def summarise_times(runs: pd.DataFrame) -> pd.DataFrame:
    """Median, mean and interquartile range over sources of the per-source solve time (ms)."""
    src = per_source(runs)
    if src.empty:
        return pd.DataFrame(columns=["graph", "solver", "median_ms", "mean_ms", "q25_ms", "q75_ms",
                                     "sources"])
    g = src.groupby(["graph", "solver"])["solve_ms"]
    return pd.DataFrame({"median_ms": g.median(), "mean_ms": g.mean(), "q25_ms": g.quantile(0.25),
                         "q75_ms": g.quantile(0.75), "sources": g.size()}).reset_index()


def _status(runs: pd.DataFrame, solver: str) -> str | None:
    """None when the solver ran somewhere in ``runs``, else why not."""
    mine = runs[runs["solver"] == solver]
    if mine.empty:
        return "not in this config"
    if (mine["status"] == "ok").any():
        return None
    return str(mine["status"].iloc[0])


# --- Table 2 ----------------------------------------------------------------------------------

CRITERIA = [
    ("space", "Space complexity (words)"),
    ("kernel_launches_per_iteration", "# of kernel launches (per host iteration)"),
    ("host_round_trips_per_iteration", "CPU-GPU communication (# per host iteration)"),
    ("atomic_statements", "# of atomic statements"),
    ("speedup_over_harish", "Speed up over Harish"),
]
SHORT = {"space": "space", "kernel_launches_per_iteration": "launches",
         "host_round_trips_per_iteration": "round trips", "atomic_statements": "atomics",
         "speedup_over_harish": "speedup"}
OURS = {"Harish et al. [12 13]": "harish", "Proposed Algorithm": None}


def _space_formula(row: pd.Series, vertices: int, arcs: int) -> str:
    words = row["device_bytes"] / 4
    per_vertex = (words - 2 * arcs) / vertices
    return f"{per_vertex:.2f}V+2A"


def _harish_measured(runs: pd.DataFrame, stats: dict) -> dict:
    ok = runs[(runs["solver"] == "harish") & (runs["status"] == "ok")]
    launches = (ok["kernel_launches"] - 1) / ok["iterations"]  # the one-off initialisation launch aside
    trips = ok["host_round_trips"] / ok["iterations"]
    first = ok.iloc[0]
    space = _space_formula(first, stats[first["graph"]]["vertices"], stats[first["graph"]]["arcs"])
    return {
        "space": space,
        "kernel_launches_per_iteration": _one_value(launches),
        "host_round_trips_per_iteration": _one_value(trips),
        "atomic_statements": str(int(first["static_atomic_statements"])),
        "speedup_over_harish": "-",
    }


def _one_value(series: pd.Series) -> str:
    lo, hi = float(series.min()), float(series.max())
    return f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"


def _verdict(criterion: str, published: str, ours: str) -> tuple[str, str, str]:
    """(ratio, verdict, note) for one cell of Table 2."""
    if criterion == "space":
        same = published.replace(" ", "") == ours.replace(" ", "").replace(".00V", "V")
        return ("", "holds" if same else "differs",
                "" if same else "ours keeps 64-bit distances (d, up) so sums cannot overflow, "
                                "and a byte per flag")
    if criterion == "speedup_over_harish":
        return "", "holds" if published == ours else "differs", ""
    try:
        value = float(ours)
    except ValueError:
        return "", "differs", f"varies across runs: {ours}"
    if published.startswith(">="):
        bound = float(published[2:])
        return f"{value / bound:.2f}", "holds" if value >= bound else "differs", ""
    if published.startswith("<"):
        bound = float(published[1:])
        return f"{value / bound:.2f}", "holds" if value < bound else "differs", ""
    ratio = value / float(published)
    return f"{ratio:.2f}", "holds" if np.isclose(value, float(published)) else "differs", ""


def compare_table2(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    pub = published[published["item"] == "Table 2"]
    harish_missing = _status(runs, "harish")
    ours_harish = None if harish_missing else _harish_measured(runs, stats)
    rows = []
    for method, group in pub.groupby("row", sort=False):
        solver = OURS.get(method, "n/a")
        if solver == "n/a":  # one compact row: the paper's values, for context only
            cells = dict(zip(group["column"], group["value"]))
            rows.append({"method": method, "criterion": "all five", "where": "Table 2",
                         "published": "; ".join(f"{SHORT[c]} {cells.get(c, '')}" for c, _ in CRITERIA),
                         "ours": "", "ratio": "", "verdict": "not implemented in this study",
                         "note": ""})
            continue
        for criterion, label in CRITERIA:
            cell = group[group["column"] == criterion]
            value = cell["value"].iloc[0] if len(cell) else ""
            row = {"method": method, "criterion": label, "published": value, "where": "Table 2"}
            if solver is None:
                row.update(ours=LBR_PENDING, ratio="", verdict="pending", note="")
            elif harish_missing:
                row.update(ours=harish_missing, ratio="", verdict="not run", note="")
            else:
                ours = ours_harish[criterion]
                ratio, verdict, note = _verdict(criterion, value, ours)
                row.update(ours=ours, ratio=ratio, verdict=verdict, note=note)
            rows.append(row)
    return pd.DataFrame(rows, columns=["method", "criterion", "published", "ours", "ratio",
                                       "verdict", "note", "where"])


# --- Figure 3 ---------------------------------------------------------------------------------

def compare_fig3(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    pub = published[published["item"] == "Figure 3"]

    def pub_value(graph, column):
        cell = pub[(pub["row"] == graph) & (pub["column"] == column)]
        return float(cell["value"].iloc[0]) if len(cell) else np.nan

    times = summarise_times(runs)
    rows = []
    for graph in pd.unique(runs["graph"]):  # config order
        stands_for = stats.get(graph, {}).get("stands_for") or ""
        t = times[times["graph"] == graph].set_index("solver")
        harish = t.loc["harish"] if "harish" in t.index else None
        dijkstra = t.loc["dijkstra"] if "dijkstra" in t.index else None
        harish_status = _status(runs[runs["graph"] == graph], "harish")
        rows.append({
            "graph": graph,
            "stands for": stands_for or "(synthetic, no paper counterpart)",
            "vertices": stats.get(graph, {}).get("vertices"),
            "arcs": stats.get(graph, {}).get("arcs"),
            "published Harish (s)": pub_value(stands_for, "harish_time"),
            "ours Harish median (ms)": harish["median_ms"] if harish is not None else harish_status,
            "ours Harish IQR (ms)": (f"{harish['q25_ms']:.3g}-{harish['q75_ms']:.3g}"
                                     if harish is not None else ""),
            "published LBR (s)": pub_value(stands_for, "lbr_time"),
            "ours LBR (ms)": LBR_PENDING,
            "published speedup LBR/Harish": pub_value(stands_for, "speedup_lbr_over_harish"),
            "ours Dijkstra CPU median (ms)": dijkstra["median_ms"] if dijkstra is not None else "",
            "Harish / Dijkstra time": (harish["median_ms"] / dijkstra["median_ms"]
                                       if harish is not None and dijkstra is not None else ""),
            "sources": int(harish["sources"]) if harish is not None else 0,
            "verdict": "pending: the claim is LBR's speedup over Harish; LBR is issue 5",
        })
    return pd.DataFrame(rows)


def figure_fig3(runs: pd.DataFrame, ax) -> None:
    import seaborn as sns

    src = per_source(runs)
    if src.empty:
        ax.text(0.5, 0.5, "no solver ran", ha="center", va="center", transform=ax.transAxes)
        return
    order = list(pd.unique(runs["graph"]))  # config order, not alphabetical
    sns.boxplot(data=src, x="graph", y="solve_ms", hue="solver", order=order, ax=ax, fliersize=0)
    sns.stripplot(data=src, x="graph", y="solve_ms", hue="solver", order=order, dodge=True, ax=ax,
                  size=3, palette="dark:black", legend=False)
    ax.set_yscale("log")
    ax.set_ylabel("solve time per source, ms (median of trials)")
    ax.set_xlabel("graph")
    ax.set_title("safari2017 Fig. 3 layout: time per solver (LBR pending)")


def figure_table2(runs: pd.DataFrame, ax) -> None:
    """What Table 2 charges Harish with, counted per solve: iterations, launches, round trips."""
    ok = runs[(runs["solver"] == "harish") & (runs["status"] == "ok")]
    if ok.empty:
        ax.text(0.5, 0.5, _status(runs, "harish"), ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        ax.figure.set_size_inches(5, 0.6)  # a line of text, not a blank page
        return
    import seaborn as sns

    counts = ok.melt(id_vars=["graph"], value_vars=["iterations", "kernel_launches", "host_round_trips"],
                     var_name="counter", value_name="per solve")
    sns.barplot(data=counts, x="graph", y="per solve", hue="counter", order=list(pd.unique(ok["graph"])),
                estimator="median", errorbar=("pi", 50), ax=ax)
    ax.set_yscale("log")
    ax.set_title("safari2017 Table 2, measured: Harish et al. per solve (median over sources, IQR bars)")


target(Target("safari2017_table2", "safari2017", "Table 2",
              "kernel launches, host round trips, atomic statements and space of Harish et al., "
              "measured, beside the paper's comparison table",
              solvers=("harish",), compare=compare_table2, figure=figure_table2))
target(Target("safari2017_fig3", "safari2017", "Figure 3",
              "SSSP time of Harish et al. (and LBR, once built) per road graph, beside the "
              "paper's quoted times and speedups; CPU Dijkstra for scale",
              solvers=("dijkstra", "harish"), compare=compare_fig3, figure=figure_fig3))


# --- Table 1 (issue 3: datasets) --------------------------------------------------------------

from ..datasets.origin import describe_origin  # noqa: E402

TABLE1_STATS = [("vertices", "vertices"), ("arcs", "arcs"), ("max_outdegree", "max outdegree"),
                ("std_outdegree", "std of outdegree"), ("median_outdegree", "median outdegree"),
                ("mean_outdegree", "mean outdegree")]


def _table1_value_matches(column: str, published: str, ours) -> bool:
    value = float(published)
    if column == "std_outdegree":
        return abs(round(float(ours), 2) - value) < 1e-9
    if column == "mean_outdegree":  # the caption's "average outdegree of 2"
        return round(float(ours)) == value
    return float(ours) == value


def compare_table1(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    """Table 1 regenerated from the graphs this run used, beside the published rows.

    One row per graph: the published statistics, ours, what the graph was (real file with its
    checksum, or a labelled stand-in), and a verdict. A stand-in matches the vertex and arc
    counts by construction, so its row is no test of the paper: it says so instead of "holds".
    """
    pub = published[published["item"] == "Table 1"]

    def pub_value(name, column):
        cell = pub[(pub["row"] == name) & (pub["column"] == column)]
        if not len(cell) and column == "mean_outdegree":
            cell = pub[(pub["row"] == "all graphs") & (pub["column"] == column)]
        return cell["value"].iloc[0] if len(cell) else ""

    rows = []
    for graph, st in stats.items():
        origin = st.get("origin") or {}
        name = st.get("stands_for") or ""
        row = {"graph": graph, "name in the paper": name or "(none)", "data": describe_origin(origin)}
        mismatched = []
        for column, label in TABLE1_STATS:
            value = pub_value(name, column)
            ours = st.get(column)
            row[f"published {label}"] = value
            if isinstance(ours, float):
                ours_text = f"{ours:g}" if column == "median_outdegree" else f"{ours:.2f}"
            else:
                ours_text = ours
            row[f"ours {label}"] = ours_text
            if value != "" and ours is not None and not _table1_value_matches(column, value, ours):
                mismatched.append(f"{label} {ours:.4g} vs {value}" if isinstance(ours, float)
                                  else f"{label} {ours:,} vs {int(float(value)):,}")
        if not name or not len(pub[pub["row"] == name]):
            verdict = "not in the paper's Table 1"
        elif origin.get("kind") != "real":
            verdict = "stand-in (not a test of the published row)"
        elif mismatched:
            verdict = "differs: " + "; ".join(mismatched)
        else:
            verdict = "holds"
        row["verdict"] = verdict
        rows.append(row)
    return pd.DataFrame(rows)


target(Target("safari2017_table1", "safari2017", "Table 1",
              "statistics of the seven road graphs (vertices, arcs, outdegree max / std / median), "
              "regenerated from the data this run used, beside the published table; stand-ins "
              "are marked", solvers=(), compare=compare_table1))
