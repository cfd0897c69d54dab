"""singla targets: Figs. 7-10, time against number of edges, edge-based GPU solver vs serial CPU.

The document ran two setups (GeForce GTS 450: Figs. 7-8; Tesla C2075: Figs. 9-10) and quotes a
few points from them in its text; its figures carry no numbers we can read. Both setups become
one here: our GPU and our CPU. Absolute times from 2012 hardware are shown for context only; what
is compared is the *speedup* (serial CPU time / GPU time) at the quoted points, its maximum over
the sweep, and its trend with the number of edges. Each claim (published/claims/singla.csv) is
judged in the ledger (singla_evidence.py); a claim's row here takes its verdict from there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..graph.families import (ALMOST_COMPLETE_MIN_DENSITY, GENERAL_MAX_DENSITY,
                              SPARSE_MAX_DEGREE)
from ..claims.ledger import load_claims
from .registry import Target, target
from .singla_evidence import evidence


def family_of(vertices: int, arcs: int) -> str:
    """The family a graph's density puts it in (the thresholds of graph.families)."""
    if vertices < 2:
        return "-"
    density = arcs / (vertices * (vertices - 1))
    if density >= ALMOST_COMPLETE_MIN_DENSITY:
        return "almost_complete"
    if arcs / vertices <= SPARSE_MAX_DEGREE:
        return "sparse"
    return "general" if density < GENERAL_MAX_DENSITY else "dense"


def _medians(runs: pd.DataFrame, counter: str) -> pd.DataFrame:
    """Per (graph, variant): median over sources of the per-source median solve time, and the
    median of the rounds/levels counter and of host round trips."""
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        return pd.DataFrame(columns=["graph", "variant", "solve_ms", counter, "host_round_trips"])
    cols = [c for c in ("solve_ms", counter, "host_round_trips") if c in ok]
    per_source = ok.groupby(["graph", "variant", "source"], as_index=False)[cols].median()
    return per_source.groupby(["graph", "variant"], as_index=False)[cols].median()


def _status(runs: pd.DataFrame, graph: str, variant: str) -> str:
    mine = runs[(runs["graph"] == graph) & (runs["variant"] == variant)]
    if mine.empty:
        return "not in this config"
    return str(mine["status"].iloc[0])


def _pub(published: pd.DataFrame, item: str) -> pd.DataFrame:
    return published[published["item"] == item]


def compare_sweep(runs, stats, published, *, item, cpu, gpu, counter):
    """One row per graph (config order), then one per sweep-wide claim."""
    annotate_sizes(runs, stats)
    med = _medians(runs, counter).set_index(["graph", "variant"])
    variants = [v for v in pd.unique(runs["variant"]) if v.split("@")[0] == gpu]
    variants.sort(key=lambda v: (v != gpu, v))  # the document's algorithm first
    claims = load_claims("singla")
    claims = claims[claims["target"] == target_of[item]]
    rows, speedups = [], []
    for graph in pd.unique(runs["graph"]):
        st = stats.get(graph, {})
        stands_for = st.get("stands_for") or ""
        row = {"graph": graph, "family": family_of(st.get("vertices", 0), st.get("arcs", 0)),
               "stands for": stands_for, "vertices": st.get("vertices"), "edges": st.get("arcs"),
               "max weight": st.get("max_weight")}
        cpu_ms = med.loc[(graph, cpu), "solve_ms"] if (graph, cpu) in med.index else None
        row[f"CPU {cpu} (ms)"] = cpu_ms if cpu_ms is not None else _status(runs, graph, cpu)
        main_speedup = None
        for v in variants:
            if (graph, v) in med.index:
                m = med.loc[(graph, v)]
                row[f"GPU {v} (ms)"] = m["solve_ms"]
                speedup = cpu_ms / m["solve_ms"] if cpu_ms is not None and m["solve_ms"] > 0 else None
                row[f"speedup {v}"] = speedup if speedup is not None else ""
                if v == gpu:
                    main_speedup = speedup
                    row[counter] = m.get(counter, "")
                    row["host round trips"] = m.get("host_round_trips", "")
            else:
                row[f"GPU {v} (ms)"] = _status(runs, graph, v)
                row[f"speedup {v}"] = ""
        if main_speedup is not None:
            speedups.append((st.get("arcs", 0), main_speedup))
        mine = claims[claims["subject"] == stands_for] if stands_for else claims.iloc[0:0]
        rows.extend(_point_claims(row, mine, main_speedup, gpu, cpu, runs, graph) or
                    [{**row, "claim": "", "published": "", "ours": "", "ratio": "",
                      "claim_id": "", "note": ""}])
    vertex = [med.loc[(g, "harish"), "solve_ms"] / med.loc[(g, gpu), "solve_ms"]
              for g in pd.unique(runs["graph"]) if (g, "harish") in med.index
              and (g, gpu) in med.index]  # Harish's time over the edge kernel's (s.edge_vs_vertex)
    rows.extend(_sweep_claims(claims[claims["subject"] == ""], speedups, gpu, vertex))
    table = pd.DataFrame(rows)
    for column in ("vertices", "edges", "max weight"):  # blank, not NaN, on whole-sweep rows
        table[column] = table[column].astype("Int64")
    for column in table.columns:  # times and speedups to 4 significant digits, as the page shows
        if column.endswith("(ms)") or column.startswith("speedup") or column == counter:
            table[column] = table[column].map(lambda v: float(f"{v:.4g}") if isinstance(v, float)
                                              and np.isfinite(v) else v)
    return table


target_of = {"Figures 7 and 9": "singla_fig7_9", "Figures 8 and 10": "singla_fig8_10"}


def _point_claims(row, claims, speedup, gpu, cpu, runs, graph) -> list[dict]:
    """A row per claim about the point this graph stands for: a speedup, or an absolute time
    (shown beside ours, not judged: 2012 hardware)."""
    out = []
    gpu_ms, cpu_ms = row.get(f"GPU {gpu} (ms)"), row.get(f"CPU {cpu} (ms)")
    for _, c in claims.iterrows():
        if c["unit"] == "x":
            ours = f"{speedup:.3g}x" if speedup is not None else _status(runs, graph, gpu)
            ratio = _ratio(c["published"], speedup)
        else:
            ours = (f"{gpu_ms:.3g} ms (GPU), {cpu_ms:.3g} ms (CPU)"
                    if isinstance(gpu_ms, float) and isinstance(cpu_ms, float) else gpu_ms)
            ratio = ""
        out.append({**row, "claim": c["claim"], "published": c["published"], "ours": ours,
                    "ratio": ratio, "claim_id": c["claim_id"],
                    "note": f"{c['note']} [{c['where']}]".lstrip()})
    return out


def _ratio(published: str, ours: float | None) -> str:
    """ours / published for a single printed speedup ("1.5x"), else ''."""
    try:
        return f"{ours / float(published.rstrip('x')):.2f}" if ours is not None else ""
    except ValueError:
        return ""


def _sweep_claims(claims: pd.DataFrame, speedups: list[tuple[int, float]], gpu: str,
                  vertex: list[float] = ()) -> list[dict]:
    """A row per claim about the whole sweep (its sign, maximum, growth with edges; the edge
    kernel against Harish's thread per vertex)."""
    def span(values, missing):
        return (f"{min(values):.3g}x to {max(values):.3g}x over {len(values)} graphs" if values
                else missing)

    ours = span([s for _, s in speedups], f"{gpu} did not run")
    return [{"graph": "whole sweep", "claim": c["claim"], "published": c["published"],
             "ours": span(list(vertex), "harish did not run") if c["claim_id"] == "s.edge_vs_vertex"
             else ours, "ratio": "", "claim_id": c["claim_id"],
             "note": f"{c['note']} [{c['where']}]".lstrip()} for _, c in claims.iterrows()]


def compare_dijkstra(runs, stats, published):
    return compare_sweep(runs, stats, published, item="Figures 7 and 9", cpu="dijkstra",
                         gpu="singla_dijkstra", counter="rounds")


def compare_bfs(runs, stats, published):
    return compare_sweep(runs, stats, published, item="Figures 8 and 10", cpu="bfs",
                         gpu="singla_bfs", counter="levels")


# --- figures -------------------------------------------------------------------------------------

MARKERS = {"sparse": "o", "general": "s", "almost_complete": "^"}


def figure_sweep(runs, ax, *, title, published, quoted):
    """Median solve time against edges, log-log: one line per (run id, family), the document's
    quoted absolute times as stars (their hardware, for context)."""
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        ax.text(0.5, 0.5, "no solver ran", ha="center", va="center", transform=ax.transAxes)
        return
    if "edges" not in ok:
        ax.text(0.5, 0.5, "graph sizes unknown: draw after compare", ha="center", va="center",
                transform=ax.transAxes)
        return
    per_source = ok.groupby(["graph", "variant", "source"], as_index=False)["solve_ms"].median()
    med = per_source.groupby(["graph", "variant"], as_index=False)["solve_ms"].median()
    sizes = ok.groupby("graph")[["edges", "family"]].first()
    med = med.join(sizes, on="graph")
    colours = dict(zip(sorted(pd.unique(med["variant"])), [f"C{i}" for i in range(10)]))
    for (variant, family), part in med.groupby(["variant", "family"]):
        part = part.sort_values("edges")
        ax.plot(part["edges"], part["solve_ms"], marker=MARKERS.get(family, "x"),
                color=colours[variant], label=f"{variant}, {family}")
    pub = published[published["column"].isin(quoted)]
    drawn_pub = False
    for _, p in pub.iterrows():
        edges_quoted = _edges_of(p["row"])
        if edges_quoted is None:
            continue
        ms = float(p["value"]) * (1.0 if p["unit"] == "ms" else 1e3)
        ax.plot([edges_quoted], [ms], marker="*", markersize=12, color="black", linestyle="none",
                label="_published" if drawn_pub else "published (2012 hardware)")
        drawn_pub = True
        # a short label left of the star: the legend sits right of the axes, beside the stars
        label = p['column'].replace('_time', '').replace('gpu', 'GPU').replace('cpu', 'CPU')
        ax.annotate(label, (edges_quoted, ms), textcoords="offset points", xytext=(-8, 0),
                    fontsize=7, ha="right", va="center")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("edges")
    ax.set_ylabel("solve time, ms (median over sources)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncol=2)


def _edges_of(label: str) -> int | None:
    """The edge count a quoted point names ("30K vertices, 90K edges", "2,312,777 edges")."""
    text = label.split(",")[-1].strip() if "vertices" in label else label
    number = text.replace("edges", "").replace(",", "").strip()
    scale = 1000 if number.endswith("K") else 1
    try:
        return int(float(number.rstrip("K")) * scale)
    except ValueError:
        return None


def annotate_sizes(runs: pd.DataFrame, stats: dict) -> None:
    """Add each graph's edge count and family to ``runs``, in place.

    A target's figure function sees only the run table; report.tables.build_target_table calls
    compare first and then draws from the same frame, so the sizes compare knows (from the
    sources' statistics) reach the figure this way.
    """
    runs["edges"] = runs["graph"].map(lambda g: stats.get(g, {}).get("arcs", 0))
    runs["family"] = runs["graph"].map(
        lambda g: family_of(stats.get(g, {}).get("vertices", 0), stats.get(g, {}).get("arcs", 0)))


def figure_dijkstra(runs, ax):
    from .registry import published as published_values

    figure_sweep(runs, ax, title="singla Figs. 7 and 9: edge-based Dijkstra (GPU) vs serial "
                 "Dijkstra (CPU)", published=published_values("singla"),
                 quoted=["gpu_time", "cpu_time"])


def figure_bfs(runs, ax):
    from .registry import published as published_values

    figure_sweep(runs, ax, title="singla Figs. 8 and 10: edge-based BFS (GPU) vs serial BFS "
                 "(CPU)", published=published_values("singla"), quoted=[])


GRAPHS_NOTE = ("Graphs: the document does not say how its graphs were made; ours are uniform "
               "random simple digraphs with exactly the stated number of edges and integer "
               "weights 1..max weight (graph/families.py), the family set by density. Both of "
               "the document's setups (GTS 450, Tesla C2075) map to our one GPU and CPU, so "
               "speedups are compared, not absolute times")

target(Target("singla_fig7_9", "singla", "Figures 7 and 9",
              "edge-based parallel Dijkstra (GPU) against serial Dijkstra (CPU, binary heap): "
              "time against edges on sparse, general and almost-complete graphs, speedups at "
              "the quoted points. " + GRAPHS_NOTE,
              # singla_dijkstra@mode=cooperative is left to configs that ask for it: numba links
              # libcudadevrt.a for grid.sync, which not every CUDA install has
              solvers=("dijkstra", "singla_dijkstra", "singla_dijkstra@check_every=8"),
              compare=compare_dijkstra, figure=figure_dijkstra,
              evidence=evidence("singla_fig7_9"),
              also_shows=("harish",)))  # vertex-parallel, for s.edge_vs_vertex where run
target(Target("singla_fig8_10", "singla", "Figures 8 and 10",
              "edge-based parallel BFS (GPU) against serial queue BFS (CPU): time against "
              "edges, speedups at 20,000 and 2,312,777 edges. " + GRAPHS_NOTE,
              solvers=("bfs", "singla_bfs", "singla_bfs@check_every=4"),
              compare=compare_bfs, figure=figure_bfs, evidence=evidence("singla_fig8_10")))
