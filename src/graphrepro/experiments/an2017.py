"""an2017 targets: the document gives shapes and claims, few numbers; each row names the claim
it stands for, judged in the ledger (an2017_evidence.py turns the runs into each claim's numbers).

- ``an2017_fig1``: time against vertices for 1..64 edges per thread; "4 edges per thread is best"
  and "time grows with the number of vertices".
- ``an2017_coalescing``: coalesced vs non-coalesced index orders (section 4.2's right figure).
- ``an2017_fig2``: incoming (pull) vs outgoing (push) vs the basic edge version; "pull beats
  push", "the edge version beats both". The edge-list version (Alg. 6) is shown beside them.
- ``an2017_transfers``: section 4.1: the transfer share of the basic version's total (from its
  runs), pageable vs pinned uploads and the two-stream overlap (from the transfer benchmark).

Times here are medians over trials, then over sources, of the solve (CUDA events, matrix already
on the device); the ledger judges the mean over sources. Uploads are timed apart, as the
document separates them.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..solvers.an2017 import EDGES_PER_THREAD
from .registry import Target, target
from .an2017_evidence import (evidence_coalescing, evidence_fig1, evidence_fig2,
                              evidence_transfers)

COLUMNS = ["claim", "graph", "vertices", "published", "ours", "ratio", "claim_id", "note", "where"]


def dense_run(edges_per_thread: int, order: str = "coalesced") -> str:
    return f"an_bf_dense@edges_per_thread={edges_per_thread},order={order}"


BASIC = dense_run(1)  # Alg. 3: one thread per matrix entry, the document's "basic version"
COALESCING_EPT = (4, 16)
NONCOALESCED = ("chunked", "transposed")


def medians(runs: pd.DataFrame, stats: dict) -> pd.DataFrame:
    """One row per (graph, variant): median over sources of the median over trials, with the
    variant's parameters and the graph's vertex count."""
    cols = ["graph", "variant", "solver", "vertices", "solve_ms", "upload_ms", "params"]
    if runs.empty or "status" not in runs:
        return pd.DataFrame(columns=cols)
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        return pd.DataFrame(columns=cols)
    per_source = ok.groupby(["graph", "variant", "solver", "params", "source"], as_index=False)[
        ["solve_ms", "upload_ms"]].median()
    out = per_source.groupby(["graph", "variant", "solver", "params"], as_index=False)[
        ["solve_ms", "upload_ms"]].median()
    out["vertices"] = [stats.get(g, {}).get("vertices", np.nan) for g in out["graph"]]
    return out[cols].sort_values(["vertices", "graph", "variant"]).reset_index(drop=True)


def _param(params: str, key: str):
    return json.loads(params).get(key)


def _not_run(runs: pd.DataFrame) -> str:
    if runs.empty or "status" not in runs:
        return "not in this config"
    statuses = runs["status"].dropna().unique()
    return str(statuses[0]) if len(statuses) else "not in this config"


def _graphs(runs: pd.DataFrame, stats: dict) -> list[str]:
    names = list(pd.unique(runs["graph"])) if "graph" in runs else []
    return sorted(names, key=lambda g: (stats.get(g, {}).get("vertices", 0), g))


def _row(claim, graph, vertices, published, ours, claim_id, where, ratio="", note=""):
    return {"claim": claim, "graph": graph, "vertices": vertices, "published": published,
            "ours": ours, "ratio": ratio, "claim_id": claim_id, "note": note, "where": where}


def _pub(published: pd.DataFrame, item: str, row: str, column: str) -> str:
    cell = published[(published["item"] == item) & (published["row"] == row)
                     & (published["column"] == column)]
    return str(cell["value"].iloc[0]) if len(cell) else ""


def _ms(x: float) -> str:
    return f"{x:.3g} ms"


# --- Figure 1: edges per thread ---------------------------------------------------------------

def _ept_table(runs, stats) -> pd.DataFrame:
    m = medians(runs, stats)
    m = m[m["solver"] == "an_bf_dense"].copy()
    m["edges_per_thread"] = [_param(p, "edges_per_thread") for p in m["params"]]
    m["order"] = [_param(p, "order") for p in m["params"]]
    return m


def compare_fig1(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    where = "Fig. 1.2, section 4.2"
    best_pub = _pub(published, "Figure 1", "edges per thread", "fastest")
    t = _ept_table(runs, stats)
    t = t[t["order"] == "coalesced"]
    rows = []
    if t.empty:
        why = _not_run(runs)
        for g in _graphs(runs, stats):
            rows.append(_row("fastest edges per thread", g, stats.get(g, {}).get("vertices"),
                             best_pub, why, "a.fig1.best", where))
        return pd.DataFrame(rows, columns=COLUMNS)
    for g, group in t.groupby("graph", sort=False):
        group = group.sort_values("edges_per_thread")
        best = group.loc[group["solve_ms"].idxmin()]
        k = int(best["edges_per_thread"])
        times = ", ".join(f"{int(e)}: {s:.3g}" for e, s in zip(group["edges_per_thread"],
                                                                group["solve_ms"]))
        at4 = group[group["edges_per_thread"] == 4]["solve_ms"]
        ratio = f"{float(at4.iloc[0]) / best['solve_ms']:.2f}" if len(at4) else ""
        shape = ("falls then rises" if 1 < k < group["edges_per_thread"].max()
                 else "monotone: fastest at an end of the sweep")
        rows.append(_row("fastest edges per thread", g, int(group["vertices"].iloc[0]), best_pub,
                         str(k), "a.fig1.best", where,
                         ratio=ratio,
                         note=f"ms by edges per thread: {times}; {shape}; ratio: time at 4 / "
                              f"fastest"))
    # Fig. 1.1: for every setting, time grows with the number of vertices.
    grows, broken = [], []
    for k, group in t.groupby("edges_per_thread"):
        s = group.sort_values("vertices")["solve_ms"].to_numpy()
        (grows if len(s) < 2 or np.all(np.diff(s) > 0) else broken).append(str(int(k)))
    n_graphs = t["graph"].nunique()
    rows.append(_row("time grows with vertices, every setting", f"{n_graphs} graphs", "",
                     _pub(published, "Figure 1", "running time", "trend in vertices"),
                     "increases" if not broken else f"not monotone at {', '.join(broken)} "
                                                    "edges per thread",
                     "a.fig1.vertices", "Fig. 1.1, section 4.2"))
    return pd.DataFrame(rows, columns=COLUMNS)


def figure_fig1(runs: pd.DataFrame, ax, published: pd.DataFrame | None = None) -> None:
    """Fig. 1's two panels: solve time against the matrix's vertex count for each edges-per-thread
    setting, and against edges per thread for each matrix (medians over sources). The document
    gives no times, only its fastest setting: a dotted line there."""
    t = _ept_table(runs, {})
    t = t[t["order"] == "coalesced"]
    if t.empty:
        _no_data(ax, _not_run(runs))
        return
    # a figure reads only the run table: the vertex count of a complete graph is in its name
    t = t.assign(vertices=[_vertices_of(g) for g in t["graph"]])
    fig = ax.figure
    ax.remove()
    left, right = fig.subplots(1, 2)
    for k, group in t.groupby("edges_per_thread"):
        group = group.sort_values("vertices")
        left.plot(group["vertices"], group["solve_ms"], marker="o", label=f"{int(k)}")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("vertices (complete graph: a V x V matrix)")
    left.set_ylabel("solve time, ms (median)")
    left.set_title("Fig. 1.1: time per edges-per-thread setting", fontsize=9)
    left.legend(title="edges/thread", fontsize=7)
    for g, group in sorted(t.groupby("graph"), key=lambda x: x[1]["vertices"].iloc[0]):
        group = group.sort_values("edges_per_thread")
        v = group["vertices"].iloc[0]
        label = f"{int(v):,} vertices" if v == v else g
        right.plot(group["edges_per_thread"], group["solve_ms"], marker="o",
                   label=label if g == f"dense_{int(v)}" or v != v else f"{label} ({g})")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xlabel("edges per thread")
    right.set_title("Fig. 1.2: time against edges per thread", fontsize=9)
    fastest = (published[(published["item"] == "Figure 1") & (published["column"] == "fastest")]
               if published is not None else pd.DataFrame())
    if len(fastest):
        right.axvline(float(fastest["value"].iloc[0]), color="black", ls=":", lw=1,
                      label=f"paper: fastest at {fastest['value'].iloc[0]}")
    right.legend(fontsize=7)


def _vertices_of(graph: str) -> float:
    """dense_4096 -> 4096, dense_4096_d01 -> 4096 (an2017's matrices are named by their vertex
    count); NaN for a name without one."""
    import re

    m = re.match(r"dense_(\d+)", str(graph))
    return float(m.group(1)) if m else np.nan


# --- Section 4.2: coalescing -----------------------------------------------------------------------

def compare_coalescing(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    where = "section 4.2, figure on the right"
    faster = _pub(published, "Section 4.2 (coalescing)", "index order", "faster")
    t = _ept_table(runs, stats)
    rows = []
    if t.empty:
        for g in _graphs(runs, stats):
            rows.append(_row("coalesced faster than non-coalesced", g,
                             stats.get(g, {}).get("vertices"), faster, _not_run(runs), "a.coal",
                             where))
        return pd.DataFrame(rows, columns=COLUMNS)
    for (g, k), group in t.groupby(["graph", "edges_per_thread"], sort=False):
        by_order = dict(zip(group["order"], group["solve_ms"]))
        if "coalesced" not in by_order:
            continue
        for other in NONCOALESCED:
            if other not in by_order:
                continue
            ratio = by_order[other] / by_order["coalesced"]
            rows.append(_row(f"coalesced faster than {other}, {int(k)} edges/thread", g,
                             int(group["vertices"].iloc[0]), faster,
                             f"coalesced {_ms(by_order['coalesced'])}, {other} "
                             f"{_ms(by_order[other])}",
                             "a.coal", where, ratio=f"{ratio:.2f}",
                             note=f"ratio: {other} / coalesced time"))
    return pd.DataFrame(rows, columns=COLUMNS)


def figure_coalescing(runs: pd.DataFrame, ax) -> None:
    t = _ept_table(runs, {})
    t = t[t["edges_per_thread"].isin(COALESCING_EPT)]
    if t.empty:
        _no_data(ax, _not_run(runs))
        return
    import seaborn as sns

    t = t.assign(setting=[f"{g}, {int(k)} e/t" for g, k in zip(t["graph"], t["edges_per_thread"])])
    sns.barplot(data=t, x="setting", y="solve_ms", hue="order", hue_order=list(
        o for o in ("coalesced",) + NONCOALESCED if o in set(t["order"])), ax=ax)
    ax.set_yscale("log")
    ax.set_ylabel("solve time, ms (median)")
    ax.set_xlabel("")
    ax.tick_params(axis="x", rotation=30, labelsize=7)
    ax.set_title("an2017 section 4.2: coalesced vs non-coalesced index orders")


# --- Figure 2: incoming vs outgoing vs edge-based ------------------------------------------------

FIG2_SOLVERS = {"an_bf_incoming": "incoming (pull)", "an_bf_outgoing": "outgoing (push)",
                BASIC: "edge-based (basic)", "an_bf_edgelist": "edge list (Alg. 6)"}


def _fig2_table(runs, stats):
    m = medians(runs, stats)
    m = m[m["variant"].isin(["an_bf_incoming", "an_bf_outgoing", "an_bf_edgelist"])
          | ((m["solver"] == "an_bf_dense")
             & (m["params"].map(lambda p: _param(p, "edges_per_thread") == 1
                                and _param(p, "order") == "coalesced")))].copy()
    m["version"] = [FIG2_SOLVERS.get(v, FIG2_SOLVERS[BASIC] if s == "an_bf_dense" else v)
                    for v, s in zip(m["variant"], m["solver"])]
    return m


def compare_fig2(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    where = "Fig. 2, section 4.4"
    m = _fig2_table(runs, stats)
    rows = []
    if m.empty:
        for g in _graphs(runs, stats):
            for claim, row, cid in (("incoming faster than outgoing", "incoming vs outgoing",
                                     "a.fig2.pull"),
                                    ("edge-based faster than both vertex versions",
                                     "edge-based (basic) vs vertex-based", "a.fig2.edge")):
                rows.append(_row(claim, g, stats.get(g, {}).get("vertices"),
                                 _pub(published, "Figure 2", row, "faster"), _not_run(runs),
                                 cid, where))
        return pd.DataFrame(rows, columns=COLUMNS)
    for g, group in m.groupby("graph", sort=False):
        t = dict(zip(group["version"], group["solve_ms"]))
        v = int(group["vertices"].iloc[0])
        inc, out, edge = (t.get(FIG2_SOLVERS[k]) for k in ("an_bf_incoming", "an_bf_outgoing", BASIC))
        if inc is not None and out is not None:
            rows.append(_row("incoming faster than outgoing", g, v,
                             _pub(published, "Figure 2", "incoming vs outgoing", "faster"),
                             f"incoming {_ms(inc)}, outgoing {_ms(out)}",
                             "a.fig2.pull", where, ratio=f"{out / inc:.2f}",
                             note="ratio: outgoing / incoming time"))
        if edge is not None and inc is not None and out is not None:
            ratio = min(inc, out) / edge
            edgelist = t.get(FIG2_SOLVERS["an_bf_edgelist"])
            rows.append(_row("edge-based faster than both vertex versions", g, v,
                             _pub(published, "Figure 2", "edge-based (basic) vs vertex-based",
                                  "faster"),
                             f"edge-based {_ms(edge)}, best vertex version {_ms(min(inc, out))}",
                             "a.fig2.edge", where, ratio=f"{ratio:.2f}",
                             note="ratio: faster vertex version / edge-based time"
                                  + (f"; edge list (Alg. 6) {_ms(edgelist)}" if edgelist else "")))
    return pd.DataFrame(rows, columns=COLUMNS)


def figure_fig2(runs: pd.DataFrame, ax) -> None:
    m = _fig2_table(runs, {})
    if m.empty:
        _no_data(ax, _not_run(runs))
        return
    import seaborn as sns

    sns.barplot(data=m, x="graph", y="solve_ms", hue="version", ax=ax)
    ax.set_yscale("log")
    ax.set_ylabel("solve time, ms (median)")
    ax.tick_params(axis="x", rotation=30, labelsize=7)
    ax.set_title("an2017 Fig. 2: incoming vs outgoing vs edge-based Bellman-Ford")


# --- Section 4.1: transfers ------------------------------------------------------------------------

TRANSFERS = "an2017_transfers"


def _bench(benchmarks: dict | None) -> pd.DataFrame:
    b = (benchmarks or {}).get(TRANSFERS)
    if b is None or b.empty:
        return pd.DataFrame()
    return b


def compare_transfers(runs: pd.DataFrame, stats: dict, published: pd.DataFrame,
                      benchmarks: dict | None = None) -> pd.DataFrame:
    where_share = "section 4.1, figure on the right"
    where_pin = "section 4.1, figure on the left"
    share_pub = _pub(published, "Section 4.1", "basic version", "transfer share of total time")
    rows = []
    # The basic version's runs: upload (pageable, as the harness uploads) against solve.
    m = medians(runs, stats)
    m = m[m["variant"].isin([BASIC, "an_bf_dense"]) | (m["solver"] == "an_bf_dense")]
    if m.empty:
        for g in _graphs(runs, stats):
            rows.append(_row("transfer share of total time, basic version", g,
                             stats.get(g, {}).get("vertices"), f"{share_pub}%", _not_run(runs),
                             "a.t41.share", where_share))
    for _, r in m.iterrows():
        share = 100 * r["upload_ms"] / (r["upload_ms"] + r["solve_ms"])
        rows.append(_row("transfer share of total time, basic version", r["graph"],
                         int(r["vertices"]), f"{share_pub}%",
                         f"{share:.1f}% (upload {_ms(r['upload_ms'])}, solve {_ms(r['solve_ms'])})",
                         "a.t41.share", where_share, ratio=f"{share / float(share_pub):.2f}"))
    b = _bench(benchmarks)
    ok = b[b["status"] == "ok"] if not b.empty else b
    if ok.empty:
        why = str(b["status"].iloc[0]) if not b.empty else "no benchmark in this config"
        for claim, row, column, cid in (
                ("pinned faster than pageable", "pinned vs pageable", "faster", "a.t41.pinned"),
                ("pinned advantage grows with size", "pinned vs pageable", "advantage vs size",
                 "a.t41.grows"),
                ("two streams save transfer time", "two streams", "effect", "a.t41.streams"),
                ("two streams: second part's work reduced", "two streams", "effect",
                 "a.t41.second_half")):
            rows.append(_row(claim, "", "", _pub(published, "Section 4.1", row, column), why,
                             cid, where_pin))
        return pd.DataFrame(rows, columns=COLUMNS)
    counted = [c for c in ("iterations", "second_phase_iterations") if c in ok]
    med = ok.groupby(["graph", "vertices", "matrix_bytes"], as_index=False)[
        ["pageable_ms", "pinned_ms", "solve_ms", "two_stream_ms", *counted]].median().sort_values(
        "vertices")
    speedups = []
    for _, r in med.iterrows():
        speedup = r["pageable_ms"] / r["pinned_ms"]
        speedups.append(speedup)
        gbps = r["matrix_bytes"] / 1e6
        rows.append(_row("pinned faster than pageable", r["graph"], int(r["vertices"]),
                         _pub(published, "Section 4.1", "pinned vs pageable", "faster"),
                         f"pageable {_ms(r['pageable_ms'])} ({gbps / r['pageable_ms']:.1f} GB/s), "
                         f"pinned {_ms(r['pinned_ms'])} ({gbps / r['pinned_ms']:.1f} GB/s)",
                         "a.t41.pinned", where_pin,
                         ratio=f"{speedup:.2f}", note="ratio: pageable / pinned time"))
    if len(med) > 1:
        saved = (med["pageable_ms"] - med["pinned_ms"]).to_numpy()
        rows.append(_row("pinned advantage grows with size", f"{len(med)} sizes", "",
                         _pub(published, "Section 4.1", "pinned vs pageable", "advantage vs size"),
                         "speedup " + ", ".join(f"{s:.2f}" for s in speedups)
                         + "; ms saved " + ", ".join(f"{x:.3g}" for x in saved),
                         "a.t41.grows", where_pin,
                         note="judged on the speedup's growth; the ms saved grow with size "
                              "whenever pinned is faster"))
    for _, r in med.iterrows():
        sequential = r["pinned_ms"] + r["solve_ms"]
        saved = sequential - r["two_stream_ms"]
        rows.append(_row("two streams save transfer time", r["graph"], int(r["vertices"]),
                         _pub(published, "Section 4.1", "two streams", "effect"),
                         f"two streams {_ms(r['two_stream_ms'])} vs upload then solve "
                         f"{_ms(sequential)} (pinned): {saved:.3g} ms saved, "
                         f"{100 * saved / r['pinned_ms']:.0f}% of the upload",
                         "a.t41.streams", "section 4.1",
                         ratio=f"{sequential / r['two_stream_ms']:.2f}",
                         note="ratio: sequential / two-stream time"))
        if "second_phase_iterations" in med:
            rows.append(_row("two streams: second part's work reduced", r["graph"],
                             int(r["vertices"]), "dramatically reduced",
                             f"{r['second_phase_iterations']:.0f} iterations after both halves "
                             f"are up, against {r['iterations']:.0f} from scratch",
                             "a.t41.second_half", "section 4.1"))
    if "second_phase_iterations" not in med:
        rows.append(_row("two streams: second part's work reduced", f"{len(med)} sizes", "",
                         "dramatically reduced", "not counted in this benchmark table",
                         "a.t41.second_half", "section 4.1"))
    return pd.DataFrame(rows, columns=COLUMNS)


def figure_transfers(runs: pd.DataFrame, ax, benchmarks: dict | None = None) -> None:
    b = _bench(benchmarks)
    ok = b[b["status"] == "ok"] if not b.empty else b
    if ok.empty:
        _no_data(ax, str(b["status"].iloc[0]) if not b.empty else "no transfer benchmark")
        return
    med = ok.groupby(["vertices", "matrix_bytes"], as_index=False)[
        ["pageable_ms", "pinned_ms", "solve_ms", "two_stream_ms"]].median().sort_values("vertices")
    fig = ax.figure
    ax.remove()
    left, right = fig.subplots(1, 2)
    mb = med["matrix_bytes"] / 2**20
    left.plot(mb, med["pageable_ms"], marker="o", label="pageable")
    left.plot(mb, med["pinned_ms"], marker="o", label="pinned")
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("matrix, MiB")
    left.set_ylabel("host-to-device, ms (median)")
    left.set_title("4.1 left: pageable vs pinned", fontsize=9)
    left.legend(fontsize=7)
    share = 100 * med["pageable_ms"] / (med["pageable_ms"] + med["solve_ms"])
    right.plot(med["vertices"], share, marker="o", label="transfer share, basic (pageable)")
    right.plot(med["vertices"], 100 * med["two_stream_ms"] / (med["pinned_ms"] + med["solve_ms"]),
               marker="s", label="two streams / sequential (pinned)")
    right.axhline(50, color="grey", lw=0.8, ls="--")
    right.set_xscale("log", base=2)
    right.set_ylim(bottom=0)
    right.set_xlabel("vertices")
    right.set_ylabel("%")
    right.set_title("4.1 right: transfer share; two-stream time", fontsize=9)
    right.legend(fontsize=7)


def _no_data(ax, why: str) -> None:
    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    ax.figure.set_size_inches(5, 0.6)


target(Target("an2017_fig1", "an2017", "Figure 1",
              "dense edge-parallel Bellman-Ford: time against vertices for 1..64 edges per thread "
              "(coalesced), and which setting is fastest",
              solvers=tuple(dense_run(k) for k in EDGES_PER_THREAD),
              compare=compare_fig1, figure=figure_fig1, evidence=evidence_fig1))
target(Target("an2017_coalescing", "an2017", "Section 4.2 (coalescing)",
              "coalesced vs non-coalesced index orders (chunked: k consecutive entries per thread; "
              f"transposed: lanes down a column) at {' and '.join(map(str, COALESCING_EPT))} edges "
              "per thread",
              solvers=tuple(dense_run(k, o) for k in COALESCING_EPT
                            for o in ("coalesced",) + NONCOALESCED),
              compare=compare_coalescing, figure=figure_coalescing,
              evidence=evidence_coalescing))
target(Target("an2017_fig2", "an2017", "Figure 2",
              "incoming (pull, no atomics) vs outgoing (push, atomicMin) vs the basic edge version; "
              "the edge-list version beside them",
              solvers=(BASIC, "an_bf_incoming", "an_bf_outgoing", "an_bf_edgelist"),
              compare=compare_fig2, figure=figure_fig2, evidence=evidence_fig2))
target(Target("an2017_transfers", "an2017", "Section 4.1",
              "host-to-device transfer of the matrix from pageable vs pinned memory, the two-stream "
              "overlap, and the transfer share of the basic version's total time",
              solvers=(BASIC,), compare=compare_transfers, figure=figure_transfers,
              benchmarks=(TRANSFERS,), evidence=evidence_transfers))
