"""Replicates A and B, the drift between them and the run's commit on the page; frontier's tuning
graphs apart from its held-out ones, with each peer at its best setting (issue 53 items 3, 4)."""

from html_report import html_tables
from pathlib import Path

import pandas as pd
import pytest
from replicated_run import COMMIT, replicated_reference

from graphrepro.errors import InputError
from graphrepro.report.build import build_report
from graphrepro.report.heldout import is_tuning, peers_at_best, peers_table
from graphrepro.report.page import claim_rows
from graphrepro.report.replicates import (NOT_MEASURED, commit_line, drift_by_kind,
                                          read_drift)

REFERENCE = Path(__file__).resolve().parents[1] / "reports" / "reference"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The page over a reference run made twice, and over run 3 as committed (made once)."""
    tmp = tmp_path_factory.mktemp("replicated")
    ref = replicated_reference(tmp / "reference")
    out = tmp / "index.html"
    ledger = build_report(ref, out, reference=ref, reference_config={"targets": {}})
    return out.read_text(), ledger


def test_each_claim_shows_replicate_a_and_b_and_says_where_they_disagree(page):
    html, ledger = page
    rows = {r["claim_id"]: r for r in claim_rows(ledger)}
    assert [(x["name"], x["ours"], x["verdict"]) for x in rows["t2.lbr.trips"]["replicates"]] == [
        ("A", "0.29 [0.20, 0.40] round trips per host iteration", "reproduced"),
        ("B", "0.61 [0.55, 0.70] round trips per host iteration", "not reproduced")]
    assert rows["t2.lbr.trips"]["replicates"][0]["disagree"]
    assert not rows["t1.ny"]["replicates"][0]["disagree"]
    assert sorted(k for k, r in rows.items() if r["replicates"]) == ["t1.ny", "t2.lbr.trips"]
    row = html[html.index('id="claim-t2.lbr.trips"'):]
    row = row[:row.index("</tr>")]
    assert ("replicate A: 0.29 [0.20, 0.40] round trips per host iteration (reproduced); "
            "replicate B: 0.61 [0.55, 0.70] round trips per host iteration (not reproduced): "
            "<b>A and B disagree</b>") in row
    # the evidence says it too, and a claim without replicates says they were not measured
    assert "Replicates: A 0.29 [0.20, 0.40]" in html
    assert "Replicates: not measured in this run (one value per claim)." in html


def test_the_overview_names_the_one_commit_and_the_drift_per_kind(page):
    html, _ = page
    overview = html[html.index('id="run-commit"'):html.index('id="contents"')]
    assert f"One commit, <code>{COMMIT[:7]}</code>: every job of the reference run names it." \
        in overview
    assert "A and B for 2 of" in overview
    assert ("drift between A and B: CPU up to 2.2% over 2 measures, GPU up to 1.0% over 1 "
            f"measure, transfer {NOT_MEASURED}") in overview
    drift = html[html.index('id="drift"'):html.index("</section>", html.index('id="drift"'))]
    [cpu, gpu] = html_tables(drift)
    assert cpu[0] == {"measure": "dijkstra on ny (anchor)", "A": "812.0 ms", "B": "830.5 ms",
                      "n": "100", "drift": "2.2%"}
    assert gpu[0]["drift"] == "1.0%"
    assert f"transfer: {NOT_MEASURED}" in drift


def test_run_3_is_named_as_not_from_one_commit_and_its_drift_not_measured(tmp_path):
    import json

    record = json.loads((REFERENCE / "provenance.json").read_text())
    said = commit_line(record)
    assert said["one"] is None and len(said["several"]) == len(record["commits"]) > 1
    assert read_drift(REFERENCE) is None
    assert [d["largest"] for d in drift_by_kind(None)] == [NOT_MEASURED] * 3
    assert commit_line({"calls": [{"commit": "abc", "date": "2026-11-01"}] * 2})["one"] == "abc"
    assert commit_line({}) is None


def test_a_bad_drift_row_is_named_by_file_and_line(tmp_path):
    (tmp_path / "drift.csv").write_text("kind,measure,drift\nCPU,a,0.01\nGPU,b,-1\n")
    with pytest.raises(InputError, match=r"drift.csv, line 3: drift '-1' is not a number"):
        read_drift(tmp_path)
    (tmp_path / "drift.csv").write_text("kind,measure,drift\ndisk,a,0.01\n")
    with pytest.raises(InputError, match=r"line 2: kind 'disk' is not one of CPU, GPU, transfer"):
        read_drift(tmp_path)


def frontier_table() -> pd.DataFrame:
    rows = [("ny", "frontier", "6.6"), ("ny", "adds", "7.5"), ("ny", "adds@launch=host", "7.2"),
            ("ny", "gunrock@balance=merge_path", "90"),
            ("western", "frontier", "26.7"), ("western", "gunrock", "1180.4"),
            ("col", "frontier", "6.4"), ("col", "adds", "8.3"), ("col", "adds@launch=host", "8.0"),
            ("col", "adds@blocks_per_sm=2", "not run: adds hung 1 times"),
            ("uniform_1m", "frontier", "3.0"), ("uniform_1m", "adds@blocks_per_sm=2,launch=host",
                                                "2.1"), ("uniform_1m", "adds", "2.8"),
            ("calnev_w1000", "frontier", "11.5"), ("calnev_w1000", "adds", "12.8")]
    return pd.DataFrame(rows, columns=["graph", "solver", "median (ms)"])


def test_frontier_tuning_graphs_apart_from_held_out_with_each_peer_at_its_best():
    assert is_tuning("ny") and is_tuning("calnev_w1000") and is_tuning("western")
    assert not is_tuning("col") and not is_tuning("nyc") and not is_tuning("web_google")
    split = peers_at_best(frontier_table())
    assert [e["graph"] for e in split["tuning"]] == ["ny", "western", "calnev_w1000"]
    assert [e["graph"] for e in split["held_out"]] == ["col", "uniform_1m"]
    held = peers_table(split["held_out"]).set_index("graph")
    assert held.loc["col", "adds at its best"] == "8 ms at launch=host (best of 3; 1 gave no time)"
    assert held.loc["col", "gunrock at its best"] == "not run"
    assert held.loc["col", "setting that won"] == "adds, launch=host"
    assert held.loc["col", "frontier / that setting"] == "0.800"
    assert held.loc["uniform_1m", "setting that won"] == "adds, blocks_per_sm=2,launch=host"
    assert held.loc["uniform_1m", "frontier / that setting"] == "1.429"
    tuning = peers_table(split["tuning"]).set_index("graph")
    assert tuning.loc["ny", "gunrock at its best"] == "90 ms at balance=merge_path (its only setting run)"
    assert tuning.loc["ny", "adds at its best"] == "7.2 ms at launch=host (best of 2)"
    assert tuning.loc["western", "gunrock at its best"] == "1,180 ms at its default (its only " \
        "setting run)"
    assert tuning.loc["western", "adds at its best"] == "not run"
    assert peers_at_best(frontier_table().query("solver != 'frontier'")) is None


def test_the_frontier_section_shows_the_two_sets_of_graphs(page):
    html, _ = page
    part = html[html.index('id="frontier-peers-at-best"'):]
    tuning, held_out = html_tables(part)[:2]  # the first two tables after its note
    assert {r["graph"] for r in tuning} == {"ny", "calnev", "western"}
    assert {r["graph"] for r in held_out} >= {"col", "uniform_1m"}
    assert not any(is_tuning(r["graph"]) for r in held_out)
    assert all(r["setting that won"] for r in held_out)
