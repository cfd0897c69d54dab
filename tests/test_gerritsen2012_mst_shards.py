"""gerritsen2012 chapter 3's centre blocks timed in shards (`mst-blocks --shard I/N`,
`merge-blocks`, config `gerritsen2012_mst.block_shards`): the shards partition the chosen blocks,
merge back into the unsharded table, refuse to merge what is not every shard of one measurement,
and say how they were timed, no more than their records show; the workflow plans N shard jobs
and one merge per version, and the planner and the deadline gate see shard-sized jobs."""

import copy
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphrepro.cli import main
from graphrepro.configcheck import check_config
from graphrepro.errors import InputError
from graphrepro.experiments import get_target, published
from graphrepro.harness.block_shards import how_timed, merge_block_shards, timing_facts
from graphrepro.plan import plan, plan_blocks
from graphrepro.solvers.gerritsen2012 import mst_measure
from graphrepro.terrain import convert_array

REPO = Path(__file__).resolve().parents[1]
ARGS = ["--variant", "cpu_mark", "--block-side", "8", "--blocks", "7", "--trials", "2"]


@pytest.fixture(scope="module")
def zgrid(tmp_path_factory):
    values = np.random.default_rng(5).integers(0, 900, (27, 30))
    values[3:6, 4:9] = 7  # a flat patch: ties
    z = tmp_path_factory.mktemp("g12") / "small.zgrid"
    convert_array(values, z, source={})
    return z


@pytest.fixture(scope="module")
def made(zgrid, tmp_path_factory):
    """One CPU version's unsharded table and its three shards', made in another order."""
    d = tmp_path_factory.mktemp("shards")
    assert main(["mst-blocks", str(zgrid), *ARGS, "--output", str(d / "whole.csv")]) == 0
    for i in (2, 0, 1):
        assert main(["mst-blocks", str(zgrid), *ARGS, "--shard", f"{i}/3",
                     "--output", str(d / f"s.{i}.csv")]) == 0
    return d


def test_shard_slices_partition_the_chosen_blocks(made):
    for count in (1, 7, 10):
        for n in range(1, count + 2):
            parts = [list(mst_measure.shard_blocks(count, (i, n))) for i in range(n)]
            assert sorted(sum(parts, [])) == list(range(count))
            assert max(map(len, parts)) - min(map(len, parts)) <= 1
    whole = pd.read_csv(made / "whole.csv")
    for i in range(3):
        t = pd.read_csv(made / f"s.{i}.csv")
        assert (t["shard"] == f"{i}/3").all() and (t["status"] == "ok").all()
        assert sorted(t["block"].unique()) == list(mst_measure.shard_blocks(7, (i, 3)))
        assert (t.groupby("block")["trial"].apply(sorted) == pd.Series([[0, 1]] * len(
            t["block"].unique()), index=sorted(t["block"].unique()))).all()
        # a block keeps its global index: the same block (bx, by) as in the unsharded table
        here = t.drop_duplicates("block").set_index("block")[["bx", "by"]]
        pd.testing.assert_frame_equal(here, whole.drop_duplicates("block").set_index("block")
                                      .loc[here.index, ["bx", "by"]])
        record = json.loads((made / f"s.{i}.provenance.json").read_text())
        assert record["settings"]["shard"] == f"{i}/3" and record["job"]["blocks"] == len(here)
        assert record["job"]["timed_start_unix"] <= record["job"]["timed_end_unix"]
        assert record["anchors"]["cpu"]["before_ms"] > 0  # each shard's job says how fast it ran
    # unsharded, a table has its record too: a whole run names the run of every table it reads
    whole_record = json.loads((made / "whole.provenance.json").read_text())
    assert whole_record["settings"]["shard"] is None and whole_record["job"]["blocks"] == 7
    assert "run_name" in whole_record


def test_a_shard_warms_up_on_its_own_first_block_verified(zgrid, monkeypatch):
    calls = []
    real = mst_measure.process_block

    def spy(zb, store, b, bx, by, *a, keep_arrays=False, **k):
        calls.append(((bx, by), keep_arrays))
        return real(zb, store, b, bx, by, *a, keep_arrays=keep_arrays, **k)

    monkeypatch.setattr(mst_measure, "process_block", spy)
    t = mst_measure.measure_blocks(zgrid, variant="cpu_mark", block_side=8, blocks=7, trials=2,
                                   shard=(1, 3), log=lambda m: None)
    chosen = mst_measure.centre_blocks(27, 30, 32, 8, 7)
    assert calls == [(chosen[1], True), (chosen[1], True), (chosen[1], False),
                     (chosen[4], True), (chosen[4], False)]
    assert len(t) == 4  # the warm-up is not recorded
    with pytest.raises(InputError, match="empty: at most 7 shards"):
        mst_measure.measure_blocks(zgrid, variant="cpu_mark", block_side=8, blocks=7,
                                   shard=(7, 8), log=lambda m: None)


def test_merged_shards_equal_the_unsharded_table(made, capsys):
    out = made / "merged.csv"
    assert main(["merge-blocks", *(str(made / f"s.{i}.csv") for i in (2, 0, 1)),
                 "--output", str(out)]) == 0
    whole, merged = pd.read_csv(made / "whole.csv"), pd.read_csv(out)
    same = [c for c in whole.columns if not c.endswith("_ms")]  # every column but the times
    pd.testing.assert_frame_equal(merged[same], whole[same])
    assert merged["shard"].tolist() == [f"{b % 3}/3" for b in merged["block"]]
    said = merged["timed_as"].dropna()
    assert list(said.index) == [0] and "blocks timed in 3 shards" in said.iloc[0]
    record = json.loads(out.with_suffix(".provenance.json").read_text())
    assert len(record["shards"]) == 3 and record["timed_as"] == said.iloc[0]
    assert record["block_shards"]["shards"] == 3 and record["block_shards"]["at_once"] == 1
    assert "3 shards" in capsys.readouterr().err


def _copy(made, tmp_path, i, name=None, edit=None):
    t = pd.read_csv(made / f"s.{i}.csv")
    if edit:
        t = edit(t)
    path = tmp_path / (name or f"s.{i}.csv")
    t.to_csv(path, index=False)
    prov = made / f"s.{i}.provenance.json"
    path.with_suffix(".provenance.json").write_text(prov.read_text())
    return path


def test_the_merge_refuses_what_is_not_every_shard_of_one_measurement(made, tmp_path, capsys):
    s = [made / f"s.{i}.csv" for i in range(3)]
    with pytest.raises(InputError, match=r"shard\(s\) 2/3 missing: 2 of 3 given"):
        merge_block_shards(s[:2])
    with pytest.raises(InputError, match="shard 1/3 given twice"):
        merge_block_shards([s[0], s[1], s[1]])
    with pytest.raises(InputError, match="not a table of `mst-blocks --shard I/N`"):
        merge_block_shards([made / "whole.csv"])
    other = _copy(made, tmp_path, 1, edit=lambda t: t.assign(variant="cpu_prealloc"))
    with pytest.raises(InputError, match="different variants"):
        merge_block_shards([s[0], other, s[2]])
    moved = _copy(made, tmp_path, 2, "moved.csv", edit=lambda t: t.assign(
        block=t["block"].replace({5: 4})))  # shard 2's block 5 said to be shard 1's block 4
    with pytest.raises(InputError, match=r"shard 2/3 of 7 blocks should hold blocks 2, 5, .*"
                                         r"has \[4\] beyond them and lacks \[5\]"):
        merge_block_shards([s[0], s[1], moved])
    bare = tmp_path / "bare" / "s.0.csv"
    bare.parent.mkdir()
    bare.write_text(s[0].read_text())
    with pytest.raises(InputError, match="provenance.json: missing"):
        merge_block_shards([bare, s[1], s[2]])
    other_gpu = _copy(made, tmp_path, 1, "gpu.csv", edit=lambda t: t.assign(device_name="NVIDIA X"))
    with pytest.raises(InputError, match="different devices"):
        merge_block_shards([s[0], other_gpu, s[2]])
    # through the command line: one line, nothing written
    out = tmp_path / "m.csv"
    assert main(["merge-blocks", str(s[0]), str(s[1]), "--output", str(out)]) == 2
    assert "missing" in capsys.readouterr().err and not out.exists()


def _repeat(made, tmp_path, i=0, name=None, edit=None, factor=1.1):
    """Shard i timed again (its times scaled by ``factor``, as a pass that drifted)."""
    (tmp_path / "repeat").mkdir(exist_ok=True)
    times = [c for c in pd.read_csv(made / f"s.{i}.csv") if c.endswith("_ms")]

    def again(t):
        t[times] = t[times] * factor
        return edit(t) if edit else t

    return _copy(made, tmp_path / "repeat", i, name, edit=again)


def test_a_shard_timed_again_joins_the_table_as_its_second_pass(made, tmp_path, capsys):
    from graphrepro.harness.shards import job_records

    s = [str(made / f"s.{i}.csv") for i in range(3)]
    plain, out = tmp_path / "plain.csv", tmp_path / "merged.csv"
    assert main(["merge-blocks", *s, "--repeats", "--output", str(plain)]) == 0  # none: as before
    assert (pd.read_csv(plain)["pass"] == 1).all()
    again = _repeat(made, tmp_path)
    assert main(["merge-blocks", *s, "--repeats", str(again), "--output", str(out)]) == 0
    merged, first = pd.read_csv(out), pd.read_csv(plain)
    one, two = merged[merged["pass"] == 1], merged[merged["pass"] == 2]
    pd.testing.assert_frame_equal(one.drop(columns="timed_as").reset_index(drop=True),
                                  first.drop(columns="timed_as"))
    shard0 = pd.read_csv(made / "s.0.csv")
    assert sorted(two["block"].unique()) == sorted(shard0["block"].unique())
    assert two["total_ms"].sum() == pytest.approx(1.1 * shard0["total_ms"].sum())
    said = merged["timed_as"].dropna()
    assert list(said.index) == [0] and said.iloc[0].endswith(
        "; shard 0 timed again in a second pass, for the drift between passes")
    record = json.loads(out.with_suffix(".provenance.json").read_text())
    assert len(record["shards"]) == 3 and len(record["repeats"]) == 1
    assert record["block_shards"]["repeats"] == [0] and record["timed_as"] == said.iloc[0]
    assert len(job_records(record)) == 4  # the report credits the repeat's job too
    assert str(out) in capsys.readouterr().err


def test_the_merge_refuses_a_repeat_that_is_not_its_first_pass_again(made, tmp_path):
    s = [made / f"s.{i}.csv" for i in range(3)]
    fewer = _repeat(made, tmp_path, edit=lambda t: t[t["block"] != 3])
    with pytest.raises(InputError, match=r"repeat/s\.0\.csv: a repeat of shard 0/3 should time "
                                         r"the blocks its first pass timed .* lacks \[3\]"):
        merge_block_shards(s, [fewer])
    other = _repeat(made, tmp_path, 1, edit=lambda t: t.assign(variant="cpu_prealloc"))
    with pytest.raises(InputError, match=r"s\.1\.csv: not a repeat of these shards: their "
                                         r"variants differ \(cpu_mark, cpu_prealloc\)"):
        merge_block_shards(s, [other])
    split = _repeat(made, tmp_path, 2, edit=lambda t: t.assign(shard="0/2"))
    with pytest.raises(InputError, match="a repeat of shard 0/2, but the shards are 3"):
        merge_block_shards(s, [split])
    good = _repeat(made, tmp_path, 0, name="again.csv")
    with pytest.raises(InputError, match="shard 0/3 repeated twice"):
        merge_block_shards(s, [good, good])
    bare = tmp_path / "bare.csv"
    bare.write_text(good.read_text())
    with pytest.raises(InputError, match="bare.provenance.json: missing"):
        merge_block_shards(s, [bare])


def _facts(device, shards, spans, slots=None, pinned="untimed", caches=("0-15",), gpus=None,
           reduce="cpu@deletion=mark,storage=prealloc"):
    merged = pd.DataFrame({"device": [device], "reduce": [reduce],
                           "device_name": ["cpu" if device == "cpu" else "NVIDIA H100 80GB HBM3"]})
    records = []
    for i in range(shards):
        a, b = spans[i] if spans else (None, None)
        records.append({"placement": {"cpu_slots": slots, "pinned": pinned.format(i=i)},
                        "last_level_caches": list(caches) if caches else None,
                        "pci_bus_id": gpus[i] if gpus else None,
                        "job": {"timed_start_unix": a, "timed_end_unix": b}})
    return timing_facts(merged, records, shards, 40)


def test_the_sentence_says_side_by_side_only_where_cpu_slots_let_shards_overlap():
    apart = [(0, 1), (1, 2), (2, 3), (3, 4)]
    overlapping = [(0, 2), (1, 3), (1.5, 4), (5, 6)]  # at most three at once
    one_slot = how_timed(_facts("cpu", 4, apart, pinned="timed"))
    assert "side by side" not in one_slot and "one shard at a time on the cores kept for timing" \
        in one_slot and "as the thesis" in one_slot
    assert "side by side" not in how_timed(_facts("cpu", 4, apart, slots=4, pinned="slot {i} of 0-3"))
    assert "side by side" not in how_timed(_facts("cpu", 4, overlapping, slots=1))
    side = how_timed(_facts("cpu", 4, overlapping, slots=4, pinned="slot {i} of 0-3"))
    assert ("up to 3 at a time side by side on cores of their own, one thread each, sharing one "
            "last-level cache and the memory bus; the thesis timed them one at a time") in side
    split = how_timed(_facts("cpu", 4, overlapping, slots=4, caches=None))
    assert "which caches they shared is not recorded" in split
    assert "not recorded" in how_timed(_facts("cpu", 4, None, slots=4))
    gpu = how_timed(_facts("gpu", 2, [(0, 2), (1, 3)], gpus=["0000:06:00", "0000:07:00"]))
    assert "on 2 GPUs of one model (NVIDIA H100 80GB HBM3), up to 2 at once" in gpu
    assert "CPU reduce steps on each job's host thread" in gpu
    one = how_timed(_facts("gpu", 2, apart[:2], gpus=["0000:06:00"] * 2))
    assert "all on one GPU" in one and "side by side" not in one
    assert how_timed(_facts("cpu", 1, apart[:1])) == ""


def _fake(variant, totals, timed_as=None):
    rows = [{"variant": variant, "status": "ok", "block": i, "trial": 0, "block_side": 8,
             "blocks": len(totals), "grid": "g", "device_name": "cpu", "mst_ms": t,
             "copy_back_ms": 0.0, "dead_ends_ms": 0.0, "contraction_ms": 0.0, "other_ms": 0.0,
             "total_ms": t} for i, t in enumerate(totals)]
    df = pd.DataFrame(rows)
    if timed_as:
        df["timed_as"] = [timed_as] + [None] * (len(df) - 1)
    return df


def test_chapter3_tables_say_how_sharded_blocks_were_timed_and_nothing_more_where_not():
    said = "blocks timed in 2 shards (shard i timing blocks i, i+2, i+4, ...), up to 2 at a time"
    b = {f"gerritsen2012_mst_{v}": _fake(v, [10, 20, 30]) for v in
         ("cpu_baseline", "gpu_baseline", "cpu_mark", "cpu_prealloc", "gpu_prealloc")}
    target = get_target("gerritsen2012_table3_4")
    plain = target.compare(pd.DataFrame(), {}, published("gerritsen2012"), benchmarks=b)
    note = plain.set_index("what").loc["Average", "note"]
    assert "shards" not in note and note.endswith("(cpu_mark): 0% on the CPU average")
    b["gerritsen2012_mst_cpu_prealloc"] = _fake("cpu_prealloc", [10, 20, 30], said)
    sharded = target.compare(pd.DataFrame(), {}, published("gerritsen2012"), benchmarks=b)
    assert f"g: 3 centre blocks of 8^2; cpu_prealloc: {said}" in \
        sharded.set_index("what").loc["Average", "note"]
    fig = get_target("gerritsen2012_fig3_6").compare(pd.DataFrame(), {}, published("gerritsen2012"),
                                                     benchmarks=b).set_index("version")
    assert said in fig.loc["cpu_prealloc", "note"] and "shards" not in fig.loc["cpu_mark", "note"]


def _g12_config(**g12):
    return {"results": "results", "report": "reports/index.html", "seed": 1,
            "measure": {"sources": 1, "trials": 1, "warmup": 0},
            "graphs": {"g": {"generate": {"kind": "road_grid", "rows": 3, "cols": 3, "seed": 1}}},
            "terrains": {"t": {"dataset": "jacksboro_dem"}},
            "gerritsen2012_mst": {"terrain": "t", "block_side": 8, "blocks": 10, **g12},
            "targets": {"gerritsen2012_table3_2": {}}}


@pytest.mark.parametrize("shards, says", [(1, None), (10, None), (0, "less than the minimum of 1"),
                                          ("2", "is not of type 'integer'"),
                                          (11, "11 shards of 10 blocks: at most one shard a block")])
def test_the_config_schema_takes_block_shards(shards, says):
    cfg = _g12_config(block_shards=shards)
    if says is None:
        check_config(copy.deepcopy(cfg))
    else:
        with pytest.raises(InputError, match=re.escape(says)):
            check_config(cfg)


@pytest.mark.parametrize("shards, repeats, says", [
    (4, [0, 3], None), (4, [], None),
    (4, [4], "block_repeat_shards: shard(s) 4 of 4 shards: each must be 0..3"),
    (1, [0], "block_repeat_shards: [0] given while block_shards is 1"),
    (4, [-1], "less than the minimum of 0"), (4, [1, 1], "has non-unique elements"),
    (4, 0, "is not of type 'array'")])
def test_the_config_takes_repeat_shards_below_block_shards(shards, repeats, says):
    cfg = _g12_config(block_shards=shards, block_repeat_shards=repeats)
    if says is None:
        check_config(copy.deepcopy(cfg))
    else:
        with pytest.raises(InputError, match=re.escape(says)):
            check_config(cfg)


def test_estimates_are_scaled_by_how_far_they_missed_the_recorded_versions(tmp_path):
    res, ref = tmp_path / "res", tmp_path / "ref"
    config = {**_g12_config(block_shards=2), "results": str(res),
              "targets": {"gerritsen2012_table3_2": {}, "gerritsen2012_table3_3": {}}}
    (ref / "benchmarks").mkdir(parents=True)
    for variant in ("gpu_baseline", "gpu_mark", "cpu_baseline", "cpu_mark"):  # 0.1 s a block
        _fake(variant, [100.0] * 10).to_csv(ref / f"benchmarks/gerritsen2012_mst_{variant}.csv",
                                            index=False)
    # gpu_baseline's shards took twice the estimate here (0.24 s a block with the check)
    for i in range(2):
        done = res / f"shards/benchmarks/gerritsen2012_mst_gpu_baseline.{i}.provenance.json"
        done.parent.mkdir(parents=True, exist_ok=True)
        done.write_text(json.dumps({"job": {"wall_s": 4.2, "blocks": 5, "timed_s": 1.2,
                                            "block_side": 8, "trials": 1}}))
    jobs = {j.run_id.removeprefix("gerritsen2012_mst_"): j for j in plan_blocks(config, ref, res)}
    assert jobs["gpu_baseline"].basis == "recorded"
    mark = jobs["gpu_mark"]
    assert mark.basis.startswith("estimated x2.00")
    assert mark.per_source_s == pytest.approx(2 * 0.12)
    # the CPU versions have nothing recorded to learn from: their estimates stand
    assert jobs["cpu_mark"].basis == "estimated"
    assert jobs["cpu_mark"].per_source_s == pytest.approx(0.12)


def test_plan_and_deadline_gate_see_shard_sized_jobs(tmp_path, zgrid, monkeypatch, capsys):
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import timeboxed

    res, ref = tmp_path / "res", tmp_path / "ref"
    config = {**_g12_config(block_shards=2), "results": str(res)}
    # one finished shard of a resumed run: 2 s fixed, 1 s a block
    done = res / "shards/benchmarks/gerritsen2012_mst_cpu_tournament.0.provenance.json"
    done.parent.mkdir(parents=True)
    done.write_text(json.dumps({"job": {"wall_s": 7.0, "blocks": 5, "timed_s": 5.0,
                                        "block_side": 8, "trials": 1}}))
    # a committed unsharded table: 0.1 s a block, and a fifth more for the verification
    (ref / "benchmarks").mkdir(parents=True)
    _fake("cpu_baseline", [100.0] * 10).to_csv(ref / "benchmarks/gerritsen2012_mst_cpu_baseline.csv",
                                               index=False)
    jobs = {j.run_id.removeprefix("gerritsen2012_mst_"): j for j in plan_blocks(config, ref, res)}
    assert set(jobs) == {"cpu_baseline", "gpu_baseline", "cpu_tournament"}
    t = jobs["cpu_tournament"]
    assert t.basis == "recorded" and t.one_core and t.job_seconds() == pytest.approx([7.0, 7.0])
    assert jobs["cpu_baseline"].basis == "estimated"
    assert jobs["cpu_baseline"].job_seconds() == pytest.approx([3.12 + 5 * 0.12] * 2)
    assert jobs["gpu_baseline"].device == "gpu" and not jobs["gpu_baseline"].one_core
    assert plan(config, 1, 8, ref, res)["targets"]["gerritsen2012_table3_2"]["jobs"] == 6
    est = timeboxed._estimates(config, res, ref)
    shard1 = os.path.normpath(res / "shards/benchmarks/gerritsen2012_mst_cpu_tournament.1.csv")
    assert est[shard1] == pytest.approx(7.0)
    again = {**config, "gerritsen2012_mst": {**config["gerritsen2012_mst"], "block_repeat_shards": [1]}}
    repeat1 = os.path.normpath(res / "shards/benchmarks/repeat/gerritsen2012_mst_cpu_tournament.1.csv")
    assert timeboxed._estimates(again, res, ref)[repeat1] == pytest.approx(7.0)  # as its first
    # the plan counts the second passes too: one more job a version, as long as its shard
    twice = {j.run_id.removeprefix("gerritsen2012_mst_"): j for j in plan_blocks(again, ref, res)}
    assert twice["cpu_tournament"].job_seconds() == pytest.approx([7.0, 7.0, 7.0])
    assert plan(again, 1, 8, ref, res)["targets"]["gerritsen2012_table3_2"]["jobs"] == 9
    whole = {**config, "gerritsen2012_mst": {**config["gerritsen2012_mst"], "block_shards": 1}}
    est = timeboxed._estimates(whole, res, ref)  # one job of all ten blocks, its usual path
    assert est[os.path.normpath(res / "benchmarks/gerritsen2012_mst_cpu_tournament.csv")] \
        == pytest.approx(12.0)
    assert not plan_blocks(whole, ref, res)[0].one_core
    # the deadline gate: a shard that cannot end before the call does is not started
    out = tmp_path / "s.0.csv"
    (tmp_path / "est.json").write_text(json.dumps({os.path.normpath(str(out)): 100.0}))
    monkeypatch.setenv("GRAPHREPRO_DEADLINE", str(time.time() + 10))
    monkeypatch.setenv("GRAPHREPRO_ESTIMATES", str(tmp_path / "est.json"))
    assert main(["mst-blocks", str(zgrid), *ARGS, "--shard", "0/2", "--output", str(out)]) == 75
    assert "not started" in capsys.readouterr().err and not out.exists()


def test_rerun_forces_the_shards_not_only_their_merge():
    from graphrepro.configs import measured_files

    files = measured_files("gerritsen2012_table3_2", {"gerritsen2012_mst": {"block_shards": 2}})
    assert "results/shards/benchmarks/gerritsen2012_mst_cpu_tournament.1.csv" in files
    assert len(files) == 6 and not any(f.startswith("results/benchmarks/") for f in files)
    assert measured_files("gerritsen2012_table3_6", {"gerritsen2012_mst": {"block_shards": 2}}) \
        == ["results/benchmarks/gerritsen2012_mst_io_sweep.csv"]
    # a second pass left from before would measure the drift against timings no longer there
    again = measured_files("gerritsen2012_table3_2", {"gerritsen2012_mst": {
        "block_shards": 2, "block_repeat_shards": [1]}})
    assert again == files + [f"results/shards/benchmarks/repeat/gerritsen2012_mst_{v}.1.csv"
                             for v in ("cpu_baseline", "gpu_baseline", "cpu_tournament")]


def _host_dry_run(tmp_path, g12: str, cores=16):
    """The gpu-host profile's dry run of Table 3.4 (five versions) on a host of ``cores`` cores
    (a dry run pins nothing: this machine plans that host), two one-core slots."""
    fake = tmp_path / "fake-cores"
    fake.mkdir(exist_ok=True)
    (fake / "sitecustomize.py").write_text(
        f"import os\nos.sched_getaffinity = lambda pid: set(range({cores}))\n")
    cfg = tmp_path / "c.yaml"
    from test_gerritsen2012_mst import CONFIG_HEAD

    cfg.write_text(CONFIG_HEAD.format(reference=tmp_path / "no-reference") + f"""\
gerritsen2012_mst: {{terrain: jacksboro_dem, block_side: 16, blocks: 6, {g12}}}
targets:
  gerritsen2012_table3_4: {{}}
""")
    env = {**os.environ, "PYTHONPATH": f"{fake}{os.pathsep}{REPO / 'src'}", "GRAPHREPRO_GPUS": "0,1"}
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "gerritsen2012_table3_4", "-s", str(REPO / "Snakefile"),
         "-d", str(tmp_path), "-n", "-p", "--workflow-profile",
         str(REPO / "workflow" / "profiles" / "gpu-host"), "--cores", "16", "--quiet", "progress",
         "--replace-workflow-config", "--configfile", str(cfg),
         "--config", "host_gpus=auto", "host_cpu_slots=2"],
        capture_output=True, text=True, timeout=600, env=env)
    text = result.stdout + result.stderr
    assert result.returncode == 0, text[-3000:]
    jobs = {}
    for block in re.split(r"\n(?=\s*\[\w{3} \w{3} )", text):
        rule = re.search(r"rule (\w+):", block)
        if rule and rule[1].startswith("gerritsen2012_mst_blocks"):
            jobs.setdefault(rule[1], []).append(block)
    return jobs


@pytest.mark.slow
def test_a_dry_run_plans_n_shard_jobs_and_one_merge_per_version(tmp_path):
    jobs = _host_dry_run(tmp_path, "block_shards: 3")
    assert set(jobs) == {"gerritsen2012_mst_blocks_shard", "gerritsen2012_mst_blocks_merge"}
    assert len(jobs["gerritsen2012_mst_blocks_merge"]) == 5
    shards = {}
    for block in jobs["gerritsen2012_mst_blocks_shard"]:
        variant, shard = re.search(r"wildcards: variant=(\w+), shard=(\d+)", block).groups()
        shards.setdefault(variant, set()).add(shard)
        res = dict(kv.split("=", 1) for kv in re.search(r"resources: (.*)", block)[1].split(", "))
        shell = re.search(r"Shell command: (.*)", block)[1]
        assert f"--shard {shard}/3 " in shell
        if variant.startswith("cpu"):  # a one-core timing: two side by side, a core each
            assert res["cpu_timed"] == "1" and res["gpu"] == "0"
            assert shell.startswith("env GRAPHREPRO_PIN=slot NUMBA_NUM_THREADS=1 "), shell
        else:  # an ordinary GPU-timed job, as the unsharded one
            assert res["gpu"] == "1" and res["cpu_timed"] == "0"
    assert shards == {v: {"0", "1", "2"} for v in ("cpu_baseline", "gpu_baseline", "cpu_mark",
                                                   "cpu_prealloc", "gpu_prealloc")}
    for block in jobs["gerritsen2012_mst_blocks_merge"]:  # no second pass configured: none
        assert re.search(r"merge-blocks (\S+\.0\.csv) \S+\.1\.csv \S+\.2\.csv --repeats +--output",
                         block)
    # unsharded (the default): one job a version, as before, on the cores kept for timing
    plain = _host_dry_run(tmp_path, "trials: 1")
    assert set(plain) == {"gerritsen2012_mst_blocks"} and len(plain["gerritsen2012_mst_blocks"]) == 5
    for block in plain["gerritsen2012_mst_blocks"]:
        shell = re.search(r"Shell command: (.*)", block)[1]
        assert "--shard" not in shell and "GRAPHREPRO_PIN=slot" not in shell


@pytest.mark.slow
def test_a_dry_run_plans_the_configured_second_passes_as_their_shards_jobs(tmp_path):
    jobs = _host_dry_run(tmp_path, "block_shards: 3, block_repeat_shards: [0, 2]")
    assert set(jobs) == {"gerritsen2012_mst_blocks_shard", "gerritsen2012_mst_blocks_repeat",
                         "gerritsen2012_mst_blocks_merge"}

    def shell_and_resources(block):
        return (re.search(r"Shell command: (.*)", block)[1],
                re.search(r"resources: (.*)", block)[1])

    first = {}
    for block in jobs["gerritsen2012_mst_blocks_shard"]:
        first[re.search(r"wildcards: variant=(\w+), shard=(\d+)", block).groups()] = block
    repeats = {}
    for block in jobs["gerritsen2012_mst_blocks_repeat"]:
        variant, shard = re.search(r"wildcards: variant=(\w+), shard=(\d+)", block).groups()
        repeats.setdefault(variant, set()).add(shard)
        shell, res = shell_and_resources(block)
        # the first pass's job, pinned and held alike, writing beside it in repeat/
        want_shell, want_res = shell_and_resources(first[variant, shard])
        assert shell == want_shell.replace("/shards/benchmarks/", "/shards/benchmarks/repeat/")
        assert res == want_res and f"--shard {shard}/3 " in shell
    assert repeats == {v: {"0", "2"} for v in ("cpu_baseline", "gpu_baseline", "cpu_mark",
                                               "cpu_prealloc", "gpu_prealloc")}
    for block in jobs["gerritsen2012_mst_blocks_merge"]:
        assert re.search(r"\.2\.csv --repeats \S+/repeat/\S+\.0\.csv \S+/repeat/\S+\.2\.csv "
                         r"--output", block)


def test_rerun_forces_a_sharded_graphs_source_shards_and_the_also_runs():
    from graphrepro.configs import measured_files

    config = {"graphs": {"western": {"shards": 2}},
              "targets": {"safari2017_calnev": {"graphs": ["western", "ny"], "runs": ["harish"],
                                                "also": {"calnev": ["nearfar"]}}}}
    assert measured_files("safari2017_calnev", config) == [
        "results/shards/western/harish.0.csv", "results/shards/western/harish.1.csv",
        "results/runs/ny/harish.csv", "results/runs/calnev/nearfar.csv"]
