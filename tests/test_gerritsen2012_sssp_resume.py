"""Table 5.7 outlasts a time-boxed device call on the thesis's 8192^2 window: `sssp-experiment`
journals each finished block size in its work directory and goes on from there (the same
command again), stops between two at a call's deadline (exit 75), and never mixes in the units
of another run's inputs. The other tables start over on their own leftovers."""

import json
import time

import numpy as np
import pandas as pd
import pytest

import graphrepro.client as client
import graphrepro.experiments.gerritsen2012_sssp_run as run
import graphrepro.experiments.gerritsen2012_sssp_t57 as t57
import graphrepro.experiments.gerritsen2012_sssp_work as work
from graphrepro.cli import main
from graphrepro.errors import InputError
from graphrepro.solvers.gerritsen2012.mst_journal import FINGERPRINT, JOURNAL
from graphrepro.terrain import convert_array

SETTINGS = {"window": 32, "blocks": [8, 16], "phase2_gpu": False}


@pytest.fixture
def grid(tmp_path):
    values = np.random.default_rng(57).integers(0, 40, size=(32, 32)).astype(float)
    path = tmp_path / "t.zgrid"
    convert_array(values, path, source={"test": "t"})
    return path


@pytest.fixture
def measured(monkeypatch):
    """The block sizes each process measured (the real measurement, counted)."""
    calls = []
    original = t57._table5_7_block

    def counted(win, m, *args):
        calls.append(m)
        return original(win, m, *args)

    monkeypatch.setattr(t57, "_table5_7_block", counted)
    return calls


def _cmd(grid, tmp_path, settings=SETTINGS):
    return ["sssp-experiment", "table5_7", "--terrain", str(grid), "--settings",
            json.dumps(settings), "--workdir", str(tmp_path / "work"),
            "--output", str(tmp_path / "t57.csv")]


def _stop_after_first_unit(monkeypatch):
    # as at a deadline that leaves less than one more unit: the first starts, the second not
    monkeypatch.setattr(client, "deadline_stop", lambda: (lambda seconds=0.0: seconds > 0))


def test_table5_7_goes_on_from_its_journaled_block_sizes(grid, tmp_path, monkeypatch, measured,
                                                          capsys):
    _stop_after_first_unit(monkeypatch)
    assert main(_cmd(grid, tmp_path)) == 75
    assert "stopped before 16 at the call's deadline" in capsys.readouterr().err
    assert not (tmp_path / "t57.csv").exists() and measured == [8]
    journal = (tmp_path / "work" / JOURNAL).read_text()
    assert '"key":8' in journal and '"key":16' not in journal

    monkeypatch.setattr(client, "deadline_stop", lambda: None)
    assert main(_cmd(grid, tmp_path)) == 0
    assert measured == [8, 16]  # 8 was not measured again
    assert "8: measured by an earlier process" in capsys.readouterr().err
    table = pd.read_csv(tmp_path / "t57.csv")
    for m in (8, 16):
        rows = table[table["block"] == m]
        assert set(rows["phase"]) == {"phase 1", "phase 2", "phase 3"}
        capped = rows[rows["impl"] == "cpu (capped)"]
        assert capped["check"].str.startswith("ok: equals whole-grid Dijkstra").all()
    record = json.loads((tmp_path / "t57.provenance.json").read_text())
    job = record["job"]
    # which cap the capped phases had: a cgroup where this host delegates one, else RLIMIT_DATA
    cap = record["memory_cap"]
    assert cap["kind"] == "RLIMIT_DATA" or cap["kind"].startswith("cgroup v")
    assert cap["bound"].startswith("the cap that bound phases 2 and 3")
    assert job["processes"] == 2 and [u["unit"] for u in job["units"]] == [8, 16]
    assert len({u["process"] for u in job["units"]}) == 2
    assert not (tmp_path / "work").exists()  # scratch and journal go with a written table


def test_a_unit_cut_off_is_measured_again_from_clean_scratch(grid, tmp_path, monkeypatch):
    original = t57._table5_7_block
    cut = []

    def cut_once(win, m, s, workdir, *args):
        if m == 16 and not cut:
            cut.append(m)
            (workdir / "t57_16").mkdir()
            (workdir / "t57_16" / "half.rec").write_bytes(b"\0" * 10)
            raise KeyboardInterrupt
        return original(win, m, s, workdir, *args)

    monkeypatch.setattr(t57, "_table5_7_block", cut_once)
    assert main(_cmd(grid, tmp_path)) != 0
    assert (tmp_path / "work" / "t57_16" / "half.rec").exists()
    assert main(_cmd(grid, tmp_path)) == 0
    table = pd.read_csv(tmp_path / "t57.csv")
    assert sorted(set(table["block"].dropna().astype(int))) == [8, 16]


def test_another_runs_journal_is_refused_and_kept(grid, tmp_path, monkeypatch, capsys):
    _stop_after_first_unit(monkeypatch)
    assert main(_cmd(grid, tmp_path)) == 75
    before = (tmp_path / "work" / JOURNAL).read_bytes()
    monkeypatch.setattr(client, "deadline_stop", lambda: None)
    assert main(_cmd(grid, tmp_path, {**SETTINGS, "memory_mb": 64})) == 2
    err = capsys.readouterr().err
    assert "work directory of another run" in err and "settings" in err
    assert (tmp_path / "work" / JOURNAL).read_bytes() == before


def test_other_tables_start_over_on_their_own_leftovers_only(grid, tmp_path):
    wd = tmp_path / "w"
    s = run.settings_for("table5_4", {"blocks": [8], "vertices": 64})
    stale = work.Work(wd, "table5_4", s, grid)  # a run of it stopped part way
    (wd / "p1_cpu_8").mkdir()
    del stale
    df = run.run_experiment("table5_4", grid, {"blocks": [8], "vertices": 64}, wd, log=lambda m: None)
    assert (df["impl"] == "cpu_dijkstra").any()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(InputError, match="no fingerprint.json"):
        run.run_experiment("table5_4", grid, {"blocks": [8], "vertices": 64}, foreign,
                           log=lambda m: None)
    assert (foreign / "notes.txt").read_text() == "keep me"
    assert not (foreign / FINGERPRINT).exists()


def test_the_deadline_gate_starts_table5_7_on_a_minimum_left(grid, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GRAPHREPRO_DEADLINE", str(time.time() + 20))
    monkeypatch.setenv("GRAPHREPRO_RESUMABLE_MIN_S", "60")
    assert main(_cmd(grid, tmp_path)) == 75
    assert "needs at least 60 s" in capsys.readouterr().err
    assert not (tmp_path / "work").exists()  # not started: nothing written
