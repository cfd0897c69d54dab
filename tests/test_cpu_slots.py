"""One-core CPU timings side by side (issue 57, item 4): as many slots as the host leaves after
its GPU workers, each pinned to a core of its own and timing its CPU anchor before and after its
work, so what its neighbours cost it is measured and widens the claims it enters; the two sides
of a CPU comparison interleaved in one slot; the plan dividing the CPU-seconds over the slots."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from graphrepro import placement
from graphrepro.claims import Spread, judge
from graphrepro.claims.anchors import add_measured_drift, anchor_drift
from graphrepro.claims.origin import mark_jobs
from graphrepro.harness.anchors import Around
from graphrepro.plan import PlannedRun, as_jobs, host_threads, schedule

ORDERING = {"claim_id": "x", "kind": "ordering", "published": "faster", "low": "1", "high": "",
            "null": "1", "unit": "", "untestable": "", "claim": "", "document": "d", "where": "w",
            "target": "t"}


def test_the_slots_are_the_cores_the_gpu_workers_and_the_workflow_leave():
    timed, rest, slots, why = placement.host_split(range(32), gpus=2)
    assert slots == 27 and timed == list(range(5, 32)) and rest == list(range(5))
    assert why == "32 cores less 2 a GPU worker x 2 and 1 for the workflow"
    assert placement.host_split(range(2), gpus=0)[2] == 1  # this machine: one slot, one core left
    assert placement.host_split(range(4), gpus=1)[2] == 1  # never none
    # kept cores given: a slot each; slots given: the old quarter, and they must fit
    assert placement.host_split(range(16), 0, timed=6)[1:] == (list(range(10)), 6,
                                                             "one a core of the 6 kept for CPU "
                                                             "timings")
    assert placement.host_split(range(16), 2, slots=1)[:3] == (list(range(12, 16)),
                                                              list(range(12)), 1)
    with pytest.raises(ValueError, match="host_cpu_slots=5: only 4 cores are kept"):
        placement.host_split(range(16), 2, slots=5)


def test_the_slots_and_why_reach_every_jobs_provenance_and_workers_share_one_numba_cache():
    timed, rest, slots, why = placement.host_split(range(8), gpus=1)
    env = {"GRAPHREPRO_GPUS": "0"}
    placement.export_host_split(env, 1, timed, rest, slots, why)
    assert env["GRAPHREPRO_SLOT_CPUS"] == "3-7" and env["NUMBA_CACHE_DIR"] == str(
        placement.numba_cache_dir())
    record = placement.placement_record({**env, "GRAPHREPRO_PIN": "slot"})
    assert record["cpu_slots"] == 5 and record["cpu_slots_basis"] == why
    assert record["numba_cache_dir"] == env["NUMBA_CACHE_DIR"]
    mine = {"NUMBA_CACHE_DIR": "/elsewhere"}  # the user's own cache stays theirs
    placement.export_host_split(mine, 0, timed, rest, slots, why)
    assert mine["NUMBA_CACHE_DIR"] == "/elsewhere"


PIN = """
import json, sys
from graphrepro import placement
print(json.dumps(placement.pin_cpus(wait_s=5)), flush=True)
sys.stdin.read()  # the slot stays held until the test has heard from every one
"""


def test_slot_timings_side_by_side_each_pin_a_core_and_record_it_with_their_anchor(
        tmp_path, monkeypatch):
    cpus = sorted(os.sched_getaffinity(0))[:2]  # this machine: 1 or 2 slots
    env = {**os.environ, "GRAPHREPRO_PIN": "slot", "GRAPHREPRO_GPU_LOCKS": str(tmp_path),
           "GRAPHREPRO_SLOT_CPUS": placement.cpu_list_text(cpus)}
    procs = [subprocess.Popen([sys.executable, "-c", PIN], env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in cpus]
    try:
        got = [json.loads(p.stdout.readline()) for p in procs]
    finally:
        for p in procs:
            p.stdin.close()
            p.wait(timeout=30)
    assert sorted(c for one in got for c in one) == cpus  # a core each, none shared
    # in this process: the slot it holds goes into its CPU anchor's record
    monkeypatch.setenv("GRAPHREPRO_GPU_LOCKS", str(tmp_path))
    try:
        core = placement.pin_cpus({k: env[k] for k in ("GRAPHREPRO_PIN", "GRAPHREPRO_SLOT_CPUS")})
        assert placement.slot_core() == core[0] and os.sched_getaffinity(0) == set(core)
        with Around(1) as around:
            pass
        record = around.record({"commit": "c"})
        assert record["cpu"]["slot"] == core[0] and record["cpu"]["before_ms"] > 0
    finally:
        os.sched_setaffinity(0, sorted(set(cpus) | set(os.sched_getaffinity(0))))
        placement._held.pop("pinned", None)
        os.close(placement._held.pop("slot_fd"))
    assert placement.slot_core() is None
    assert "slot" not in Around(1).record({"commit": "c"}).get("cpu", {})


def _slot_rows(tables: dict) -> pd.DataFrame:
    """Run rows of (graph, variant) -> (job, slot core, CPU anchor before, after)."""
    frames = []
    for (graph, variant), (job, slot, before, after) in tables.items():
        record = {"cpu": {"before_ms": before, "after_ms": after, "on": "host", "slot": slot}}
        frames.append(pd.DataFrame({
            "graph": graph, "variant": variant, "source": [1, 2], "trial": 0, "status": "ok",
            "device": "cpu", "solve_ms": [1.0, 1.0], "job": "", "job_id": job,
            "anchors": json.dumps([{"job": job, "anchors": record}])}))
    return pd.concat(frames, ignore_index=True)


def test_a_slot_whose_anchor_moved_widens_the_interval_and_one_slot_interleaved_needs_none():
    sides = (("ny", "dijkstra"), ("ny", "cpp_dijkstra"))
    # apart: each side in a slot of its own; slot 3's neighbours slowed its anchor 1.3x
    apart = _slot_rows({sides[0]: ("job A", 2, 4.0, 4.0), sides[1]: ("job B", 3, 4.0, 5.2)})
    ev = Spread(values=[1.4, 1.5, 1.6], reads=sides)
    mark_jobs(ev, apart)
    add_measured_drift(ev, apart)
    assert ev.job_drift == pytest.approx(0.3)
    assert "job B on slot core 3 (5.2 ms)" in ev.drift_basis
    j = judge(ORDERING, ev)
    assert j.low == pytest.approx(1.4 / 1.3) and j.high == pytest.approx(1.6 * 1.3)
    steady = _slot_rows({sides[0]: ("job A", 2, 4.0, 4.0), sides[1]: ("job B", 3, 4.0, 4.0)})
    assert anchor_drift(steady)[0] == pytest.approx(0.0)
    # together: both sides interleaved in one slot's job, nothing between jobs to widen by
    one = _slot_rows({sides[0]: ("job A", 2, 4.0, 5.2), sides[1]: ("job A", 2, 4.0, 5.2)})
    ev = Spread(values=[1.4, 1.5, 1.6], reads=sides)
    mark_jobs(ev, one)
    add_measured_drift(ev, one)
    assert ev.jobs == ("job A",) and ev.job_drift is None
    assert judge(ORDERING, ev).low == pytest.approx(1.4)


def test_an_interleaved_group_takes_one_slot_only_where_every_side_is_one_core():
    config = {"targets": {"t": {"graphs": ["g"], "interleave": ["a", "b"]}}}
    one = [PlannedRun("t", "g", r, "cpu", 0.0, 1.0, "recorded", one_core=True, sources=4)
           for r in ("a", "b")]
    assert [j.one_core for j in as_jobs(config, one)] == [True]
    mixed = [one[0], PlannedRun("t", "g", "b", "cpu", 0.0, 1.0, "recorded", sources=4)]
    assert [j.one_core for j in as_jobs(config, mixed)] == [False]


def test_the_plan_divides_the_cpu_seconds_over_the_hosts_slots(tmp_path, capsys):
    assert host_threads(32, 2, None, None) == (27, 3, 27)  # the gpu-host profile's split
    assert host_threads(32, 2, None, 4) == (8, 22, 4)  # slots given: the quarter kept
    runs = [PlannedRun("t", "g", f"c{i}", "cpu", 0.0, 1.0, "recorded", one_core=True,
                       sources=10) for i in range(27)]
    _, prep, slots = host_threads(32, 2, None, None)
    assert schedule(runs, 2, prep, {}, slots)["cpu_end_s"] == pytest.approx(10.0)
    assert schedule(runs, 2, prep, {}, 1)["cpu_end_s"] == pytest.approx(270.0)
    from graphrepro.cli import main
    import yaml

    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({"results": str(tmp_path / "res"), "measure": {"sources": 4}}))
    walls = {}
    for slots in ("auto", "1"):
        out = tmp_path / f"{slots}.json"
        assert main(["plan", "--configfile", str(cfg), "--gpus", "1", "--cores", "8",
                     "--cpu-slots", slots, "--json", str(out)]) == 0
        walls[slots] = json.loads(out.read_text())
    assert walls["auto"]["cpu_slots"] == 5 and walls["auto"]["timed_cores"] == 5  # 8 - 2 - 1
    assert walls["1"]["cpu_slots"] == 1
    assert walls["auto"]["cpu_end_s"] <= walls["1"]["cpu_end_s"]
    assert "CPU-s over 5 slots" in capsys.readouterr().out
