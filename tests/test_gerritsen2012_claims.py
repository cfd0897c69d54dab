"""gerritsen2012's claims in the ledger: its evidence functions, and the reference run's verdicts
(issue 18, defects 8 and 9 and Table 3.5's untested claim)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphrepro.claims import Validated, judge, load_claims
from graphrepro.experiments import gerritsen2012_mst as g12
from graphrepro.experiments import get_target, published
from graphrepro.experiments.gerritsen2012_sssp import extrapolate_alg1, extrapolation_point
from graphrepro.experiments.gerritsen2012_sssp_evidence import (
    evidence_table5_1,
    evidence_table5_2,
    evidence_table5_3,
    extrapolation_check,
    lower_bound,
)
from graphrepro.experiments.gerritsen2012_sssp_evidence_t57 import cap_check, evidence_table5_7
from graphrepro.experiments.gerritsen2012_sssp_steps import bench_row
from reference_run import tabulated

REFERENCE = Path(__file__).resolve().parents[1] / "reports" / "reference"


def claims_of(target):
    c = load_claims("gerritsen2012")
    return c[c["target"] == target]


def verdicts(target, evidence):
    """{claim id: (verdict, reason)} as the ledger would judge them."""
    out = {}
    for _, claim in claims_of(target).iterrows():
        j = judge(claim, evidence[claim["claim_id"]])
        out[claim["claim_id"]] = (j.verdict, j.reason)
    return out


# --- the rule's one addition: a value nothing validates decides nothing ------------------------

def test_an_unvalidated_extrapolation_is_inconclusive_whatever_its_value():
    claim = {"claim_id": "x", "kind": "ordering", "published": "faster", "low": "1", "high": "",
             "null": "1", "untestable": ""}
    far = Validated(value=500.0, error=None, basis="no finished cell validates it")
    j = judge(claim, far)
    assert j.verdict == "inconclusive" and "no finished cell validates it" in j.reason
    # once validated, its error is its interval
    assert judge(claim, Validated(value=500.0, error=0.5, basis="checked")).verdict == "reproduced"
    near = judge(claim, Validated(value=1.2, error=0.3, basis="the 2-D run's variation"))
    assert near.verdict == "inconclusive" and near.low == pytest.approx(1.2 / 1.3)


# --- Table 5.1: lower bounds decide, extrapolations wait for their check -------------------------

def cell(block, c, status, secs, **extra):
    return {"block": block, "gpu_block": c, "impl": "gpu_alg1", "variant": "2d", "status": status,
            "blocks": 1, "seconds_per_2_20": secs, "extrapolated": True, "counters": "{}",
            "check": "", "data": "t: test", **extra}


def cpu(block, secs):
    return {"block": block, "gpu_block": "", "impl": "cpu_dijkstra", "variant": "", "status": "ok",
            "blocks": 4, "seconds_per_2_20": secs, "extrapolated": True, "counters": "{}",
            "check": "ok", "data": "t: test"}


def test_a_stopped_cell_is_a_lower_bound():
    r = cell(64, 64, "extrapolated from part 1 and 3 of 252 boundary vertices of one I/O-block "
                     "(stopped after 12 s)", 9000.0)
    assert lower_bound(r) == pytest.approx(11.5 * 256)  # printed to the second: less 0.5 s
    whole = cell(64, 64, "extrapolated from 1 whole I/O-block (stopped after 54 s)", 9000.0)
    assert lower_bound(whole) is None  # it finished a block: a measurement, not a bound


def test_table5_1_extrapolations_are_inconclusive_until_a_finished_cell_checks_them():
    rows = [cpu(64, 10.0), cpu(512, 150.0),
            # decided by its measured time alone: 11.5 s x 256 > 10 s
            cell(64, 64, "extrapolated from part 1 and 3 of 252 boundary vertices of one "
                         "I/O-block (stopped after 12 s)", 9000.0),
            # its 6.5 s x 4 = 26 s is no bound on 150 s: it rests on its extrapolation
            cell(512, 256, "extrapolated from part 1 and 1 of 2044 boundary vertices of one "
                           "I/O-block (stopped after 7 s)", 35000.0)]
    b = {"gerritsen2012_table5_1": pd.DataFrame(rows)}
    assert extrapolation_check(b)[0] is None
    v = verdicts("gerritsen2012_table5_1", evidence_table5_1(claims_of("gerritsen2012_table5_1"),
                                                             None, {}, benchmarks=b))
    assert v["t51.cpu_faster"][0] == "inconclusive"
    assert "no finished cell" in v["t51.cpu_faster"][1]
    # a finished cell recorded what the extrapolation said part way: 20% off at worst
    rows.append(cell(64, 16, "ok", 5000.0, partial_estimate_ms=1200.0, partial_finished_ms=1000.0))
    b = {"gerritsen2012_table5_1": pd.DataFrame(rows)}
    err, basis = extrapolation_check(b)
    assert err == pytest.approx(0.2) and "1 finished" in basis
    v = verdicts("gerritsen2012_table5_1", evidence_table5_1(claims_of("gerritsen2012_table5_1"),
                                                             None, {}, benchmarks=b))
    assert v["t51.cpu_faster"][0] == "reproduced"  # 233x +- 20% and the rest far past 1 too


def test_the_extrapolation_point_of_a_finished_child():
    """A finished child's progress lines say what a stop after its first boundary vertex would
    have extrapolated, beside the block's real time: the pair the check above reads."""
    err = "100.000 phase 1: timing starts (1 blocks)\n101.0 progress part1 1/1\n" + "".join(
        f"{101 + i} progress part2 {i}/4\n" for i in (1, 2, 3, 4))
    est, finished = extrapolation_point(err)
    assert est == pytest.approx(1000 + 1000 * 4)  # part 1, then the first vertex's pace x 4
    assert finished == pytest.approx(5000)
    assert extrapolate_alg1(err, 100.0)[1] == "1 whole I/O-block"
    assert extrapolation_point(err.replace("4/4", "3/4")) is None  # never finished a block
    # the benchmark row keeps the pair for the ledger's check
    row = bench_row("table5_2", 16, "gpu_alg1", {"status": "ok", "blocks": 1, "step_ms": 5000.0,
                                            "batch_ms": [5000.0], "counters": {},
                                            "partial": (est, finished)}, c=4, variant="2d")
    assert (row["partial_estimate_ms"], row["partial_finished_ms"]) == (est, finished)


# --- Tables 5.2 and 5.3: judged on part 1, the part the variants change --------------------------

COUNTERS = json.dumps({"kernel_launches": 1223184, "part1_launches": 544})


def trial_table(variant, two_d_trials, trials, part1=None):
    """A table timed in interleaved trials: each trial's mean per I/O-block, per variant, and
    with ``part1`` ((2-D, variant) per-trial part-1 times) part 1's own."""
    common = {"block": 32, "gpu_block": 8, "impl": "gpu_alg1", "blocks": 2, "status": "ok",
              "data": "t: test", "trial_order": json.dumps(["2d", variant] * 2),
              "counters": COUNTERS,
              "settings": json.dumps({"block": 32, "gpu_block": 8, "io_blocks": 2, "trials": 4})}
    rows = [{**common, "variant": "2d", "batch_ms": json.dumps([np.mean(two_d_trials)] * 2),
             "trial_ms": json.dumps(two_d_trials)},
            {**common, "variant": variant, "batch_ms": json.dumps([np.mean(trials)] * 2),
             "trial_ms": json.dumps(trials)}]
    if part1 is not None:
        for row, times in zip(rows, part1):
            row["trial_part1_ms"] = json.dumps(times)
    return pd.DataFrame(rows)


def test_tables_5_2_5_3_timed_on_whole_io_blocks_are_an_a_over_a_test():
    """Issue 51: the 3-D and z-order variants change part 1 only (544 of 1,223,184 launches), so
    a whole I/O-block's time cannot tell them from the 2-D run: the rows say so."""
    two_d = [5000.0, 5100.0, 6000.0, 6100.0]
    b = {"gerritsen2012_table5_2": trial_table("3d", two_d, [x * 1.1 for x in two_d]),
         "gerritsen2012_table5_3": trial_table("zorder", two_d, [5100.0, 5000.0, 6200.0, 6000.0])}
    v2 = verdicts("gerritsen2012_table5_2",
                  evidence_table5_2(claims_of("gerritsen2012_table5_2"), None, {}, benchmarks=b))
    v3 = verdicts("gerritsen2012_table5_3",
                  evidence_table5_3(claims_of("gerritsen2012_table5_3"), None, {}, benchmarks=b))
    for cid, (verdict, reason) in {**v2, **v3}.items():
        assert verdict == "not testable here", cid
        assert "an A/A comparison" in reason and "544 of 1,223,184 launches" in reason, cid
        assert "trial_part1_ms" in reason, cid


def test_tables_5_2_5_3_judge_each_interleaved_trials_part_1():
    """With part 1 recorded, the sample is each trial's variant / 2-D ratio of part 1: a level
    shift of the machine between trials hits both alike and decides nothing."""
    two_d = [5000.0, 5100.0, 6000.0, 6100.0]
    p2d = [100.0, 102.0, 120.0, 122.0]
    b = {"gerritsen2012_table5_2": trial_table("3d", two_d, two_d, (p2d, [x * 4 for x in p2d])),
         "gerritsen2012_table5_3": trial_table("zorder", two_d, two_d,
                                               (p2d, [102.0, 100.0, 124.0, 120.0]))}
    v2 = verdicts("gerritsen2012_table5_2",
                  evidence_table5_2(claims_of("gerritsen2012_table5_2"), None, {}, benchmarks=b))
    v3 = verdicts("gerritsen2012_table5_3",
                  evidence_table5_3(claims_of("gerritsen2012_table5_3"), None, {}, benchmarks=b))
    assert v2["t52.slower"][0] == "reproduced"  # part 1 four times the 2-D run's
    assert v3["t53.slower"][0] == "inconclusive"  # 0.98 to 1.03: noise decides
    ev = evidence_table5_2(claims_of("gerritsen2012_table5_2"), None, {}, benchmarks=b)["t52.slower"]
    assert ev.n == "4 interleaved trials of 2 I/O-block(s) per variant"
    assert "each trial's ratio 4, 4, 4, 4" in ev.detail and "part 1 only" in ev.detail
    # z-order against 3-D is no ratio of the two tables' ratios (tests/test_claims_rows.py)
    ev3 = evidence_table5_3(claims_of("gerritsen2012_table5_3"), None, {}, benchmarks=b)
    assert ev3["t53.vs_3d"].reason.startswith("the thesis sets Table 5.3's 6740 ms")


# --- Table 5.7: the cap binds, or the claims resting on phase 2 are not testable -----------------

def table57(rss):
    cap = json.dumps({"rlimit": "RLIMIT_DATA", "baseline_mib": 145.5, "budget_mib": 238,
                      "limit_mib": 383.5})
    rows = [{"block": "", "phase": "whole grid", "impl": "dijkstra (in memory)", "seconds": 1.0}]
    for m, p1, p2, g in ((16, 140.0, 50.0, 1.2), (32, 300.0, 17.0, 1.9), (64, 550.0, 10.0, 2.8)):
        rows += [{"block": m, "phase": "phase 1", "impl": "cpu_dijkstra", "seconds": p1},
                 {"block": m, "phase": "phase 2", "impl": "cpu (capped)", "seconds": p2,
                  "cap": cap, "max_rss_mib": rss},
                 {"block": m, "phase": "phase 3", "impl": "cpu (capped)", "seconds": 0.5,
                  "cap": cap, "max_rss_mib": rss},
                 {"block": m, "phase": "phase 1", "impl": "gpu_alg2", "seconds": g}]
    df = pd.DataFrame(rows)
    df["status"], df["window"], df["data"] = "ok", 64, "t: test"
    return df


def test_table5_7_claims_on_phase_2_say_which_cap_bound_and_need_one():
    """Where the host delegates no memory cgroup (run 3's refused one), RLIMIT_DATA holds the
    heap; it binds as the thesis's machine did only where resident memory stayed under it too
    (issue 51's check), else the claims resting on phase 2 are not testable and say why; a cgroup
    binds every page; with no cap at all they are not testable."""
    c = claims_of("gerritsen2012_table5_7")

    def judged(b):
        return verdicts("gerritsen2012_table5_7",
                        evidence_table5_7(c, None, {}, benchmarks={"gerritsen2012_table5_7": b}))

    resident_past = table57(1785.0)  # run 3's case: the mapped grid resident beyond the limit
    v = judged(resident_past)
    for cid in ("t57.p2_dominates", "t57.cpu_best_m", "t57.p2_faster_m"):
        # M against M (the slope) is judged, saying the cap did not bind; the levels are not
        assert v[cid][0] == ("not testable here" if cid != "t57.p2_faster_m" else "inconclusive")
        assert "RLIMIT_DATA held their heap and private mappings to 238 MB over the start-up's " \
               "145.5 MiB (383.5 MiB in all), but resident memory reached 1785-1785 MiB" in v[cid][1]
        assert "the cap did not bind" in v[cid][1]
    heap_only = table57(300.0)  # resident under the 383.5 MiB limit: it bound
    assert cap_check(heap_only) is None
    v = judged(heap_only)
    assert v["t57.p2_dominates"][0] == "reproduced"  # 50 s > 1.2 s and 17 s > 1.9 s
    assert v["t57.cpu_best_m"][0] == "not reproduced"  # ours: M = 16^2
    assert "resident memory stayed under it (300-300 MiB)" in v["t57.p2_faster_m"][1]
    assert v["t57.gpu_p1_faster"][0] == "reproduced"  # phase 1 needs no cap
    # ours grows with M, the thesis's fell; but a fit through one run per M has no interval, and
    # the rule gives no magnitude verdict without one (issue 30)
    assert v["t57.cpu_p1_trend"][0] == "inconclusive"
    # a cgroup charges the mapped pages too: its peak under the limit binds as the thesis's did
    cgroup = {"rlimit": "cgroup v2 memory.max", "cgroup": "/sys/fs/cgroup/x", "limit_mib": 238.0,
              "budget_mib": 238, "baseline_mib": 0.0, "peak_mib": 230.5}
    whole = table57(300.0).assign(cap=lambda d: np.where(d["impl"] == "cpu (capped)",
                                                         json.dumps(cgroup), ""))
    v = judged(whole)
    assert v["t57.p2_dominates"][0] == "reproduced"
    assert "a memory cgroup of 238 MiB (cgroup v2 memory.max), charging every page they touched, " \
           "the memory-mapped grid and G' too" in v["t57.p2_dominates"][1]
    assert "peak 230.5 MiB" in v["t57.cpu_best_m"][1]
    # a cgroup that recorded no peak under its limit, or no cap at all: nothing bound
    over = whole.assign(cap=whole["cap"].str.replace('"peak_mib": 230.5', '"peak_mib": 900.0'))
    for b, why in ((over, "did not record a peak under it"),
                   (table57(300.0).assign(cap=""), "recorded no memory cap")):
        v = judged(b)
        for cid in ("t57.p2_dominates", "t57.cpu_best_m"):
            assert v[cid][0] == "not testable here" and why in v[cid][1], cid


def test_table5_7_provenance_names_the_cap_its_capped_runs_had():
    from graphrepro.experiments.gerritsen2012_sssp_evidence_t57 import memory_cap_record

    b = table57(1785.0)  # resident past the limit: held the heap, did not bind
    record = memory_cap_record(b)
    assert record["kind"] == "RLIMIT_DATA" and record["budget_mib"] == 238
    assert record["charges"] == "the heap and private mappings, not memory-mapped files' pages"
    assert record["bound"] == "" and "the cap did not bind" in record["why_not_bound"]
    record = memory_cap_record(table57(300.0))
    assert record["bound"].startswith("the cap that bound phases 2 and 3: RLIMIT_DATA held")
    assert record["why_not_bound"] == ""
    assert memory_cap_record(b.drop(columns="cap")) is None


# --- Table 3.5: "slower than the best version of the chapter" is judged ---------------------------

def test_table3_5_against_the_chapters_best_version():
    from test_gerritsen2012_mst import fake_blocks

    b = {g12.bench("gpu_baseline"): fake_blocks("gpu_baseline", [20, 30, 40]),
         g12.bench("gpu_prealloc"): fake_blocks("gpu_prealloc", [8, 9, 10]),
         g12.bench("gpu_reduce"): fake_blocks("gpu_reduce", [10, 12, 14])}
    ev = get_target("gerritsen2012_table3_5").evidence(claims_of("gerritsen2012_table3_5"), None, {},
                                                       benchmarks=b)
    v = verdicts("gerritsen2012_table3_5", ev)
    assert v["t35.vs_best"][0] == "reproduced"  # 12 ms against 9 ms: slower, as the thesis says
    assert "gerritsen2012_mst_gpu_prealloc" in get_target("gerritsen2012_table3_5").benchmarks


# --- chapter 3: versions timed in passes of their own, the drift between passes allowed for --------

def _passes(variant, totals, again=None):
    """A version's merged table: its blocks in two shards (block i in shard i % 2) as pass 1,
    and each shard of ``again`` ({shard: factor}) timed again as pass 2, its times scaled."""
    from test_gerritsen2012_mst import fake_blocks

    first = fake_blocks(variant, totals).assign(shard=[f"{i % 2}/2" for i in range(len(totals))])
    tables = [first.assign(**{"pass": 1})]
    for shard, factor in (again or {}).items():
        rows = first[first["block"] % 2 == shard].assign(**{"pass": 2})
        times = [c for c in rows if c.endswith("_ms")]
        rows[times] = rows[times] * factor
        tables.append(rows)
    return pd.concat(tables, ignore_index=True)


def test_the_drift_is_each_repeated_shards_second_pass_over_its_first():
    from graphrepro.experiments.gerritsen2012_mst_measured import block_drift, stats, variant_table
    from test_gerritsen2012_mst import fake_blocks

    b = {g12.bench("cpu_baseline"): _passes("cpu_baseline", [10, 20, 30, 40], {0: 1.2}),
         g12.bench("gpu_baseline"): _passes("gpu_baseline", [5, 6, 7, 8], {0: 0.9, 1: 1.0})}
    assert block_drift(b) == pytest.approx([np.log(1.2), -np.log(0.9), 0.0])
    # every statistic is the first pass's: the second is only the measure of the drift
    assert stats(variant_table(b, "cpu_baseline"))["Average"] == 25
    assert len(variant_table(b, "gpu_baseline")) == 4
    # a table without the pass column (an older run, an unsharded job) is one pass: no drift
    plain = {g12.bench("cpu_baseline"): fake_blocks("cpu_baseline", [10, 20, 30, 40])}
    assert block_drift(plain) == [] and stats(variant_table(plain, "cpu_baseline"))["Average"] == 25


def test_the_tables_and_figure_read_the_first_pass_alone():
    totals = {"cpu_baseline": [10, 20, 30, 40], "gpu_baseline": [5, 12, 7, 30],
              "cpu_prealloc": [4, 8, 6, 9], "gpu_prealloc": [3, 2, 5, 4]}
    plain = {g12.bench(v): _passes(v, t) for v, t in totals.items()}
    twice = {g12.bench(v): _passes(v, t, {1: 3.0}) for v, t in totals.items()}
    for name in ("gerritsen2012_table3_1", "gerritsen2012_fig3_6", "gerritsen2012_table3_7"):
        t = get_target(name)
        pub = published("gerritsen2012")
        pd.testing.assert_frame_equal(t.compare(pd.DataFrame(), {}, pub, benchmarks=twice),
                                      t.compare(pd.DataFrame(), {}, pub, benchmarks=plain))


def test_a_speedups_interval_allows_for_the_drift_and_its_value_does_not_move():
    from graphrepro.experiments.gerritsen2012_mst_evidence import _gain, gain

    rng = np.random.default_rng(3)
    cpu = rng.uniform(50, 150, 400)
    gpu = cpu * rng.uniform(0.6, 0.7, 400)
    plain = {g12.bench("cpu_baseline"): _passes("cpu_baseline", cpu),
             g12.bench("gpu_baseline"): _passes("gpu_baseline", gpu)}
    twice = {**plain, g12.bench("gpu_baseline"): _passes("gpu_baseline", gpu, {1: 1.15})}
    before, after = gain(plain, "cpu_baseline", "gpu_baseline"), gain(twice, "cpu_baseline",
                                                                       "gpu_baseline")
    assert list(before.drift) == [] and after.drift == pytest.approx([np.log(1.15)])
    narrow, wide = (e.estimate(np.random.default_rng(0)) for e in (before, after))
    assert wide.ours == narrow.ours and wide.high - wide.low > 4 * (narrow.high - narrow.low)
    assert "with the drift seen between passes (up to 15.0%)" in wide.interval
    # no second pass anywhere: the interval the bootstrap over blocks always gave
    from graphrepro.claims import Bootstrap

    same = Bootstrap(groups=[np.column_stack([cpu, gpu])], statistic=_gain, units="blocks")
    was = same.estimate(np.random.default_rng(0))
    assert (narrow.ours, narrow.low, narrow.high) == pytest.approx((was.ours, was.low, was.high))


def test_a_few_narrow_cpu_wins_are_inconclusive_under_the_drift():
    """t31.cpu_wins_some: 30 of 200 blocks won by the CPU by 3%; counted, or bootstrapped over
    blocks alone, that is "some blocks"; with passes seen to drift by 20%, a pass of the CPU
    version as slow as that wins none of them."""
    rng = np.random.default_rng(5)
    gpu = rng.uniform(50, 150, 200)
    cpu = gpu * np.where(np.arange(200) < 30, 0.97, 1.5)
    target = get_target("gerritsen2012_table3_1")

    def verdict(b):
        ev = target.evidence(claims_of(target.name), None, {}, benchmarks=b)
        return verdicts(target.name, ev)["t31.cpu_wins_some"]

    plain = {g12.bench("cpu_baseline"): _passes("cpu_baseline", cpu),
             g12.bench("gpu_baseline"): _passes("gpu_baseline", gpu)}
    sure = verdict(plain)
    assert sure[0] == "reproduced" and "the CPU version is faster on 30 of 200 blocks" in sure[1]
    drifted = {**plain, g12.bench("cpu_baseline"): _passes("cpu_baseline", cpu, {0: 1.2})}
    unsure = verdict(drifted)
    assert unsure[0] == "inconclusive" and "straddles the published >= 1" in unsure[1], unsure
    # no win anywhere stays a counterexample, drift or none
    none = {**drifted, g12.bench("gpu_baseline"): _passes("gpu_baseline", cpu / 2)}
    assert verdict(none)[0] == "not reproduced"


# --- the reference run ------------------------------------------------------------------------------

def test_reference_ledger_judges_every_gerritsen2012_claim():
    ledger = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    g = ledger[ledger["document"] == "gerritsen2012"].set_index("claim_id")
    assert list(g.index) == tabulated(load_claims("gerritsen2012")["claim_id"])
    assert not g["reason"].str.contains("was not built").any()
    # GPU algorithms 1 and 2 are host loops: run 3 timed them on graphrepro.launch, so the
    # launch-path rule (issue 30) no longer strikes the claims their times decide
    for cid in ("t51.cpu_faster", "t51.higher_c", "t54.best_gpu", "t54.speedup32"):
        assert g.loc[cid, "verdict"] != "not testable here", cid
        assert g.loc[cid, "run"].startswith("run 3"), cid
    # issue 51: run 3 timed Tables 5.2/5.3's variants on whole I/O-blocks, an A/A comparison
    for cid in ("t52.slower", "t52.avg", "t53.slower", "t53.avg", "t53.vs_3d"):
        assert g.loc[cid, "verdict"] == "not testable here", cid
        assert "an A/A comparison" in g.loc[cid, "reason"], cid
    assert not g["reason"].str.contains("superseded launch path").any()
    # defect 8: run 3's cap held the heap only (no cgroup on its host): its ledger said "did not
    # bind"; retabulated under issue 51's rule, the claims are judged and name RLIMIT_DATA
    for cid in ("t57.p2_dominates", "t57.cpu_best_m"):
        reason = g.loc[cid, "reason"]
        assert ("did not bind" in reason and g.loc[cid, "verdict"] == "not testable here") or \
            "the cap that bound phases 2 and 3: RLIMIT_DATA" in reason, cid
    assert g.loc["t35.vs_best", "verdict"] in ("reproduced", "not reproduced", "inconclusive")
    assert g.loc["t54.best_cpu", "verdict"] == "reproduced"  # four batches per side
    table = pd.read_csv(REFERENCE / "targets" / "gerritsen2012_table5_7.csv", dtype=str,
                        keep_default_na=False)
    cap = table[table["column"] == "memory cap"]["note"].iloc[0]
    assert "RLIMIT_DATA" in cap and np.isfinite(float(cap.split("peak RSS ")[1].split()[0]))


def test_descriptions_say_what_ran():
    """Defect 9: no target promises the whole grid or a memory cap it did not have."""
    t38 = get_target("gerritsen2012_table3_8").description
    assert "cropped to phases_side" in t38 and "judged on the whole 40 ft grid's runs" in t38
    t57 = get_target("gerritsen2012_table5_7").description
    assert "under a memory cap" not in t57 and "uncapped" in t57


# --- the space statements of Tables 3.6 and 5.5 ----------------------------------------------------

def test_space_rows_are_judged_from_the_bytes_the_side_files_hold():
    from graphrepro.experiments.gerritsen2012_mst_evidence import evidence_table3_6
    from graphrepro.experiments.gerritsen2012_sssp_evidence import evidence_table5_5
    from graphrepro.terrain.blockio import bytes_under

    sweep = pd.DataFrame([{"status": "ok", "vertices": n, "trial": 0, "phase1_ms": 1.0,
                           "phase2_ms": 1.0, "phase3_ms": 1.0, "total_block_reads": 1,
                           "total_block_writes": 1, "total_bytes_read": n, "total_bytes_written": n,
                           "work_bytes": 12 * n + 4096} for n in (1024, 4096, 16384, 65536)])
    c36 = claims_of("gerritsen2012_table3_6")
    v = verdicts("gerritsen2012_table3_6", evidence_table3_6(c36, None, {}, {g12.SWEEP: sweep}))
    assert v["t36.space"][0] == "reproduced", v["t36.space"]
    assert v["t36.gpu_space"][0] == "not testable here" and "one block side (C)" in v["t36.gpu_space"][1]
    old = sweep.drop(columns="work_bytes")  # run 3's sweep: made before the column
    v = verdicts("gerritsen2012_table3_6", evidence_table3_6(c36, None, {}, {g12.SWEEP: old}))
    assert v["t36.space"][0] == "not testable here"
    assert "the size sweep recorded no work_bytes (the bytes its side files hold" in v["t36.space"][1]
    # Table 5.5: per M, the space against N; space growing as N^1.3 at one M leaves the band
    rows = [{"status": "ok", "N": n, "block": m, "M": m * m, "phase1_s": 1.0, "phase2_s": 1.0,
             "phase3_s": 1.0, "bytes_read": n, "bytes_written": n, "data": "t: test",
             "work_bytes": 40 * n ** (1.3 if m == 16 else 1.0)}
            for m in (8, 16) for n in (4096, 16384, 65536, 262144)]
    c55 = claims_of("gerritsen2012_table5_5")
    v = verdicts("gerritsen2012_table5_5",
                 evidence_table5_5(c55, None, {}, benchmarks={"gerritsen2012_table5_5": pd.DataFrame(rows)}))
    assert v["t55.space"][0] == "not reproduced" and "M=256 1.3 " in v["t55.space"][1], v["t55.space"]
    linear = pd.DataFrame(rows).assign(work_bytes=lambda d: 40 * d["N"])
    v = verdicts("gerritsen2012_table5_5",
                 evidence_table5_5(c55, None, {}, benchmarks={"gerritsen2012_table5_5": linear}))
    assert v["t55.space"][0] == "reproduced"
    assert v["t55.gpu_space"][0] == "not testable here" and "device memory" in v["t55.gpu_space"][1]
    v = verdicts("gerritsen2012_table5_5", evidence_table5_5(
        c55, None, {}, benchmarks={"gerritsen2012_table5_5": linear.drop(columns="work_bytes")}))
    assert v["t55.space"][0] == "not testable here" and "recorded no work_bytes" in v["t55.space"][1]
    assert bytes_under(Path("/nonexistent-graphrepro")) == 0


# --- Table 5.7's CPU phase 1 scaled from a sample of blocks: the scaling's error in the interval ---

def test_a_scaled_cpu_phase_1_carries_the_spread_of_its_sampled_blocks():
    from graphrepro.experiments.gerritsen2012_sssp_measured import rescaled, scaled_sample

    row = {"batch_ms": json.dumps([80.0, 120.0, 100.0, 100.0]), "batch_blocks": json.dumps([8] * 4)}
    sample = scaled_sample(row)
    assert sample.tolist() == [10.0, 15.0, 12.5, 12.5]  # ms per block, batch by batch
    assert rescaled(600.0, sample, np.full(4, 15.0)) == 720.0  # the whole moves with the mean
    for bad in ({"batch_ms": "[100.0]", "batch_blocks": "[8]"},  # one batch: no spread
                {"batch_ms": "", "batch_blocks": ""}, {"batch_ms": "[1.0, 2.0]"}):
        assert scaled_sample(bad) is None

    def judged(batch_ms):
        b = table57(300.0).assign(batch_ms="", batch_blocks="", extrapolated="")
        cpu = b["impl"] == "cpu_dijkstra"
        b.loc[cpu, "batch_ms"] = json.dumps(batch_ms)
        b.loc[cpu, "batch_blocks"] = json.dumps([8] * len(batch_ms))
        b.loc[cpu, "extrapolated"] = "from 64 of 4096 blocks (step time, 8 threads)"
        ev = evidence_table5_7(claims_of("gerritsen2012_table5_7"), None, {},
                               benchmarks={"gerritsen2012_table5_7": b})
        return ev, verdicts("gerritsen2012_table5_7", ev)

    # M = 64^2: 550 s scaled from 8 batches whose per-block times spread +-20%: the interval of
    # GPU / CPU is the bootstrap of that spread around 2.8 / 550, not a single value
    ev, v = judged([80.0, 120.0, 100.0, 90.0, 110.0, 100.0, 95.0, 105.0])
    j = judge(claims_of("gerritsen2012_table5_7").set_index("claim_id").loc["t57.gpu64_slower"]
              .to_dict(), ev["t57.gpu64_slower"])
    assert j.ours == pytest.approx(2.8 / 550) and j.low < j.ours < j.high
    assert j.high / j.low == pytest.approx(1.17, abs=0.06)  # the mean of 8 batches, +-20% each
    assert "the scaling's error in the interval: M=64^2 8 batches" in v["t57.gpu64_slower"][1]
    assert "M=16^2 116.7 (107" in v["t57.gpu_p1_faster"][1]
    # batches alike: the sample holds no spread, the interval is the value
    ev, _ = judged([100.0] * 8)
    j = judge(claims_of("gerritsen2012_table5_7").set_index("claim_id").loc["t57.gpu64_slower"]
              .to_dict(), ev["t57.gpu64_slower"])
    assert j.low == pytest.approx(j.ours) and j.high == pytest.approx(j.ours)
