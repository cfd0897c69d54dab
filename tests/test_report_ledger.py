"""The report's claims ledger: read from a ledger CSV where one exists, else from the target
tables' own claims files, the best run per target, and the counts shown."""

import json
import re

import pandas as pd
import pytest
from html_report import html_tables, section

from graphrepro.errors import InputError
from graphrepro.report.build import build_report
from graphrepro.report.ledger import (COLUMNS, VERDICTS, merge_ledgers,
                                      read_ledger, verdict_counts)
from graphrepro.report.present import default_columns, explanations, html_table

NOT_RUN = "not run: no CUDA device"


def ledger_rows(target, document, verdicts, where="Table 9"):
    return [{**{c: "" for c in COLUMNS}, "document": document, "where": where,
             "claim": f"claim {i} of {target}", "published": "2", "ours": "2.1", "ours_low": "1.9",
             "ours_high": "2.3", "unit": "x", "n": "6 x 3", "data": "STAND-IN", "verdict": v,
             "reason": f"because {i}", "target": target, "claim_id": f"{target}.{i}"}
            for i, v in enumerate(verdicts)]


def write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows, columns=[*COLUMNS, "claim_id"]).to_csv(path, index=False)
    return path


@pytest.fixture
def runs(tmp_path):
    """This machine: Table 1 measured (CPU), Figure 3 not run (no GPU); a reference run with a
    Figure 3 table and provenance; a hand-made ledger for each."""
    here, ref = tmp_path / "results", tmp_path / "reference"
    for root in (here, ref):
        (root / "targets").mkdir(parents=True)
    pd.DataFrame({"graph": ["ny"], "verdict": ["holds"]}).to_csv(
        here / "targets" / "safari2017_table1.csv", index=False)
    pd.DataFrame({"graph": ["ny"], "Harish (ms)": [NOT_RUN], "verdict": [f"{NOT_RUN}"]}).to_csv(
        here / "targets" / "safari2017_fig3.csv", index=False)
    pd.DataFrame({"graph": ["ny"], "Harish (ms)": ["4.5"], "verdict": ["differs"]}).to_csv(
        ref / "targets" / "safari2017_fig3.csv", index=False)
    (ref / "provenance.json").write_text(json.dumps({"gpu": "NVIDIA H100 80GB HBM3",
                                                     "config": "config/h100.yaml", "calls": []}))
    local = write(tmp_path / "claims.csv",
                  ledger_rows("safari2017_table1", "safari2017", ["reproduced", "inconclusive"])
                  + ledger_rows("safari2017_fig3", "safari2017", ["not testable here"] * 3))
    reference = write(ref / "claims.csv",
                      ledger_rows("safari2017_fig3", "safari2017", ["direction only", "reproduced"])
                      + ledger_rows("safari2017_table1", "safari2017", ["not reproduced"])
                      + ledger_rows("an2017_fig1", "an2017", ["not reproduced"]))
    return here, ref, local, reference


def counts_on_page(html):
    table = re.search(r'<table class="counts".*?</table>', html, re.S).group(0)
    return {r["document"]: {v: int(r[v]) for v in VERDICTS} for r in html_tables(table)[0]}


def test_the_page_counts_one_merged_ledger_each_row_from_its_best_run(tmp_path, runs):
    here, ref, local, reference = runs
    out = tmp_path / "index.html"
    shown = build_report(here, out, reference=ref, claims=local, reference_claims=reference)
    html = out.read_text()
    # Table 1's claim 0 from this machine (both ran it on a stand-in: the newer run), its claim 1
    # only here; Figure 3's claims 0 and 1 from the reference run (a verdict over "not testable
    # here"), its claim 2 from nowhere else; an2017 Figure 1 only measured there
    expected = {"safari2017": {"reproduced": 2, "inconclusive": 1, "direction only": 1,
                               "not testable here": 1},
                "an2017": {"not reproduced": 1}}
    page = counts_on_page(html)
    for doc in ("safari2017", "an2017", "singla"):
        assert page[doc] == {v: expected.get(doc, {}).get(v, 0) for v in VERDICTS}, doc
    assert page["all"] == {v: sum(page[d][v] for d in page if d != "all") for v in VERDICTS}
    assert sorted(shown["from_run"]) == ["reference run"] * 3 + ["this machine"] * 3
    # the claims table: one row per claim, each anchored by its id, linking to its section
    rows = re.findall(r'<tr id="claim-([\w.]+)" data-document="(\w+)" data-verdict="([^"]+)"'
                      r'[^>]*>\s*<td>\w+</td><td>[^<]*</td><td[^>]*><a href="#(\w+)">', html)
    assert len(rows) == 6 and {r[3] for r in rows} == {"safari2017_table1", "safari2017_fig3",
                                                       "an2017_fig1"}
    assert all(f'id="{r[3]}"' in html for r in rows)
    assert "2.1 [1.9, 2.3]x" in html  # ours with its interval, at its precision, unit once
    fig3 = section(html, "safari2017_fig3")
    assert "This machine did not run it" in fig3 and "direction only" in fig3
    # the summary the run ends with counts the same ledger
    summary = json.loads(out.with_name("index.summary.json").read_text())
    assert summary["claims"] == page["all"]
    assert summary["source"].startswith(str(local))


def test_precedence_a_local_stand_in_never_overrides_a_reference_verdict_on_real_data():
    real = "ny: real: http://example.org/USA-road-d.NY.gr.gz"
    standin = "ny: STAND-IN (scale 0.001 road_like, seed 1) for USA-road-d.NY"
    row = {**ledger_rows("safari2017_table1", "safari2017", ["x"])[0], "claim_id": "t1.ny"}
    local = pd.DataFrame([{**row, "verdict": "not testable here", "data": standin},
                          {**row, "claim_id": "cpu.both", "verdict": "reproduced", "data": real},
                          {**row, "claim_id": "gpu.small", "target": "gpu_t",
                           "verdict": "reproduced", "data": standin},
                          {**row, "claim_id": "only.here", "verdict": "inconclusive"}])
    ref = pd.DataFrame([{**row, "verdict": "not reproduced", "data": real},
                        {**row, "claim_id": "cpu.both", "verdict": "not reproduced", "data": real},
                        {**row, "claim_id": "gpu.small", "target": "gpu_t",
                         "verdict": "direction only", "data": standin},
                        {**row, "claim_id": "only.ref", "verdict": "not testable here"}])
    merged = merge_ledgers(local, ref, gpu_targets={"gpu_t"}, gpu_here=False).set_index("claim_id")
    assert list(merged.index) == ["t1.ny", "cpu.both", "gpu.small", "only.here", "only.ref"]
    assert merged.loc["t1.ny", "from_run"] == "reference run"  # real NY's verdict stands
    assert merged.loc["cpu.both", "from_run"] == "this machine"  # same data: the newer run
    assert merged.loc["gpu.small", "from_run"] == "reference run"  # no GPU here
    with_gpu = merge_ledgers(local, ref, gpu_targets={"gpu_t"}, gpu_here=True)
    assert with_gpu.set_index("claim_id").loc["gpu.small", "from_run"] == "this machine"
    assert merged.loc["only.ref", "verdict"] == "not testable here"
    # neither tested it: the run that built its target says why, not "not built here"
    filler = {**row, "claim_id": "hw", "verdict": "not testable here", "data": "",
              "reason": "its target safari2017_table1 was not built in results"}
    why = {**filler, "reason": "hardware: a GeForce GT 630's seconds do not transfer"}
    both = merge_ledgers(pd.DataFrame([filler]), pd.DataFrame([why]))
    assert both["reason"].iloc[0].startswith("hardware") and both["from_run"].iloc[0] == \
        "reference run"


def test_a_ledger_with_an_unknown_verdict_is_refused_with_its_line(tmp_path):
    rows = ledger_rows("safari2017_table1", "safari2017", ["reproduced", "holds"])
    with pytest.raises(InputError, match=r"claims\.csv, line 3: verdict 'holds'"):
        read_ledger(write(tmp_path / "claims.csv", rows))
    pd.DataFrame({"document": ["x"]}).to_csv(tmp_path / "thin.csv", index=False)
    with pytest.raises(InputError, match="lacks column"):
        read_ledger(tmp_path / "thin.csv")


def test_verdict_counts():
    local = pd.DataFrame(ledger_rows("a", "safari2017", ["reproduced"])
                         + ledger_rows("b", "safari2017", ["not testable here"]))
    ref = pd.DataFrame(ledger_rows("b", "safari2017", ["not reproduced", "reproduced"]))
    merged = merge_ledgers(local, ref)
    assert sorted(zip(merged["target"], merged["from_run"])) == [
        ("a", "this machine"), ("b", "reference run"), ("b", "reference run")]
    counts = verdict_counts(merged, ["safari2017", "an2017"])
    assert counts[0]["reproduced"] == 2 and counts[0]["not reproduced"] == 1
    assert counts[1]["total"] == 0 and counts[-1]["total"] == 3


def test_tables_show_the_claim_columns_by_default_and_explain_labels():
    cols = ["what", "CPU (thesis)", "CPU (ours)", "GPU (thesis)", "GPU (ours)", "speedup (thesis)",
            "speedup (ours)", "[1] (thesis)", "[1] (ours)", "[2] (thesis)", "[2] (ours)", "verdict",
            "note"]
    shown = default_columns(cols)
    assert shown[0] == "what" and shown[-1] == "verdict" and len(shown) <= 10
    assert "CPU (ours)" in shown and "GPU (ours)" in shown and "note" not in shown
    df = pd.DataFrame([["Maximum", "418", "383", "xx", "190", "", "", "", "", "", "", "differs",
                        "a note"]], columns=cols)
    assert [line.split(":")[0] for line in explanations(df)] == ['"[1]"', '"[2]"', '"xx"']
    page = html_table(pd.DataFrame({"solver": ["lbr"], "params": ['{"k": 4, "t": 2}']}), "t")
    assert "k=4, t=2" in page and "{" not in page


def test_claims_changed_from_counts_both_sides_and_lists_every_moved_verdict(tmp_path, capsys):
    from graphrepro.cli import main

    old = ledger_rows("t_a", "doc1", ["reproduced", "inconclusive", "not reproduced"])
    new = [dict(r) for r in old]
    new[1].update(verdict="reproduced", ours="3.5")
    del new[2]  # a claim the new run no longer has
    new += ledger_rows("t_b", "doc2", ["direction only"])  # one only the new run has
    write(tmp_path / "old.csv", old)
    write(tmp_path / "new.csv", new)
    args = ["claims", "--ledger", str(tmp_path / "new.csv"), "--changed-from",
            str(tmp_path / "old.csv")]
    assert main([*args, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [(c["claim"], c["before"], c["after"]) for c in got["changed"]] == [
        ("t_a.1", "inconclusive", "reproduced"), ("t_b.0", "", "direction only"),
        ("t_a.2", "not reproduced", "")]
    assert got["changed"][0]["ours_after"] == "3.5"
    counts = {(c["document"], c["side"]): c for c in got["counts"]}
    assert counts["doc1", "before"]["total"] == 3 and counts["doc1", "after"]["reproduced"] == 2
    assert counts["doc2", "before"]["total"] == 0 and counts["all", "after"]["total"] == 3
    assert main([*args, "--document", "doc1"]) == 0
    out = capsys.readouterr()
    assert "t_b.0" not in out.out and "t_a.2" in out.out and "2 claims changed" in out.err
    write(tmp_path / "same.csv", old)
    assert main(["claims", "--ledger", str(tmp_path / "same.csv"), "--changed-from",
                 str(tmp_path / "old.csv")]) == 0
    assert "no verdict changed" in capsys.readouterr().out


def test_a_local_run_short_of_the_references_setting_never_overrides_it():
    """Finding 1 of issue 53: the default config's 16 blocks of 32^2 on the real Jacksboro DEM
    replaced the reference's 10,000 blocks of 256^2 on the Neuse-size grid. The setting a claim
    depends on (graphs, size, blocks, sources, device) comes before the data kind; the row set
    aside is kept beside the one counted."""
    row = {**ledger_rows("gerritsen2012_fig3_6", "gerritsen2012", ["x"])[0], "claim_id": "f36"}
    jacksboro = "terrain jacksboro: 16 centre blocks of 32^2"
    neuse = "terrain neuse_dem: 10000 centre blocks of 256^2"
    ny = "ny: real: http://example.org/ny.gr.gz"
    pairs = {  # claim: (this machine's cells, the reference run's)
        "f36": ({"verdict": "not reproduced", "ours": "3.162", "data": jacksboro, "n": "16 blocks"},
                {"verdict": "reproduced", "ours": "74.98", "data": neuse, "n": "10000 blocks"}),
        "t54": ({"verdict": "not reproduced", "data": "jacksboro: real: http://example.org/j.asc"},
                {"verdict": "reproduced",
                 "data": "neuse_dem: STAND-IN (paper-size diamond_square, seed 111) for Neuse"}),
        "few.sources": ({"verdict": "reproduced", "sources": "10", "data": ny},
                        {"verdict": "not reproduced", "sources": "100", "data": ny}),
        "same": ({"verdict": "reproduced", "sources": "100", "data": ny},
                 {"verdict": "not reproduced", "sources": "100", "data": ny}),
        "cpu.here": ({"verdict": "reproduced", "device": "CPU"},
                     {"verdict": "not reproduced", "device": "NVIDIA H200"})}
    local, ref = (pd.DataFrame([{**row, "claim_id": c, **cells[side]} for c, cells in pairs.items()])
                  for side in (0, 1))
    merged = merge_ledgers(local, ref).set_index("claim_id")
    assert dict(merged["from_run"]) == {"f36": "reference run", "t54": "reference run",
                                        "few.sources": "reference run", "same": "this machine",
                                        "cpu.here": "reference run"}
    # the row set aside, labelled, beside the one the ledger keeps
    f36 = merged.loc["f36"]
    assert (f36["verdict"], f36["other_from_run"], f36["other_verdict"], f36["other_ours"],
            f36["other_data"]) == ("reproduced", "this machine", "not reproduced", "3.162",
                                   jacksboro)
    assert merged.loc["same", "other_from_run"] == "reference run"
    # a larger local run does override
    bigger = local.assign(data=neuse.replace("10000", "20000"))
    assert merge_ledgers(bigger.iloc[:1], ref.iloc[:1])["from_run"].iloc[0] == "this machine"


def test_the_page_shows_both_runs_where_they_disagree_and_says_what_it_counts(tmp_path, runs):
    here, ref, _, _ = runs
    [row] = ledger_rows("safari2017_table1", "safari2017", ["reproduced"])
    small = {**row, "data": "ny: STAND-IN (scale 0.001 road_like, seed 1) for USA-road-d.NY",
             "ours": "3.162", "ours_low": "3.0", "ours_high": "3.3"}
    real = {**row, "data": "ny: real: http://example.org/USA-road-d.NY.gr.gz",
            "verdict": "not reproduced"}
    local = write(tmp_path / "claims.csv", [small])
    reference = write(ref / "claims.csv", [real])
    out = tmp_path / "index.html"
    ledger = build_report(here, out, reference=ref, claims=local, reference_claims=reference)
    assert list(ledger["from_run"]) == ["reference run"]
    html = out.read_text()
    claims = re.search(r'<table id="claims-table".*?</table>', html, re.S).group(0)
    both = re.findall(r'<div><b>([^<]+)</b> \(([^;]+); ([^)]+)\): (.+?\]x), ([^:]+): (\w[\w ]*)'
                      r'</div>', claims)
    assert both == [("reference run", "real", "ny", "2.1 [1.9, 2.3]x", "not reproduced",
                     "counted"),
                    ("this machine", "stand-in", "ny at scale 0.001", "3.2 [3.0, 3.3]x",
                     "reproduced", "set aside")]
    assert "1 from the reference run, 0 from this machine" in html


def test_a_tables_rows_read_the_ledgers_number_and_say_its_run():
    """Finding 2 of issue 53: one number per claim in every table. A claim's one row takes the
    ledger's value and verdict; the rows a claim spans keep their own values (an2017 Fig. 1's
    8/16/32/32, not the claim's 32 on every row); a claim the ledger took from the other run says
    so, with that run's value and setting, never under this table's label."""
    from graphrepro.report.build import _ledger_values

    table = pd.DataFrame({"graph": ["a", "b", "c", "d"], "ours": ["8", "16", "2.05", "7"],
                          "claim_id": ["x", "x", "y", ""], "verdict": ["", "", "holds", ""]})
    [x, y] = ledger_rows("t", "an2017", ["reproduced", "inconclusive"])
    ledger = pd.DataFrame([{**x, "claim_id": "x", "ours": "32", "ours_low": "32",
                            "ours_high": "32", "from_run": "reference run",
                            "data": "terrain neuse_dem: 10000 centre blocks of 256^2"},
                           {**y, "claim_id": "y", "from_run": "this machine"}])
    shown = _ledger_values(table, ledger, "this machine")
    assert list(shown["ours"]) == ["8", "16", "2.1 [1.9, 2.3]x", "7"]
    assert list(shown["verdict"]) == [
        "reproduced (reference run, neuse_dem, 10000 blocks of 256^2: 32x)"] * 2 + [
        "inconclusive", ""]
    # the same table under the reference run's label: its own claim x plainly, y labelled
    ref = _ledger_values(table, ledger, "reference run")
    assert list(ref["verdict"])[:3] == ["reproduced", "reproduced",
                                        "inconclusive (this machine, 6 x 3: 2.1 [1.9, 2.3]x)"]


def test_a_third_row_label_is_shown_where_it_takes_three_to_tell_rows_apart():
    """Finding 9 of issue 53: Fig. 4's rows differ by graph, solver and vertices per thread t;
    without t they read as duplicates with different verdicts."""
    rows = pd.DataFrame({"graph": ["ny"] * 3 + ["cn"] * 3, "data": "real",
                         "solver": ["lbr", "lbr", "lbr_persistent"] * 2,
                         "vertices per thread t": ["1", "2", "1"] * 2,
                         **{f"k={k} (ms)": "1.0" for k in range(1, 6)}, "note": "", "verdict": ""})
    shown = default_columns(list(rows.columns), rows)
    assert shown[:1] + shown[-7:] == ["graph", "vertices per thread t", "k=1 (ms)", "k=2 (ms)",
                                      "k=3 (ms)", "k=4 (ms)", "k=5 (ms)", "verdict"]
    assert "solver" in shown
