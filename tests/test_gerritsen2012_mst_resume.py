"""gerritsen2012 Table 3.8 on the whole grid outlasts one device call: the I/O-efficient MST is
resumable (``mst_journal``). Interrupted anywhere, in any phase, and run again with the same work
directory, it gives the tree an uninterrupted run gives, with each phase's time and transfers the
sums of its journaled units; another run's work directory is refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphrepro import client, mst
from graphrepro.cli import main
from graphrepro.solvers.gerritsen2012 import mst_io
from graphrepro.solvers.gerritsen2012.mst_io import io_mst
from graphrepro.solvers.gerritsen2012.mst_journal import JOURNAL, Journal, Stopped, WorkDirMismatch
from graphrepro.terrain import convert_array, dem

REPO = Path(__file__).resolve().parents[1]
FP = {"grid": "test", "per_block": "kruskal", "block": 8}


def grid(tmp_path, shape=(29, 31), seed=4, top=900):
    values = np.random.default_rng(seed).integers(0, top, shape)
    values[2:6, 3:12] = 5  # a flat patch: ties
    z = tmp_path / "g.zgrid"
    convert_array(values, z, source={})
    return z


def kruskal_check(z, res):
    from graphrepro.terrain import open_zgrid, to_rows

    zz, meta = open_zgrid(z)
    g = to_rows(zz, meta, padded=True).astype(np.int64)
    u, v, w = dem.grid_edges(g)
    mst.check(mst.from_arrays(g.size, u, v, w), mst.MSTResult(res.u, res.v, res.w, 0.0),
              solver="resumed")


def edges(res) -> set:
    return set(zip(res.u.tolist(), res.v.tolist()))


def after(n):
    """A should_stop that lets n units through, then stops (a deadline, deterministically)."""
    seen = {"n": 0}

    def stop():
        seen["n"] += 1
        return seen["n"] > n
    return stop


def units(work, phase=None):
    recs = [json.loads(x) for x in (Path(work) / JOURNAL).read_text().splitlines()]
    return [r for r in recs if r["kind"] == "unit" and (phase is None or r["phase"] == phase)]


# --- phase 1 cut off mid-block (Ctrl-C), then resumed -------------------------------------------

@pytest.mark.parametrize("per_block,reduce,shape,block", [
    ("kruskal", "cpu", (29, 31), 8),
    ("tournament", "cpu", (40, 33), 16),
    ("gpu_boruvka32", "gpu", (16, 16), 8),  # under the CUDA simulator (conftest)
])
def test_phase1_interrupted_after_k_blocks_resumes_to_the_same_tree(tmp_path, monkeypatch, per_block,
                                                                   reduce, shape, block):
    z = grid(tmp_path, shape, top=900 if per_block != "gpu_boruvka32" else 1000)
    ref = io_mst(z, tmp_path / "straight", block=block, per_block=per_block, reduce=reduce)
    fp = {**FP, "per_block": per_block, "block": block}
    work = tmp_path / "work"
    k = 3
    real, calls = mst_io.process_block, {"n": 0}

    def cut_after_writing(*a, **kw):
        row = real(*a, **kw)  # the block's side files are whole ...
        calls["n"] += 1
        if calls["n"] > k:
            raise KeyboardInterrupt  # ... but Ctrl-C comes before its journal line
        return row

    monkeypatch.setattr(mst_io, "process_block", cut_after_writing)
    with pytest.raises(KeyboardInterrupt):
        io_mst(z, work, block=block, per_block=per_block, reduce=reduce, fingerprint=fp)
    monkeypatch.setattr(mst_io, "process_block", real)
    assert len(units(work, 1)) == k
    assert len(list(work.glob(f"def_{block}_*.npz"))) == k + 1  # the cut-off block's files too
    (work / "red_8_9_9.npz.part").write_bytes(b"half a record")  # a write cut off

    res = io_mst(z, work, block=block, per_block=per_block, reduce=reduce, fingerprint=fp)
    kruskal_check(z, res)
    assert edges(res) == edges(ref) and res.weight == ref.weight
    assert not list(work.glob("*.part"))
    per = (res.side // block) ** 2
    p1 = units(work, 1)
    assert sorted(r["key"] for r in p1) == list(range(per))  # every block once
    # the journal's sums are the phase's numbers: the cut-off block's read is not among them
    assert res.phase_ms["phase1"] == pytest.approx(sum(r["ms"] for r in p1))
    assert res.io["phase1"]["block_reads"] == per == ref.io["phase1"]["block_reads"]
    assert res.io["phase1"]["block_writes"] == ref.io["phase1"]["block_writes"]
    assert res.io["total"]["block_reads"] == ref.io["total"]["block_reads"]
    assert len(res.blocks) == per and len(res.calls) == 2
    assert res.resumed == {"phase1": True, "phase2": False, "phase3": False}


# --- stopped between any two units (the deadline), in every phase ------------------------------

def test_stopped_in_every_phase_goes_on_to_the_same_tree(tmp_path):
    z = grid(tmp_path, (50, 61))  # 64^2 padded: 64 blocks of 8, levels 16, 32, 64
    ref = io_mst(z, tmp_path / "straight", block=8, per_block="kruskal", chunk=2)
    work, processes = tmp_path / "work", 0
    while True:
        processes += 1
        try:
            res = io_mst(z, work, block=8, per_block="kruskal", chunk=2, fingerprint=FP,
                         should_stop=after(11))
            break
        except Stopped as e:
            assert str(work) in str(e)
        assert processes < 20
    # 64 blocks, 3 levels (units 65-67: cut after 66), phase 3's records (1 + 2 + 8 + 32 at
    # chunk 2): 110 units, 11 a process
    assert processes == len(res.calls) == 10
    kruskal_check(z, res)
    assert edges(res) == edges(ref) and res.weight == ref.weight
    assert res.resumed == {"phase1": True, "phase2": True, "phase3": True}
    for phase in (1, 2, 3):
        recs = units(work, phase)
        assert res.phase_ms[f"phase{phase}"] == pytest.approx(sum(r["ms"] for r in recs))
        for key in ("block_reads", "block_writes", "bytes_read", "bytes_written"):
            assert res.io[f"phase{phase}"][key] == ref.io[f"phase{phase}"][key], (phase, key)
    assert [lv["side"] for lv in res.levels] == [8, 16, 32, 64]
    assert [lv["kept_edges"] for lv in res.levels] == [lv["kept_edges"] for lv in ref.levels]
    # every merged level's inputs went, every written-down level's definite edges too
    assert not list(work.glob("red_*.npz")) and not list(work.glob("def_*.npz"))
    assert len(list(work.glob("mst_*.npz"))) == 43


def test_a_journal_line_cut_short_is_dropped_and_the_work_redone(tmp_path):
    z = grid(tmp_path)
    work = tmp_path / "work"
    with pytest.raises(Stopped):
        io_mst(z, work, block=8, per_block="kruskal", fingerprint=FP, should_stop=after(2))
    with open(work / JOURNAL, "ab") as fh:
        fh.write(b'{"kind":"unit","phase":1,"key":2,')  # a full disk cut the line
    res = io_mst(z, work, block=8, per_block="kruskal", fingerprint=FP)
    kruskal_check(z, res)
    assert sorted(r["key"] for r in units(work, 1)) == list(range(16))


# --- another run's work directory ----------------------------------------------------------------

def test_another_runs_work_directory_is_refused(tmp_path):
    z = grid(tmp_path)
    work = tmp_path / "work"
    with pytest.raises(Stopped):
        io_mst(z, work, block=8, per_block="kruskal", fingerprint=FP, should_stop=after(2))
    for other in ({**FP, "block": 16}, {**FP, "per_block": "tournament"}):
        with pytest.raises(WorkDirMismatch, match="work directory of another run"):
            io_mst(z, work, block=other["block"], per_block=other["per_block"],
                   fingerprint=other)
    assert len(units(work, 1)) == 2  # refused before anything was touched
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(WorkDirMismatch, match="not a work directory"):
        Journal(foreign, FP)


def test_mst_io_command_refuses_a_work_dir_of_another_grid(tmp_path, capsys, monkeypatch):
    z = grid(tmp_path)
    out, work = tmp_path / "t.csv", tmp_path / "work"
    args = ["mst-io", str(z), "--variant", "cpu_prealloc", "--block-side", "8", "--output",
            str(out), "--work-dir", str(work)]
    monkeypatch.setenv("GRAPHREPRO_DEADLINE", str(time.time() - 1))  # stops before any unit
    monkeypatch.setenv("GRAPHREPRO_RESUMABLE_MIN_S", "-10")
    assert main(args) == 75 and not out.exists()
    assert "goes on" in capsys.readouterr().err
    monkeypatch.delenv("GRAPHREPRO_DEADLINE")
    convert_array(np.ones((29, 31), dtype=int), z, source={})  # the grid changed meanwhile
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "work directory of another run" in err and "grid_sha256" in err


@pytest.mark.parametrize("how", ["between two calls", "inside a jitted function"])
def test_mst_io_interrupted_anywhere_says_the_work_is_kept(tmp_path, monkeypatch, capsys, how):
    """A Ctrl-C that lands inside numba comes back as a SystemError: the journal is kept all the
    same, and the command says so (the signal's landing place once decided the message)."""
    from graphrepro.solvers.gerritsen2012 import mst_measure

    def interrupted(*args, **kwargs):
        if how == "between two calls":
            raise KeyboardInterrupt
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("<CPUDispatcher> returned a result with an exception set") from None

    monkeypatch.setattr(mst_measure, "measure_io", interrupted)
    out, work = tmp_path / "t.csv", tmp_path / "work"
    assert main(["mst-io", str(grid(tmp_path)), "--variant", "cpu_prealloc", "--block-side", "8",
                 "--output", str(out), "--work-dir", str(work)]) == 130
    err = capsys.readouterr().err
    assert f"what was journaled in {work} is kept" in err and "interrupted (SIGINT)" in err
    assert not out.exists()


# --- the command, SIGINT from outside (timeboxed stopping snakemake), resumed ----------------------

def test_mst_io_sigint_then_rerun_gives_the_straight_runs_row(tmp_path):
    values = np.random.default_rng(9).integers(0, 900, (256, 256))
    z = tmp_path / "g.zgrid"
    convert_array(values, z, source={})
    common = ["-m", "graphrepro", "mst-io", str(z), "--variant", "cpu_prealloc",
              "--block-side", "8"]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "GRAPHREPRO_RUN_NAME": "run 9"}
    env.pop("GRAPHREPRO_DEADLINE", None)
    straight = subprocess.run([sys.executable, *common, "--output", str(tmp_path / "a.csv")],
                              env=env, capture_output=True, text=True, timeout=300)
    assert straight.returncode == 0, straight.stderr
    # its record names the run that made it (Tables 3.6 and 3.8 of a whole run are checked so)
    record = json.loads((tmp_path / "a.provenance.json").read_text())
    assert record["run_name"] == "run 9" and record["settings"]["variant"] == "cpu_prealloc"
    assert record["job"]["wall_s"] > 0 and record["settings"]["resumable"] is False
    out, work = tmp_path / "b.csv", tmp_path / "work"
    cmd = [sys.executable, *common, "--output", str(out), "--work-dir", str(work)]
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    journal = work / "whole_t0" / JOURNAL
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if journal.is_file() and journal.read_text().count('"kind":"unit"') >= 5:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, err
    assert "is kept" in err and not out.exists()
    first = len(units(work / "whole_t0", 1))
    assert 5 <= first < 1024  # 1024 blocks of 8^2: it was cut off in phase 1
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    a, b = pd.read_csv(tmp_path / "a.csv").iloc[0], pd.read_csv(out).iloc[0]
    for col in ("weight", "edges_digest", "verified", "phase1_block_reads", "total_block_writes",
                "total_bytes_written"):
        assert a[col] == b[col], col
    assert b["verified"].startswith("weight = Kruskal")
    assert b["processes"] == 2 and bool(b["phase1_resumed"]) and not bool(b["phase2_resumed"])
    walls = [float(x) for x in str(b["call_wall_s"]).split(";")]
    assert len(walls) == 2 and b["wall_ms"] == pytest.approx(sum(walls) * 1e3, abs=100)
    assert "processes" not in pd.read_csv(tmp_path / "a.csv").columns  # the ordinary row as before
    assert not work.exists()  # the output is written: the side files went
    assert json.loads(out.with_suffix(".provenance.json").read_text())["settings"]["resumable"]


# --- the deadline gate: a resumable job starts wherever a minimum is left -----------------------

def test_a_resumable_job_starts_where_its_estimate_would_keep_it_out(tmp_path, monkeypatch, capsys):
    out = tmp_path / "benchmarks" / "gerritsen2012_mst_phases_full_cpu.csv"
    est = tmp_path / "est.json"
    est.write_text(json.dumps({os.path.normpath(str(out)): 3600.0}))  # an hour: over any call
    monkeypatch.setenv("GRAPHREPRO_ESTIMATES", str(est))
    monkeypatch.setenv("GRAPHREPRO_DEADLINE", str(time.time() + 300))
    monkeypatch.setenv("GRAPHREPRO_RESUMABLE_MIN_S", "120")
    assert client.past_deadline(str(out))  # not resumable: never started
    assert not client.past_deadline(str(out), resumable=True)  # 5 minutes left >= 2
    monkeypatch.setenv("GRAPHREPRO_DEADLINE", str(time.time() + 60))
    assert client.past_deadline(str(out), resumable=True)  # 1 minute left < 2
    assert "at least 120 s" in capsys.readouterr().err
    # and a short resumable job needs no more than its own estimate
    est.write_text(json.dumps({os.path.normpath(str(out)): 30.0}))
    assert not client.past_deadline(str(out), resumable=True)


# --- Table 3.8's text says when a run spanned several processes -----------------------------------

def _phases(**extra):
    return pd.DataFrame([{"status": "ok", "phase1_ms": 600_000.0, "phase2_ms": 90_000.0,
                          "phase3_ms": 200_000.0, "edges_digest": "ab", "weight": 5,
                          "side": 32768, "verified": "spanning tree checked", **extra}])


def test_table3_8_full_says_a_run_spanned_several_processes():
    from graphrepro.experiments import get_target, published
    from graphrepro.experiments.gerritsen2012_mst_measured import PHASES_FULL

    t = get_target("gerritsen2012_table3_8_full")

    def table(cpu, gpu):
        return t.compare(pd.DataFrame(), {}, published("gerritsen2012"),
                         benchmarks={PHASES_FULL[0]: cpu, PHASES_FULL[1]: gpu}).set_index("what")

    plain = table(_phases(), _phases())
    # a resumable run that happened to fit one process reads as an ordinary one
    one = table(_phases(processes=1, phase1_resumed=False, phase2_resumed=False,
                        phase3_resumed=False, call_wall_s="512.0"), _phases())
    assert one.equals(plain)
    assert not plain["note"].str.contains("process").any()
    three = table(_phases(processes=3, phase1_resumed=True, phase2_resumed=False,
                          phase3_resumed=True, call_wall_s="480.2;479.9;301.0"), _phases())
    assert "CPU: resumed across processes" in three.loc["Phase 1", "note"]
    assert "resumed" not in three.loc["Phase 2", "note"]
    assert "CPU: resumed across processes" in three.loc["Phase 3", "note"]
    total = three.loc["Total", "note"]
    assert "the CPU run spanned 3 processes (time-boxed calls of 480, 480, 301 s)" in total
    assert "identical (edge digest)" in total  # what was said before stays
    assert three.drop(columns="note").equals(plain.drop(columns="note"))  # the same columns, cells
    trials = pd.concat([_phases(processes=p, phase1_resumed=True, phase2_resumed=False,
                                phase3_resumed=False, call_wall_s=c)
                        for p, c in ((4, "1;2;3;4"), (5, "1;2;3;4;5"))])
    total = table(trials, _phases()).loc["Total", "note"]
    assert "the CPU run's 2 trials spanned up to 5 processes each (time-boxed calls)" in total


def test_mst_io_with_a_work_dir_starts_where_its_estimate_would_keep_it_out(tmp_path, monkeypatch):
    z = grid(tmp_path)
    out = tmp_path / "full.csv"
    est = tmp_path / "est.json"
    est.write_text(json.dumps({os.path.normpath(str(out)): 3600.0}))
    monkeypatch.setenv("GRAPHREPRO_ESTIMATES", str(est))
    monkeypatch.setenv("GRAPHREPRO_DEADLINE", str(time.time() + 300))
    monkeypatch.setenv("GRAPHREPRO_RESUMABLE_MIN_S", "60")
    args = ["mst-io", str(z), "--variant", "cpu_prealloc", "--block-side", "8", "--output", str(out)]
    assert main(args) == 75 and not out.exists()  # as every timed job: not started
    assert main([*args, "--work-dir", str(tmp_path / "work")]) == 0
    row = pd.read_csv(out).iloc[0]
    assert row["status"] == "ok" and row["processes"] == 1


def test_timeboxed_packs_no_work_directory_and_says_what_is_unfinished(tmp_path, monkeypatch):
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import timeboxed

    monkeypatch.chdir(tmp_path)
    res = Path("res")
    (res / "benchmarks").mkdir(parents=True)
    (res / "benchmarks" / "t.csv").write_text("x\n")
    job = res / timeboxed.WORK / "gerritsen2012_mst_phases_full_cpu" / "whole_t0"
    job.mkdir(parents=True)
    for i in range(3):  # side files well under --max-file-mb: size alone would pack them
        (job / f"def_256_{i}_0.npz").write_bytes(b"0" * 1000)
    manifest = timeboxed.pack(Path("a.tar.gz"), res, 8.0, 1.0)
    import tarfile

    with tarfile.open("a.tar.gz") as tar:
        names = tar.getnames()
    assert "res/benchmarks/t.csv" in names and not [n for n in names if "/work/" in n]
    assert manifest["left_out"] == []
    assert timeboxed.unfinished(res) == [str(res / "work" / "gerritsen2012_mst_phases_full_cpu")]


def test_edge_digest_from_one_sorted_key_is_the_lexsorts():
    import hashlib

    from graphrepro.solvers.gerritsen2012.mst_measure import edge_digest

    def by_lexsort(u, v):
        a, b = np.minimum(u, v).astype(np.int64), np.maximum(u, v).astype(np.int64)
        order = np.lexsort((b, a))
        h = hashlib.sha256()
        h.update(a[order].tobytes())
        h.update(b[order].tobytes())
        return h.hexdigest()[:16]

    rng = np.random.default_rng(2)
    for n, top in ((0, 10), (1, 10), (1000, 50), ((1 << 24) + 3, 1 << 32)):  # pieces of 2^24
        u, v = rng.integers(0, top, n), rng.integers(0, top, n)
        assert edge_digest(u, v) == by_lexsort(u, v), n
    u, v = np.array([1 << 33, 3]), np.array([2, 1 << 34])  # beyond 32 bits: the lexsort itself
    assert edge_digest(u, v) == by_lexsort(u, v)
