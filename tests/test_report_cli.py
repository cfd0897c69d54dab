"""What a user meets around the report: the targets list, re-measuring one target, config errors
in a line, a machine without g++, and the figures' one style."""

import os
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from graphrepro import experiments, verify
from graphrepro.graph.generate import road_grid
from graphrepro.harness import RunSpec, draw_sources, measure
from graphrepro.report.figstyle import NO_FIGURE
from graphrepro.report.tables import draw_figure, figure_caption, figure_is_empty

REPO = Path(__file__).resolve().parents[1]


def graphrepro(*args, cwd=REPO, env=None):
    return subprocess.run([sys.executable, "-m", "graphrepro", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, **(env or {})})


def test_targets_not_in_the_config_say_which_config_has_them():
    out = graphrepro("targets", "--format", "json")
    assert out.returncode == 0, out.stderr
    status = {row["name"]: row["status"] for row in json.loads(out.stdout)}
    # each config that has it is an alternative, not one more file to lay over the others
    assert status["gerritsen2012_table3_8_full"] == (
        "not in this config; run with --configfile config/h100-gerritsen-full.yaml or "
        "config/h100-run3.yaml or config/h100-run4.yaml")
    assert "not in this config" not in status["safari2017_table2"]
    full = graphrepro("targets", "--configfile", "config/h100-gerritsen-full.yaml")
    assert "not in this config" not in full.stdout


def test_rerun_remakes_the_targets_measurements_not_its_graphs():
    out = graphrepro("rerun", "safari2017_table2", "--dry-run", "--cores", "1")
    assert out.returncode == 0, out.stderr[-2000:]
    [cmd] = [line for line in out.stderr.splitlines() if line.startswith("+ ")]
    assert "--force -- ./results/runs/road_40x40/harish.csv" in cmd and cmd.endswith("safari2017_table2")
    assert cmd.startswith("+ " + shlex.join([sys.executable, "-m", "snakemake"]))  # never PATH's
    assert "results/graphs" not in cmd and "results/sources" not in cmd
    missing = graphrepro("rerun", "gerritsen2012_table3_8_full", "--dry-run")
    assert missing.returncode == 2
    assert "add --configfile config/h100-gerritsen-full.yaml" in missing.stderr


def test_a_mistyped_config_key_is_named_in_a_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("resultz: elsewhere\n")
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", str(bad)],
                         capture_output=True, text=True, cwd=REPO)
    assert out.returncode != 0
    text = out.stdout + out.stderr
    assert "config: unknown key 'resultz' at the top level; known keys there: " in text
    assert len(text.splitlines()) < 12 and "additionalProperties" not in text


def test_a_mistyped_target_names_the_closest_ones():
    """Finding 10 of issue 53: in `rerun` and in snakemake alike, one line with the closest names
    (difflib), not a MissingRuleException."""
    out = graphrepro("rerun", "safari2017_tabel2", "--dry-run")
    assert out.returncode == 2
    assert out.stderr.strip() == ("error: unknown target 'safari2017_tabel2'; the closest: "
                                  "safari2017_table2, safari2017_table1, safari2017_calnev; "
                                  "`python -m graphrepro targets` lists them")
    made = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1",
                           "safari2017_tabel2"], capture_output=True, text=True, cwd=REPO)
    assert made.returncode != 0
    text = made.stdout + made.stderr
    assert "unknown target 'safari2017_tabel2'; the closest: safari2017_table2" in text
    assert "MissingRuleException" not in text and len(text.splitlines()) < 8


def _native_run(solver: str):
    """The run table of a native baseline on a 16-vertex grid, 2 sources, 1 trial."""
    graph = road_grid(4, 4, keep=1.0, seed=1, name="g16")
    sources = [int(s) for s in draw_sources(graph, 2, seed=1)]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in sources]
    return measure(graph, RunSpec(solver, sources, digests, trials=1, warmup=0),
                   log=lambda _: None)


def test_without_a_compiler_the_native_baseline_says_not_built(tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-g++"))
    monkeypatch.setenv("GRAPHREPRO_NATIVE_DIR", str(tmp_path / "native"))
    monkeypatch.setenv("PATH", str(tmp_path))  # nor a g++ or c++ to fall back on
    runs = _native_run("bgl_dijkstra")
    assert set(runs["status"]) == {"not built: no C++ compiler"}


def test_without_boost_headers_the_native_baseline_says_not_built(tmp_path, monkeypatch):
    monkeypatch.setenv("BOOST_INCLUDE", str(tmp_path / "no-boost-here"))
    monkeypatch.setenv("GRAPHREPRO_NATIVE_DIR", str(tmp_path / "native"))
    runs = _native_run("cpp_dijkstra")
    assert set(runs["status"]) == {"not built: no Boost headers"}


def _target(figure):
    return experiments.Target("t_x", "safari2017", "Figure 9", "a made-up figure", figure=figure)


def test_figures_use_log_only_where_the_span_demands_it_and_say_why(tmp_path):
    def small_span(runs, ax):
        """Two series that differ by 15%"""
        ax.plot([1, 2, 3], [0.078, 0.080, 0.09], label="a")
        ax.set_yscale("log")
        ax.legend()

    def wide_span(runs, ax):
        ax.plot([1, 2, 3], [0.01, 1, 100], label="b")
        ax.set_yscale("log")
        ax.set_ylabel("ms")

    draw_figure(_target(small_span), pd.DataFrame(), tmp_path / "a.png")
    caption = figure_caption(tmp_path / "a.png")
    assert caption == "safari2017 Figure 9: Two series that differ by 15%."
    draw_figure(_target(wide_span), pd.DataFrame(), tmp_path / "b.png")
    assert "log y axis (ms): the values span a factor of 10,000 (4.0 decades)" in figure_caption(
        tmp_path / "b.png")


def test_a_figure_with_nothing_drawn_is_marked_and_left_out(tmp_path):
    def nothing(runs, ax):
        ax.text(0.5, 0.5, "no GPU solver ran")
        ax.set_axis_off()

    draw_figure(_target(nothing), pd.DataFrame(), tmp_path / "c.png")
    assert figure_is_empty(tmp_path / "c.png") and figure_caption(tmp_path / "c.png") is None
    draw_figure(_target(None), pd.DataFrame(), tmp_path / "d.png")
    assert NO_FIGURE == "graphrepro: no figure" and figure_is_empty(tmp_path / "d.png")


@pytest.mark.parametrize("config", ["h100.yaml", "paper.yaml"])
def test_gpu_and_paper_configs_write_their_own_results_and_report(config):
    import yaml

    cfg = yaml.safe_load((REPO / "config" / config).read_text())
    assert cfg["results"] != "results" and cfg["report"] != "reports/index.html"
    assert cfg["report"].startswith("reports/") and not cfg["report"].startswith("reports/reference")


def test_every_report_and_claims_option_says_what_it_takes():
    """Finding 8 of issue 53: `graphrepro report --help` explains every option."""
    from graphrepro.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.choices and "report" in a.choices)
    for name in ("report", "claims"):
        silent = [a.dest for a in sub.choices[name]._actions
                  if a.dest != "help" and not (a.help or "").strip()]
        assert silent == [], name
