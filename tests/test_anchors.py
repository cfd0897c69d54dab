"""Anchors (issue 51): every job times fixed CPU, GPU and transfer work before and after its own,
and the ledger widens a claim that crosses jobs (or rests on one value) by the drift they measured."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from graphrepro.claims import Across, Bootstrap, Spread, judge
from graphrepro.claims.anchors import add_measured_drift, anchor_drift
from graphrepro.claims.ledger import _row
from graphrepro.claims.origin import mark_jobs
from graphrepro.harness import anchors
from graphrepro.harness.files import job_columns, read_run_table
from test_hostile_input import _graph_and_sources


def test_a_jobs_provenance_carries_its_anchors_and_one_id_for_its_tables(tmp_path):
    from graphrepro.cli import main

    gr, src = _graph_and_sources(tmp_path, 1, "g")
    a, b = tmp_path / "dijkstra.csv", tmp_path / "delta.csv"
    assert main(["run", str(gr), "--solver", "dijkstra", "--sources", str(src), "--trials", "1",
                 "--warmup", "0", "--anchor-repeats", "3", "--output", str(a),
                 "--interleave", "delta_stepping@delta=5", "--interleave-output", str(b)]) == 0
    records = [json.loads(p.with_suffix(".provenance.json").read_text()) for p in (a, b)]
    for record in records:
        cpu = record["anchors"]["cpu"]
        assert cpu["before_ms"] > 0 and cpu["after_ms"] > 0 and cpu["on"]
        assert record["anchors"]["repeats"] == 3 and record["anchors"]["commit"] == record["commit"]
        for kind in ("gpu", "transfer"):  # under the simulator (or with no GPU): why not
            got = record["anchors"][kind]
            assert got.get("skipped") in (anchors.SIMULATED, anchors.NO_GPU) or got["before_ms"] > 0
        # what they cost is recorded (0.04 s on CPU; 0.62 s on an H200 with the GPU anchor's first
        # compile in a fresh process): a figure for the plan, never a timed test
        assert record["job"]["anchors_s"] > 0
    assert records[0]["job"]["id"] == records[1]["job"]["id"]
    # read back, both tables name the one job that timed them, with its anchors
    ta, tb = read_run_table(a), read_run_table(b)
    assert set(ta["job_id"]) == set(tb["job_id"]) and ta["job_id"].iloc[0].endswith(
        "job " + records[0]["job"]["id"][:8])
    assert json.loads(ta["anchors"].iloc[0])[0]["anchors"] == records[0]["anchors"]
    # off in the config: recorded as off, and the ledger measures nothing from it
    c = tmp_path / "off.csv"
    assert main(["run", str(gr), "--solver", "dijkstra", "--sources", str(src), "--trials", "1",
                 "--warmup", "0", "--anchor-repeats", "0", "--output", str(c)]) == 0
    off = json.loads(c.with_suffix(".provenance.json").read_text())["anchors"]
    assert off["cpu"] == {"skipped": anchors.OFF}
    assert anchor_drift(read_run_table(c).assign(device="cpu")) is None
    # the rule tells one job from two: the interleaved sides are one job; the same two runs
    # timed in jobs of their own, with no anchors, are refused as timed apart
    d = tmp_path / "off_delta.csv"
    assert main(["run", str(gr), "--solver", "delta_stepping@delta=5", "--sources", str(src),
                 "--trials", "1", "--warmup", "0", "--anchor-repeats", "0", "--output", str(d)]) == 0
    graph = ta["graph"].iloc[0]
    sides = (graph, "dijkstra"), (graph, "delta_stepping@delta=5")
    together, apart = Spread(values=[1.4, 1.5], reads=sides), Spread(values=[1.4, 1.5], reads=sides)
    mark_jobs(together, pd.concat([ta, tb], ignore_index=True))
    separate = pd.concat([read_run_table(c), read_run_table(d)], ignore_index=True)
    mark_jobs(apart, separate)
    add_measured_drift(apart, separate)
    assert len(together.jobs) == 1 and len(apart.jobs) == 2
    assert judge(ORDERING, together).verdict == "reproduced"
    assert judge(ORDERING, apart).reason.startswith("sides timed apart")


def test_a_table_merged_from_shards_names_every_shards_job(tmp_path):
    from graphrepro.harness.files import write_provenance

    shards = [{"date": "2026-11-28T14:00:00", "job": {"id": f"{i}" * 16, "start_unix": 0.0 + i},
               "anchors": _anchored(4.0 + i, 4.0)} for i in (1, 2)]
    table = tmp_path / "merged.csv"
    write_provenance(table, {**shards[0], "shards": shards})
    got = job_columns(table)
    assert got["job_id"] == ("1970-01-01T00:00:01 job 11111111 + "
                             "1970-01-01T00:00:02 job 22222222")
    assert [x["anchors"]["cpu"]["before_ms"] for x in json.loads(got["anchors"])] == [5.0, 6.0]


def test_a_table_without_job_ids_keeps_its_old_job_name(tmp_path):
    table = tmp_path / "old.csv"
    table.with_suffix(".provenance.json").write_text(json.dumps({"date": "2026-11-26T19:35:28"}))
    assert job_columns(table) == {}


def _anchored(cpu_before, cpu_after, gpu=None) -> dict:
    record = {"cpu": {"before_ms": cpu_before, "after_ms": cpu_after, "on": "host"}}
    record["gpu"] = ({"before_ms": gpu[0], "after_ms": gpu[1], "on": "card"} if gpu
                     else {"skipped": anchors.NO_GPU})
    return record


def _runs(tables: dict) -> pd.DataFrame:
    """Run rows of (graph, variant) -> (job name, anchor record or None, device)."""
    frames = []
    for (graph, variant), (job, record, device) in tables.items():
        frames.append(pd.DataFrame({
            "graph": graph, "variant": variant, "source": [1, 2], "trial": 0, "status": "ok",
            "device": device, "solve_ms": [1.0, 1.0], "job": "", "job_id": job,
            "anchors": json.dumps([{"job": job, "anchors": record}]) if record else None}))
    return pd.concat(frames, ignore_index=True)


ORDERING = {"claim_id": "x", "kind": "ordering", "published": "faster", "low": "1", "high": "",
            "null": "1", "unit": "", "untestable": "", "claim": "", "document": "d", "where": "w",
            "target": "t"}


def test_a_comparison_across_jobs_is_refused_without_anchors_and_widened_by_theirs():
    sides = {("ny", "harish"): ("job A", _anchored(4.0, 4.2), "cpu"),
             ("ny", "lbr"): ("job B", _anchored(5.04, 4.6), "cpu")}
    ev = Spread(values=[1.4, 1.5, 1.6], reads=(("ny", "harish"), ("ny", "lbr")))
    old = _runs({k: (job, None, dev) for k, (job, _, dev) in sides.items()})
    mark_jobs(ev, old)
    add_measured_drift(ev, old)  # tables from before anchors (run 3): refused, as before
    assert ev.job_drift is None and judge(ORDERING, ev).verdict == "not testable here"

    ev = Spread(values=[1.4, 1.5, 1.6], reads=(("ny", "harish"), ("ny", "lbr")))
    runs = _runs(sides)
    mark_jobs(ev, runs)
    assert ev.jobs == ("job A", "job B")
    add_measured_drift(ev, runs)
    # the CPU anchor ran from 4.0 ms (job A, before) to 5.04 ms (job B, before): 1.26x
    assert ev.job_drift == pytest.approx(0.26)
    assert ev.drift_basis.startswith("CPU anchor moved 1.26x between jobs job A (4 ms) and job B")
    j = judge(ORDERING, ev)
    assert j.low == pytest.approx(1.4 / 1.26) and j.high == pytest.approx(1.6 * 1.26)
    assert j.verdict == "reproduced"  # 1.4 / 1.26 = 1.11: still faster past the drift
    row = _row(ORDERING, ev)
    assert "widened by the drift the anchors measured: CPU anchor moved 1.26x" in row["reason"]
    # a drift an evidence function measured some other way stays in the interval's words only
    own = Spread(values=[1.4, 1.5, 1.6], jobs=("a", "b"), job_drift=0.26, drift_basis="blocks")
    assert "anchors" not in _row(ORDERING, own)["reason"]


def test_gpu_sides_need_gpu_anchors_and_mixed_sides_compound_both_kinds():
    gpu_sides = {("ny", "harish"): ("job A", _anchored(4.0, 4.0), "gpu"),
                 ("ny", "dijkstra"): ("job B", _anchored(4.0, 4.0), "cpu")}
    assert anchor_drift(_runs(gpu_sides)) is None  # the GPU anchor was skipped: not measured
    both = {("ny", "harish"): ("job A", _anchored(4.0, 4.0, gpu=(2.0, 2.0)), "gpu"),
            ("ny", "dijkstra"): ("job B", _anchored(4.4, 4.0, gpu=(2.0, 2.5)), "cpu")}
    drift, basis = anchor_drift(_runs(both))
    assert drift == pytest.approx(1.1 * 1.25 - 1)
    assert "CPU anchor moved 1.1x" in basis and "GPU anchor moved 1.25x" in basis


def test_a_single_value_in_one_job_is_decided_past_its_jobs_own_drift():
    # t54.speedup16: one run, 97% against the thesis's 27%; its job's CPU anchor moved 1.5x
    gain = dict(ORDERING, kind="magnitude", published="27%", low="", unit="% ((CPU - GPU) / CPU)",
                null="0")
    runs = _runs({("grid", "gpu"): ("job A", _anchored(4.0, 6.0, gpu=(2.0, 2.0)), "cpu")})
    one = Spread(values=[97.45], reads=(("grid", "gpu"),))
    mark_jobs(one, runs)
    add_measured_drift(one, runs)
    assert one.job_drift == pytest.approx(0.5) and "within job job A" in one.drift_basis
    j = judge(gain, one)
    assert j.verdict == "direction only" and j.low == pytest.approx(100 * (1 - 0.0255 * 1.5))
    near = Spread(values=[35.0], reads=(("grid", "gpu"),))
    add_measured_drift(near, runs)
    assert judge(gain, near).verdict == "inconclusive"  # 1.5x could cover 35% against 27%
    # many units in one job: their own interval stands, no drift added
    many = Spread(values=[97.0, 98.0], reads=(("grid", "gpu"),))
    add_measured_drift(many, runs)
    assert many.job_drift is None


def test_each_part_of_a_claim_gets_the_drift_of_its_own_jobs():
    runs = _runs({("ny", "a"): ("job A", _anchored(4.0, 4.0), "cpu"),
                  ("ny", "b"): ("job B", _anchored(4.4, 4.4), "cpu"),
                  ("col", "a"): ("job C", _anchored(4.0, 4.0), "cpu"),
                  ("col", "b"): ("job C", _anchored(4.0, 4.0), "cpu")})
    parts = [Spread(values=[1.5, 1.6], reads=(("ny", "a"), ("ny", "b"))),
             Spread(values=[1.5, 1.6], reads=(("col", "a"), ("col", "b")))]
    ev = Across(parts=parts, labels=["ny", "col"])
    mark_jobs(ev, runs)
    add_measured_drift(ev, runs)
    assert parts[0].job_drift == pytest.approx(0.1) and parts[1].job_drift is None
    assert judge(ORDERING, ev).verdict == "reproduced"


def test_anchors_widen_a_bootstrap_that_already_allows_for_drift_between_passes():
    # passes inside one job drift less than jobs do (issue 51: 3.4% against 1.26x on calnev):
    # a comparison across jobs is widened by the anchors' drift on top of its passes'
    rng = np.random.default_rng(0)
    rows = np.column_stack([rng.normal(15, 0.2, 20), rng.normal(10, 0.1, 20)])
    ev = Bootstrap(groups=[rows], statistic=lambda g: g[0][:, 0].mean() / g[0][:, 1].mean(),
                   drift=[0.034], reads=(("ny", "harish"), ("ny", "lbr")))
    passes_only = judge(ORDERING, ev, job_drift=0.26)  # a drift given, not the anchors': as before
    runs = _runs({("ny", "harish"): ("job A", _anchored(4.0, 4.0), "cpu"),
                  ("ny", "lbr"): ("job B", _anchored(5.04, 5.04), "cpu")})
    mark_jobs(ev, runs)
    add_measured_drift(ev, runs)
    j = judge(ORDERING, ev)
    assert j.low == pytest.approx(passes_only.low / 1.26)
    assert j.high == pytest.approx(passes_only.high * 1.26)


def test_a_benchmark_table_names_its_job_and_anchors_as_a_run_table_does(tmp_path):
    from graphrepro.report.tables import _benchmark

    bench = tmp_path / "benchmarks" / "an2017_transfers.csv"
    bench.parent.mkdir()
    pd.DataFrame({"mode": ["pinned"], "ms": [1.0]}).to_csv(bench, index=False)
    marks = {"cpu": {"before_ms": 4.0, "after_ms": 4.4, "on": "cpu"}}
    bench.with_suffix(".provenance.json").write_text(json.dumps(
        {"date": "2026-11-28T10:00:00", "job": {"id": "abcdef0123", "start_unix": 0},
         "anchors": marks}))
    table = _benchmark(bench)
    assert table["job_id"].iloc[0].endswith("job abcdef01")
    assert json.loads(table["anchors"].iloc[0])[0]["anchors"] == marks
