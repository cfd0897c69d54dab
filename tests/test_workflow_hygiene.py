"""Issue 56 item 9 (the workflow's part): `benchmark:` on every timed and heavy rule (max RSS to
size mem_mb), no blank figure for a table-only target, the page and the ledger as `report()`
outputs of `snakemake --report`."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graphrepro.experiments import all_targets

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "workflow" / "rules"


def _rule_blocks():
    """{rule name: its text} of every named rule in the rule files."""
    blocks = {}
    for path in sorted(RULES.glob("*.smk")):
        text = path.read_text()
        for m in re.finditer(r"^(\s*)rule (\w+)?:\n(.*?)(?=^\S|^\1rule |\Z)", text, re.M | re.S):
            name = m.group(2) or re.search(r'name:\s*\n\s*f?"([^"]+)"', m.group(3)).group(1)
            blocks[name] = m.group(3)
    return blocks


def test_every_timed_or_heavy_rule_records_a_benchmark():
    blocks = _rule_blocks()
    timed = [n for n, b in blocks.items() if "**timed(" in b or "mem_mb=" in b]
    assert "run_solver" in timed and "dataset_graph" in timed and len(timed) > 15
    assert [n for n in timed if "\n    benchmark:" not in blocks[n]
            and "\n        benchmark:" not in blocks[n]] == []
    for n in timed:
        assert "/job_stats/" in blocks[n], n  # beside the logs, apart from the study's benchmarks


def test_the_page_and_the_ledger_are_report_outputs():
    text = (RULES / "report.smk").read_text()
    assert 'html=report(config["report"], category="Report"' in text
    assert 'report(CLAIMS, category="Claims"' in text
    for caption in ("claims.rst", "page.rst"):
        assert (REPO / "workflow" / "report" / caption).is_file()


@pytest.mark.slow
def test_a_table_only_target_makes_no_figure(tmp_path):
    table_only = [t.name for t in all_targets() if t.ready and t.figure is None]
    drawn = next(t.name for t in all_targets() if t.ready and t.figure is not None
                 and t.name.startswith("safari2017"))
    assert "safari2017_table1" in table_only
    # --forceall: the checkout may hold a main job's tables already (CI runs it first)
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--forceall",
                          "--workflow-profile", "none",
                          "--cores", "1", "--", "safari2017_table1", drawn], cwd=REPO,
                         capture_output=True, text=True, env={**os.environ, "HOME": str(tmp_path)})
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    assert "figures/safari2017_table1.png" not in text
    assert f"figures/{drawn}.png" in text
    assert "\nrule compare_table:" in text and "\nrule compare_target:" in text
