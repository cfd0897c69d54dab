"""frontier_sssp's table (issue 21): our runs beside the documents' and the peers' numbers,
which are compared only on the graphs the peers ran on."""

import numpy as np
import pandas as pd

from graphrepro.experiments import get_target, published
from graphrepro.experiments.frontier import (
    PEER_LABEL,
    compare_frontier,
    summary_frontier,
)


def runs_table(graph, times):
    rows = []
    for variant, ms in times.items():
        for source in range(3):
            rows.append({"graph": graph, "solver": variant, "variant": variant, "source": source,
                         "trial": 0, "status": "ok", "solve_ms": ms + source * 0.1,
                         "arcs_relaxed": 1.2e6, "iterations": 9000.0, "grid_syncs": 2.0,
                         "vertices_popped": 2.0e5, "vertices_expanded": 3.0e5})
    return pd.DataFrame(rows)


def stats(dataset, kind, scale=1.0):
    return {"vertices": 264346, "arcs": 733846, "stands_for": None,
            "origin": {"dataset": dataset, "kind": kind, "scale": scale}}


def test_the_peers_are_compared_on_their_own_graph_only():
    runs = pd.concat([runs_table("ny", {"frontier": 9.0, "lbr_persistent": 19.0, "dijkstra": 40.0}),
                      runs_table("ny_small", {"frontier": 1.0})])
    st = {"ny": stats("ny", "real"), "ny_small": stats("ny", "stand-in", 0.001)}
    table = compare_frontier(runs, st, published("graphrepro"))
    ours = table[(table["graph"] == "ny") & (table["solver"] == "frontier")].iloc[0]
    assert np.isclose(ours["median (ms)"], 9.1) and ours["ADDS (ms)"] == 8.8
    assert np.isclose(ours["ours / ADDS"], 9.1 / 8.8) and ours["goal (ms)"] == 4.4
    assert ours["against the goal"].startswith("goal missed") and "2.07x" in ours["against the goal"]
    assert np.isclose(ours["arcs relaxed / arc"], 1.2e6 / 733846)
    peers = table[table["from"] == PEER_LABEL]
    assert set(peers["graph"]) == {"ny", "ny_small"}
    assert peers[peers["graph"] == "ny"]["solver"].str.startswith("ADDS").any()
    small = table[(table["graph"] == "ny_small") & (table["solver"] == "frontier")].iloc[0]
    assert pd.isna(small["ours / ADDS"]) and small["against the goal"].startswith("measured")
    assert peers[peers["graph"] == "ny_small"]["against the goal"].str.contains("not this graph").all()
    text = summary_frontier(table.astype(str).replace("nan", ""))
    assert "lbr_persistent" in text and "ADDS" in text


def test_the_target_is_ready_and_its_peers_are_transcribed_with_where():
    t = get_target("frontier_sssp")
    assert t.ready and t.document == "graphrepro" and "frontier" in t.solvers
    pub = published("graphrepro")
    assert set(pub["column"]) == {"ny", "calnev", "western"}
    assert pub["where"].str.contains("measured once outside the workflow, H100, 2026-11-24").all()


def test_no_gpu_rows_say_so():
    runs = runs_table("ny", {"dijkstra": 40.0})
    gpu = runs.iloc[:1].assign(solver="frontier", variant="frontier",
                               status="not run: no CUDA device", solve_ms=np.nan)
    table = compare_frontier(pd.concat([runs, gpu]), {"ny": stats("ny", "real")},
                             published("graphrepro"))
    row = table[table["solver"] == "frontier"].iloc[0]
    assert row["median (ms)"] == "not run: no CUDA device"
    assert "No GPU run" in summary_frontier(table.astype(str))
