"""Verdicts a referee signs (issue 51): bands written once, comparisons inside one job or widened
by the drift measured between jobs, and ledger rows that say truly what they read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphrepro.claims import Across, Bootstrap, Exact, Fit, Spread, judge, load_claims
from graphrepro.claims.bands import HEDGES, RATIO_TOLERANCE, claim_band, hedge_of

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reports" / "reference"


def claim(kind="magnitude", published="3.36x", low="", high="", null="1", unit="x", text=""):
    return {"claim_id": "x", "kind": kind, "published": published, "low": low, "high": high,
            "null": null, "unit": unit, "untestable": "", "claim": text}


# --- bands, written once, evenly -----------------------------------------------------------------

def test_timing_ratios_get_one_relative_tolerance_whatever_their_digits():
    widths = []
    for printed in ("3.36x", "1.5x", "2x slower", "10x"):
        band = claim_band(claim(published=printed))
        value = float(printed.split("x")[0])
        assert band.low == pytest.approx(value / (1 + RATIO_TOLERANCE))
        widths.append(band.high / band.low)
    assert max(widths) == pytest.approx(min(widths))  # "3.36x" no narrower than "2x"
    # a speedup in % is a ratio of times too: 34% faster is a ratio of 0.66, +-10% of it
    gain = claim_band(claim(published="34%", unit="% ((CPU - GPU) / CPU)", null="0"))
    assert gain.low == pytest.approx(100 * (1 - 0.66 * 1.1))
    assert gain.high == pytest.approx(100 * (1 - 0.66 / 1.1))
    # where the document states its precision (two printed times), the row's own band stands
    assert claim_band(claim(published="24.7 s / 4.9 s", low="4.980", high="5.103")).low == 4.98
    # a share of a time is no ratio: its printed precision stands
    share = claim_band(claim(published="75%", unit="% of the per-block time", null="50"))
    assert (share.low, share.high) == (74.5, 75.5)


# Each hedge word, the claim whose sentence uses it, and the band it stands for there.
HEDGE_SOURCES = {
    "about": ("f3.calibration", (396, 484)),  # "at least about 440 iterations"
    "nearly": ("sk.nearfar_work", (0.9, 1.1)),  # "nearly as work-efficient as the serial"
    "almost": ("a.t41.share", (45, 50)),  # "almost reaches 50%": just under, not over
    "significant": ("s4.blind", (1 + RATIO_TOLERANCE, np.inf)),  # "a significant difference"
    "considerable": ("a.coal", (1 + RATIO_TOLERANCE, np.inf)),  # "a considerable speedup"
    "considerably": ("s.bfs.faster", (1 + RATIO_TOLERANCE, np.inf)),
    "dramatically": ("a.t41.second_half", (2, np.inf)),  # "dramatically reduced"
    "huge": ("a.fig2.pull", (2, np.inf)),  # "a huge gap"
    "far": ("a.fig2.edge", (2, np.inf)),  # "far more efficient"
}


def test_each_hedge_word_maps_to_its_band_from_its_source_sentence():
    claims = load_claims().set_index("claim_id")
    for word, (cid, (low, high)) in HEDGE_SOURCES.items():
        row = claims.loc[cid].to_dict()
        assert word in row["claim"].lower(), (word, cid)
        assert hedge_of(row["published"]) == word or hedge_of(row["claim"]) == word, (word, cid)
        band = claim_band(row)
        assert (band.low, band.high) == (pytest.approx(low), pytest.approx(high)), (word, cid)
    assert set(HEDGES) >= {w for w in HEDGE_SOURCES}
    # "near-far" is no "far"; "around 35%" is a timing ratio, its band the ratio's tolerance
    assert hedge_of("Davidson et al.'s near-far method") is None
    t31 = claims.loc["t31.speedup"].to_dict()
    assert "around" in t31["claim"] and claim_band(t31).high - claim_band(t31).low > 5


def test_one_sided_words_are_one_sided():
    reduced = claim(kind="ordering", published="reduced", low="1", unit="", text="it is reduced")
    assert str(claim_band(reduced)) == "> 1"
    # 4 iterations from scratch and 4 in the second phase: no reduction (a.t41.second_half)
    assert judge(reduced, Exact(values=[1.0])).verdict == "not reproduced"
    assert judge(reduced, Exact(values=[1.5])).verdict == "reproduced"
    dramatic = dict(reduced, claim="the work is dramatically reduced")
    j = judge(dramatic, Exact(values=[1.5]))  # reduced, but not by a factor of two
    assert j.verdict == "direction only" and ">= 2" in j.reason
    assert judge(dramatic, Exact(values=[4.0])).verdict == "reproduced"


# --- comparisons inside one job, or widened by the drift measured between jobs -------------------

def test_a_comparison_timed_in_two_jobs_without_drift_is_refused():
    apart = Spread(values=[1.4, 1.5, 1.6], jobs=("2026-11-26T19:34:55 card 06",
                                                 "2026-11-26T19:35:28 card 07"))
    c = claim(kind="ordering", published="faster", low="1", unit="")
    j = judge(c, apart)
    assert j.verdict == "not testable here" and j.reason.startswith("sides timed apart")
    assert "card 06 and 2026-11-26T19:35:28 card 07" in j.reason
    one_job = Spread(values=[1.4, 1.5, 1.6], jobs=("2026-11-26T19:35:28 card 07",) * 2)
    assert judge(c, one_job).verdict == "reproduced"
    # the drift, given to the rule explicitly or carried by the evidence, makes it testable
    assert judge(c, apart, job_drift=0.1).verdict == "reproduced"
    assert judge(c, apart, job_drift=0.5).verdict == "inconclusive"  # 1.4 / 1.5 < 1
    # a part of a claim over several graphs timed apart is refused the same way
    parts = Across(parts=[one_job, apart], labels=["ny", "col"])
    assert judge(c, parts).reason.startswith("sides timed apart: col: ")


def test_the_drift_between_jobs_widens_the_interval_by_the_measured_amount():
    ev = Spread(values=[2.0, 2.2], jobs=("a", "b"))
    j = judge(claim(published="2x"), ev, job_drift=0.26)
    assert j.low == pytest.approx(2.0 / 1.26) and j.high == pytest.approx(2.2 * 1.26)
    assert "widened by the drift measured between jobs (26%)" in j.interval
    # a speedup in %: the ratio of times is what drifts
    gain = claim(published="27%", unit="% ((CPU - GPU) / CPU)", null="0")
    j = judge(gain, Spread(values=[50.0], jobs=("a", "b")), job_drift=0.25)
    assert j.low == pytest.approx(100 * (1 - 0.5 * 1.25))
    assert j.high == pytest.approx(100 * (1 - 0.5 / 1.25))
    # counts do not drift
    assert judge(claim(published="2", low="2", high="2"), Exact(values=[2], jobs=("a", "b")),
                 job_drift=0.5).low == 2


def test_a_single_run_far_outside_the_band_is_decided_and_one_inside_the_drift_is_not():
    gain = claim(published="27%", unit="% ((CPU - GPU) / CPU)", null="0")
    one = Spread(values=[97.45])  # t54.speedup16: one run, 97% against 27%
    assert judge(gain, one).verdict == "inconclusive"  # nothing to weigh it against
    j = judge(gain, one, job_drift=0.99)  # chapter 5's cells moved up to 1.99x between calls
    assert j.verdict == "direction only" and "above" in j.reason
    near = Spread(values=[35.0])
    assert judge(gain, near, job_drift=0.99).verdict == "inconclusive"  # the drift covers it
    # a trend through one value per point: a 10x monotone rise over three calls is decided
    grows = claim(kind="trend", published="grows", low="0", null="0", unit="")
    rise = Fit(xs=[64.0 ** 2, 128.0 ** 2, 256.0 ** 2], ys=[[1.0], [3.0], [10.0]])
    assert judge(grows, rise).verdict == "inconclusive"
    assert judge(grows, rise, job_drift=0.99).verdict == "reproduced"
    flat = Fit(xs=[64.0 ** 2, 128.0 ** 2, 256.0 ** 2], ys=[[1.0], [1.2], [1.3]])
    assert judge(grows, flat, job_drift=0.99).verdict == "inconclusive"


def test_interleaved_sides_share_a_job_and_are_compared_without_drift():
    rng = np.random.default_rng(0)
    rows = np.column_stack([rng.normal(10, 0.1, 30), rng.normal(5, 0.05, 30)])
    ev = Bootstrap(groups=[rows], statistic=lambda g: g[0][:, 0].mean() / g[0][:, 1].mean(),
                   jobs=("2026-11-26T19:35:28 card 07",))
    assert judge(claim(kind="ordering", published="faster", low="1", unit=""),
                 ev).verdict == "reproduced"


# --- ledger rows that say what they read -------------------------------------------------------

def test_data_kind_comes_from_the_origin_record():
    from graphrepro.datasets.origin import data_kind

    assert data_kind({"kind": "real"}) == "real"
    assert data_kind({"kind": "real", "reweight": {"low": 1, "high": 10, "seed": 4}}) \
        == "real topology, modelled weights"
    assert data_kind({"kind": "real topology"}) == "real topology, modelled weights"
    terrain = json.loads((REFERENCE / "terrain" / "neuse_dem.zgrid.origin.json").read_text())
    assert data_kind(terrain) == "stand-in"  # the Neuse-size diamond-square terrain
    assert data_kind(None) == "synthetic"


def test_departures_are_read_off_the_tables():
    from graphrepro.claims.departures import departures

    t51 = pd.DataFrame({"impl": ["cpu_dijkstra", "gpu_alg2"], "cpu_threads": [8, 8]})
    found = departures([("benchmarks/gerritsen2012_table5_4.csv", t51)])
    assert any("8 threads" in d for d in found) and any("Algorithm 9" in d for d in found)
    single = departures([("t", t51.assign(cpu_threads=1, impl="cpu_dijkstra"))])
    assert single == []
    blocks = pd.DataFrame({"bx": [0, 80], "by": [0, 0], "block_side": 256, "rows": 12555,
                           "cols": 17630})
    assert departures([("b", blocks)]) == [
        "1 of the 2 centre blocks timed are all-zero padding past the terrain's 12,555 x 17,630 "
        "points"]
    cap = json.dumps({"rlimit": "RLIMIT_DATA", "budget_mib": 238.0, "limit_mib": 994.5})
    t57 = pd.DataFrame({"cap": [cap, cap], "max_rss_mib": [6128.5, 7270.0]})
    assert "memory cap bound the heap only: RLIMIT_DATA held it at 994.5 MiB" in \
        departures([("t", t57)])[0]
    assert departures([("t", t57.assign(max_rss_mib=900.0))]) == []


def test_every_ledger_row_says_the_run_sources_trials_and_device_of_the_tables_it_read():
    """Each row's run, sources, trials and device, recomputed from the reference tables its
    ``tables`` column names; an2017's transfer claims read the transfer benchmark, not the
    dense run tables."""
    from graphrepro.claims.origin import describe
    from graphrepro.report.tables import _benchmark, load_runs

    ledger = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    assert {"data_kind", "departure", "tables", "device"} <= set(ledger.columns)
    checked = 0
    for _, row in ledger[ledger["tables"] != ""].iterrows():
        frames = []
        for name in row["tables"].split("; "):
            path = REFERENCE / name
            frames.append(_benchmark(path) if name.startswith("benchmarks/") else load_runs([path]))
        got = describe(pd.concat(frames, ignore_index=True))
        for col in ("run", "sources", "trials", "device"):
            assert got[col] == row[col], (row["claim_id"], col, got[col], row[col])
        checked += 1
    assert checked > 50
    by_id = ledger.set_index("claim_id")
    for cid in ("a.t41.pinned", "a.t41.grows", "a.t41.streams", "a.t41.second_half"):
        assert by_id.loc[cid, "tables"] == "benchmarks/an2017_transfers.csv"
        assert by_id.loc[cid, "sources"] == "1"
    measured = ledger[ledger["ours"] != ""]
    assert (measured["data_kind"] != "").mean() > 0.9
    chapter3 = ledger[ledger["claim_id"].str.match(r"t3\d\.") & (ledger["tables"] != "")]
    assert len(chapter3) and set(chapter3["data_kind"]) == {"stand-in"}
    assert not ledger["reason"].str.contains("H100|80 GB").any()


def test_a_control_that_does_other_work_does_not_isolate_the_atomics():
    from graphrepro.experiments.an2017_evidence import NO_ATOMICS, _atomics_share

    rows = []
    for variant, iters, arcs, ms in (("an_bf_outgoing", 5, 2.7e6, 3.0),
                                     (NO_ATOMICS, 13.7, 7.2e6, 2.0),
                                     ("an_bf_incoming", 5, 2.7e6, 1.0)):
        for source in range(4):
            rows.append({"graph": "dense_1024", "variant": variant, "status": "ok",
                         "source": source, "trial": 0, "solve_ms": ms, "iterations": iters,
                         "arcs_relaxed": arcs})
    runs = pd.DataFrame(rows)
    ev = _atomics_share(runs, {}, ["dense_1024"])
    assert ev.reason.startswith(f"the control {NO_ATOMICS} does not isolate the atomics")
    assert "dense_1024: 2.7x the iterations (13.7 against 5) and 2.7x the arcs relaxed" in ev.reason
    same = runs.assign(iterations=5, arcs_relaxed=2.7e6)
    assert not hasattr(_atomics_share(same, {}, ["dense_1024"]), "reason")


def test_chapter5_drift_is_the_same_cpu_work_timed_in_each_tables_job():
    from graphrepro.experiments.gerritsen2012_sssp_measured import cpu_drift

    def table(name, step_ms, blocks):
        return pd.DataFrame([{"table": name, "block": 64, "impl": "cpu_dijkstra", "status": "ok",
                              "step_ms": step_ms, "blocks": blocks}])

    b = {"gerritsen2012_table5_1": table("table5_1", 456.0, 16),  # 28.5 ms a block
         "gerritsen2012_table5_4": table("table5_4", 3270.4, 64),  # 51.1 ms a block
         "gerritsen2012_table5_7": pd.DataFrame([{"block": 64.0, "phase": "phase 1",
                                                  "impl": "cpu_dijkstra", "status": "ok",
                                                  "window": 8192, "seconds": 1816.9}])}
    drift, basis = cpu_drift(b)
    assert drift == pytest.approx(110.9 / 28.5 - 1, rel=1e-3)
    assert "28.5 ms in Table 5.1, 51.1 ms in Table 5.4, 111 ms in Table 5.7" in basis
    assert cpu_drift({"gerritsen2012_table5_1": b["gerritsen2012_table5_1"]})[0] is None


# The rows a referee struck in run 3 (issue 51), each with the reason it now reads.
STRUCK = {
    "a.fig2.atomics": "the control an_bf_outgoing@atomics=0 does not isolate the atomics",
    "t52.slower": "the 3d variant changes only part 1 of GPU algorithm 1",
    "t52.avg": "the 3d variant changes only part 1 of GPU algorithm 1",
    "t53.slower": "the zorder variant changes only part 1 of GPU algorithm 1",
    "t53.avg": "the zorder variant changes only part 1 of GPU algorithm 1",
    "t53.vs_3d": "the zorder variant changes only part 1 of GPU algorithm 1",
    "s.edge_vs_vertex": "singla claims more parallelism per round",
    "sk.delta.best": "sides timed apart: ",
    "a.t41.second_half": "the claim is about work (arcs relaxed)",
}


def test_the_struck_rows_read_as_a_referee_signs_them():
    ledger = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    by_id = ledger.set_index("claim_id")
    for cid, reason in STRUCK.items():
        assert by_id.loc[cid, "verdict"] == "not testable here", cid
        assert by_id.loc[cid, "reason"].startswith(reason), (cid, by_id.loc[cid, "reason"])
    # one measurement, one verdict: the duplicates are merged into the row they repeated
    assert not {"t2.best_speedup", "t57.gpu_total"} & set(ledger["claim_id"])
    claims = load_claims().set_index("claim_id")
    assert "t2.best_speedup" in claims.loc["t2.lbr.speedup", "note"]
    assert "t57.gpu_total" in claims.loc["t57.gpu_p1_faster", "note"]
    # near-far's work on every road graph: no road graph left out of its set
    assert "on 2 of 3 graphs only" not in by_id.loc["sk.nearfar_work", "reason"]
    assert "roadnet_ca " in by_id.loc["sk.nearfar_work", "reason"]
    # the documents' own settings: the thesis's pair for Table 3.7, both readings shown
    assert "the thesis's pair" in by_id.loc["t37.speedup", "reason"]
    for cid in ("f3.calibration", "sk.msdoor.wf"):
        assert by_id.loc[cid, "verdict"] in ("inconclusive", "not testable here"), cid
    assert "distance weights 597" in by_id.loc["f3.calibration", "reason"]


def test_a_row_read_off_the_graph_alone_still_says_its_kind_of_data():
    ledger = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    table1 = ledger[ledger["target"] == "safari2017_table1"].set_index("claim_id")["data_kind"]
    assert table1["t1.ny"] == "real" and table1["t1.col"] == "real topology, modelled weights"
    assert table1["t1.pa"] == "stand-in"
    # only rows that measured nothing (hardware, an algorithm not built) have no kind of data
    blank = ledger[ledger["data_kind"] == ""]
    assert (blank["verdict"] == "not testable here").all()
