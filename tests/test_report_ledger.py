"""The report's claims ledger: read from a ledger CSV where one exists, else from the target
tables' own claims files, the best run per target, and the counts shown."""

import json
import re

import pandas as pd
import pytest
from html_report import html_tables, section

from graphrepro.errors import InputError
from graphrepro.report.build import build_report
from graphrepro.report.ledger import (COLUMNS, VERDICTS, best_ledger,
                                      read_ledger, verdict_counts)
from graphrepro.report.present import default_columns, explanations, html_table

NOT_RUN = "not run: no CUDA device"


def ledger_rows(target, document, verdicts, where="Table 9"):
    return [{**{c: "" for c in COLUMNS}, "document": document, "where": where,
             "claim": f"claim {i} of {target}", "published": "2", "ours": "2.1", "ours_low": "1.9",
             "ours_high": "2.3", "unit": "x", "n": "6 x 3", "data": "STAND-IN", "verdict": v,
             "reason": f"because {i}", "target": target} for i, v in enumerate(verdicts)]


def write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False)
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


def test_the_page_counts_the_ledger_csv_best_run_per_target(tmp_path, runs):
    here, ref, local, reference = runs
    out = tmp_path / "index.html"
    shown = build_report(here, out, reference=ref, claims=local, reference_claims=reference)
    html = out.read_text()
    # Table 1 from this machine; Figure 3 (not run here) and an2017 Figure 1 (only measured
    # there) from the reference run
    expected = {"safari2017": {"reproduced": 2, "inconclusive": 1, "direction only": 1},
                "an2017": {"not reproduced": 1}}
    page = counts_on_page(html)
    for doc in ("safari2017", "an2017", "singla"):
        assert page[doc] == {v: expected.get(doc, {}).get(v, 0) for v in VERDICTS}, doc
    assert page["all"] == {v: sum(page[d][v] for d in page if d != "all") for v in VERDICTS}
    assert sorted(shown["run"]) == ["reference run"] * 3 + ["this machine"] * 2
    # the claims table: one row per shown claim, each linking to its target's section
    rows = re.findall(r'<tr data-document="(\w+)" data-verdict="([^"]+)">\s*<td>\w+</td><td>[^<]*'
                      r'</td><td><a href="#(\w+)">', html)
    assert len(rows) == 5 and {r[2] for r in rows} == {"safari2017_table1", "safari2017_fig3",
                                                       "an2017_fig1"}
    assert all(f'id="{r[2]}"' in html for r in rows)
    assert "2.1 [1.9, 2.3] x" in html  # ours with its interval and unit
    fig3 = section(html, "safari2017_fig3")
    assert "This machine did not run it" in fig3 and "direction only" in fig3
    assert "not testable here" not in fig3  # this machine's rows for it are not shown
    assert f"Source of the verdicts: {local}" in html


def test_a_ledger_with_an_unknown_verdict_is_refused_with_its_line(tmp_path):
    rows = ledger_rows("safari2017_table1", "safari2017", ["reproduced", "holds"])
    with pytest.raises(InputError, match=r"claims\.csv, line 3: verdict 'holds'"):
        read_ledger(write(tmp_path / "claims.csv", rows))
    pd.DataFrame({"document": ["x"]}).to_csv(tmp_path / "thin.csv", index=False)
    with pytest.raises(InputError, match="lacks column"):
        read_ledger(tmp_path / "thin.csv")


def test_best_ledger_and_counts():
    local = pd.DataFrame(ledger_rows("a", "safari2017", ["reproduced"])
                         + ledger_rows("b", "safari2017", ["not testable here"]))
    ref = pd.DataFrame(ledger_rows("b", "safari2017", ["not reproduced", "reproduced"]))
    best = best_ledger(local, ref, use_reference={"b"})
    assert sorted(zip(best["target"], best["run"])) == [
        ("a", "this machine"), ("b", "reference run"), ("b", "reference run")]
    counts = verdict_counts(best, ["safari2017", "an2017"])
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
