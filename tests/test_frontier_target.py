"""frontier_sssp's table (issues 21, 33): our runs beside the peers' from the same run (the
fastest peer per graph) and the documents'; the goals hold only on their own graphs."""

import numpy as np
import pandas as pd

from graphrepro.experiments import get_target, published
from graphrepro.experiments.frontier import (
    PEER_FROM,
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


def test_every_solver_is_set_beside_the_fastest_peer_of_the_same_run():
    runs = pd.concat([runs_table("ny", {"frontier": 9.0, "adds": 8.4, "gunrock": 95.0,
                                        "lbr_persistent": 19.0, "dijkstra": 40.0}),
                      runs_table("ny_small", {"frontier": 1.0, "gunrock": 4.0})])
    runs.loc[runs["solver"] == "adds", "peer_ms"] = 8.0
    st = {"ny": stats("ny", "real"), "ny_small": stats("ny", "stand-in", 0.001)}
    table = compare_frontier(runs, st, published("graphrepro"))
    ours = table[(table["graph"] == "ny") & (table["solver"] == "frontier")].iloc[0]
    assert ours["fastest peer"] == "adds" and np.isclose(ours["fastest peer (ms)"], 8.5)
    assert np.isclose(ours["/ fastest peer"], 9.1 / 8.5) and ours["goal (ms)"] == 4.4
    assert ours["against the goal"].startswith("goal missed") and "2.07x" in ours["against the goal"]
    assert np.isclose(ours["arcs relaxed / arc"], 1.2e6 / 733846)
    adds = table[(table["graph"] == "ny") & (table["solver"] == "adds")].iloc[0]
    assert adds["from"] == PEER_FROM and adds["peer's own timer (ms)"] == 8.0 and adds["hung"] == 0
    small = table[(table["graph"] == "ny_small") & (table["solver"] == "frontier")].iloc[0]
    assert small["fastest peer"] == "gunrock" and np.isclose(small["/ fastest peer"], 1.1 / 4.1)
    assert small["against the goal"].startswith("measured")
    # no number is typed in: every row is a run of this table's runs
    assert set(table["solver"]) <= set(runs["solver"])
    assert not table["against the goal"].astype(str).str.contains("transcribed").any()
    text = summary_frontier(table.astype(str).replace("nan", ""))
    assert "lbr_persistent" in text and "fastest peer" in text and "adds" in text


def test_a_hung_peer_is_counted_and_the_others_still_compare():
    runs = runs_table("ny", {"frontier": 9.0, "gunrock": 95.0})
    hung = pd.DataFrame([{"graph": "ny", "solver": "adds", "variant": "adds", "source": s,
                          "trial": np.nan, "status": "hung" if s == 0 else "not run: adds hung 2 "
                          "times"} for s in range(3)])
    table = compare_frontier(pd.concat([runs, hung]), {"ny": stats("ny", "real")},
                             published("graphrepro"))
    adds = table[table["solver"] == "adds"].iloc[0]
    assert adds["hung"] == 3 and adds["median (ms)"] == "hung"
    ours = table[table["solver"] == "frontier"].iloc[0]
    assert ours["fastest peer"] == "gunrock"
    assert "hung on 3 source(s)" in summary_frontier(table.astype(str).replace("nan", ""))


def test_the_target_is_ready_and_runs_the_peers():
    t = get_target("frontier_sssp")
    assert t.ready and t.document == "graphrepro" and {"frontier", "adds", "gunrock"} <= set(t.solvers)
    pub = published("graphrepro")
    assert not pub["row"].str.contains("ADDS|Gunrock").any()  # measured by the workflow now
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


def test_a_peer_is_judged_at_the_best_setting_of_its_grid_and_the_table_says_which():
    runs = runs_table("ny", {"frontier": 9.0, "adds": 8.4, "adds@launch=host": 7.9,
                             "adds@blocks_per_sm=2": 8.8, "gunrock": 95.0})
    table = compare_frontier(runs, {"ny": stats("ny", "real")}, published("graphrepro"))
    by = table.set_index("solver")
    assert by.loc["frontier", "fastest peer"] == "adds@launch=host"
    assert np.isclose(by.loc["frontier", "/ fastest peer"], 9.1 / 8.0)
    assert by.loc["adds@launch=host", "peer setting"] == "best of 3"
    assert by.loc["adds", "peer setting"] == "2nd of 3"
    assert by.loc["adds@blocks_per_sm=2", "peer setting"] == "3rd of 3"
    assert by.loc["gunrock", "peer setting"] == "the only one run"
    assert pd.isna(by.loc["frontier", "peer setting"])
    text = summary_frontier(table.astype(str).replace("nan", ""))
    assert "adds@launch=host 8 ms, best of 3 settings, same run" in text


def test_the_summary_reads_a_table_made_before_the_peers_launch_grid():
    """A table tabulated before the launch grid has no "peer setting" column (run 3's, until it
    was retabulated): the page's summary must still read it (it said "summary unavailable:
    KeyError")."""
    from pathlib import Path

    import pandas as pd

    table = pd.read_csv(Path(__file__).resolve().parents[1] / "reports" / "reference" / "targets"
                        / "frontier_sssp.csv", dtype=str, keep_default_na=False)
    table = table.drop(columns=["peer setting"], errors="ignore")
    assert summary_frontier(table).startswith("ny: frontier 6.63 ms, 0.89x the fastest peer's")
