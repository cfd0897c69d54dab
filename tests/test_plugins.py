"""Solvers from other packages (issue 56 item 4): the ``graphrepro.solvers`` entry points.

Fast tests give the loader made-up distributions (a dist-info folder and a module under
tmp_path, found by ``importlib.metadata`` itself, and ``entry_points`` narrowed to them), so no
package is installed; the one slow test installs the example plugin into a fresh venv and runs
it through the workflow to the report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from graphrepro import documents
from graphrepro.cli import main
from graphrepro.errors import InputError
from graphrepro.experiments import all_targets, registry
from graphrepro.solvers import base, get_solver, plugins
from workflow_files import one_grid_config

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "graphrepro-plugin-example"


@pytest.fixture
def fake_plugins(monkeypatch, tmp_path):
    """``install(dist, module, source)``: a distribution declaring ``module`` as its plugin, seen
    by the loader as the only plugins there are; every registry is put back afterwards."""
    base.load_all()  # the built-ins (and any plugin installed for real) before the fakes
    all_targets()
    saved = [(r, dict(r)) for r in (base._REGISTRY, documents.PLUGIN_DOCUMENTS,
                                    documents.PLUGIN_CLAIMS, registry._TARGETS,
                                    registry._PLUGIN_TARGETS)]
    monkeypatch.delenv("GRAPHREPRO_NO_PLUGINS")  # conftest.py hides plugins from the others
    monkeypatch.setattr(plugins, "_loaded", False)
    monkeypatch.setattr(plugins, "_PROBLEMS", [])
    monkeypatch.setattr(plugins, "_ORIGIN", dict(plugins._ORIGIN))
    monkeypatch.setattr(plugins, "_TRIED", set(plugins._TRIED))
    monkeypatch.syspath_prepend(str(tmp_path))
    points = []
    monkeypatch.setattr(plugins, "metadata", SimpleNamespace(  # the loader's view alone: numba
        entry_points=lambda group: metadata.EntryPoints(p for p in points if p.group == group)))

    def install(dist: str, module: str, source: str | None = None, name: str | None = None) -> None:
        info = tmp_path / f"{dist.replace('-', '_')}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[{plugins.GROUP}]\n{name or dist} = {module}\n")
        if source is not None:
            (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
        [found] = metadata.distributions(path=[str(tmp_path)], name=dist)
        points.extend(found.entry_points)

    yield install
    for r, copy in saved:
        r.clear()
        r.update(copy)
    for name in [m for m in sys.modules if m.startswith("fakeplugin_")]:
        del sys.modules[name]


GOOD = """
    from importlib import resources
    from pathlib import Path
    from graphrepro.documents import Document, register_document
    from graphrepro.experiments.registry import Target, target
    from graphrepro.solvers import register
    from graphrepro.solvers.base import HostSolver
    from graphrepro.solvers.reference import dijkstra_csr

    CLAIMS = Path(__file__).with_name("fakeplugin_claims.csv")
    register_document(Document("fakedoc", "A. Nobody, a made-up document", "a copy of Dijkstra"),
                      claims=CLAIMS)

    @register("fake_dijkstra", device="cpu", document="fakedoc", description="Dijkstra again")
    def fake(graph):
        return HostSolver(lambda s: (dijkstra_csr(graph.indptr, graph.indices, graph.weights, s)[0], {}))

    target(Target("fake_table", "fakedoc", "Table 1", "a made-up table", solvers=("fake_dijkstra",)))
"""


def test_a_plugin_adds_a_solver_a_document_with_claims_and_a_target(fake_plugins, tmp_path, capsys):
    (tmp_path / "fakeplugin_claims.csv").write_text(
        "claim_id,target,where,claim,kind,published,low,high,null,unit,subject,untestable,note\n"
        "fake.c1,fake_table,p. 1,it is fast,magnitude,1,0,2,,ms,,,\n")
    fake_plugins("fake-plugin", "fakeplugin_good", GOOD)
    assert main(["solvers", "--format", "json"]) == 0
    listed = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed["fake_dijkstra"]["from"] == "fake-plugin"
    assert listed["fake_dijkstra"]["document"] == "fakedoc"
    assert listed["dijkstra"]["from"] == "built in"
    # the plugin's target comes after every built-in one, its document before the study's own
    names = [t.name for t in all_targets()]
    assert names[-1] == "fake_table" and "frontier_sssp" in names
    assert [d.short for d in documents.all_documents()][-2:] == ["fakedoc", "graphrepro"]
    from graphrepro.claims import load_claims

    claims = load_claims()
    assert claims.loc[claims["claim_id"] == "fake.c1", "document"].tolist() == ["fakedoc"]
    # `solve` runs it and verifies its answer against the reference
    graph = tmp_path / "g.gr"
    graph.write_text("p sp 3 3\na 1 2 5\na 2 3 7\na 1 3 20\n")
    assert main(["solve", str(graph), "--solver", "fake_dijkstra", "--source", "1",
                 "--output", "-"]) == 0
    out = capsys.readouterr()
    assert out.out.split() == ["1", "0", "2", "5", "3", "12"] and "verified" in out.err


BROKEN = {
    "fakeplugin_missing": ("import not_a_module_anywhere\n", "ModuleNotFoundError"),
    "fakeplugin_taken": ("""
        from graphrepro.solvers import register
        register("dijkstra", device="cpu", document="reference", description="x")(lambda g: g)
        """, "solver dijkstra is already registered"),
    "fakeplugin_half": ("""
        from graphrepro.solvers import register
        register("half_done", device="cpu", document="reference", description="x")(lambda g: g)
        raise RuntimeError("failed after registering half_done")
        """, "RuntimeError: failed after registering half_done"),
    "fakeplugin_nothing": ("X = 1\n", "it registered no solver"),
    "fakeplugin_exits": ("import sys\nsys.exit(3)\n", "SystemExit: 3"),
    "fakeplugin_nodoc": ("""
        from graphrepro.solvers import register
        register("nodoc", device="cpu", document="nowhere", description="x")(lambda g: g)
        """, "document 'nowhere' is not one of"),
}


def test_a_broken_plugin_is_left_out_in_one_line_and_the_built_ins_still_work(fake_plugins,
                                                                                 capsys):
    for module, (source, _) in BROKEN.items():
        fake_plugins(module.replace("_", "-"), module, source)
    assert main(["solvers", "--format", "csv"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[1].startswith("dijkstra,cpu,reference,built in")
    lines = out.err.splitlines()
    assert len(lines) == len(BROKEN) and "Traceback" not in out.err
    for module, (_, why) in BROKEN.items():
        [line] = [x for x in lines if f"(distribution {module.replace('_', '-')})" in x]
        assert line.startswith(f"graphrepro: plugin {module.replace('_', '-')} = {module} ")
        assert why in line
    # what a failing plugin registered before failing is taken back; the built-in is untouched
    assert "half_done" not in base._REGISTRY
    assert get_solver("dijkstra").factory.__module__ == "graphrepro.solvers.reference"
    with pytest.raises(InputError, match="unknown solver 'half_done'") as asked:
        get_solver("half_done")
    assert ("; plugin fakeplugin-half = fakeplugin_half (distribution fakeplugin-half) left out: "
            "RuntimeError") in str(asked.value)


def test_a_plugin_target_cannot_take_a_built_in_targets_name(fake_plugins, capsys):
    fake_plugins("fake-clash", "fakeplugin_clash", """
        from graphrepro.experiments.registry import Target, target
        from graphrepro.solvers import register
        register("clash_solver", device="cpu", document="reference", description="x")(lambda g: g)
        target(Target("safari2017_table2", "reference", "x", "x"))
        """)
    targets = {t.name: t for t in all_targets()}
    assert targets["safari2017_table2"].document == "safari2017"
    assert "a plugin's target safari2017_table2 left out" in capsys.readouterr().err
    assert get_solver("clash_solver").document == "reference"


def test_no_plugins_switch_runs_the_study_alone(fake_plugins, monkeypatch):
    fake_plugins("fake-hidden", "fakeplugin_hidden", """
        from graphrepro.solvers import register
        register("hidden_solver", device="cpu", document="reference", description="x")(lambda g: g)
        """)
    monkeypatch.setenv("GRAPHREPRO_NO_PLUGINS", "1")
    with pytest.raises(InputError, match="unknown solver 'hidden_solver'"):
        get_solver("hidden_solver")
    assert not plugins.installed() and plugins.problems() == []


def test_the_example_plugin_is_found_solves_verified_and_judges_its_claim(fake_plugins, tmp_path,
                                                                           capsys):
    # the example's own module, declared as its pyproject does (where the example is installed
    # for real, as in CI, that is the same entry point, and it loads once)
    fake_plugins("graphrepro-plugin-example", "graphrepro_plugin_example", name="example")
    sys.path.insert(0, str(EXAMPLE / "src"))
    try:
        spec = get_solver("example_spfa")
    finally:
        sys.path.remove(str(EXAMPLE / "src"))
    assert spec.document == "example" and plugins.problems() == []
    from graphrepro.graph.generate import road_grid
    from graphrepro import verify

    graph = road_grid(12, 12, keep=0.8, max_weight=100, seed=3)
    prepared = spec.prepare(graph)
    rows = []
    for source in (0, 7, 50):
        result = prepared.solve(source)
        verify.check(graph, source, result.distances, solver=spec.name)  # the harness's check
        rows.append({"graph": "g", "solver": spec.name, "variant": spec.name, "source": source,
                     "trial": 0, "status": "ok", "solve_ms": result.solve_ms,
                     "arcs_relaxed": result.counters["arcs_relaxed"]})
    from graphrepro.claims import judge_target

    target = {t.name: t for t in all_targets()}["example_spfa"]
    stats = {"g": {"arcs": graph.num_arcs, "vertices": graph.num_vertices}}
    table = target.compare(pd.DataFrame(rows), stats, pd.DataFrame())
    assert list(table["solver"]) == ["example_spfa"]
    assert 1 <= float(table["arcs relaxed / arc"].iloc[0]) < 3
    [claim] = judge_target(target, pd.DataFrame(rows), stats).to_dict("records")
    assert claim["claim_id"] == "example.relaxations" and claim["verdict"] == "reproduced"
    assert np.isfinite(float(claim["ours"]))


@pytest.mark.slow
def test_the_installed_example_plugin_runs_through_the_workflow_into_the_report(tmp_path):
    """pip installs the example into a fresh venv (its dependencies from this one); that venv's
    snakemake runs a config whose one target is the plugin's, and the page shows its rows."""
    import shutil
    import sysconfig

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    inner = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           capture_output=True, text=True, check=True).stdout.strip()
    # this checkout's graphrepro (an editable install's own .pth is not read through a .pth)
    Path(inner, "zz-outer.pth").write_text(f"{REPO / 'src'}\n{sysconfig.get_paths()['purelib']}\n")
    source = shutil.copytree(EXAMPLE, tmp_path / "example")  # a build writes beside its source
    # built in isolation, as .ci/wheel-check builds graphrepro's own wheel (setuptools from the index)
    done = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    workdir = tmp_path / "work"
    workdir.mkdir()
    cfg = workdir / "config.yaml"
    cfg.write_text(one_grid_config("example_spfa", workdir / "no-reference"))
    run = subprocess.run([python, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d",
                          str(workdir), "--cores", "2", "--replace-workflow-config",
                          "--configfile", str(cfg)],
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}",
                              "GRAPHREPRO_NO_PLUGINS": ""})
    assert run.returncode == 0, f"{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    table = pd.read_csv(workdir / "results" / "targets" / "example_spfa.csv")
    assert set(table["solver"]) == {"example_spfa", "dijkstra"}
    ledger = pd.read_csv(workdir / "reports" / "claims.csv", dtype=str, keep_default_na=False)
    [claim] = ledger[ledger["claim_id"] == "example.relaxations"].to_dict("records")
    assert claim["document"] == "example" and claim["verdict"] == "reproduced", claim["reason"]
    from html_report import html_tables, section

    html = (workdir / "reports" / "index.html").read_text()
    assert 'id="example"' in html and "E. F. Moore" in html
    rows = html_tables(section(html, "example_spfa"))[-1]
    assert {r["solver"] for r in rows} == {"example_spfa", "dijkstra"}
