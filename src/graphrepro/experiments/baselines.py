"""``bench_cpu``: the CPU baselines on the configured road graphs, each beside the Boost Graph
Library, and BGL on CalNev beside the 588 ms safari2017 quotes for it.

Not a published table of its own: the documents compare their GPU codes with sequential Dijkstra,
BFS, Bellman-Ford and BGL, so users judge our GPU numbers by these baselines, and the one
published CPU number (safari2017, Section 3.4: BGL, 588 ms on CalNev) is shown beside ours.
Bellman-Ford is left out: on road graphs it makes as many passes over all arcs as the longest
shortest path has hops (thousands), minutes per source on the larger graphs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .registry import Target, target
from .measured import per_source, summarise_times, time_bars
from .safari2017_evidence import evidence_bench_cpu

SOLVERS = ("bgl_dijkstra", "dijkstra", "cpp_dijkstra", "scipy_dijkstra", "delta_stepping",
           "delta_stepping_par", "bfs")
BASELINE = "bgl_dijkstra"
CALNEV = ("calnev", "CalNev")  # the registry's key for USA-road-d.CAL, and the paper's name
# The issues' speed goals for our own baselines, stated beside the measured ratio in the "goal"
# column (no document claims them, so the claims ledger does not judge them).
GOALS = {"dijkstra": "within 1.5x of BGL", "delta_stepping_par": "faster than BGL"}


def _published_bgl_ms(published: pd.DataFrame) -> float | None:
    row = published[(published["item"] == "CalNev comparison")
                     & published["row"].str.startswith("Boost Graph Library")]
    if row.empty:
        return None
    value = float(row["value"].iloc[0])
    return value * 1e3 if row["unit"].iloc[0] == "s" else value


def _is_calnev(graph: str, stats: dict) -> bool:
    return graph in CALNEV or stats.get(graph, {}).get("stands_for") in CALNEV


def compare_bench_cpu(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    times = summarise_times(runs)
    bgl_published = _published_bgl_ms(published)
    params = runs.drop_duplicates("solver").set_index("solver")["params"] if len(runs) else {}
    rows = []
    for graph in pd.unique(runs["graph"]):  # config order
        t = times[times["graph"] == graph].set_index("variant")
        base = t["median_ms"].get(BASELINE)
        calnev = _is_calnev(graph, stats)
        for solver in SOLVERS:
            mine = runs[(runs["graph"] == graph) & (runs["solver"] == solver)]
            row = {"graph": graph, "stands for": stats.get(graph, {}).get("stands_for") or "",
                   "vertices": stats.get(graph, {}).get("vertices"),
                   "arcs": stats.get(graph, {}).get("arcs"), "solver": solver,
                   "params": params.get(solver, "") if solver in params else ""}
            if solver not in t.index:
                status = mine["status"].iloc[0] if len(mine) else "not in this run"
                rows.append({**row, "median (ms)": status})
                continue
            s = t.loc[solver]
            ratio = s["median_ms"] / base if base else np.nan
            row.update({"median (ms)": s["median_ms"],
                        "IQR (ms)": f"{s['q25_ms']:.4g}-{s['q75_ms']:.4g}",
                        "sources": int(s["sources"]),
                        "time / BGL": ratio})
            if solver in GOALS and base:
                row["goal"] = f"{GOALS[solver]} (ours {ratio:.2f}x BGL's time)"
            if solver == "bfs":
                row["note"] = "hop counts (unweighted), for scale"
            if solver == BASELINE and calnev and bgl_published:
                row.update({"published (ms)": bgl_published,
                            "ours / published": s["median_ms"] / bgl_published,
                            "note": "safari2017 Section 3.4, Boost Graph Library [24] on CalNev; "
                                    "their CPU: Intel Core i7 3.50 GHz",
                            "claim_id": "cn.bgl_time"})
            rows.append(row)
    columns = ["graph", "stands for", "vertices", "arcs", "solver", "params", "median (ms)",
               "IQR (ms)", "sources", "time / BGL", "goal", "published (ms)", "ours / published",
               "note", "claim_id"]
    return pd.DataFrame(rows, columns=columns)


def figure_bench_cpu(runs: pd.DataFrame, ax) -> None:
    src = per_source(runs)
    if src.empty:
        ax.text(0.5, 0.5, "no solver ran", ha="center", va="center", transform=ax.transAxes)
        return
    time_bars(src, pd.unique(runs["graph"]), "solver",
              [s for s in SOLVERS if s in set(src["solver"])], "CPU baselines: median over sources",
              ax)


target(Target("bench_cpu", "safari2017", "CPU baselines",
              "each CPU baseline's median time over the sources and its ratio to the Boost Graph "
              "Library's Dijkstra, per road graph; BGL on CalNev beside the paper's 588 ms",
              solvers=SOLVERS, compare=compare_bench_cpu, figure=figure_bench_cpu, prints=True,
              evidence=evidence_bench_cpu))
