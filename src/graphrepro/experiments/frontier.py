"""``frontier_sssp``: today's best, beside the documents (issues 21 and 33).

The study's own GPU SSSP (``frontier``) beside the peers, ADDS and Gunrock, built from their
public source and run by the workflow in the same run (document ``peer``, issue 33), each
document's best variant on the road graphs (real NY first, then the stand-ins), and the CPU
baselines. Each solver's time is set beside the fastest peer's on the same graph from the same run
(``/ fastest peer``: its median over the peer's). A peer that hung is counted (``hung``), not
dropped. The peers' own timers are shown beside our CUDA events around their call
(``peer's own timer (ms)``). Each measured row carries the counters that explain its time: vertex
pops and expansions per vertex, arcs relaxed per arc, rounds and grid syncs.

The goals are issue 21's (H100): real NY <= 4.4 ms median per source, western stand-in <= 15 ms,
calnev stand-in <= 8 ms, exact on every source. Exactness is not a column: a wrong distance
fails the run before any time is written. No number is typed in: BGL's row is the workflow's own
``bgl_dijkstra`` run where Boost is there.
"""

from __future__ import annotations

import pandas as pd

from .registry import Target, target
from .measured import median_counter, per_source, run_status, summarise_times, time_bars

DOCUMENT = "graphrepro"
ITEM = "today's best, beside the documents"
OURS = "frontier"
PEERS = ("adds", "gunrock")  # document `peer`, built from source (issue 33)
# The peers, each document's best variant on road graphs (their own targets' tables), then the CPU.
SOLVERS = (OURS, *PEERS, "lbr_persistent", "workfront", "hybrid", "nearfar", "harish", "dijkstra",
           "bgl_dijkstra")
PEER_FROM = "peer (built from source)"
FROM = {OURS: "graphrepro (ours)", "adds": PEER_FROM, "gunrock": PEER_FROM,
        "lbr_persistent": "safari2017", "harish": "safari2017", "workfront": "senthilkumar",
        "hybrid": "senthilkumar", "nearfar": "senthilkumar", "dijkstra": "CPU baseline",
        "bgl_dijkstra": "CPU baseline"}
GOALS_MS = {"ny": 4.4, "western": 15.0, "calnev": 8.0}
COLUMNS = ["graph", "vertices", "arcs", "solver", "from", "median (ms)", "IQR (ms)",
           "mean (ms)", "sources", "hung", "peer setting", "peer's own timer (ms)", "pops / vertex",
           "expansions / vertex", "arcs relaxed / arc", "rounds", "grid syncs", "idle scans",
           "fastest peer", "fastest peer (ms)", "/ fastest peer", "goal (ms)", "against the goal"]


# The graphs issue 21's goals are for: the real NY file, our full-size stand-ins.
PEER_GRAPHS = {"ny": "real", "calnev": "stand-in", "western": "stand-in"}


def _dataset(stats: dict, graph: str) -> str | None:
    """The issue's graph this one is (ny, calnev, western), or None: the goals hold only for the
    graph they were set for, at full size, with its weights."""
    origin = (stats.get(graph) or {}).get("origin") or {}
    key = origin.get("dataset")
    if (key not in PEER_GRAPHS or origin.get("reweight") or origin.get("kind") != PEER_GRAPHS[key]
            or float(origin.get("scale") or 1) != 1):
        return None
    return key


def _is_peer(variant: str) -> bool:
    return variant.split("@")[0] in PEERS


def _fastest_peer(times: pd.DataFrame, graph: str) -> tuple[str | None, float | None]:
    """The peer run (any variant) with the lowest median on this graph in this run."""
    mine = times[(times["graph"] == graph) & times["variant"].map(_is_peer)]
    if mine.empty:
        return None, None
    best = mine.loc[mine["median_ms"].idxmin()]
    return str(best["variant"]), float(best["median_ms"])


def _peer_setting(times: pd.DataFrame, graph: str, variant: str) -> str | None:
    """Where this setting of a peer's launch grid (``solvers.peer.peers.LAUNCH_GRID``) stands
    among the settings of the same peer timed on this graph in this run: "best of 4", "3rd of 4"
    (issue 54: a peer is judged at its best setting, and the table says which one won)."""
    if not _is_peer(variant):
        return None
    peer = variant.split("@")[0]
    mine = times[(times["graph"] == graph) & (times["variant"].str.split("@").str[0] == peer)]
    if variant not in set(mine["variant"]):
        return None
    order = list(mine.sort_values("median_ms")["variant"])
    rank = order.index(variant) + 1
    if rank == 1:
        return f"best of {len(order)}" if len(order) > 1 else "the only one run"
    return f"{rank}{ {2: 'nd', 3: 'rd'}.get(rank, 'th')} of {len(order)}"


def _hung(here: pd.DataFrame, variant: str) -> int | None:
    """Sources a peer hung on (or gave up on after hanging): issue 33's hangs, recorded."""
    if not _is_peer(variant):
        return None
    mine = here[here["variant"] == variant]
    status = mine["status"].astype(str)
    hung = status.str.contains("hung")
    if not (hung | (status == "ok")).any():
        return None  # it did not run here (no GPU, not built): no hang to count
    return int(mine.loc[hung, "source"].nunique())


def compare_frontier(runs: pd.DataFrame, stats: dict, published: pd.DataFrame) -> pd.DataFrame:
    if "variant" not in runs:
        runs = runs.assign(variant=runs["solver"])
    times = summarise_times(runs)
    rows = []
    for graph in pd.unique(runs["graph"]):  # config order: real NY first
        info = stats.get(graph) or {}
        dataset = _dataset(stats, graph)
        fastest, fastest_ms = _fastest_peer(times, graph)
        base = {"graph": graph, "vertices": info.get("vertices"), "arcs": info.get("arcs"),
                "fastest peer": fastest, "fastest peer (ms)": fastest_ms}
        here = runs[runs["graph"] == graph]
        for variant in pd.unique(here["variant"]):
            solver = variant.split("@")[0]
            row = {**base, "solver": variant, "from": FROM.get(solver, ""),
                   "hung": _hung(here, variant), "peer setting": _peer_setting(times, graph, variant)}
            t = times[(times["graph"] == graph) & (times["variant"] == variant)]
            if t.empty:
                row["median (ms)"] = run_status(here, variant)
                row["against the goal"] = "not run"
                rows.append(row)
                continue
            s = t.iloc[0]
            ms = float(s["median_ms"])

            def counter(name, per=None, graph=graph, variant=variant):
                value = median_counter(runs, graph, variant, name)
                return value / per if value is not None and per else value

            row.update({
                "median (ms)": ms, "IQR (ms)": f"{s['q25_ms']:.4g}-{s['q75_ms']:.4g}",
                "mean (ms)": float(s["mean_ms"]), "sources": int(s["sources"]),
                "peer's own timer (ms)": counter("peer_ms"),
                "pops / vertex": counter("vertices_popped", info.get("vertices")),
                "expansions / vertex": counter("vertices_expanded", info.get("vertices")),
                "arcs relaxed / arc": counter("arcs_relaxed", info.get("arcs")),
                "rounds": counter("iterations"), "grid syncs": counter("grid_syncs"),
                "idle scans": counter("idle_scans"),
                "/ fastest peer": ms / fastest_ms if fastest_ms else None})
            if solver == OURS and dataset:
                row["goal (ms)"] = GOALS_MS[dataset]
            row["against the goal"] = _against_goal(solver, ms, dataset)
            rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def _against_goal(solver: str, ms: float, dataset: str | None) -> str:
    """Our own benchmark goal (issue 21), not a document's claim: it stays out of the ledger."""
    if solver in PEERS:
        return "peer"
    if solver != OURS:
        return "measured"
    if dataset is None:
        return "measured (the goals are for real NY and the full-size stand-ins)"
    goal = GOALS_MS[dataset]
    if ms <= goal:
        return f"goal met: {ms:.3g} ms <= {goal:g} ms"
    return f"goal missed: {ms:.3g} ms, {ms / goal:.2f}x the {goal:g} ms goal"


def _num(value) -> float | None:
    number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
    return None if pd.isna(number) else float(number)


def summary_frontier(table: pd.DataFrame) -> str:
    solver = table["solver"].astype(str).str.split("@").str[0]
    ours = table[solver == OURS]
    timed = ours[pd.to_numeric(ours["median (ms)"], errors="coerce").notna()]
    if timed.empty:
        return ("No GPU run in this config: frontier's and the peers' times are untested here "
                "(their rows say why).")
    parts = []
    for _, r in timed.iterrows():
        graph_rows = table[table["graph"] == r["graph"]]
        measured = graph_rows[pd.to_numeric(graph_rows["median (ms)"], errors="coerce").notna()]
        docs = measured[~measured["from"].isin(["graphrepro (ours)", "CPU baseline", PEER_FROM])]
        text = f"{r['graph']}: frontier {float(r['median (ms)']):.3g} ms"
        ratio = _num(r.get("/ fastest peer"))
        if ratio is not None:
            fastest = graph_rows[graph_rows["solver"] == r["fastest peer"]]
            # a table made before the peers' launch grid (reference run 3) has no such column
            setting = (str(fastest["peer setting"].iloc[0])
                       if len(fastest) and "peer setting" in fastest else "")
            at = f", {setting} settings" if setting.startswith("best of") else ""
            text += (f", {ratio:.2f}x the fastest peer's time ({r['fastest peer']} "
                     f"{_num(r['fastest peer (ms)']):.3g} ms{at}, same run)")
        if len(docs):
            best = docs.loc[pd.to_numeric(docs["median (ms)"]).idxmin()]
            text += (f"; the documents' best, {best['solver']}, "
                     f"{float(best['median (ms)']):.3g} ms")
        hung = pd.to_numeric(graph_rows["hung"], errors="coerce").fillna(0)
        if hung.sum():
            text += f"; a peer hung on {int(hung.sum())} source(s)"
        text += f"; {r['against the goal']}"
        parts.append(text)
    return ("; ".join(parts) + ". Peers (ADDS, Gunrock) built from their public source and run "
            "in the same workflow run; every distance was checked against the CPU Dijkstra.")


def figure_frontier(runs: pd.DataFrame, ax) -> None:
    src = per_source(runs)
    if src.empty:
        ax.text(0.5, 0.5, run_status(runs, OURS) or "no solver ran", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        ax.figure.set_size_inches(5, 0.6)
        return
    time_bars(src, pd.unique(runs["graph"]), "variant", list(pd.unique(src["variant"])),
              "today's best, beside the documents: frontier, the peers and each document's best", ax)


target(Target("frontier_sssp", DOCUMENT, ITEM,
              "the study's own GPU SSSP (frontier) beside the peers (ADDS, Gunrock: built from "
              "their source, same run), each document's best variant and the CPU baselines, "
              "with the counters that explain its time and its ratio to the fastest peer",
              solvers=SOLVERS, compare=compare_frontier, figure=figure_frontier,
              summary=summary_frontier, prints=True, shows_every_run=True))  # a row per run
