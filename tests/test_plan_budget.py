"""The plan on a host (budget.py): every target of every config planned, shards so that no job
sets the wall, each target's own n and wall, and what fits a budget (issue 57, items 2 and 6)."""

from pathlib import Path

import pytest
import yaml

from graphrepro import budget, configs
from graphrepro.configcheck import check_config
from graphrepro.plan import PlannedRun

H100 = ["config/h100.yaml", "config/h100-real.yaml"]
REFERENCE = Path("reports/reference")


NOWHERE = Path("no-results-here")
# a few targets, so the test reads few of run 3's records: Fig. 4's long interleaved group,
# Table 5.1's benchmark tables and the whole grid's
FEW = ["safari2017_fig4", "safari2017_table2", "gerritsen2012_table5_1",
       "gerritsen2012_table3_8_full"]


@pytest.fixture(scope="module")
def h100():
    """The committed h100 configs' jobs planned from run 3's recorded walls (no GPU needed)."""
    plain = configs.load(H100)
    full = configs.load([*H100, "config/h100-gerritsen-full.yaml"])
    return (plain, full, budget.planned(plain, 2, REFERENCE, NOWHERE, FEW),
            budget.planned(full, 2, REFERENCE, NOWHERE, FEW))


def test_plan_covers_every_target_of_every_config_given(h100):
    plain, full, runs_plain, runs_full = h100
    targets = {r.target for r in runs_full}
    assert targets == {t for t in FEW if t in full["targets"]}
    assert "gerritsen2012_table3_8_full" not in {r.target for r in runs_plain}
    # every benchmark table a target reads is a job: Table 5.1's, the whole grid's weight
    assert {r.run_id for r in runs_full if r.kind == "bench"} >= {
        "gerritsen2012_table5_1", "gerritsen2012_mst_full_reference"}
    p = budget.summarize(full, runs_full, 2, 32, REFERENCE, NOWHERE)
    assert p["jobs"] > budget.summarize(plain, runs_plain, 2, 32, REFERENCE, NOWHERE)["jobs"]


def test_no_gpu_job_longer_than_its_share_once_sharded(h100):
    plain, _, runs, _ = h100
    sharded, shards = budget.shard_for_share(plain, runs, 4, 0.1)
    assert shards.get("western_w10", 0) > 4  # Fig. 4's interleaved group on Western, split
    limit = 0.1 * budget.ideal_wall(sharded, 4)
    assert not [j for j, _ in budget.longest_jobs(plain, sharded, limit)
                if not j.startswith("benchmarks/")]

    def gpu_end(rs, gpus):
        return budget.summarize(plain, rs, gpus, 64, REFERENCE, NOWHERE)["gpu_end_s"]

    # one job no longer sets the wall: four GPUs do far better than they did
    assert gpu_end(runs, 4) > gpu_end(runs, 1) / 2
    assert gpu_end(sharded, 4) < gpu_end(sharded, 1) / 3


def _run(target, graph, fixed, per_source, sources=10, device="gpu"):
    return PlannedRun(target, graph, f"{target}-{graph}", device, fixed, per_source, "recorded",
                      sources=sources)


def test_budget_names_the_targets_that_fit_and_the_cap_that_fits_them_all():
    runs = [_run("a", "g", 1.0, 1.0), _run("b", "h", 1.0, 3.0), _run("c", "k", 2.0, 0.0,
                                                                        sources=1)]

    def wall(rs):
        return sum(s for r in rs for s in r.job_seconds())

    assert wall(runs) == 11 + 31 + 2
    got = budget.fit({}, runs, 20.0, wall)
    assert got["fit"] == ["a", "c"] and got["over"] == ["b"]
    assert got["cap"] == 4 and got["cap_graphs"] == ["g", "h"]  # 5 + 13 + 2 = 20
    assert "capped at 4 on g, h" in budget.format_fit(got)
    assert budget.fit({}, runs, 100.0, wall)["over"] == []


def test_plan_command_shows_n_wall_shards_and_budget(tmp_path, capsys):
    from graphrepro.cli import main

    out = tmp_path / "shards.yaml"
    assert main(["plan", "--configfile", *H100, "--gpus", "2", "--cores", "32",
                 "--max-job-share", "0.1", "--budget", "15", "--write-shards", str(out),
                 "--results", str(tmp_path), "--targets", *FEW[:2]]) == 0
    text = capsys.readouterr().out
    header = text.splitlines()[0].split()
    assert header[:6] == ["target", "jobs", "n", "GPU-s", "CPU-s", "wall-s"]
    assert "shards for no GPU job over 10% of the plan: " in text
    assert "budget 15 min: " in text
    overlay = yaml.safe_load(out.read_text())
    assert overlay["graphs"]["western_w10"]["shards"] > 4
    merged = configs.merge([configs.root() / "config/config.yaml", *map(Path, H100), out])
    check_config(merged)  # the written shards are a config snakemake takes
    assert merged["graphs"]["western_w10"]["dataset"] == "western"  # merged, not replaced


def test_a_runs_log_ends_with_measured_against_planned():
    config = configs.load([*H100, "config/h100-run3.yaml"])
    config["targets"] = {k: v for k, v in config["targets"].items()
                         if k in ("gerritsen2012_table5_1", "safari2017_table2")}
    # the reference run measured against a plan made from its own records: they agree
    line = budget.measured_line(config, REFERENCE, REFERENCE, 2, 32, 600.0)
    assert line.startswith("measured against planned: ")
    assert "(x1.00)" in line and "wall 600 s against " in line
    assert "0 of " in budget.measured_line(config, NOWHERE, REFERENCE, 2, 32, 600.0)


def test_n_expected_comes_from_a_sampled_ledger(tmp_path):
    folder = tmp_path / "targets"
    folder.mkdir()
    (folder / "t.claims.csv").write_text(
        "claim_id,sampled\na,decided at 20 sources\nb,cap (100 sources)\n")
    (folder / "u.claims.csv").write_text("claim_id,sampled\nc,decided at 10 sources\n")
    (folder / "v.claims.csv").write_text("claim_id,verdict\nd,reproduced\n")  # not sampled
    assert budget.expected_n(["t", "u", "v", "w"], tmp_path, NOWHERE) == {"t": 100, "u": 10}
    # tables sampled apart: each one's reason, the most sources of any
    (folder / "t.claims.csv").write_text("claim_id,sampled\na,decided at 20 sources; decided "
                                         "at 30 sources\nb,decided at 10 sources\n")
    (folder / "u.claims.csv").write_text(
        "claim_id,sampled\nc,decided at 10 sources\nd,cap (40 sources): more sources cannot "
        "decide it\n")
    assert budget.expected_n(["t", "u"], tmp_path, NOWHERE) == {"t": 30, "u": 40}
