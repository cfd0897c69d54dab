"""Benchmark (not a test): frontier on graphs it was never tuned on, against each peer at every
setting of its launch grid (issue 54).

    python benchmarks/frontier_heldout.py GRAPH.npz [GRAPH.npz ...] [--uniform] [--grid 1000]
        [--sources 10] [--trials 3] [--gunrock-sources 3] --csv summary.csv --per-source src.csv

frontier's defaults were set on the tuning set (real NY, the calnev and western stand-ins:
reports/evidence/frontier*/); every graph given here is held out. Per graph, one job times
frontier, workfront, lbr_persistent, harish and ADDS at each setting of
``solvers.peer.peers.LAUNCH_GRID`` interleaved per (source, trial) (``measure_interleaved``: the
same seeded sources from the largest component, a verified warm-up, every pass checked against
the CPU Dijkstra before its time is kept, our CUDA events beside the peer's own timer). Gunrock's
grid is timed after them on the first ``--gunrock-sources`` sources, one trial each: it is 10-40x
slower than ADDS on road graphs (reference run 3), so it can only be the fastest peer where the
table shows it.

Per graph: each run's median of per-source medians, min-max over its passes, the peer's own
timer, and for frontier the per-source paired ratio against the fastest peer setting (the one with
the lowest median on that graph) with the count of sources where frontier is faster. Goals
(issue 54): frontier <= 0.5x the best peer setting on every held-out road graph, <= 1.0x the
fastest of (best peer setting, workfront) on the uniform random and web graphs, and never slower
than any document solver.

Issue 54 item 4: ``--runs`` may name frontier's designs (``frontier@warp_push=1``,
``frontier@spread=1``, ``frontier@order=1`` and any mix); every frontier run's row carries the
median over sources of each counter its counting pass reports (``c_<counter>``: pushes, direct
pushes, warp reservations, hub pieces, idle scans, ...) and its per-source paired ratio against
plain ``frontier``, so a call shows which design moved which counter and what that did to the
time. A frontier run that fails its first verified solve on a graph (a design's bug, said in one
line) is left out of that graph's group instead of ending the call.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

from graphrepro import gpu, verify
from graphrepro.cli import load_graph
from graphrepro.graph.generate import random_digraph, road_grid
from graphrepro.harness import RunSpec, draw_sources
from graphrepro.harness.measure import measure_interleaved
from graphrepro.solvers import resolve
from graphrepro.solvers.frontier.kernel import TALLIES
from graphrepro.solvers.peer.peers import LAUNCH_GRID

OURS = "frontier"
DOCUMENT_SOLVERS = ("workfront", "lbr_persistent", "harish")
PEER_PARAMS = {"deadline_s": 2.0, "max_hangs": 1}  # a solve takes milliseconds: a hang costs 2 s
ROAD_GOAL, OTHER_GOAL = 0.5, 1.0
# frontier's counters beside its times: the kernel's tallies and what the host reports per solve
COUNTERS = (*TALLIES, "delta", "spread_piece", "renumbered", "redundant_relaxations")


def is_peer(run_id: str) -> bool:
    return run_id.split("@")[0] in LAUNCH_GRID


def is_ours(run_id: str) -> bool:
    return run_id.split("@")[0] == OURS


def counter_medians(table: pd.DataFrame) -> dict:
    """Each counter's median over sources (a counting pass per source; its trials repeat it)."""
    ok = table[table["status"] == "ok"]
    cols = [c for c in COUNTERS if c in ok]
    if ok.empty or not cols:
        return {}
    per = ok.groupby("source")[cols].first().median()
    return {f"c_{c}": float(per[c]) for c in cols}


def paired(src: pd.DataFrame, ours: str, theirs: str) -> pd.Series:
    """Per-source ratio of two runs' medians (their common sources)."""
    a = src[src["run"] == ours].set_index("source")["median_ms"]
    b = src[src["run"] == theirs].set_index("source")["median_ms"]
    return (a / b).dropna()


def runnable(graph, run_id, source, digest) -> str:
    """'' when our run solves ``source`` exactly here, else why not, in one line: a design that
    fails on one graph must not end the call for every other run and graph."""
    if not is_ours(run_id) or not gpu.cuda_available():
        return ""  # no GPU here: the run's rows say so
    solver, params = resolve(run_id)
    try:
        prepared = solver.prepare(graph, **params)
        verify.check(graph, source, prepared.solve(source).distances, solver=run_id,
                     expected_digest=digest)
    except Exception as e:  # any failure: the run is left out, with its reason
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return ""


def spec(run_id, sources, digests, trials):
    params = dict(PEER_PARAMS) if is_peer(run_id) else {}
    return RunSpec(run_id, list(sources), list(digests), params=params, trials=trials, warmup=1)


def per_source(table: pd.DataFrame, run_id: str, group: str) -> pd.DataFrame:
    ok = table[table["status"] == "ok"]
    if ok.empty:
        return pd.DataFrame(columns=["run", "group", "source", "median_ms", "peer_ms"])
    agg = {"median_ms": ("solve_ms", "median")}
    if "peer_ms" in ok:
        agg["peer_ms"] = ("peer_ms", "median")
    out = ok.groupby("source").agg(**agg).reset_index()
    return out.assign(run=run_id, group=group)


def summarise(graph, kind, tables, src) -> list[dict]:
    rows = []
    medians = src.groupby("run")["median_ms"].median()
    peers = medians[[is_peer(r) for r in medians.index]]
    best_peer = peers.idxmin() if len(peers) else None
    for run_id, table in tables.items():
        ok = table[table["status"] == "ok"]
        status = set(table["status"].astype(str))
        row = {"graph": graph.name, "kind": kind, "vertices": graph.num_vertices,
               "arcs": graph.num_arcs, "run": run_id,
               "from": "peer" if is_peer(run_id) else ("ours" if is_ours(run_id) else "document"),
               "sources": int(ok["source"].nunique()), "passes_verified": len(ok),
               "not_ok": "; ".join(sorted(s for s in status if s != "ok")),
               "median_ms": float(medians.get(run_id, np.nan)),
               "min_ms": float(ok["solve_ms"].min()) if len(ok) else np.nan,
               "max_ms": float(ok["solve_ms"].max()) if len(ok) else np.nan,
               "peer_own_ms": float(src.loc[src["run"] == run_id, "peer_ms"].median())
               if "peer_ms" in src and is_peer(run_id) else np.nan,
               "best_peer_setting": run_id == best_peer}
        if is_ours(run_id) and best_peer is not None:
            ratio = paired(src, run_id, best_peer)
            row.update({"best_peer": best_peer, "paired_ratio_median": float(ratio.median()),
                        "paired_ratio_min": float(ratio.min()),
                        "paired_ratio_max": float(ratio.max()),
                        "sources_frontier_faster": int((ratio < 1).sum()),
                        "sources_paired": len(ratio)})
        if is_ours(run_id):
            row.update(counter_medians(table))
            if run_id != OURS and OURS in tables:
                design = paired(src, run_id, OURS)
                row.update({"vs_frontier_paired_median": float(design.median()),
                            "sources_faster_than_frontier": int((design < 1).sum())})
        rows.append(row)
    return rows


def counter_line(row: dict) -> str:
    """The counters item 4's designs move, one line (medians over sources)."""
    names = ("claims", "vertices_pushed", "direct_pushes", "warp_reservations", "hub_expansions",
             "pieces_taken", "idle_scans", "arcs_relaxed")
    text = " ".join(f"{n}={row[f'c_{n}']:,.0f}" for n in names if f"c_{n}" in row)
    if "vs_frontier_paired_median" in row:
        text += (f"; / frontier {row['vs_frontier_paired_median']:.3f} paired, faster on "
                 f"{row['sources_faster_than_frontier']} sources")
    return text


def goal_line(rows: list[dict]) -> str:
    ours = next((r for r in rows if r["run"] == OURS), None)
    if ours is None or "best_peer" not in ours:
        return "no goal: frontier or every peer setting did not run"
    by = {r["run"]: r["median_ms"] for r in rows}
    ratio = ours["median_ms"] / by[ours["best_peer"]]
    if ours["kind"].startswith("road"):
        goal, against = ROAD_GOAL, f"best peer setting {ours['best_peer']}"
    else:
        rival = min((ours["best_peer"], "workfront"), key=lambda r: by.get(r, np.inf))
        goal, against = OTHER_GOAL, f"fastest of best peer setting and workfront ({rival})"
        ratio = ours["median_ms"] / by[rival]
    docs = [r for r in DOCUMENT_SOLVERS if by.get(r, np.inf) < ours["median_ms"]]
    text = (f"frontier {ours['median_ms']:.3f} ms = {ratio:.3f}x the {against}: goal <= {goal} "
            f"{'MET' if ratio <= goal else 'MISSED'}; faster on {ours['sources_frontier_faster']}"
            f"/{ours['sources_paired']} sources than {ours['best_peer']}")
    if docs:
        text += f"; slower than document solver(s) {', '.join(docs)}"
    return text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("graphs", nargs="*", help=".npz caches (their origin says road or not)")
    p.add_argument("--kinds", nargs="*", default=[], help="NAME=KIND for each graph (road/...)")
    p.add_argument("--uniform", action="store_true", help="the 1M-vertex, 8M-arc uniform graph")
    p.add_argument("--grid", type=int, default=0, help="a full SIDE x SIDE 2-D grid, 1..1000")
    p.add_argument("--sources", type=int, default=10)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--gunrock-sources", type=int, default=3, help="0: Gunrock not run")
    p.add_argument("--runs", nargs="+", help="the interleaved group instead of frontier, the "
                   "document solvers and ADDS's grid (a sweep on the tuning set)")
    p.add_argument("--seed", type=int, default=20170901)
    p.add_argument("--csv", required=True, help="the summary, rewritten after every graph")
    p.add_argument("--per-source", required=True, help="per-source medians of every run")
    args = p.parse_args(argv)

    kinds = dict(k.split("=", 1) for k in args.kinds)
    print(f"device {gpu.device_name()}", flush=True)
    loaders = [(lambda path=path: load_graph(path)) for path in args.graphs]
    if args.grid:
        side = args.grid
        loaders.append(lambda: road_grid(side, side, keep=1.0, max_weight=1000, seed=54,
                                         name=f"grid_{side}x{side}_w1000"))
        kinds[f"grid_{side}x{side}_w1000"] = "grid"
    if args.uniform:
        loaders.append(lambda: random_digraph(1_000_000, 8_000_000, max_weight=1000, seed=13,
                                              name="uniform_1m"))
        kinds["uniform_1m"] = "uniform"
    rows, per = [], []
    fast = args.runs or [OURS, *DOCUMENT_SOLVERS, *LAUNCH_GRID["adds"]]
    for load in loaders:
        t0 = time.perf_counter()
        graph = load()
        kind = kinds.get(graph.name, "road")
        sources = [int(s) for s in draw_sources(graph, args.sources, args.seed)]
        digests, _ = verify.reference_digests(graph, sources, workers=8)
        w = np.asarray(graph.weights, dtype=np.float64)
        print(f"\n{graph.name} ({kind}): {graph.num_vertices:,} V, {graph.num_arcs:,} A; weights "
              f"mean {w.mean():.1f}, median {np.median(w):.0f}, cv {w.std() / w.mean():.2f}, "
              f"{w.min():.0f}..{w.max():.0f}; {len(sources)} sources; "
              f"{time.perf_counter() - t0:.1f} s to build and reference", flush=True)
        left_out = {r: why for r in fast if (why := runnable(graph, r, sources[0], digests[0]))}
        for r, why in left_out.items():
            print(f"  {r}: left out on {graph.name}: {why}", flush=True)
        group = [r for r in fast if r not in left_out]
        specs = [spec(r, sources, digests, args.trials) for r in group]
        tables = dict(zip(group, measure_interleaved(graph, specs, log=lambda m: None)))
        g = args.gunrock_sources
        for run_id in LAUNCH_GRID["gunrock"] if g else ():
            tables[run_id] = measure_interleaved(
                graph, [spec(run_id, sources[:g], digests[:g], 1)], log=lambda m: None)[0]
        src = pd.concat([per_source(t, r, "gunrock apart" if r.startswith("gunrock") else
                                    "interleaved") for r, t in tables.items()], ignore_index=True)
        per.append(src.assign(graph=graph.name))
        mine = summarise(graph, kind, tables, src)
        rows += mine
        pd.DataFrame(rows).to_csv(args.csv, index=False)  # after every graph: a cut call keeps them
        pd.concat(per, ignore_index=True).to_csv(args.per_source, index=False)
        for r in mine:
            print(f"  {r['run']:36s} {r['median_ms']:9.3f} ms ({r['min_ms']:.3f}-{r['max_ms']:.3f})"
                  f" {r['sources']} src{'  BEST PEER' if r['best_peer_setting'] else ''}"
                  f"{'  ' + r['not_ok'] if r['not_ok'] else ''}", flush=True)
            if "c_claims" in r:
                print("    " + counter_line(r), flush=True)
        print(f"  {goal_line(mine)}  [{time.perf_counter() - t0:.0f} s]", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
