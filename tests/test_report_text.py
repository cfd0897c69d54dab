"""The text the numbers carry (issue 30, item 9): every rendered cell has its unit once and no
cell is a unit alone; intervals at their precision; each table says what its answers were
checked against; the verdict legend says how the rule gives each verdict, "the run did not
happen here" included; ratios that set one kind of hardware against another are labelled."""

import re
from pathlib import Path

import pytest
from html_report import html_tables

from graphrepro.report.build import build_report
from graphrepro.report.page import (hardware_balance, ours_text, reason_text, short_reason,
                                    with_unit)

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "reports" / "reference"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("page") / "index.html"
    ledger = build_report(REFERENCE, out, reference=REFERENCE, reference_config={"targets": {}})
    return out.read_text(), ledger


def cells(html):
    """Every rendered cell's text, but a table's own ``unit`` column (the transcribed values')."""
    return [c.strip() for t in html_tables(html) for row in t for k, c in row.items()
            if k != "unit"]


def test_every_cell_has_its_unit_once_and_none_is_a_unit_alone(page):
    html, ledger = page
    units = {u.strip() for u in ledger["unit"] if u.strip()}
    every = cells(html)
    assert len(every) > 2000  # the claims table, the sections' and the target tables
    doubled = [c for c in every for u in units
               if c.endswith(f" {u}") and c[: -len(u) - 1].rstrip().endswith(u)]
    assert doubled == []
    assert [c for c in every if c in units] == []
    assert not [c for c in every if re.search(r"\b(x x|ms ms|s s)$", c)]
    # every reason's "ours A (B-C)" at the precision of its interval
    assert [c for c in every if reason_text(c) != c] == []
    # nor a unit glued to words ("faster on all graphsx")
    assert not [c for c in every if re.search(r"[a-z]{3,}x$", c) and c.endswith("graphsx")]


def test_values_at_the_precision_of_their_interval():
    row = {"ours": "1.1", "ours_low": "1.069", "ours_high": "1.143", "unit": "x"}
    assert ours_text(row) == "1.10 [1.07, 1.14]x"
    assert ours_text({"ours": "8798", "ours_low": "8700", "ours_high": "8950", "unit": "ms"}) \
        == "8798 [8700, 8950] ms"
    assert ours_text({"ours": "2", "ours_low": "2", "ours_high": "2", "unit": "launches"}) \
        == "2 launches"
    assert with_unit("3.36x-5.77x", "x") == "3.36x-5.77x" and with_unit("7 ms", "ms") == "7 ms"
    assert with_unit("", "x") == ""
    assert with_unit("faster on all graphs", "x") == "faster on all graphs"
    assert with_unit("24.7 s / 4.9 s", "x") == "24.7 s / 4.9 s"
    assert with_unit("about 440", "iterations") == "about 440 iterations"
    assert reason_text("ours 50.2 (49.08-51.28) is above the published 14.5-15.5") == \
        "ours 50 (49-51) is above the published 14.5-15.5"
    assert reason_text("ours 0.4648 (0.4453-0.4861) is below") == "ours 0.46 (0.45-0.49) is below"
    text, more = short_reason("word " * 60)
    assert more and len(text) <= 111 and text.endswith("\u2026")


def test_a_wide_interval_never_rounds_the_value_away():
    """Finding 5: the interval's precision, but every number keeps two significant digits."""
    assert ours_text({"ours": "0.3699", "ours_low": "0.004919", "ours_high": "4.438"}) \
        == "0.37 [0.0049, 4.4]"
    assert ours_text({"ours": "1.509", "ours_low": "0.9606", "ours_high": "8.1", "unit": "x"}) \
        == "1.5 [0.96, 8.1]x"
    assert ours_text({"ours": "0", "ours_low": "-3.2", "ours_high": "4.1"}) == "0 [-3.2, 4.1]"
    assert reason_text("ours 1.509 (0.9606-8.1) is above") == "ours 1.5 (0.96-8.1) is above"


def test_each_table_says_what_its_answers_were_checked_against(page):
    html, _ = page
    checked = re.findall(r'<p class="note checked">Checked: ([^<]*)</p>', html)
    # but the launch floor's and the stand-ins' tables: measures of the machine and of graphs,
    # no solver's answers
    shown = (len(re.findall(r'<div class="tbl" id="t-', html)) - html.count('id="t-launch-floor"')
             - len(re.findall(r'id="t-standins', html)))
    assert len(checked) == shown > 20
    assert any("Kruskal" in c for c in checked) and any("Dijkstra" in c for c in checked)
    assert any("not checked" in c for c in checked)  # gerritsen2012's stopped cells
    assert "Every number under" not in html  # no blanket sentence for every table


def test_the_legend_says_how_each_verdict_is_given(page):
    html, ledger = page
    legend = re.search(r'<ul class="note" id="legend">(.*?)</ul>', html, re.S).group(1)
    for verdict in ("reproduced", "direction only", "not reproduced", "inconclusive",
                    "not testable here"):
        assert f"<b>{verdict}</b>" in legend
    assert "the run did not happen here" in legend
    balanced = [r for r in ledger.to_dict("records") if hardware_balance(r)]
    assert balanced and html.count('class="tag"') >= len(balanced)
    assert hardware_balance({"claim": "the GPU version is faster than the CPU version"})
    assert not hardware_balance({"claim": "LBR is faster than Harish et al."})


def test_superseded_rows_are_greyed_and_labelled(page):
    import pandas as pd

    from graphrepro.report.present import html_table

    old = "numba's launches (before graphrepro.launch)"
    table = html_table(pd.DataFrame({"graph": ["a", "b", "c"], "launch_path": [
        old, "graphrepro.launch", f"graphrepro.launch; {old}"]}), "t-x")
    assert table.count('<tr class="superseded"') == 1  # a row timed on the old path alone
    assert "1 grey row: timed on the superseded launch path" in table
    html, _ = page  # the reference's page: each table with grey rows says what they are
    for note, body in re.findall(r'(<p class="note superseded-note">[^<]*</p>)?(?:<button[^>]*>[^<]*'
                                 r'</button>)?<div class="tbl" id="[^"]*"><table class="data">'
                                 r'(.*?)</table>', html, re.S):
        assert bool(note) == ('<tr class="superseded"' in body)


def test_a_claims_evidence_shows_the_ledgers_new_columns_where_it_has_them():
    """Issue 53 item 2: the anchor's evidence. A ledger of issue 51 names the data's kind, the
    departures and the tables read; an older one lacks them and still has its evidence."""
    from graphrepro.report.page import evidence

    old = {"claim": "LBR is faster", "where": "Fig. 3, p. 7", "published": "1.3", "unit": "x",
           "band": "1.2-1.4", "ours": "1.205", "ours_low": "1.07", "ours_high": "1.265",
           "n": "100 sources x 2 trials", "interval": "95% bootstrap over sources",
           "data": "ny: real: http://example.org/ny.gr.gz", "reason": "ours 1.205 (1.07-1.265) "
           "is inside", "run": "run 3 2026-11-26 (6e86660)", "sources": "100", "trials": "2"}
    e = evidence(old)
    assert (e["sentence"], e["where"], e["published"], e["ours"], e["kind"], e["tables"],
            e["departures"]) == ("LBR is faster", "Fig. 3, p. 7", "1.3x", "1.2 [1.1, 1.3]x",
                                 "real", [], [])
    assert e["reason"] == "ours 1.2 (1.1-1.3) is inside"
    assert e["read"] == [("made in", "run 3 2026-11-26 (6e86660)"), ("sources", "100"),
                         ("trials", "2")]
    new = evidence({**old, "data_kind": "real topology, modelled weights", "device": "NVIDIA H200",
                    "departure": "sides timed in different jobs; 2 trials, not 10",
                    "tables": "runs/ny/harish.csv; runs/ny/lbr@k=4+t=2.csv"})
    assert new["kind"] == "real topology, modelled weights"
    assert new["departures"] == ["sides timed in different jobs", "2 trials, not 10"]
    assert new["tables"] == ["runs/ny/harish.csv", "runs/ny/lbr@k=4+t=2.csv"]
    assert ("device", "NVIDIA H200") in new["read"]
