"""The launch-path rule for every document (issue 30, item 1): no claim of any document is judged
from a GPU host loop timed on numba's own launches, and every claim is judged by the one rule."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from graphrepro.claims import judge_target, load_claims
from graphrepro.claims.runs import OLD_LAUNCH_PATH
from graphrepro.claims.superseded import WHY, fingerprint, shake_inputs, shaken, superseded
from reference_run import (AWAITING_RETABULATION, NEW_SINCE_TABULATION, REFERENCE, configfiles,
                           is_whole_run, record, tabulated)

NEW = "graphrepro.launch"


def runs_frame(**cols):
    base = {"graph": ["g"] * 4, "variant": ["harish", "lbr_persistent", "dijkstra", "harish"],
            "device": ["gpu", "gpu", "cpu", "gpu"], "host_round_trips": [800, 0, 0, 800],
            "kernel_launches": [1600, 1, 0, 1600],
            "launch_path": [OLD_LAUNCH_PATH, OLD_LAUNCH_PATH, OLD_LAUNCH_PATH, NEW],
            "solve_ms": [10.0, 20.0, 30.0, 40.0]}
    return pd.DataFrame({**base, **cols})


def test_only_gpu_host_loops_on_the_old_path_are_superseded():
    # a persistent kernel launches once, a CPU run launches nothing, a run on graphrepro.launch
    # is current, and a run with no provenance at all is unknown, not held against it
    assert list(superseded(runs_frame())) == [True, False, False, False]
    assert not superseded(runs_frame().assign(launch_path="")).any()
    bench = pd.DataFrame({"impl": ["cpu_dijkstra", "gpu_alg1", "gpu_alg2"],
                          "launch_path": [OLD_LAUNCH_PATH] * 3, "step_ms": [1.0, 2.0, 3.0],
                          "batch_ms": ["[1.0]", "[2.0, 4.0]", "[3.0]"]})
    assert list(superseded(bench)) == [False, True, True]
    moved = shaken(bench, seed=1)
    assert moved.loc[0, "step_ms"] == 1.0 and moved.loc[0, "batch_ms"] == "[1.0]"
    assert moved.loc[1, "step_ms"] != 2.0 and moved.loc[1, "batch_ms"] != "[2.0, 4.0]"
    # counts are never shaken: only times a launch's cost is part of
    again = shaken(runs_frame(), seed=1)
    assert list(again["host_round_trips"]) == [800, 0, 0, 800]
    assert list(again["solve_ms"] == runs_frame()["solve_ms"]) == [False, True, True, True]


@pytest.fixture(scope="module")
def reference_targets():
    """Every configured target with claims, its inputs from the committed reference run, and
    the evidence its function makes of them."""
    from graphrepro.cli.experiments import _merged_config, retabulate_inputs
    from graphrepro.experiments import get_target
    from graphrepro.report.tables import load_inputs

    config = _merged_config([str(p) for p in configfiles()])
    claims = load_claims()
    out = {}
    for name, settings in config["targets"].items():
        target = get_target(name)
        mine = claims[claims["target"] == name]
        if not target.ready or mine.empty:
            continue
        run_paths, sources, benchmarks = retabulate_inputs(REFERENCE, name, settings)
        if run_paths is None:
            continue
        runs, stats, extra = load_inputs(target, run_paths, sources, benchmarks)
        out[name] = (target, mine, runs, stats, extra)
    return out


def test_every_claim_is_judged_by_the_rule_from_current_times(reference_targets):
    """For every claim of every document in the committed ledger: its row is what the rule makes
    of its evidence now, and if it has a verdict other than "not testable here", its numbers do
    not move when every superseded host-loop time moves (a different shake from the ledger's)."""
    ledger = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    ledger = ledger.set_index("claim_id")
    assert not NEW_SINCE_TABULATION & set(ledger.index), "retabulated: empty reference_run's sets"
    assert sorted(ledger.index) == sorted(tabulated(load_claims()["claim_id"]))
    seen, leaning = set(), []
    for name, (target, mine, runs, stats, extra) in reference_targets.items():
        rows = judge_target(target, runs, stats, **extra).set_index("claim_id")
        for cid, row in rows.iterrows():
            seen.add(cid)
            if cid in AWAITING_RETABULATION:
                continue
            kept = ledger.loc[cid]
            assert (kept["verdict"], kept["reason"]) == (row["verdict"], row["reason"]), cid
        evidence = target.evidence(mine, runs, stats, **extra)
        for seed in (7, 11):
            r2, e2 = shake_inputs(runs, extra, seed=seed)
            again = target.evidence(mine, r2, stats, **e2)
            for cid, e in evidence.items():
                if cid in NEW_SINCE_TABULATION or ledger.loc[cid, "verdict"] == "not testable here":
                    continue
                if fingerprint(e, 0) != fingerprint(again[cid], 0):
                    leaning.append(f"{name}: {cid}")
    assert sorted(set(leaning)) == []
    # a claim whose target the reference run did not build is named as such, nothing else
    for cid in set(ledger.index) - seen:
        assert ledger.loc[cid, "verdict"] == "not testable here", cid


def test_struck_claims_say_why_and_keep_their_number(reference_targets):
    ledger = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    struck = ledger[ledger["reason"].str.startswith(WHY)]
    if is_whole_run():  # issue 32: one run, all on graphrepro.launch, leaves nothing struck
        assert struck.empty, list(struck["claim_id"])
    assert (struck["verdict"] == "not testable here").all()
    for _, row in struck.iterrows():  # the number it would have had, beside the published one
        kept = re.search(r"\(ours ([^,]+), not judged\)$", row["reason"])
        assert kept and float(kept[1]) == pytest.approx(float(row["ours"]), rel=1e-3), row["claim_id"]


def test_every_measured_row_says_where_it_comes_from():
    """Issue 30, item 2: the run, the launch path, sources and trials, and the data, in the
    ledger and beside every row of a target table measured on a graph."""
    ledger = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    for col in ("run", "launch_path", "sources", "trials", "data"):
        assert col in ledger.columns, col
    # Table 1's statistics read the graph alone, no run
    measured = ledger[(ledger["n"] != "") & (ledger["target"] != "safari2017_table1")]
    assert (measured["run"] != "").all(), list(measured.loc[measured["run"] == "", "claim_id"])
    ny = ledger.set_index("claim_id").loc["t2.lbr.speedup"]  # real NY and COL
    assert (ny["launch_path"], ny["sources"], ny["trials"]) == (NEW, "100", "2")
    if is_whole_run():  # every row names the one run, and none the old launch path
        name = record()["run_name"]
        assert measured["run"].str.startswith(f"{name} ").all(), set(measured["run"])
        assert not measured["launch_path"].str.startswith("numba's launches").any()
    for path in sorted((REFERENCE / "targets").glob("*.csv")):
        if path.name.endswith(".claims.csv"):
            continue
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
        # Table 1 is graph statistics (no run); frontier_sssp is copied from peers/
        if "graph" in table.columns and len(table) and path.stem not in (
                "frontier_sssp", "safari2017_table1"):
            assert {"run", "launch_path"} <= set(table.columns), path.name


def test_no_claim_about_a_whole_set_is_reproduced_on_part_of_it(reference_targets):
    """Issue 30, item 5, for every claim of every document: where the evidence spans fewer
    parts than the claim's set (graphs left out, or a config with fewer of them), the row says
    "on n of N" and is not reproduced."""
    from graphrepro.claims.rule import Across

    ledger = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    ledger = ledger.set_index("claim_id")
    for name, (target, claims, runs, stats, extra) in reference_targets.items():
        evidence = target.evidence(claims, runs, stats, **extra)
        for cid, ev in evidence.items():
            if isinstance(ev, Across) and ev.whole and ev.whole > len(ev.parts):
                row = ledger.loc[cid]
                if row["verdict"] == "not testable here":  # struck by the launch-path rule
                    continue
                assert row["verdict"] != "reproduced", cid
                assert f"on {len(ev.parts)} of {ev.whole} " in row["reason"], cid
    # how many there are is the run's (graphs left out); the rule's side of it is
    # test_claims.test_a_claim_about_every_graph_is_not_reproduced_on_part_of_them
    assert reference_targets


def test_a_whole_run_names_the_runs_it_supersedes_and_nothing_reads_them():
    """Issue 32: runs 1 and 2 are named by the reference, nothing reads them, and the report
    says so; since issue 55 they are in git's history (the commit that last held their folder),
    only their small ledger and README in the tree."""
    if not is_whole_run():
        pytest.skip("the committed reference is not one whole run yet")
    from reference_run import ROOT

    kept = record()["supersedes"]
    assert kept["runs"] and not (ROOT / kept["folder"]).exists()
    assert (ROOT / kept["ledger"]).is_file()
    history = (ROOT / "reports" / "history" / "README.md").read_text()
    assert kept["commit"] in history and kept["folder"] in history
    readme = ROOT / Path(kept["ledger"]).parent / "README.md"
    assert readme.read_text().startswith("> **Superseded** by ")
    readers = [p for top in ("src", "workflow", "config") for p in (ROOT / top).rglob("*")
               if p.is_file() and p.suffix in (".py", ".smk", ".yaml", ".j2", ".sh")]
    readers.append(ROOT / "Snakefile")
    def code(path):  # a comment pointing a reader at the folder does not read it
        return "\n".join(line.split("#", 1)[0] for line in path.read_text().splitlines())

    assert not [p for p in readers if kept["folder"] in code(p)]
