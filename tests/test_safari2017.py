"""safari2017's locality-based relaxation (Alg. 6-9) and its persistent variant, in the CUDA
simulator, and the Fig. 3 / Fig. 4 / Table 2 / CalNev tables built from real runs of them."""

import json
import subprocess
import sys

from gpu_cases import solve_checked, with_zero_weights_and_an_island

import pandas as pd
import pytest

from graphrepro import verify
from graphrepro.errors import InputError
from graphrepro.experiments import published
from graphrepro.experiments.safari2017 import (compare_calnev, compare_fig3, compare_fig4,
                                               compare_table2, summary_fig3, summary_fig4)
from graphrepro.graph import degree_stats
from graphrepro.graph.csr import CSRGraph
from graphrepro.graph.generate import random_digraph, road_grid
from graphrepro.harness import RunSpec, draw_sources, measure
from graphrepro.solvers import resolve

PAPER = published("safari2017")
PERSISTENT_ROW = "LBR as one persistent kernel (this study)"


# Small blocks: the simulator runs each thread as a Python thread, and several blocks per launch
# exercise the cross-block races the flag arrays are there to prevent.
SMALL = {"threads_per_block": 32}


def solve(graph, run_id, source, **params):
    return solve_checked(graph, run_id, source, SMALL, **params)


GRAPHS = {
    "road": lambda: road_grid(9, 11, keep=0.7, max_weight=20, seed=5, name="road"),
    "random": lambda: random_digraph(120, 420, max_weight=9, seed=6, name="random"),
    "zero+island": lambda: with_zero_weights_and_an_island(
        road_grid(8, 8, keep=0.8, max_weight=6, seed=7, name="grid")),
}


@pytest.mark.parametrize("kind", sorted(GRAPHS))
@pytest.mark.parametrize("run_id", ["lbr@k=1,t=1", "lbr@k=2,t=3", "lbr@k=4,t=2,n=3",
                                    "lbr@k=5,t=4,calibration_iterations=12",
                                    "lbr_persistent@k=1,t=1", "lbr_persistent@k=4,t=2,frontier=flags",
                                    "lbr_persistent@k=3,t=3", "lbr_persistent@k=2,t=1,frontier=flags"])
def test_lbr_distances_are_exact(kind, run_id):
    graph = GRAPHS[kind]()
    for source in draw_sources(graph, 2, seed=11):
        solve(graph, run_id, int(source))


@pytest.fixture
def path_graph():
    """0 -1-> 1 -1-> 2 -1-> 3 -1-> 4, and a shortcut 0 -5-> 2 that is never the shortest."""
    return CSRGraph.from_arcs(5, [0, 0, 1, 2, 3], [1, 2, 2, 3, 4], [1, 5, 1, 1, 1], name="path")


def test_lbr_counters_on_a_hand_checked_graph(path_graph):
    # k = 2 from vertex 0. Launch 1: the wave takes 0->1 (depth 1), 1->2 (depth 2: flagged),
    # then sees 0->2 is already relaxed (5 >= 2) and backtracks: 3 arcs, 2 atomics. Launch 2:
    # 2->3, 3->4 (depth 2: flagged): 2 arcs, 2 atomics. Launch 3: vertex 4 has no arcs and flags
    # nothing, so the flag read back is false and the host stops.
    r = solve(path_graph, "lbr@k=2,t=1", 0)
    assert r.distances.tolist() == [0, 1, 2, 3, 4]
    assert r.counters == {"iterations": 3, "kernel_launches": 4, "host_round_trips": 3,
                          "blind_launches": 0, "flag_launches": 3, "arcs_relaxed": 5,
                          "atomics": 4, "improving_atomics": 4, "vertices_expanded": 3}
    # N = 1 blind launch (calibration 3 iterations // k = 2): one round trip fewer.
    r = solve(path_graph, "lbr@k=2,t=1", 0, calibration_iterations=3)
    assert (r.counters["blind_launches"], r.counters["flag_launches"],
            r.counters["host_round_trips"], r.counters["kernel_launches"]) == (1, 2, 2, 4)
    # An explicit n wins over the calibration.
    assert solve(path_graph, "lbr@k=2,t=1,n=2", 0, calibration_iterations=30).counters[
        "blind_launches"] == 2
    # The persistent kernel does the same three rounds with one launch and no round trip.
    r = solve(path_graph, "lbr_persistent@k=2,t=1", 0)
    assert {k: r.counters[k] for k in ("iterations", "kernel_launches", "host_round_trips",
                                       "arcs_relaxed", "atomics")} == {
        "iterations": 3, "kernel_launches": 1, "host_round_trips": 0, "arcs_relaxed": 5,
        "atomics": 4}


def test_lbr_rejects_bad_parameters(path_graph):
    for run_id in ("lbr@k=0", "lbr@k=9", "lbr@t=0", "lbr_persistent@threads_per_block=2048"):
        with pytest.raises(InputError):  # at resolve (generic ranges) or in the factory (k <= 5)
            spec, params = resolve(run_id)
            spec.factory(path_graph, **params)
    with pytest.raises(InputError, match="not a int"):
        resolve("lbr@k=four")


# --- the targets, from real (simulated) runs --------------------------------------------------

def run(graph, run_id, sources=2, trials=1, **params):
    picked = [int(s) for s in draw_sources(graph, sources, seed=3)]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in picked]
    small = SMALL if resolve(run_id)[0].device == "gpu" else {}
    return measure(graph, RunSpec(run_id, picked, digests, {**small, **params}, trials=trials,
                                  warmup=0),
                   log=lambda _: None)


@pytest.fixture(scope="module")
def grid():
    return road_grid(6, 7, keep=0.8, max_weight=10, seed=4, name="grid42")


@pytest.fixture(scope="module")
def runs(grid):
    harish = run(grid, "harish")
    calibration = int(harish["iterations"].min())
    return pd.concat([harish, run(grid, "lbr", calibration_iterations=calibration),
                      run(grid, "lbr_persistent"), run(grid, "dijkstra")], ignore_index=True)


@pytest.fixture(scope="module")
def stats(grid):
    return {grid.name: {**degree_stats(grid), "stands_for": "CalNev"}}


def test_runs_name_their_variant(runs):
    assert set(runs["variant"]) == {"harish", "lbr", "lbr_persistent", "dijkstra"}
    lbr = runs[runs["solver"] == "lbr"]
    assert (lbr["blind_launches"] > 0).all()  # N came from the calibration
    assert "calibration_iterations" in json.loads(lbr["params"].iloc[0])


def test_table2_lbr_rows_come_from_its_counters(runs, stats):
    table = compare_table2(runs, stats, PAPER)
    lbr = table[(table["method"] == "Proposed Algorithm") & (table["where"] == "Table 2")]
    got = dict(zip(lbr["criterion"], zip(lbr["ours"], lbr["verdict"])))
    assert got["# of kernel launches (per host iteration)"] == ("1", "holds")
    assert got["# of atomic statements"] == ("1", "holds")
    trips, verdict = got["CPU-GPU communication (# per host iteration)"]
    assert float(trips.split("-")[-1]) < 1 and verdict == "holds"  # N blind launches: no trip
    assert got["Speed up over Harish"][1] in ("holds", "differs")
    persistent = dict(zip(*[table[table["method"] == PERSISTENT_ROW][c]
                            for c in ("criterion", "ours")]))
    assert persistent["CPU-GPU communication (# per host iteration)"] == "0"
    measured = table[table["verdict"] == "measured (no published value)"]
    assert {"atomic operations executed per solve (median)"} <= set(measured["criterion"])


def test_fig3_has_speedups_and_why(runs, stats):
    table = compare_fig3(runs, stats, PAPER)
    row = table.iloc[0]
    assert row["stands for"] == "CalNev" and row["published speedup"] == 3.36
    assert row["speedup LBR / Harish"] > 0 and row["speedup persistent / Harish"] > 0
    assert row["LBR host round trips"] < row["Harish iterations"] + 1
    assert row["persistent us/round"] > 0
    assert row["verdict"].split(" ")[0] in ("holds", "differs")
    assert "3.36x" in summary_fig3(table.astype(str))


def test_fig4_finds_the_best_depth_per_vertices_per_thread(grid, stats):
    variants = ["harish", "lbr@k=1,t=1", "lbr@k=4,t=1", "lbr@k=1,t=2", "lbr@k=4,t=2"]
    runs = pd.concat([run(grid, v, sources=1) for v in variants], ignore_index=True)
    table = compare_fig4(runs, stats, PAPER)
    assert list(table["vertices per thread t"]) == [1, 2] and set(table["solver"]) == {"lbr"}
    assert set(table["best k"]) <= {1, 4}
    assert table["k=1 (ms)"].notna().all() and table["k=3 (ms)"].isna().all()
    for verdict in table["verdict"]:
        assert verdict.split(":")[0] in ("holds", "differs") and "paper k = 4" in verdict
    assert "t = 2 best at k = 4" in table["verdict"].iloc[1]
    assert "Best k" in summary_fig4(table.astype(str).replace("nan", ""))


def test_calnev_lists_every_published_system(runs, stats):
    table = compare_calnev(runs, stats, PAPER)
    systems = set(table["system"])
    assert {"LBR (GeForce GT 630)", "Boost Graph Library [24]", "H-BF [5] (GTX 780)"} <= systems
    lbr = table[table["system"] == "LBR (GeForce GT 630)"].iloc[0]
    assert lbr["published (ms)"] == 3500 and lbr["verdict"] == "measured"
    assert set(table[table["our run"] == ""]["verdict"]) == {"not implemented in this study"}
    assert "ours: lbr_persistent" in systems


def test_calibrate_cli_takes_the_minimum_iterations(tmp_path, runs):
    path = tmp_path / "harish.csv"
    runs[runs["solver"] == "harish"].to_csv(path, index=False)
    out = tmp_path / "cal.json"
    subprocess.run([sys.executable, "-m", "graphrepro", "calibrate", str(path), "--output",
                    str(out)], check=True, capture_output=True)
    record = json.loads(out.read_text())
    harish = runs[runs["solver"] == "harish"]
    assert record["min_iterations"] == int(harish["iterations"].min())
    assert record["solver"] == "harish"


def test_persistent_worklist_overflowing_the_shared_stage_stays_exact(monkeypatch):
    # Vertices a block cannot stage in shared memory go straight to the global worklist.
    from graphrepro.solvers.safari2017 import lbr

    monkeypatch.setattr(lbr, "STAGE", 2)
    monkeypatch.setattr(lbr, "_kernels", {})
    graph = GRAPHS["random"]()
    for source in draw_sources(graph, 2, seed=12):
        solve(graph, "lbr_persistent@k=1,t=1", int(source))


def test_table2_summary_names_the_measured_counters(runs, stats):
    from graphrepro.experiments.safari2017 import summary_table2

    table = compare_table2(runs, stats, PAPER).astype(str)
    text = summary_table2(table)
    assert "Harish et al. 2 launches" in text and "one launch" in text
    assert "untested" in summary_table2(table.assign(ours="not run: no CUDA device"))
