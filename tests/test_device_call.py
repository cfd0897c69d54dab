"""The one call script of the reference runs (workflow/scripts/device_call.py), without a GPU:
what it would run, what it records, and that its groups cover every target a run makes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from graphrepro.experiments import all_targets

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "workflow" / "scripts" / "device_call.py"
sys.path.insert(0, str(SCRIPT.parent))
import device_call  # noqa: E402

RUN_CONFIGS = ("h100.yaml", "h100-real.yaml", "h100-gerritsen-full.yaml", "h100-run3.yaml",
               "h100-run4.yaml")
# a run-4 call's config files, in the order its calls give them
RUN4 = ("h100.yaml", "h100-real.yaml", "h100-gerritsen-full.yaml", "h100-run4.yaml")


def test_the_groups_name_real_targets_and_cover_every_target_of_the_run_configs():
    rules = {m for f in (REPO / "workflow" / "rules").glob("*.smk")
             for m in re.findall(r"^rule (\w+):", f.read_text(), re.M)}
    known = {t.name for t in all_targets()} | rules
    grouped = set(device_call.expand(list(device_call.GROUPS)))
    assert grouped <= known, grouped - known
    for name in RUN_CONFIGS:
        targets = set(yaml.safe_load((REPO / "config" / name).read_text()).get("targets") or {})
        assert targets <= grouped, f"{name}: no call group runs {sorted(targets - grouped)}"


def test_groups_expand_in_order_once_and_other_words_pass_through():
    assert device_call.expand(["g12-full", "main", "bench_cpu", "results/x.csv"]) == [
        "gerritsen2012_table3_8_full", *device_call.MAIN, "results/x.csv"]


def test_a_dry_run_prints_the_record_and_a_command_whose_targets_follow_a_double_dash():
    done = subprocess.run([sys.executable, str(SCRIPT), "--dry-run", "--run-name", "run 4",
                           "--replicate", "B", "--minutes", "6", "--resume", "prev.tar.gz",
                           "--configfile", "config/h100.yaml", "config/h100-real.yaml",
                           "--config", "host_cpu_slots=16", "--", "g12-ch3", "-weird"],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    record_text, command = done.stdout.rsplit("\n", 2)[0], done.stdout.strip().splitlines()[-1]
    record = json.loads(record_text)
    assert record["run_name"] == "run 4" and record["replicate"] == "B"
    assert record["configfiles"] == ["config/h100.yaml", "config/h100-real.yaml"]
    assert record["targets"] == ["g12-ch3", "-weird"] and record["minutes"] == 6.0
    words = command.split()
    assert words[1:3] == ["workflow/scripts/timeboxed.py", "--minutes"]
    assert "--resume prev.tar.gz" in command and "--workflow-profile workflow/profiles/gpu-host" in command
    # timeboxed's own `--`, then snakemake's options, then `--` and the targets: "-weird" is a
    # target, never an option
    after = words[len(words) - words[::-1].index("--"):]
    assert after == [*device_call.G12_CH3, "-weird"]


def test_a_real_call_needs_the_commit_and_a_replicate_is_a_or_b(monkeypatch, capsys):
    monkeypatch.delenv("GRAPHREPRO_COMMIT", raising=False)
    assert device_call.main(["--run-name", "r", "--configfile", "c.yaml", "--", "main"]) == 2
    assert "GRAPHREPRO_COMMIT" in capsys.readouterr().err
    assert device_call.main(["--run-name", "r", "--replicate", "C", "--configfile", "c.yaml", "--",
                             "main"]) == 2


def test_the_calls_record_reaches_every_run_tables_provenance(monkeypatch):
    from graphrepro.errors import InputError
    from graphrepro.harness.provenance import provenance

    monkeypatch.delenv("GRAPHREPRO_IN_WORKER", raising=False)
    monkeypatch.delenv("GRAPHREPRO_CALL", raising=False)
    assert "call" not in provenance()
    monkeypatch.setenv("GRAPHREPRO_CALL", json.dumps({"run_name": "run 4", "replicate": "A"}))
    assert provenance()["call"] == {"run_name": "run 4", "replicate": "A"}
    monkeypatch.setenv("GRAPHREPRO_CALL", "{not json")
    with pytest.raises(InputError, match="GRAPHREPRO_CALL"):
        provenance()


def test_the_run_4_overlay_keeps_the_cells_issue_51_added_to_h100():
    """An overlay replaces each list it names: run 3's repeated Table 5.1's finish_cells and
    Table 5.7's blocks and so dropped the cells added since; run 4's keeps every list of
    config/h100.yaml's chapter-5 settings whole (Table 5.1's finishing cells, M = 128^2)."""
    from graphrepro.configcheck import check_config, settings_errors
    from graphrepro.configs import load

    def merged(names):
        return load([str(REPO / "config" / n) for n in names])["targets"]

    base, run4 = merged(["h100.yaml"]), merged(RUN4)
    check_config(load([str(REPO / "config" / n) for n in RUN4]))
    t51 = run4["gerritsen2012_table5_1"]["settings"]
    assert {(64, 16), (64, 64), (128, 64), (128, 128)} <= {tuple(c) for c in t51["finish_cells"]}
    t57 = run4["gerritsen2012_table5_7"]["settings"]
    assert 128 in t57["blocks"] and t57["window"] == 8192 and t57["cpu_phase1_blocks"] == 64
    for name, target in base.items():
        if name.startswith("gerritsen2012_table5"):
            assert settings_errors(name.removeprefix("gerritsen2012_"), run4[name]["settings"]) == []
            for key, value in target.get("settings", {}).items():
                if isinstance(value, list):
                    assert run4[name]["settings"][key] == value, (name, key)
    # the run-3 overlay, kept as run 3 was made, is the one that drops them
    run3 = merged(["h100.yaml", "h100-real.yaml", "h100-gerritsen-full.yaml", "h100-run3.yaml"])
    assert [64, 16] not in run3["gerritsen2012_table5_1"]["settings"]["finish_cells"]
    assert 128 not in run3["gerritsen2012_table5_7"]["settings"]["blocks"]
    # frontier's interleaved group (config/h100.yaml) is no longer switched off, and every run
    # it names is among the target's runs
    front = run4["frontier_sssp"]
    assert set(front["interleave"]) <= set(front["runs"]) and front["interleave"]
