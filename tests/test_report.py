"""Target tables (published values beside ours, with verdicts) and the HTML report.

The Harish runs come from the real harness on a tiny graph in the CUDA simulator (conftest.py), so
the counters in the tables are the ones the kernels produce, not numbers typed into a test.
"""

import base64
import json
import re
from html_report import html_tables, section

import pandas as pd
import pytest

from graphrepro import gpu, verify
from graphrepro.claims import fill_verdicts, judge_target
from graphrepro.documents import DOCUMENTS
from graphrepro.experiments import all_targets, get_target, published
from graphrepro.graph import degree_stats
from graphrepro.graph.generate import road_grid
from graphrepro.harness import RunSpec, draw_sources, measure, provenance
from graphrepro.harness.provenance import STUDY_PACKAGES
from graphrepro.report.build import build_report
from graphrepro.report.ledger import COLUMNS

HARISH = "Harish et al. [12 13]"
LBR = "Proposed Algorithm"
SPACE = "Space complexity (words)"
LAUNCHES = "# of kernel launches (per host iteration)"
TRIPS = "CPU-GPU communication (# per host iteration)"
ATOMICS = "# of atomic statements"


def run(graph, solver, sources=2, trials=1):
    picked = [int(s) for s in draw_sources(graph, sources, seed=3)]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in picked]
    return measure(graph, RunSpec(solver, picked, digests, trials=trials, warmup=0),
                   log=lambda _: None)


@pytest.fixture(scope="module")
def grid():
    return road_grid(5, 6, keep=0.8, seed=4, name="grid30")


@pytest.fixture(scope="module")
def stats(grid):
    return {grid.name: degree_stats(grid)}


@pytest.fixture(scope="module")
def harish_runs(grid):
    if not gpu.cuda_available():
        pytest.skip("no CUDA device and NUMBA_ENABLE_CUDASIM is not 1")
    return run(grid, "harish")


@pytest.fixture(scope="module")
def not_run_runs(grid):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gpu, "cuda_available", lambda: False)
        return run(grid, "harish")


def judged(name, runs, stats):
    """A safari2017 table as the compare step writes it: its verdicts from the claims ledger."""
    t = get_target(name)
    return fill_verdicts(t.compare(runs, stats, published("safari2017")),
                         judge_target(t, runs, stats))


def compare_table2(runs, stats, _published):
    return judged("safari2017_table2", runs, stats)


def compare_fig3(runs, stats, _published):
    return judged("safari2017_fig3", runs, stats)


def verdicts(table, method):
    rows = table[table["method"] == method]
    return dict(zip(rows["criterion"], rows["verdict"]))


# --- Table 2 -----------------------------------------------------------------------------------

def test_table2_harish_claims_hold_except_space(harish_runs, stats):
    table = compare_table2(harish_runs, stats, published("safari2017"))
    harish = verdicts(table, HARISH)
    assert harish[LAUNCHES] == "reproduced"
    assert harish[TRIPS] == "reproduced"
    assert harish[ATOMICS] == "reproduced"
    # space as Table 2 counts it: a word per entry of each array Harish keeps (indptr, d, up,
    # fa; indices, weights), whatever our dtypes (int64 d and up), so 4V+2A (issue 30)
    assert harish[SPACE] == "reproduced"
    row = table[(table["method"] == HARISH) & (table["criterion"] == SPACE)].iloc[0]
    assert row["published"] == "4V+2A" == row["ours"] and "64-bit" in row["note"]
    launches = table[(table["method"] == HARISH) & (table["criterion"] == LAUNCHES)].iloc[0]
    assert (launches["published"], launches["ours"]) == ("2", "2")


def test_table2_without_lbr_runs_says_so_and_other_methods_not_implemented(harish_runs, stats):
    table = compare_table2(harish_runs, stats, published("safari2017"))
    lbr = table[table["method"] == LBR]
    assert len(lbr) == 5
    assert set(lbr["verdict"]) == {"not testable here"}
    assert set(lbr["ours"]) == {"not in this config"}
    others = table[~table["method"].isin([HARISH, LBR]) & (table["where"] == "Table 2")]
    # Chaibou, two Singh, Busato, Ortega: one compact row each, all five published values in it
    assert len(others) == 5
    assert all(row.count(";") == 4 for row in others["published"])
    assert set(others["verdict"]) == {"not testable here"}
    assert set(others["note"]) == {"not implemented in this study"}
    # Ours only: measured counters Table 2 argues with but prints no number for, and the
    # persistent variant's rows
    assert set(table[table["where"] != "Table 2"]["method"]) == {
        HARISH, "LBR as one persistent kernel (this study)"}


def test_table2_without_cuda_says_not_run(not_run_runs, stats):
    assert set(not_run_runs["status"]) == {"not run: no CUDA device"}
    table = compare_table2(not_run_runs, stats, published("safari2017"))
    harish = table[table["method"] == HARISH]
    assert set(harish["ours"]) == {"not run: no CUDA device"}
    assert set(harish["verdict"]) == {"not testable here", ""}  # "-": the speedup row, no claim
    assert set(table[table["method"] == LBR]["verdict"]) == {"not testable here"}


def test_table2_space_holds_for_32_bit_state_and_flags_launches_that_vary(harish_runs, stats):
    # Hand-made rows: a device footprint of exactly 4V+2A words, and launch counts that do not
    # come out at one value per iteration.
    v, a = stats["grid30"]["vertices"], stats["grid30"]["arcs"]
    runs = harish_runs.copy()
    runs["device_bytes"] = 4 * (4 * v + 2 * a)
    runs.loc[runs.index[0], "kernel_launches"] += 1
    harish = verdicts(compare_table2(runs, stats, published("safari2017")), HARISH)
    assert harish[SPACE] == "reproduced"
    assert harish[LAUNCHES] == "not reproduced"  # a count past the band is a counterexample


# --- Figure 3 ----------------------------------------------------------------------------------

def test_fig3_puts_harish_beside_dijkstra(grid, harish_runs, stats):
    runs = pd.concat([harish_runs, run(grid, "dijkstra", trials=2)], ignore_index=True)
    table = compare_fig3(runs, stats, published("safari2017"))
    assert len(table) == 1
    row = table.iloc[0]
    assert row["graph"] == "grid30" and row["vertices"] == 30
    assert row["sources"] == 2
    assert row["Harish (ms)"] > 0 and row["Dijkstra CPU (ms)"] > 0
    assert row["Harish iterations"] >= 1
    assert row["verdict"] == ""  # a graph the paper does not name stands for no claim


def test_fig3_without_cuda_says_not_run(grid, not_run_runs, stats):
    runs = pd.concat([not_run_runs, run(grid, "dijkstra")], ignore_index=True)
    row = compare_fig3(runs, stats, published("safari2017")).iloc[0]
    assert row["Harish (ms)"] == "not run: no CUDA device"
    assert row["sources"] == 0


# --- published values --------------------------------------------------------------------------

def test_published_safari2017_has_table1_table2_and_figure3():
    pub = published("safari2017")
    assert {"item", "where", "row", "column", "value"} <= set(pub.columns)
    assert {"Table 1", "Table 2", "Figure 3"} <= set(pub["item"])
    assert (pub["where"] != "").all() and (pub["value"] != "").all()
    cell = pub[(pub["item"] == "Figure 3") & (pub["row"] == "Western")
               & (pub["column"] == "harish_time")]
    assert cell["value"].tolist() == ["24.7"]
    assert len(pub[(pub["item"] == "Table 1") & (pub["column"] == "vertices")]) == 7


def test_published_for_a_document_without_a_file_is_empty():
    pub = published("no_such_document")  # gerritsen2012 has its rows now
    assert pub.empty and {"where", "value"} <= set(pub.columns)


# --- the HTML report ---------------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n not really an image; the report only embeds the bytes"


@pytest.fixture
def results(tmp_path, harish_runs, not_run_runs, stats):
    """A results directory as the workflow leaves it: Table 2 measured, Figure 3 not run here."""
    root = tmp_path / "results"
    (root / "targets").mkdir(parents=True)
    compare_table2(harish_runs, stats, published("safari2017")).to_csv(
        root / "targets" / "safari2017_table2.csv", index=False)
    compare_fig3(not_run_runs, stats, published("safari2017")).to_csv(
        root / "targets" / "safari2017_fig3.csv", index=False)
    for name, runs in (("safari2017_table2", harish_runs), ("safari2017_fig3", not_run_runs)):
        # each target's ledger rows beside its table, as the compare step writes them
        judge_target(get_target(name), runs, stats).to_csv(
            root / "targets" / f"{name}.claims.csv", index=False)
    (root / "figures").mkdir()
    (root / "figures" / "safari2017_fig3.png").write_bytes(PNG)
    (root / "sources").mkdir()
    (root / "sources" / "grid30.json").write_text(json.dumps({
        "graph": "grid30", "seed": 3, "stands_for": "Western", "sources": [1, 2],
        "stats": stats["grid30"]}))
    (root / "runs" / "grid30").mkdir(parents=True)
    (root / "runs" / "grid30" / "harish.provenance.json").write_text(
        json.dumps({**provenance(), "host": "test-host"}))
    return root


@pytest.fixture
def reference(tmp_path, harish_runs, stats):
    """A committed reference run from a GPU machine: provenance and the Table 2 table."""
    ref = tmp_path / "reference"
    (ref / "targets").mkdir(parents=True)
    (ref / "provenance.json").write_text(json.dumps({
        **provenance(), "host": "gpu-box", "gpu": "NVIDIA H100 80GB HBM3", "driver": "580.65",
        "cuda_runtime": "13.0", "config": "config/h100.yaml", "commit": "feedbeef"}))
    table = compare_table2(harish_runs, stats, published("safari2017"))
    table.loc[table["method"] == HARISH, "note"] = "from the reference machine"
    table.to_csv(ref / "targets" / "safari2017_table2.csv", index=False)
    (ref / "runs" / "grid30").mkdir(parents=True)
    (ref / "runs" / "grid30" / "harish.provenance.json").write_text(json.dumps({
        **provenance(), "gpu": "NVIDIA H100 80GB HBM3", "commit": "feedbeef1234",
        "date": "2026-11-23T14:38:00+00:00"}))
    return ref


def test_report_has_a_section_per_document_and_placeholders(tmp_path, results, monkeypatch):
    from graphrepro import experiments

    # every issue's targets are built now: a planned one (a document's next table) is made up here
    all_targets()
    monkeypatch.setitem(experiments._TARGETS, "gerritsen2012_next",
                        experiments.Target("gerritsen2012_next", "gerritsen2012", "Table 9.9",
                                           "a table not built yet", planned=99))
    out = tmp_path / "site" / "index.html"
    build_report(results, out, reference=tmp_path / "no-reference")
    html = out.read_text()
    ids = re.findall(r'<h2 id="([^"]+)"', html)
    assert [d.short for d in DOCUMENTS] == ["safari2017", "senthilkumar", "singla", "an2017",
                                             "gerritsen2012"]
    # then the study's own solver beside them (issue 21), last
    assert [i for i in ids if i not in ("overview", "claims", "drift", "changes", "limits",
                                        "provenance")] == [
        d.short for d in DOCUMENTS] + ["graphrepro"]
    planned = [t for t in all_targets() if not t.ready]
    assert [t.name for t in planned] == ["gerritsen2012_next"]
    for t in planned:
        assert f"Not built yet: issue {t.planned}." in section(html, t.name), t.name
    # Table 1 is planned but transcribed: its published values are shown under the placeholder.
    table1 = html_tables(section(html, "safari2017_table1"))
    # its claims first (not testable here: not built in this run), then the published values
    assert len(table1) == 2 and {"where", "value"} <= set(table1[-1][0])
    assert {r["verdict"] for r in table1[0]} == {"not testable here"}
    assert "Reference run" not in html


def test_report_shows_the_table_verdicts_and_the_embedded_figure(tmp_path, results):
    out = tmp_path / "index.html"
    build_report(results, out, reference=tmp_path / "no-reference")
    html = out.read_text()
    # the section: its claims (from the ledger), then the table, with its own verdicts
    claims, table2 = html_tables(section(html, "safari2017_table2"))
    assert {r["verdict"] for r in claims} >= {"reproduced", "not testable here"}
    harish = {r["criterion"]: r["verdict"] for r in table2 if r["method"] == HARISH}
    assert harish[LAUNCHES] == harish[TRIPS] == harish[ATOMICS] == harish[SPACE] == "reproduced"
    assert re.search(r'<td class="verdict v-reproduced">reproduced</td>',
                     section(html, "safari2017_table2"))
    fig3 = section(html, "safari2017_fig3")
    # claims, then the figure, then the table
    assert fig3.index("<table class=\"claims\"") < fig3.index("<img") < fig3.index('class="data"')
    assert "data:image/png;base64," + base64.b64encode(PNG).decode() in fig3
    assert "Not built yet" not in fig3
    # Figure 3's Harish cells say why they are empty, and the page says it once, at the top.
    fig3_table = html_tables(fig3)[-1]
    assert fig3_table[0]["Harish (ms)"] == "not run: no CUDA device"
    assert "GPU solvers did not run on this machine" in section(html, "limits")
    assert "a synthetic stand-in for the document's <b>Western</b>" in section(html, "limits")
    assert "host test-host" in html


def test_report_shows_a_labelled_reference_run_where_one_is_committed(tmp_path, results,
                                                                       reference):
    config = tmp_path / "my-config.yaml"
    config.write_text("seed: 1\n")
    out = tmp_path / "index.html"
    build_report(results, out, reference=reference, config_path=config)
    html = out.read_text()
    # Table 2 ran here (in the simulator): ours first, the reference run's behind a summary
    table2 = section(html, "safari2017_table2")
    block = table2[table2.index('<details class="reference">'):]
    assert "The reference run's table (NVIDIA H100 80GB HBM3)" in block
    # provenance from the reference runs' own records, not the run-wide summary
    assert "1 run at commit <code>feedbeef1234</code> on NVIDIA H100 80GB HBM3" in block
    assert "config <code>config/h100.yaml</code>" in block
    ref_table = html_tables(block)[-1]
    assert {r["note"] for r in ref_table if r["method"] == HARISH} == {"from the reference machine"}
    # Figure 3 has no committed reference table, so no reference block there.
    assert "Reference run" not in section(html, "safari2017_fig3")
    assert f"<code>{config}</code>" in html and "seed: 1" in html
    assert "supersedes" not in section(html, "overview")
    # each record names its whole environment: the study's packages inline, the rest folded
    footer = html[html.index('<h2 id="provenance">'):]
    installed = provenance()["packages"]
    rest = len(set(installed) - set(STUDY_PACKAGES))
    assert f"numpy {installed['numpy']}, " in footer.split("<details>")[0]
    assert footer.count(f"<summary>The other {rest} packages installed</summary>") == 2
    assert f"pip {installed['pip']}" in footer and f"pip {installed['pip']}" not in (
        footer.split("<details>")[0])


def test_the_overview_names_the_runs_a_reference_run_supersedes(tmp_path, results, reference):
    record = json.loads((reference / "provenance.json").read_text())
    record["supersedes"] = {"runs": "runs 1 and 2", "folder": "reports/superseded/runs-1-2"}
    (reference / "provenance.json").write_text(json.dumps(record))
    out = tmp_path / "index.html"
    build_report(results, out, reference=reference)
    assert ("It supersedes runs 1 and 2, kept in <code>reports/superseded/runs-1-2/</code>, "
            "which nothing reads.") in section(out.read_text(), "overview")
    # a run that left the tree: named by the commit that last held it, its ledger kept
    record["supersedes"].update(commit="c306b54ffc55aa", ledger="reports/history/runs-1-2/claims.csv")
    (reference / "provenance.json").write_text(json.dumps(record))
    build_report(results, out, reference=reference)
    assert ("It supersedes runs 1 and 2, in git's history (<code>reports/superseded/runs-1-2/</code> "
            "at commit <code>c306b54ffc55</code>; their ledger: "
            "<code>reports/history/runs-1-2/claims.csv</code>), which nothing reads.") in section(
        out.read_text(), "overview")


def test_the_reference_runs_stand_ins_are_shown_beside_this_machines(tmp_path, results,
                                                                      reference):
    """The reference run's verdicts on stand-ins rest on its own stand-ins table: the page shows
    it, labelled, where this machine made none (or one of its own)."""
    head = "dataset,graph,data,vertices,arcs,sccs,depth_median,harish_median,goal\n"
    (reference / "standins").mkdir()
    (reference / "standins" / "standins.csv").write_text(
        head + "ny,real,real file,264346,733846,1,590.5,993.0,\n"
        "ny,stand-in,road_network seed 101,264346,733846,1,553.5,648.5,meets\n")
    (reference / "standins" / "terrain_compare.csv").write_text("part,real_ms,standin_ms\nmst,2,2.1\n")
    (reference / "standins" / "terrain_compare.json").write_text(
        json.dumps({"real": "Wake County piece", "stand-in": "its stand-in"}))
    out = tmp_path / "index.html"
    build_report(results, out, reference=reference)
    html = out.read_text()
    mine = section(html, "standins-reference")
    assert "the reference run&#39;s" in mine and "Goal met by ny." in mine
    assert 'id="t-standins-reference"' in html and 'id="t-standins"' not in html  # none here
    assert 'href="#standins-reference"' in html and 'href="#terrain_compare-reference"' in html
    assert "Wake County piece" in section(html, "terrain_compare-reference")
    (results / "standins").mkdir()
    (results / "standins" / "standins.csv").write_text(head)  # this machine's: no real data
    build_report(results, out, reference=reference)
    html = out.read_text()
    assert "No road dataset has real data at hand" in section(html, "standins")
    assert 'id="t-standins-reference"' in html
    (reference / "claims.csv").write_text(",".join(COLUMNS) + "\n")
    build_report(reference, out, reference=reference)  # the reference's own page: shown once
    assert out.read_text().count("Road stand-ins against the real graphs") == 1


def test_a_gpu_target_not_run_here_shows_the_reference_run_alone(tmp_path, results, reference,
                                                                   not_run_runs, stats):
    (reference / "targets" / "safari2017_table2.csv").unlink()
    fig3 = compare_fig3(not_run_runs, stats, published("safari2017"))
    fig3["Harish (ms)"] = "4.5"  # the reference machine's number
    fig3.to_csv(reference / "targets" / "safari2017_fig3.csv", index=False)
    out = tmp_path / "index.html"
    build_report(results, out, reference=reference)
    html = section(out.read_text(), "safari2017_fig3")
    assert "This machine did not run its GPU solvers (no CUDA device)" in html
    assert "<b>Reference run</b>, not from this machine" in html
    # only the reference run's table: no "not run" table, and no image (the reference has none)
    tables = html_tables(html)
    assert [r["Harish (ms)"] for r in tables[-1]] == ["4.5"]
    assert "not run: no CUDA device" not in html and "<img" not in html
