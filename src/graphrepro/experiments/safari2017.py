"""safari2017 targets: published values beside ours, with a verdict for each claim.

Runs are named by run id (``lbr@k=4,t=2``); ``lbr`` alone is the paper's configuration (k = 4,
two vertices per thread, N calibrated from Harish's iteration counts).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..datasets.origin import describe_origin
from . import Target, target
from .measured import median_counter, not_run, per_source, run_status, summarise_times

# Our solver for each Table 2 row we implement; the rest are shown for context.
OURS = {"Harish et al. [12 13]": "harish", "Proposed Algorithm": "lbr"}
PERSISTENT = "lbr_persistent"
PERSISTENT_ROW = "LBR as one persistent kernel (this study)"
FIG4_K = (1, 2, 3, 4, 5)
FIG4_T = (1, 2, 3, 4)
SIGNIFICANT = 0.05  # "no significant decrease": within 5% of the best time


def _stands_for(stats: dict, graph: str) -> str:
    return stats.get(graph, {}).get("stands_for") or ""


def _ms(times: pd.DataFrame, graph: str, variant: str) -> float | None:
    hit = times[(times["graph"] == graph) & (times["variant"] == variant)]
    return float(hit["median_ms"].iloc[0]) if len(hit) else None


def _range(values) -> str:
    values = [v for v in values if v is not None and np.isfinite(v)]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    return f"{lo:.3g}" if np.isclose(lo, hi) else f"{lo:.3g}-{hi:.3g}"


def _published_range(text: str) -> tuple[float, float] | None:
    """'3.36x-5.77x' -> (3.36, 5.77); '2.5x' -> (2.5, 2.5); '-' -> None."""
    parts = [p.strip().rstrip("x") for p in text.split("-") if p.strip().rstrip("x")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        return None
    return (min(values), max(values)) if values else None


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
# Counted per solve; Table 2 argues with them but prints no number.
MEASURED = [("atomics", "atomic operations executed per solve (median)"),
            ("arcs_relaxed", "arcs examined per solve (median)"),
            ("iterations", "iterations (launches or rounds) per solve (median)")]


def _space_formula(row: pd.Series, vertices: int, arcs: int) -> str:
    words = row["device_bytes"] / 4
    per_vertex = (words - 2 * arcs) / vertices
    return f"{per_vertex:.2f}V+2A"


def _one_value(series: pd.Series) -> str:
    lo, hi = float(series.min()), float(series.max())
    return f"{lo:.3g}" if np.isclose(lo, hi) else f"{lo:.3g}-{hi:.3g}"


def _speedups(runs: pd.DataFrame, variant: str) -> list[float]:
    """Per graph: Harish's median time over ``variant``'s, on the graphs where both ran."""
    times = summarise_times(runs)
    out = []
    for graph in pd.unique(runs["graph"]):
        harish, ours = _ms(times, graph, "harish"), _ms(times, graph, variant)
        if harish is not None and ours:
            out.append(harish / ours)
    return out


def _measured(runs: pd.DataFrame, stats: dict, variant: str) -> dict:
    ok = runs[(runs["variant"] == variant) & (runs["status"] == "ok")]
    first = ok.iloc[0]
    iterations = ok["iterations"].clip(lower=1)
    launches = (ok["kernel_launches"] - 1) / iterations  # the one-off initialisation aside
    if variant == PERSISTENT:
        launches = ok["kernel_launches"] / iterations  # one launch for every round
    speedup = _range(_speedups(runs, variant)) if variant != "harish" else "-"
    return {
        "space": _space_formula(first, stats[first["graph"]]["vertices"], stats[first["graph"]]["arcs"]),
        "kernel_launches_per_iteration": _one_value(launches),
        "host_round_trips_per_iteration": _one_value(ok["host_round_trips"] / iterations),
        "atomic_statements": str(int(first["atomic_statements"] if pd.notna(
            first.get("atomic_statements")) else first["static_atomic_statements"])),
        "speedup_over_harish": f"{speedup}x" if speedup not in ("", "-") else speedup,
    }


def _verdict(criterion: str, published: str, ours: str) -> tuple[str, str, str]:
    """(ratio, verdict, note) for one cell of Table 2."""
    if criterion == "space":
        same = published.replace(" ", "") == ours.replace(" ", "").replace(".00V", "V")
        return ("", "holds" if same else "differs",
                "" if same else "measured device bytes / 4, less 2A, per vertex: our distances "
                                "are 64-bit (sums cannot overflow) and flags a byte each")
    if criterion == "speedup_over_harish":
        if published == "-" or ours == "-":
            return "", "holds" if published == ours else "differs", ""
        claimed, measured = _published_range(published), _published_range(ours)
        if not claimed or not measured:
            return "", "not run", "no speedup measured in this config"
        ok = measured[0] >= claimed[0]
        return (f"{measured[0] / claimed[0]:.2f}", "holds" if ok else "differs",
                "every graph at least the paper's lowest speedup" if ok else
                "some graph below the paper's lowest speedup (Fig. 3 target says which and why)")
    measured = _published_range(ours)  # one value, or the range over sources and graphs
    if measured is None:
        return "", "differs", f"not a number: {ours}"
    lo, hi = measured
    if published.startswith(">="):  # a bound holds when every run meets it
        bound = float(published[2:])
        return f"{lo / bound:.2f}", "holds" if lo >= bound else "differs", ""
    if published.startswith("<"):
        bound = float(published[1:])
        return (f"{hi / bound:.2f}" if bound else "", "holds" if hi < bound else "differs", "")
    if lo != hi:
        return "", "differs", f"varies across runs: {ours}"
    value = lo
    ratio = value / float(published)
    return f"{ratio:.2f}", "holds" if np.isclose(value, float(published)) else "differs", ""


COLUMNS = ["method", "criterion", "published", "ours", "ratio", "verdict", "note", "where"]


def compare_table2(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    pub = published[published["item"] == "Table 2"]
    rows = []

    def measured_rows(method, variant):
        for counter, label in MEASURED:
            values = [median_counter(runs, g, variant, counter) for g in pd.unique(runs["graph"])]
            rows.append({"method": method, "criterion": label, "published": "", "where": "",
                         "ours": _range([v for v in values if v is not None]), "ratio": "",
                         "verdict": "measured (no published value)", "note": "range over graphs"})

    for method, group in pub.groupby("row", sort=False):
        variant = OURS.get(method)
        if variant is None:  # one compact row: the paper's values, for context only
            cells = dict(zip(group["column"], group["value"]))
            rows.append({"method": method, "criterion": "all five", "where": "Table 2",
                         "published": "; ".join(f"{SHORT[c]} {cells.get(c, '')}" for c, _ in CRITERIA),
                         "ours": "", "ratio": "", "verdict": "not implemented in this study",
                         "note": ""})
            continue
        missing = run_status(runs, variant)
        ours = None if missing else _measured(runs, stats, variant)
        for criterion, label in CRITERIA:
            cell = group[group["column"] == criterion]
            value = cell["value"].iloc[0] if len(cell) else ""
            row = {"method": method, "criterion": label, "published": value, "where": "Table 2"}
            if ours is None:
                row.update(ours=missing, ratio="", verdict="not run", note="")
            else:
                ratio, verdict, note = _verdict(criterion, value, ours[criterion])
                row.update(ours=ours[criterion], ratio=ratio, verdict=verdict, note=note)
            rows.append(row)
        if ours is not None:
            measured_rows(method, variant)
    missing = run_status(runs, PERSISTENT)
    if missing:
        rows.append({"method": PERSISTENT_ROW, "criterion": "all", "published": "", "where": "",
                     "ours": missing, "ratio": "", "verdict": "not run", "note": ""})
    else:
        ours = _measured(runs, stats, PERSISTENT)
        for criterion, label in CRITERIA:
            rows.append({"method": PERSISTENT_ROW, "criterion": label, "published": "",
                         "ours": ours[criterion], "ratio": "", "where": "",
                         "verdict": "measured (no published value)",
                         "note": "one cooperative launch; rounds end at grid-wide barriers"
                         if criterion == "kernel_launches_per_iteration" else ""})
        measured_rows(PERSISTENT_ROW, PERSISTENT)
    return pd.DataFrame(rows, columns=COLUMNS)


def summary_table2(table: pd.DataFrame) -> str:
    def cell(method, criterion):
        hit = table[(table["method"] == method) & (table["criterion"] == criterion)]
        return hit["ours"].iloc[0] if len(hit) else ""

    trips = "CPU-GPU communication (# per host iteration)"
    launches = "# of kernel launches (per host iteration)"
    harish, lbr = cell("Harish et al. [12 13]", trips), cell("Proposed Algorithm", trips)
    if not harish or harish.startswith("not") or not lbr or lbr.startswith("not"):
        return "No GPU run in this config: the counters are untested here."
    return (f"Measured per host iteration: Harish et al. {cell('Harish et al. [12 13]', launches)} "
            f"launches and {harish} round trips; LBR {cell('Proposed Algorithm', launches)} launch "
            f"and {lbr} round trips (its N blind launches read nothing back), as the paper says. "
            f"The persistent variant makes the whole solve one launch with "
            f"{cell(PERSISTENT_ROW, trips) or 'no'} round trips. Space is measured (device bytes): "
            f"Harish {cell('Harish et al. [12 13]', 'Space complexity (words)')}, LBR "
            f"{cell('Proposed Algorithm', 'Space complexity (words)')} against the paper's 4V+2A, "
            f"with 64-bit distances (no sum can overflow) and a byte per flag.")


def figure_table2(runs: pd.DataFrame, ax) -> None:
    """What Table 2 argues with, counted per solve for each of our methods."""
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        _no_data(ax, run_status(runs, "harish") or "no solver ran")
        return
    import seaborn as sns

    counters = [c for c in ("iterations", "kernel_launches", "host_round_trips", "atomics")
                if c in ok]
    counts = ok.melt(id_vars=["graph", "variant"], value_vars=counters, var_name="counter",
                     value_name="per solve").dropna()
    counts["method / counter"] = counts["variant"] + ": " + counts["counter"]
    sns.barplot(data=counts, x="graph", y="per solve", hue="method / counter",
                order=list(pd.unique(ok["graph"])), estimator="median", errorbar=("pi", 50), ax=ax)
    ax.set_yscale("log")
    ax.legend(fontsize=6, ncol=2)
    ax.set_title("safari2017 Table 2, measured per solve (median over sources, IQR bars)")


def _no_data(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    ax.figure.set_size_inches(5, 0.6)  # a line of text, not a blank page


# --- Figure 3 ---------------------------------------------------------------------------------

def _time_per_iteration(runs, times, graph, variant) -> float | None:
    ms, iterations = _ms(times, graph, variant), median_counter(runs, graph, variant, "iterations")
    return ms / iterations * 1e3 if ms is not None and iterations else None


def compare_fig3(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    pub = published[published["item"] == "Figure 3"]
    lowest = pub[pub["column"] == "speedup_lbr_over_harish"]["value"].astype(float).min()

    def pub_value(graph, column):
        cell = pub[(pub["row"] == graph) & (pub["column"] == column)]
        return float(cell["value"].iloc[0]) if len(cell) else np.nan

    times = summarise_times(runs)
    rows = []
    for graph in pd.unique(runs["graph"]):  # config order
        stands_for = _stands_for(stats, graph)
        ms = {v: _ms(times, graph, v) for v in ("harish", "lbr", PERSISTENT, "dijkstra")}
        speedup = ms["harish"] / ms["lbr"] if ms["harish"] and ms["lbr"] else None
        persistent_speedup = (ms["harish"] / ms[PERSISTENT]
                              if ms["harish"] and ms[PERSISTENT] else None)
        if speedup is None:
            verdict = not_run(run_status(runs[runs["graph"] == graph], "lbr"))
        else:
            verdict = "holds" if speedup >= lowest else "differs"
            verdict += f" (LBR {speedup:.2f}x over Harish; the paper's range starts at {lowest:g}x)"
        rows.append({
            "graph": graph,
            "stands for": stands_for or "(synthetic, no paper counterpart)",
            "vertices": stats.get(graph, {}).get("vertices"),
            "arcs": stats.get(graph, {}).get("arcs"),
            "published Harish (s)": pub_value(stands_for, "harish_time"),
            "published LBR (s)": pub_value(stands_for, "lbr_time"),
            "published speedup": pub_value(stands_for, "speedup_lbr_over_harish"),
            "Harish (ms)": ms["harish"] if ms["harish"] is not None
            else run_status(runs[runs["graph"] == graph], "harish"),
            "LBR k=4 t=2 (ms)": ms["lbr"],
            "speedup LBR / Harish": speedup,
            "persistent LBR (ms)": ms[PERSISTENT],
            "speedup persistent / Harish": persistent_speedup,
            "Dijkstra CPU (ms)": ms["dijkstra"],
            "Harish iterations": median_counter(runs, graph, "harish", "iterations"),
            "LBR launches (N blind + flag loop)": median_counter(runs, graph, "lbr", "kernel_launches"),
            "LBR host round trips": median_counter(runs, graph, "lbr", "host_round_trips"),
            "persistent rounds": median_counter(runs, graph, PERSISTENT, "iterations"),
            "Harish us/iteration": _time_per_iteration(runs, times, graph, "harish"),
            "LBR us/launch": _time_per_iteration(runs, times, graph, "lbr"),
            "persistent us/round": _time_per_iteration(runs, times, graph, PERSISTENT),
            "sources": int(times[(times["graph"] == graph) & (times["variant"] == "harish")]["sources"].sum()),
            "verdict": verdict,
        })
    return pd.DataFrame(rows)


def summary_fig3(table: pd.DataFrame) -> str:
    ran = table[~table["verdict"].str.startswith("not run")]
    if ran.empty:
        return "No GPU run in this config: the speedup claims are untested here."
    speedups = pd.to_numeric(ran["speedup LBR / Harish"], errors="coerce")
    persistent = pd.to_numeric(ran["speedup persistent / Harish"], errors="coerce")
    held = ran["verdict"].str.startswith("holds").sum()
    text = (f"LBR (k = 4, two vertices per thread, N calibrated) ran {speedups.min():.2f}x to "
            f"{speedups.max():.2f}x faster than Harish et al. across {len(ran)} graphs; the paper's "
            f"range is 3.36x to 5.77x, and {held} of {len(ran)} graphs reach its lower end.")
    if persistent.notna().any():
        text += (f" With no host round trip at all (one persistent kernel), {persistent.min():.1f}x "
                 f"to {persistent.max():.1f}x over Harish: the paper's 'fewer round trips pay' "
                 f"hypothesis holds far more strongly on today's hardware, where the launch and "
                 f"read-back per iteration cost more than the iteration's work.")
    return text


def figure_fig3(runs: pd.DataFrame, ax) -> None:
    import seaborn as sns

    src = per_source(runs)
    if src.empty:
        _no_data(ax, "no solver ran")
        return
    order = list(pd.unique(runs["graph"]))  # config order, not alphabetical
    sns.boxplot(data=src, x="graph", y="solve_ms", hue="variant", order=order, ax=ax, fliersize=0)
    sns.stripplot(data=src, x="graph", y="solve_ms", hue="variant", order=order, dodge=True, ax=ax,
                  size=3, palette="dark:black", legend=False)
    ax.set_yscale("log")
    ax.set_ylabel("solve time per source, ms (median of trials)")
    ax.set_xlabel("graph")
    ax.set_title("safari2017 Fig. 3: LBR vs Harish et al. (and the persistent variant, CPU Dijkstra)")


# --- Figure 4 ---------------------------------------------------------------------------------

def fig4_runs(ks=FIG4_K, ts=FIG4_T) -> tuple[str, ...]:
    """The paper's sweep for LBR, and the same depths for the persistent variant at t = 1: with
    no launches left to save, does depth still pay?"""
    return (("harish",) + tuple(f"lbr@k={k},t={t}" for t in ts for k in ks)
            + tuple(f"{PERSISTENT}@k={k},t=1" for k in ks))


def _kt(variant: str) -> tuple[str, int, int]:
    from ..solvers import resolve

    spec, params = resolve(variant)
    return spec.name, params["k"], params["t"]


def _lbr_grid(runs: pd.DataFrame) -> pd.DataFrame:
    """Median time per (graph, solver, k, t) over sources, with Harish's time beside it."""
    times = summarise_times(runs)
    lbr = times[times["variant"].str.startswith("lbr")].copy()
    if lbr.empty:
        return pd.DataFrame(columns=["graph", "solver", "k", "t", "median_ms", "harish_ms"])
    lbr[["solver", "k", "t"]] = [_kt(v) for v in lbr["variant"]]
    harish = times[times["variant"] == "harish"].set_index("graph")["median_ms"]
    lbr["harish_ms"] = lbr["graph"].map(harish)
    return lbr


def compare_fig4(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    pub = published[published["item"] == "Figure 4"]
    paper_k = int(pub[pub["column"] == "best_k"]["value"].iloc[0])
    paper_t = int(pub[pub["column"] == "best_vertices_per_thread"]["value"].iloc[0])
    grid = _lbr_grid(runs)
    rows = []
    for graph in pd.unique(runs["graph"]):
        mine = grid[grid["graph"] == graph]
        base = {"graph": graph, "stands for": _stands_for(stats, graph) or "(synthetic)"}
        if mine.empty:
            rows.append({**base, "verdict": not_run(run_status(runs[runs["graph"] == graph],
                                                              f"lbr@k={paper_k},t={paper_t}")
                                                   or "no LBR run")})
            continue
        lbr_at_k = mine[(mine["solver"] == "lbr") & (mine["k"] == paper_k)]
        for (solver, t_value), by_t in mine.groupby(["solver", "t"]):
            by_k = by_t.set_index("k")["median_ms"].sort_index()
            best_k = int(by_k.idxmin())
            row = {**base, "solver": solver, "vertices per thread t": int(t_value)}
            row.update({f"k={k} (ms)": by_k.get(k) for k in FIG4_K})
            row["Harish (ms)"] = by_t["harish_ms"].iloc[0]
            row["best k"] = best_k
            row["gain of best k over k=1"] = (f"{1 - by_k.min() / by_k[1]:.0%}" if 1 in by_k else "")
            row["best speedup over Harish"] = (by_t["harish_ms"].iloc[0] / by_k.min()
                                               if pd.notna(by_t["harish_ms"].iloc[0]) else None)
            if solver != "lbr":
                row["verdict"] = "measured (no published value)"
                rows.append(row)
                continue
            k_holds = paper_k in by_k and by_k[paper_k] <= by_k.min() * (1 + SIGNIFICANT)
            verdict = (f"best k: {'holds' if k_holds else 'differs'} (paper k = {paper_k}; ours "
                       f"{best_k}" + ("" if k_holds or paper_k not in by_k else
                                      f", k = {paper_k} is {by_k[paper_k] / by_k.min():.2f}x the best")
                       + ")")
            if t_value == paper_t and len(lbr_at_k) > 1:
                at_k = lbr_at_k.set_index("t")["median_ms"]
                t_holds = at_k.get(paper_t, np.inf) <= at_k.min() * (1 + SIGNIFICANT)
                verdict += (f"; t = {paper_t} best at k = {paper_k}: "
                            f"{'holds' if t_holds else 'differs'} (ours t = {int(at_k.idxmin())})")
            row["verdict"] = ("holds: " if k_holds else "differs: ") + verdict
            rows.append(row)
    return pd.DataFrame(rows)


def summary_fig4(table: pd.DataFrame) -> str:
    if "best k" not in table or table["best k"].replace("", np.nan).dropna().empty:
        return "No GPU run in this config: Fig. 4's claims are untested here."
    ran = table[(table["best k"].astype(str) != "") & (table.get("solver", "lbr") == "lbr")]
    ks = sorted(set(ran["best k"].astype(str)))
    return (f"Best k per (graph, vertices per thread) on this machine: {', '.join(ks)} "
            f"(the paper saw k = 4 best, k = 5 no better, and up to 30% gain for k < 5). The "
            f"verdict column says, per row, whether "
            f"k = 4 is within {SIGNIFICANT:.0%} of the best, and on the t = 2 rows whether two "
            f"vertices per thread is.")


def figure_fig4(runs: pd.DataFrame, ax) -> None:
    import seaborn as sns

    grid = _lbr_grid(runs)
    if grid.empty:
        _no_data(ax, run_status(runs, "lbr@k=4,t=2") or "no LBR run")
        return
    grid["speedup over Harish"] = grid["harish_ms"] / grid["median_ms"]
    grid["line"] = grid["solver"] + ", " + grid["graph"]
    sns.lineplot(data=grid, x="k", y="speedup over Harish", hue="t", style="line", markers=True,
                 palette="viridis", ax=ax)
    ax.set_yscale("log")
    ax.set_xticks(list(FIG4_K))
    ax.legend(bbox_to_anchor=(1.01, 1), loc="upper left", fontsize=7)
    ax.set_title("safari2017 Fig. 4: LBR depth k and vertices per thread t (weights 1..10)")


# --- CalNev comparison ------------------------------------------------------------------------

CALNEV_RUNS = ("bgl_dijkstra", "dijkstra", "delta_stepping_par", "harish", "lbr", PERSISTENT)
# The paper's systems, and which of our runs answers each (None: we have no counterpart).
CALNEV_OURS = {"LBR (GeForce GT 630)": "lbr", "Boost Graph Library [24]": "bgl_dijkstra",
               "Davidson et al. [8] (GTX 680)": None, "LonestarGPU [4]": None,
               "H-BF [5] (GTX 780)": None}


def compare_calnev(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    pub = published[published["item"] == "CalNev comparison"]
    times = summarise_times(runs)
    rows = []
    for graph in pd.unique(runs["graph"]):
        base = {"graph": graph, "stands for": _stands_for(stats, graph) or "(synthetic)"}
        for _, p in pub.iterrows():
            variant = CALNEV_OURS.get(p["row"])
            ours = _ms(times, graph, variant) if variant else None
            published_ms = float(p["value"]) * 1e3
            rows.append({**base, "system": p["row"], "published (ms)": published_ms,
                         "our run": variant or "", "ours (ms)": ours if ours is not None else
                         (run_status(runs[runs["graph"] == graph], variant) if variant else
                          "not implemented in this study"),
                         "published / ours": published_ms / ours if ours else None,
                         "verdict": "measured" if ours is not None else
                         ("not run" if variant else "not implemented in this study")})
        for variant in CALNEV_RUNS:
            if variant in CALNEV_OURS.values():
                continue
            ours = _ms(times, graph, variant)
            rows.append({**base, "system": f"ours: {variant}", "published (ms)": None,
                         "our run": variant,
                         "ours (ms)": ours if ours is not None else run_status(runs[runs["graph"] == graph], variant),
                         "published / ours": None,
                         "verdict": "measured (no published value)" if ours is not None else "not run"})
    return pd.DataFrame(rows)


def figure_calnev(runs: pd.DataFrame, ax) -> None:
    times = summarise_times(runs)
    if times.empty:
        _no_data(ax, "no solver ran")
        return
    import seaborn as sns

    sns.barplot(data=times, x="variant", y="median_ms", hue="graph", ax=ax)
    ax.set_yscale("log")
    ax.set_ylabel("median solve time, ms")
    ax.set_title("safari2017 CalNev comparison: our solvers (the paper's LBR took 3.5 s, BGL 588 ms)")


target(Target("safari2017_table2", "safari2017", "Table 2",
              "space, kernel launches, host round trips and atomics of Harish et al., LBR and our "
              "persistent variant, measured per solve, beside the paper's comparison table",
              solvers=("harish", "lbr", PERSISTENT), compare=compare_table2, figure=figure_table2,
              summary=summary_table2))
target(Target("safari2017_fig3", "safari2017", "Figure 3",
              "LBR vs Harish et al. per road graph, with the no-round-trip variant and CPU Dijkstra; "
              "iterations, launches and time per iteration say why",
              solvers=("dijkstra", "harish", "lbr", PERSISTENT), compare=compare_fig3,
              figure=figure_fig3, summary=summary_fig3))
target(Target("safari2017_fig4", "safari2017", "Figure 4",
              "LBR with relaxation depth k = 1..5 and t = 1..4 vertices per thread, on graphs whose "
              "weights are replaced by random integers 1..10 (Table 3)",
              solvers=fig4_runs(), compare=compare_fig4, figure=figure_fig4, summary=summary_fig4))
target(Target("safari2017_calnev", "safari2017", "CalNev comparison",
              "our GPU solvers and CPU baselines on CalNev beside the systems the paper lists",
              solvers=CALNEV_RUNS, compare=compare_calnev, figure=figure_calnev))


# --- Table 1 (issue 3: datasets) --------------------------------------------------------------

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
        elif origin.get("kind") == "real topology":  # PACE 2016 lists each road once
            verdict = ("real topology without the DIMACS file's parallel arcs (not a test of the "
                       "published row)" + (": " + "; ".join(mismatched) if mismatched else ""))
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
