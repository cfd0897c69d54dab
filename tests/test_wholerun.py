"""The check before a results folder becomes the reference (`retabulate --complete RUN_NAME`):
every table its targets read is there, made by that run, with no row of a program never built."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from workflow_files import undeclared

from graphrepro.errors import InputError
from graphrepro.wholerun import (PIECED_CONFIGS, derived_tables, expected_tables, gaps,
                                 reference_configfiles, require_whole_run, run_record)

REPO = Path(__file__).resolve().parents[1]
CONFIG = {"results": "results", "seed": 1, "measure": {"sources": 2, "trials": 1, "warmup": 0},
          "graphs": {"g": {"generate": {"kind": "road_grid", "rows": 3, "cols": 3, "seed": 1}}},
          "targets": {"singla_fig7_9": {"graphs": ["g"], "runs": ["dijkstra", "harish"]},
                      "an2017_transfers": {}}}


# what every job's record of a reference run names besides its run (issue 32)
NAMED = {"commit": "aaa", "launch_path": "graphrepro.launch", "job": {"wall_s": 1.5},
         "pci_bus_id": "0000:00:06"}


def _table(path: Path, run_name, status="ok"):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"source": [0, 1], "status": [status, "ok"]}).to_csv(path, index=False)
    record = {"date": "2026-11-26", **NAMED, **({"run_name": run_name} if run_name else {})}
    path.with_suffix(".provenance.json").write_text(json.dumps(record))


@pytest.fixture
def whole(tmp_path):
    root = tmp_path / "run"
    for path in expected_tables(CONFIG, root):
        _table(path, "run 3")
    _derived(CONFIG, root)
    return root


def _derived(config, root):
    for path in derived_tables(config, root):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("dataset,graph\n")


def test_the_tables_a_config_reads_are_its_run_files_and_benchmarks(tmp_path):
    names = {str(p.relative_to(tmp_path)) for p in expected_tables(CONFIG, tmp_path)}
    assert names == {"runs/g/dijkstra.csv", "runs/g/harish.csv",
                     "benchmarks/an2017_transfers.csv"}


def test_the_terrain_comparison_and_the_stand_ins_table_belong_to_a_whole_run(whole):
    compared = {**CONFIG, "terrain_compare": {"real": "wake", "standin": "wake_standin",
                                              "mst_variants": ["cpu_baseline"]}}
    names = {str(p.relative_to(whole)) for p in expected_tables(compared, whole)}
    assert names - {str(p.relative_to(whole)) for p in expected_tables(CONFIG, whole)} == {
        "benchmarks/terrain_compare/wake_mst_cpu_baseline.csv",
        "benchmarks/terrain_compare/wake_sssp.csv",
        "benchmarks/terrain_compare/wake_standin_mst_cpu_baseline.csv",
        "benchmarks/terrain_compare/wake_standin_sssp.csv"}
    found = gaps(compared, whole, "run 3")
    assert f"{whole}/benchmarks/terrain_compare/wake_sssp.csv: missing" in found
    assert found[-1] == f"{whole}/standins/terrain_compare.csv: missing" and len(found) == 5
    (whole / "standins/standins.csv").unlink()
    assert gaps(CONFIG, whole, "run 3") == [f"{whole}/standins/standins.csv: missing"]


def test_a_whole_run_has_no_gaps_and_each_kind_of_gap_is_named(whole):
    assert gaps(CONFIG, whole, "run 3") == []
    (whole / "runs/g/harish.csv").unlink()
    _table(whole / "runs/g/dijkstra.csv", None)
    _table(whole / "benchmarks/an2017_transfers.csv", "run 3", status="not built: no Boost headers")
    found = gaps(CONFIG, whole, "run 3")
    assert found == [f"{whole}/runs/g/dijkstra.csv: made by a run with no run_name, not run 3",
                     f"{whole}/runs/g/harish.csv: missing",
                     f"{whole}/benchmarks/an2017_transfers.csv: 1 row(s) of a program never "
                     f"built on that machine"]
    assert gaps(CONFIG, whole, "run 4")[0].endswith("made by a run with no run_name, not run 4")
    with pytest.raises(InputError, match=r"not one whole run 'run 3' of the config \(3 gap\(s\)\)"):
        require_whole_run(CONFIG, whole, "run 3")
    with pytest.raises(InputError, match=r"and 2 more"):
        require_whole_run(CONFIG, whole, "run 3", shown=1)


def test_retabulate_complete_tabulates_nothing_from_a_part_of_a_run(tmp_path):
    # run 3's own config over a folder holding none of it: refused before any table is written
    configs = [str(REPO / "config" / f) for f in ("config.yaml", "h100.yaml", "h100-run3.yaml")]
    root = tmp_path / "part"
    (root / "sources").mkdir(parents=True)
    done = subprocess.run([sys.executable, "-m", "graphrepro", "retabulate", str(root),
                           "--configfile", *configs, "--complete", "run 3"],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode != 0
    assert "is not one whole run 'run 3' of the config" in done.stderr
    assert re.search(r"\(\d{3} gap\(s\)\)", done.stderr)  # every table of the config
    assert "part/runs/ny/harish.csv: missing" in done.stderr
    assert not (root / "claims.csv").exists() and not (root / "targets").exists()


def test_a_job_record_without_its_commit_launch_path_wall_time_or_pci_id_is_a_gap(whole):
    """Issue 32: a reference run's every job names its commit, launch path, wall time and (on
    a GPU) the card's PCI id; a merged table counts each shard's record."""
    table = whole / "benchmarks/an2017_transfers.csv"
    _record(table, gpu="NVIDIA H200", job=None, pci_bus_id="")
    assert gaps(CONFIG, whole, "run 3") == [
        f"{table}: 1 job record(s) with no job.wall_s; 1 job record(s) with no pci_bus_id"]
    shards = [{**NAMED, "gpu": "none", "pci_bus_id": None, "launch_path": None}, dict(NAMED),
              {k: v for k, v in NAMED.items() if k != "commit"}]
    _record(table, shards=shards)
    assert gaps(CONFIG, whole, "run 3") == [
        f"{table}: 1 job record(s) with no launch_path; 1 job record(s) with no commit"]


def test_a_damaged_provenance_record_is_a_gap_and_the_list_goes_on(whole):
    (whole / "runs/g/dijkstra.provenance.json").write_text("{not json")
    (whole / "runs/g/harish.csv").unlink()
    found = gaps(CONFIG, whole, "run 3")
    assert len(found) == 2 and "dijkstra.csv: made by a damaged record" in found[0]
    assert found[1].endswith("harish.csv: missing")


def _blocks(path: Path, passes: dict):
    """A merged chapter-3 block table of 4 shards: {pass: the shards timed in it}."""
    rows = [{"block": b, "trial": 0, "status": "ok", "shard": f"{b % 4}/4", "pass": n}
            for n, shards in passes.items() for b in range(8) if b % 4 in shards]
    pd.DataFrame(rows).to_csv(path, index=False)


def test_a_block_table_without_the_configured_second_passes_is_a_gap(tmp_path):
    config = {**CONFIG, "targets": {"gerritsen2012_table3_1": {}},
              "gerritsen2012_mst": {"block_shards": 4, "block_repeat_shards": [0, 2]}}
    root = tmp_path / "run"
    tables = expected_tables(config, root)
    blocks = [t for t in tables if t.stem.startswith("gerritsen2012_mst_")]
    assert [t.stem for t in blocks] == ["gerritsen2012_mst_cpu_baseline",
                                        "gerritsen2012_mst_gpu_baseline"]
    for path in tables:
        _table(path, "run 3")  # made before second passes were asked for: no pass column
    _derived(config, root)
    said = "(block_repeat_shards): no drift between passes to allow for"
    assert gaps(config, root, "run 3") == [f"{t}: no second pass of shard(s) 0, 2 {said}"
                                           for t in blocks]
    _blocks(blocks[0], {1: range(4), 2: [0, 2]})
    _blocks(blocks[1], {1: range(4), 2: [2]})
    assert gaps(config, root, "run 3") == [f"{blocks[1]}: no second pass of shard(s) 0 {said}"]
    _blocks(blocks[1], {1: range(4), 2: [0, 2, 3]})
    assert gaps(config, root, "run 3") == []
    # asked for none, or no shards to repeat: nothing is missing
    for g12 in ({"block_shards": 4}, {"block_shards": 1, "block_repeat_shards": [0]}):
        _blocks(blocks[1], {1: range(4)})
        assert gaps({**config, "gerritsen2012_mst": g12}, root, "run 3") == []
    # a version that did not run here (no GPU): its one row says why, no timing drifts
    _table(blocks[1], "run 3", status="not run: no CUDA device")
    pd.read_csv(blocks[1]).head(1).to_csv(blocks[1], index=False)
    assert gaps(config, root, "run 3") == []


def _record(path: Path, **fields):
    path.with_suffix(".provenance.json").write_text(json.dumps({"run_name": "run 3", **NAMED,
                                                                **fields}))


def test_a_run_timed_on_two_kinds_of_card_is_not_one_run(whole):
    _record(whole / "runs/g/dijkstra.csv", gpu="none", date="2026-11-26T01:00")
    _record(whole / "runs/g/harish.csv", gpu="NVIDIA H200", date="2026-11-26T02:00")
    assert gaps(CONFIG, whole, "run 3") == []  # a CPU job names no card
    # a merged table: every shard's record counts, not only shard 0's
    shards = [{**NAMED, "gpu": "NVIDIA H200"}, {**NAMED, "gpu": "NVIDIA H100 80GB HBM3"}]
    _record(whole / "benchmarks/an2017_transfers.csv", gpu="NVIDIA H200", shards=shards)
    assert gaps(CONFIG, whole, "run 3") == [
        "the tables were timed on 2 GPU models (NVIDIA H100 80GB HBM3: 1 job(s), NVIDIA H200: "
        "2 job(s)): one run, one kind of card"]


def test_the_runs_record_says_what_its_tables_records_say(whole):
    common = {"cpu": "Xeon", "host": "vm", "python": "3.12", "config_hash": "h"}
    _record(whole / "runs/g/dijkstra.csv", gpu="none", driver=None, commit="bbb",
            date="2026-11-27T01:00", packages={"numpy": "2.4"}, **common)
    _record(whole / "runs/g/harish.csv", gpu="NVIDIA H200", driver="580", cuda_runtime="13.0",
            pci_bus_id="0000:00:06", commit="aaa", date="2026-11-26T01:00",
            packages={"numpy": "2.4", "numba": "0.68"}, **common)
    _record(whole / "benchmarks/an2017_transfers.csv", gpu="NVIDIA H200", commit="aaa",
            shards=[{"gpu": "NVIDIA H200", "driver": "580", "commit": "aaa",
                     "date": "2026-11-26T03:00", "pci_bus_id": "0000:00:07", "cpu": "Xeon",
                     "packages": {"numpy": "2.5"}}])
    record = run_record(CONFIG, whole, "run 3", ["config/config.yaml", "config/h100.yaml",
                                                 "config/h100-run3.yaml"])
    assert record["gpu"] == "NVIDIA H200" and record["driver"] == "580"  # CPU jobs say none
    assert record["pci_bus_ids"] == ["0000:00:06", "0000:00:07"]
    assert record["packages"] == {"numpy": "2.4 | 2.5", "numba": "0.68"}  # each value, in order
    assert record["packages_complete"] is False  # records that named seven packages, not all
    assert record["config"] == "config/h100-run3.yaml (over config/config.yaml, config/h100.yaml)"
    assert record["configfiles"] == ["config/config.yaml", "config/h100.yaml", "config/h100-run3.yaml"]
    assert record["commit"] == "aaa, bbb" and record["jobs"] == 3
    assert record["commits"] == [
        {"commit": "aaa", "first": "2026-11-26T01:00", "last": "2026-11-26T03:00", "jobs": 2},
        {"commit": "bbb", "first": "2026-11-27T01:00", "last": "2026-11-27T01:00", "jobs": 1}]
    assert record["date"] == "2026-11-27T01:00" and record["run_name"] == "run 3"


def test_the_report_credits_the_reference_with_the_config_files_its_record_names(tmp_path):
    ref = tmp_path / "reference"
    ref.mkdir()
    assert reference_configfiles(ref, tmp_path) == [tmp_path / f for f in PIECED_CONFIGS]
    record = run_record(CONFIG, ref, "run 3", ["config/config.yaml", "config/h100-run3.yaml"])
    (ref / "provenance.json").write_text(json.dumps(record))
    assert reference_configfiles(ref, tmp_path) == [tmp_path / "config/config.yaml",
                                                    tmp_path / "config/h100-run3.yaml"]
    (ref / "provenance.json").write_text(json.dumps({"configfiles": "config/h100.yaml"}))
    with pytest.raises(InputError, match="configfiles should be a list"):
        reference_configfiles(ref, tmp_path)
    (ref / "provenance.json").write_text('{"configfiles": [')
    with pytest.raises(InputError, match="provenance.json: not the reference run's record"):
        reference_configfiles(ref, tmp_path)


def test_retabulate_complete_writes_the_runs_record_beside_its_ledger(tmp_path):
    import shutil

    root = tmp_path / "run"
    (root / "benchmarks").mkdir(parents=True)
    shutil.copy(REPO / "reports/reference/benchmarks/an2017_transfers.csv", root / "benchmarks")
    _record(root / "benchmarks/an2017_transfers.csv", gpu="NVIDIA H200", commit="aaa",
            date="2026-11-26T01:00")
    config = tmp_path / "only-transfers.yaml"
    config.write_text("results: results\nseed: 1\nmeasure: {sources: 2, trials: 1, warmup: 0}\n"
                      "graphs: {}\ntargets:\n  an2017_transfers: {}\n")
    _derived({}, root)
    done = subprocess.run([sys.executable, "-m", "graphrepro", "retabulate", str(root),
                           "--configfile", str(config), "--complete", "run 3"],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    record = json.loads((root / "provenance.json").read_text())
    assert record["run_name"] == "run 3" and record["jobs"] == 1
    assert record["gpu"] == "NVIDIA H200" and record["config"] == str(config)
    assert (root / "claims.csv").is_file() and (root / "targets/an2017_transfers.csv").is_file()
    # the reference retabulated after the switch still says which runs it replaced
    kept = {"runs": "runs 1 and 2", "folder": "reports/superseded/runs-1-2"}
    (root / "provenance.json").write_text(json.dumps({**record, "supersedes": kept}))
    again = subprocess.run([sys.executable, "-m", "graphrepro", "retabulate", str(root),
                            "--configfile", str(config), "--complete", "run 3"],
                           capture_output=True, text=True, cwd=REPO)
    assert again.returncode == 0, again.stderr
    assert json.loads((root / "provenance.json").read_text())["supersedes"] == kept
    # a damaged record of the run stops the retabulation before it rewrites anything
    (root / "provenance.json").write_text('{"supersedes": ')
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    (root / "claims.csv").unlink()
    damaged = subprocess.run([sys.executable, "-m", "graphrepro", "retabulate", str(root),
                              "--configfile", str(config), "--complete", "run 3"],
                             capture_output=True, text=True, cwd=REPO)
    assert damaged.returncode != 0 and "provenance.json" in damaged.stderr
    assert "not valid JSON" in damaged.stderr
    assert not (root / "claims.csv").exists()  # no ledger written before the refusal
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == \
        {p: b for p, b in before.items() if p.name != "claims.csv"}


@pytest.mark.slow
@pytest.mark.timeout(2400)  # its workflow may take up to 20 min (the default timeout)
def test_a_small_run_of_every_kind_of_table_is_one_whole_run(tmp_path):
    """The workflow on the default config's gerritsen2012 grids, named: every kind of table a
    reference run reads (run files aside: tests/test_workflow.py) comes with the record that
    names its run, so `retabulate --complete` passes with no gap: chapter 3's block tables in
    shards with a second pass, Tables 3.6 and 3.8 (the crop, and resumable on the whole grid),
    chapter 5's, the terrain comparison and the stand-ins table. GPU versions say "not run"."""
    import yaml

    from graphrepro import configs

    config = configs.load([REPO / "config" / "config.yaml"])
    config["targets"] = {name: config["targets"].get(name, {}) for name in (
        "gerritsen2012_table3_1", "gerritsen2012_table3_6", "gerritsen2012_table3_8",
        "gerritsen2012_table3_8_full", "gerritsen2012_table5_1")}
    config["gerritsen2012_mst"] = {**config["gerritsen2012_mst"], "blocks": 4, "trials": 1,
                                   "block_shards": 2, "block_repeat_shards": [1],
                                   "sweep_sides": [64], "full_terrain": "jacksboro_dem"}
    config.update(run_name="rehearsal", reference=str(tmp_path / "no-reference"))
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(config, sort_keys=False))
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}

    def snakemake(*args):
        done = subprocess.run(
            [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
             "--cores", "2", *args, *config["targets"], "results/standins/standins.csv",
             "results/standins/terrain_compare.csv", "--replace-workflow-config",
             "--configfile", str(cfg)],
            capture_output=True, text=True, env=env, timeout=1200)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done.stdout

    snakemake()
    # every record is a declared output: an executor that copies back only those keeps them
    assert undeclared(tmp_path, snakemake("--summary"), tops=("results",)) == set()
    root = tmp_path / "results"
    assert gaps(configs.merge([cfg]), root, "rehearsal") == []
    done = subprocess.run([sys.executable, "-m", "graphrepro", "retabulate", str(root),
                           "--configfile", str(cfg), "--complete", "rehearsal"],
                          capture_output=True, text=True, env=env, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert json.loads((root / "provenance.json").read_text())["run_name"] == "rehearsal"
