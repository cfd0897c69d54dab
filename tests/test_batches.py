"""Sampling in batches (issue 57 item 1): a comparison group's run job times its seeded sources
ten at a time and stops once the claims that read its tables are decided, or at the cap; the
ledger's n and `sampled` come from the tables' records."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from graphrepro.claims import ledger, sequential
from graphrepro.claims.rule import Bootstrap

SOURCES = 40  # drawn; the looks are at 10, 20, 30 and the cap
DESIGN = "first=10,batch=10,cap=30,drift=0"


def _claim(cid, low, high):
    return {"claim_id": cid, "target": "t", "where": "Fig. 1", "claim": "b is half a",
            "kind": "magnitude", "published": str((low + high) / 2), "low": str(low),
            "high": str(high), "null": "1", "unit": "x", "subject": "", "untestable": "",
            "note": "", "document": "d"}


def _fake_target(monkeypatch, claim, *fixed):
    """Target "t" with one claim whose evidence is a fixed series over the sources the runs hold
    (0.4, 0.6, 0.4, ...: mean 0.5, whatever the timings), so where it decides depends on the
    number of sources alone; ``fixed``: claims fixed as not testable, reading the same."""
    claims = pd.DataFrame([claim, *fixed])
    monkeypatch.setattr(ledger, "load_claims", lambda document=None: claims)

    def evidence(claims, runs, stats, **_):
        graph = runs["graph"].iloc[0]
        n = runs[runs["variant"] == "dijkstra"]["source"].nunique()
        values = np.where(np.arange(n) % 2, 0.6, 0.4)
        return {c["claim_id"]: Bootstrap(
            groups=[values], n=f"{n} sources", statistic=lambda g: float(np.mean(g[0])),
            reads=((graph, "dijkstra"),)) for c in (claim, *fixed)}

    target = SimpleNamespace(name="t", evidence=evidence, benchmarks=(), ready=True)
    import graphrepro.experiments as experiments

    real = experiments.get_target
    monkeypatch.setattr(experiments, "get_target", lambda name: target if name == "t" else
                        real(name))
    return target


def _run(tmp_path, *extra):
    """The seeded sources of a small road grid, timed by one run job sampling in batches."""
    from graphrepro.cli import main

    gr = tmp_path / "g.gr"
    assert main(["generate", "road_grid", "--rows", "8", "--cols", "8", "--keep", "0.9",
                 "--max-weight", "50", "--seed", "1", "--output", str(gr)]) == 0
    src = tmp_path / "sources" / "g.json"
    src.parent.mkdir()
    assert main(["sources", str(gr), "--count", str(SOURCES), "--seed", "3",
                 "--output", str(src)]) == 0
    out = tmp_path / "runs" / "g" / "dijkstra.csv"
    out.parent.mkdir(parents=True)
    assert main(["run", str(gr), "--solver", "dijkstra", "--sources", str(src), "--trials", "1",
                 "--warmup", "0", "--anchor-repeats", "0", "--output", str(out),
                 "--sampling", DESIGN, *extra]) == 0
    return out, src


def _ledger(target, out, src):
    from graphrepro.report.tables import load_inputs

    runs, stats, extra = load_inputs(target, [out], [src])
    return ledger.judge_target(target, runs, stats, design=sequential.Design(10, 10, 30))


def test_a_claim_decided_after_two_batches_stops_its_group_at_20_sources(tmp_path, monkeypatch):
    hardware = {**_claim("hw", 0.4, 0.6), "untestable": "hardware: the paper's card"}
    target = _fake_target(monkeypatch, _claim("half", 0.4, 0.6), hardware)  # hw: no say
    out, src = _run(tmp_path, "--decides", "t")
    table = pd.read_csv(out)
    record = json.loads(out.with_suffix(".provenance.json").read_text())["sampling"]
    assert table["source"].nunique() == 20
    # the first 20 of the seeded draw order, as a run of 20 sources would have timed them
    assert list(dict.fromkeys(table["source"])) == json.loads(src.read_text())["labels"][:20]
    assert record["stopped"] == "decided at 20 sources" and record["looks"] == [10, 20]
    assert record["sources"] == 20 and record["claims"] == ["half"]
    assert json.loads(out.with_suffix(".provenance.json").read_text())["job"]["sources"] == 20
    row = _ledger(target, out, src).set_index("claim_id").loc["half"]
    assert row["sampled"] == "decided at 20 sources" and row["n"] == "20 sources"
    assert row["verdict"] == "reproduced"


def test_a_claim_that_never_decides_runs_its_group_to_the_cap(tmp_path, monkeypatch):
    target = _fake_target(monkeypatch, _claim("edge", 0.5, 0.55))  # its mean sits on the edge
    out, src = _run(tmp_path, "--decides", "t")
    record = json.loads(out.with_suffix(".provenance.json").read_text())["sampling"]
    assert pd.read_csv(out)["source"].nunique() == 30
    assert record["stopped"] == "cap (30 sources)" and record["looks"] == [10, 20, 30]
    row = _ledger(target, out, src).iloc[0]
    assert row["sampled"] == "cap (30 sources)" and row["n"] == "30 sources"


def test_a_group_no_claim_reads_takes_the_eyes_sources(tmp_path, monkeypatch):
    _fake_target(monkeypatch, _claim("half", 0.4, 0.6))
    out, _ = _run(tmp_path, "--eye-sources", "5")  # no target with claims reads it
    record = json.loads(out.with_suffix(".provenance.json").read_text())["sampling"]
    assert pd.read_csv(out)["source"].nunique() == 5
    assert record["stopped"] == "for the eye: no claim reads it (5 sources)"


def _first_stop(looks, available):
    return next(n for n in range(1, available + 1) if looks(n, lambda: None))


def test_looks_stop_where_the_ledgers_sequential_judging_stops():
    design = sequential.Design(first=10, batch=10, cap=40)
    answers = {10: False, 20: True}
    looks = sequential.Looks(design, 50, lambda n, level, tables: answers.get(n, False))
    assert _first_stop(looks, 50) == 20 and looks.taken == [10, 20]
    assert looks.stop == sequential.Stop(20, "decided at 20 sources")
    assert sequential.stop_at(design, 50, lambda n, level: answers.get(n, False)) == looks.stop
    never = sequential.Looks(design, 50, lambda n, level, tables: None)
    assert _first_stop(never, 50) == 40 and never.taken == [10, 20, 30, 40]
    assert never.stop.reason == "cap (40 sources): more sources cannot decide it"


def test_sampling_refuses_a_shard(tmp_path, monkeypatch, capsys):
    _fake_target(monkeypatch, _claim("half", 0.4, 0.6))
    with pytest.raises(AssertionError):  # _run's exit status: 2, one line
        _run(tmp_path, "--decides", "t", "--shard", "0/2")
    assert "cannot time a shard of them (--shard)" in capsys.readouterr().err


def test_plan_counts_the_sources_a_sampled_run_is_expected_to_time(tmp_path):
    from graphrepro import configs
    from graphrepro.plan import plan_runs

    config = configs.load([])
    config["graphs"]["road_40x40"]["sources"] = 100
    config["targets"] = {"safari2017_table2": {"graphs": ["road_40x40"]},
                         "frontier_sssp": {"graphs": ["ny"], "runs": ["dijkstra"]}}
    nowhere = tmp_path / "no-reference"

    def sources():
        return {(r.graph, r.run_id): r.sources for r in plan_runs(config, nowhere, tmp_path)}

    assert set(sources().values()) == {100, 6}  # sampling off: every source the config gives
    config["sampling"] = {"first": 10, "batch": 10, "eye_sources": 5}
    planned = sources()
    assert planned[("ny", "dijkstra")] == 5  # frontier decides no claim: for the eye
    assert {n for (g, _), n in planned.items() if g == "road_40x40"} == {100}  # no ledger: cap
    (tmp_path / "targets").mkdir()
    (tmp_path / "targets" / "safari2017_table2.claims.csv").write_text(
        "claim_id,sampled\na,decided at 20 sources\nb,decided at 10 sources\n")
    assert {n for (g, _), n in sources().items() if g == "road_40x40"} == {20}


@pytest.mark.slow
def test_a_sampled_target_through_the_workflow(tmp_path):
    """One target of the default study on a 6 x 6 grid, its run job sampling in looks of two:
    the record says where it stopped and the ledger repeats it (about a minute on 2 cores)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from workflow_files import one_grid_config

    repo = Path(__file__).resolve().parents[1]
    cfg = tmp_path / "config.yaml"
    cfg.write_text(one_grid_config("singla_fig7_9", tmp_path / "no-reference")
                   .replace("sources: 2,", "sources: 8,")
                   .replace("{graphs: [road_6x6]}", "{graphs: [road_6x6], runs: [dijkstra]}")
                   + "sampling: {first: 4, batch: 2}\n")
    run = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(repo / "Snakefile"), "-d",
                          str(tmp_path), "results/targets/singla_fig7_9.csv", "--cores", "2",
                          "--replace-workflow-config", "--configfile", str(cfg)],
                         capture_output=True, text=True, timeout=600, env=os.environ)
    assert run.returncode == 0, f"{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    record = json.loads((tmp_path / "results" / "runs" / "road_6x6" /
                         "dijkstra.provenance.json").read_text())["sampling"]
    assert record["looks"][0] == 4 and record["sources"] in (4, 6, 8)
    ledger_rows = pd.read_csv(tmp_path / "results" / "targets" / "singla_fig7_9.claims.csv",
                              dtype=str, keep_default_na=False).set_index("claim_id")
    read = ledger_rows.loc[record["claims"]]
    assert set(read["sampled"]) == {record["stopped"]}
