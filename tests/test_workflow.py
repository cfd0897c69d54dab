"""The snakemake workflow end to end, on a 6 x 6 road grid, in a scratch working directory.

Every rule is a ``python -m graphrepro`` call, so this runs the real pipeline: generate, convert,
draw sources, time and verify Dijkstra and Harish (the latter in the CUDA simulator, inherited
from conftest.py through the environment; cheap at 36 vertices), compare, draw, report. Marked
slow, but runs by default: it is the only test of the rules and of the config schema.
"""

import os
import re
import subprocess
import sys
from html_report import html_tables, section
from pathlib import Path

import pandas as pd
import pytest
from workflow_files import undeclared

from graphrepro import gpu
from graphrepro.claims import load_claims

REPO = Path(__file__).resolve().parents[1]

# The tables' verdicts need Harish to have run: on a real GPU or in the simulator.
pytestmark = pytest.mark.skipif(not gpu.cuda_available(),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not 1")

CONFIG = """\
results: results
report: reports/index.html
reference: {reference}
seed: 1
measure: {{sources: 2, trials: 2, warmup: 0}}
graphs:
  road_6x6:
    generate: {{kind: road_grid, rows: 6, cols: 6, keep: 0.8, max_weight: 100, seed: 1}}
  road_6x6_w10:
    generate: {{kind: road_grid, rows: 6, cols: 6, keep: 0.8, max_weight: 10, seed: 1}}
  sparse_12:
    generate: {{kind: sparse, vertices: 12, arcs: 24, max_weight: 1, seed: 1}}
targets:
  safari2017_table2: {{graphs: [road_6x6]}}
  safari2017_fig3: {{graphs: [road_6x6]}}
  safari2017_fig4: {{graphs: [road_6x6_w10], runs: [harish, "lbr@k=1,t=2", "lbr@k=4,t=2"]}}
  singla_fig7_9: {{graphs: [sparse_12]}}
  singla_fig8_10: {{graphs: [sparse_12]}}
"""


def write_config(workdir: Path) -> Path:
    # The reference run committed under reports/reference/ would add a block to the report that
    # depends on what is committed there today; point at a directory that does not exist instead.
    cfg = workdir / "config.yaml"
    cfg.write_text(CONFIG.format(reference=workdir / "no-reference"))
    return cfg


def snakemake(workdir: Path, cfg: Path, *args):
    result = subprocess.run(
        # --configfile takes several files, so targets must come before it
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
         *args, "--cores", "2", "--replace-workflow-config", "--configfile", str(cfg)],
        capture_output=True, text=True, env=dict(os.environ), timeout=600)
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("workflow")
    cfg = write_config(workdir)
    return workdir, cfg, snakemake(workdir, cfg)


@pytest.mark.slow
def test_whole_workflow_builds_the_report(whole_run):
    workdir, cfg, result = whole_run
    # Without the profile, timed runs would share the cores (no timing=1 limit).
    assert "workflow specific profile" in result.stderr
    html = (workdir / "reports" / "index.html").read_text()
    table2 = section(html, "safari2017_table2")
    rows = html_tables(table2)[-1]  # after the claims table: the target table
    harish = {r["criterion"]: r["verdict"] for r in rows if r["method"].startswith("Harish")}
    assert harish["# of kernel launches (per host iteration)"] == "reproduced"
    assert harish["CPU-GPU communication (# per host iteration)"] == "reproduced"
    assert harish["# of atomic statements"] == "reproduced"
    lbr = {r["criterion"]: r["verdict"] for r in rows if r["method"] == "Proposed Algorithm"}
    assert lbr["# of kernel launches (per host iteration)"] == "reproduced"
    assert lbr["# of atomic statements"] == "reproduced"
    # the ledger beside the report: every claim once, those of unbuilt targets said so
    ledger = pd.read_csv(workdir / "reports" / "claims.csv", dtype=str, keep_default_na=False)
    assert list(ledger["claim_id"]) == list(load_claims()["claim_id"])
    table2_claims = ledger[ledger["target"] == "safari2017_table2"].set_index("claim_id")
    assert table2_claims.loc["t2.harish.launches", "verdict"] == "reproduced"
    assert ledger[ledger["target"] == "an2017_fig1"]["reason"].str.contains("was not built").all()
    fig4 = section(html, "safari2017_fig4")
    fig4_rows = html_tables(fig4)[-1]
    assert [(r["graph"], r["best k"]) for r in fig4_rows][0][1] in ("1", "4")
    calibration = workdir / "results" / "calibration" / "road_6x6" / "harish.json"
    assert '"min_iterations"' in calibration.read_text()
    fig3 = section(html, "safari2017_fig3")
    assert re.search(r'<img alt="Figure 3" src="data:image/png;base64,[A-Za-z0-9+/=]{100,}"', fig3)
    fig3_rows = html_tables(fig3)[-1]
    assert [r["graph"] for r in fig3_rows] == ["road_6x6"]
    assert float(fig3_rows[0]["Harish (ms)"].replace(",", "")) > 0
    assert float(fig3_rows[0]["speedup LBR / Harish"].replace(",", "")) > 0
    # The report names the config the run came from, not the embedded default it extends.
    assert f"<code>{cfg}</code>" in html
    assert "Reference run" not in html


@pytest.mark.slow
def test_every_run_was_verified_and_recorded(whole_run):
    workdir, _, _ = whole_run
    runs = workdir / "results" / "runs" / "road_6x6"
    for solver in ("dijkstra", "harish"):
        lines = (runs / f"{solver}.csv").read_text().splitlines()
        assert len(lines) == 1 + 2 * 2  # header, then sources x trials
        assert all(",ok," in line for line in lines[1:])
        assert (runs / f"{solver}.provenance.json").is_file()


@pytest.mark.slow
def test_every_file_a_rule_writes_is_declared(whole_run):
    """Each file the run left under results/ and reports/ is a declared output or log of a job
    (`snakemake --summary` lists them): an executor that copies back only declared files loses
    nothing."""
    workdir, cfg, _ = whole_run
    assert undeclared(workdir, snakemake(workdir, cfg, "--summary").stdout) == set()


@pytest.mark.slow
def test_singla_targets_ran_both_edge_kernels(whole_run):
    workdir, _, _ = whole_run
    html = (workdir / "reports" / "index.html").read_text()
    for target, gpu_solver in (("singla_fig7_9", "singla_dijkstra"),
                               ("singla_fig8_10", "singla_bfs")):
        rows = html_tables(section(html, target))[-1]
        assert rows[0]["graph"] == "sparse_12"
        assert float(rows[0][f"GPU {gpu_solver} (ms)"].replace(",", "")) > 0


@pytest.mark.slow
def test_snakemake_report_after_the_run(whole_run):
    """`snakemake --report` holds the page and the ledger, every target's table, and a figure
    for each target that draws one, none blank (a table-only target has no PNG at all)."""
    import io
    import zipfile

    import matplotlib.image
    import yaml

    from graphrepro.experiments import get_target

    workdir, cfg, _ = whole_run
    out = workdir / "tmp" / "report.html"
    out.parent.mkdir()  # snakemake --report does not create the directory
    snakemake(workdir, cfg, "--report", str(out))
    text = out.read_text()
    assert "safari2017_table2.csv" in text and "safari2017_fig3.png" in text
    # the same report as a zip: its files, one by one
    snakemake(workdir, cfg, "--report", str(out.with_suffix(".zip")))
    with zipfile.ZipFile(out.with_suffix(".zip")) as z:
        files = {Path(n).name: n for n in z.namelist()}
        assert "index.html" in files and "claims.csv" in files  # the page and the ledger
        pngs = sorted(name for name in files if name.endswith(".png"))
        # a figure for each target whose code draws one, no other (a table-only target has none)
        targets = yaml.safe_load(cfg.read_text())["targets"]
        assert pngs == sorted(f"{t}.png" for t in targets if get_target(t).figure is not None)
        for name in pngs:
            pixels = matplotlib.image.imread(io.BytesIO(z.read(files[name])), format="png")
            assert pixels.std() > 0.01, f"{name} is blank"


@pytest.mark.slow
@pytest.mark.parametrize("target, other", [("safari2017_table2", "safari2017_fig3"),
                                           ("safari2017_fig3", "safari2017_table2")])
def test_a_named_target_builds_alone(tmp_path, target, other):
    cfg = write_config(tmp_path)
    snakemake(tmp_path, cfg, target)
    results = tmp_path / "results"
    assert sorted(p.name for p in (results / "targets").iterdir()) == [f"{target}.claims.csv",
                                                                       f"{target}.csv"]
    assert (results / "figures" / f"{target}.png").is_file()
    assert not (results / "figures" / f"{other}.png").exists()
    assert not (tmp_path / "reports").exists()
    # Table 2 needs the GPU solvers; Figure 3 needs Dijkstra for scale as well.
    solvers = sorted(p.stem for p in (results / "runs" / "road_6x6").glob("*.csv"))
    gpu_solvers = ["harish", "lbr", "lbr_persistent"]
    assert solvers == (gpu_solvers if target == "safari2017_table2" else ["dijkstra"] + gpu_solvers)
