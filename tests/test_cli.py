"""The command-line contract of ``python -m graphrepro``.

Other sessions and outside checks call the CLI and read its files, so these tests run the real
entry point in a subprocess (the interpreter running the tests, so the same installed package)
and compare whole output files, not parsed values. The subprocess inherits
NUMBA_ENABLE_CUDASIM=1 from conftest.py, so ``--solver harish`` runs in the CUDA simulator.
"""

import csv
import gzip
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graphrepro import __version__, gpu
from graphrepro.cli import main

REPO = Path(__file__).resolve().parents[1]

needs_cuda = pytest.mark.skipif(not gpu.cuda_available(),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not 1")

# One hand-made graph written in every format. In DIMACS numbering: a zero-weight arc (4 -> 1),
# a parallel arc (3 -> 2, weights 2 and 7, the lighter must win) and vertex 5, which nothing
# reaches. From 1: d(3) = 1, d(2) = 1 + 2 = 3, d(4) = 3 + 5 = 8.
ARCS = [(1, 2, 4), (1, 3, 1), (3, 2, 2), (2, 4, 5), (4, 1, 0), (3, 2, 7)]
FROM_1 = "1 0\n2 3\n3 1\n4 8\n5 inf\n"
FROM_4 = "1 0\n2 3\n3 1\n4 0\n5 inf\n"  # the zero-weight arc puts 1 at distance 0 too

DIMACS = "c hand-made\np sp 5 6\n" + "".join(f"a {u} {v} {w}\n" for u, v, w in ARCS)
MTX = ("%%MatrixMarket matrix coordinate integer general\n% hand-made\n5 5 6\n"
       + "".join(f"{u} {v} {w}\n" for u, v, w in ARCS))

# SNAP has no vertex count, so ids are the file's own and need not be contiguous: 1..4 become
# 10, 20, 35, 7, and the unreachable vertex is 99, which only has an arc out. Output lines are in
# increasing id order.
SNAP_IDS = {1: 10, 2: 20, 3: 35, 4: 7}
SNAP_ARCS = [(SNAP_IDS[u], SNAP_IDS[v], w) for u, v, w in ARCS] + [(99, 10, 3)]
SNAP_WEIGHTED = "# hand-made\n" + "".join(f"{u}\t{v}\t{w}\n" for u, v, w in SNAP_ARCS)
SNAP_UNWEIGHTED = ("# hand-made, every arc weighs 1\n"
                   + "".join(f"{u}\t{v}\n" for u, v, _ in SNAP_ARCS))
SNAP_WEIGHTED_FROM_10 = "7 8\n10 0\n20 3\n35 1\n99 inf\n"
SNAP_UNWEIGHTED_FROM_10 = "7 2\n10 0\n20 1\n35 1\n99 inf\n"


def graphrepro(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "graphrepro", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def write(path, text, gz=False):
    if gz:
        path = path.with_name(path.name + ".gz")
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


def assert_one_line_error(result, *fragments):
    """Non-zero exit and exactly one line on stderr, holding every fragment, and no traceback."""
    assert result.returncode != 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


# --- solve: exact output files -----------------------------------------------------------------

@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("name, text, source, expected", [
    ("g.gr", DIMACS, 1, FROM_1),
    ("g.gr", DIMACS, 4, FROM_4),
    ("g.mtx", MTX, 1, FROM_1),
    ("g.txt", SNAP_WEIGHTED, 10, SNAP_WEIGHTED_FROM_10),
    ("g.txt", SNAP_UNWEIGHTED, 10, SNAP_UNWEIGHTED_FROM_10),
], ids=["dimacs", "dimacs-from-4", "mtx", "snap-weighted", "snap-unweighted"])
def test_solve_writes_vertex_distance_lines_in_file_numbering(tmp_path, name, text, source,
                                                              expected, gz):
    graph = write(tmp_path / name, text, gz)
    out = tmp_path / "out" / "dist.txt"  # a missing parent directory is created
    result = graphrepro("solve", graph, "--solver", "dijkstra", "--source", source, "--output", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text() == expected


def test_mtx_symmetric_pattern_gives_both_arcs_of_weight_one(tmp_path):
    graph = write(tmp_path / "sym.mtx",
                  "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 2\n2 1\n3 2\n")
    out = tmp_path / "dist.txt"
    result = graphrepro("solve", graph, "--source", 3, "--output", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text() == "1 2\n2 1\n3 0\n4 inf\n"


@pytest.mark.parametrize("name, fmt, text, source, expected", [
    ("x.dat", "dimacs", DIMACS, 1, FROM_1),
    ("x.gr", "snap", SNAP_WEIGHTED, 10, SNAP_WEIGHTED_FROM_10),  # the flag beats the extension
    ("x.edges", "mtx", MTX, 1, FROM_1),
])
def test_format_flag_overrides_the_extension(tmp_path, name, fmt, text, source, expected):
    graph = write(tmp_path / name, text)
    out = tmp_path / "dist.txt"
    result = graphrepro("solve", graph, "--format", fmt, "--source", source, "--output", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text() == expected


def test_unknown_extension_without_format_flag(tmp_path):
    graph = write(tmp_path / "x.dat", DIMACS)
    result = graphrepro("solve", graph, "--source", 1, "--output", tmp_path / "dist.txt")
    assert_one_line_error(result, str(graph), "--format")


def test_generate_to_an_npz_name_writes_the_cache_that_run_reads(tmp_path):
    for name in ("g.gr", "g.npz"):
        result = graphrepro("generate", "road_grid", "--rows", 4, "--cols", 5, "--seed", 2,
                            "--output", tmp_path / name)
        assert result.returncode == 0, result.stderr
    from graphrepro.graph.csr import CSRGraph
    from graphrepro.graph.load import load_graph

    cached, text = CSRGraph.load(tmp_path / "g.npz"), load_graph(tmp_path / "g.gr")
    assert cached.indptr.tolist() == text.indptr.tolist()
    assert cached.weights.tolist() == text.weights.tolist()


@needs_cuda
def test_harish_in_the_simulator_writes_the_same_file_as_dijkstra(tmp_path):
    # 30 vertices with streets missing: from vertex 7, 8 of them are unreachable ("inf" lines).
    graph = tmp_path / "grid.gr"
    result = graphrepro("generate", "road_grid", "--rows", 5, "--cols", 6, "--keep", 0.6,
                        "--seed", 3, "--output", graph)
    assert result.returncode == 0, result.stderr
    outputs = {}
    for solver in ("dijkstra", "harish"):
        outputs[solver] = tmp_path / f"{solver}.txt"
        result = graphrepro("solve", graph, "--solver", solver, "--source", 7,
                            "--output", outputs[solver])
        assert result.returncode == 0, result.stderr
    lines = outputs["dijkstra"].read_text().splitlines()
    assert len(lines) == 30 and lines[6] == "7 0"
    assert sum(line.endswith(" inf") for line in lines) == 8
    assert outputs["harish"].read_text() == outputs["dijkstra"].read_text()


# --- solve: errors are one line, naming file, line and problem ---------------------------------

@pytest.mark.parametrize("bad_line, replacement, line, problem", [
    ("a 2 4 5", "a 2 4 x5", 6, "bad number"),
    ("a 2 4 5", "a 2 9 5", 6, "vertex 9 out of range 1..5"),
    ("a 3 2 2", "a 3 2 -2", 5, "negative weight -2"),
    ("p sp 5 6", "p sp 5 7", 2, "announces 7 arcs but the file has 6"),
])
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_malformed_dimacs_is_one_line_naming_file_line_and_problem(tmp_path, bad_line, replacement,
                                                                   line, problem, gz):
    assert bad_line in DIMACS
    graph = write(tmp_path / "bad.gr", DIMACS.replace(bad_line, replacement), gz)
    out = tmp_path / "dist.txt"
    result = graphrepro("solve", graph, "--source", 1, "--output", out)
    assert_one_line_error(result, f"{graph}:{line}:", problem)
    assert not out.exists()


@pytest.mark.parametrize("name, text, line, problem", [
    ("bad.txt", "10 20 4\n20 3x 1\n", 2, "bad number"),
    ("bad.txt", "10 20 4\n20 30 -1\n", 2, "negative weight -1"),
    ("bad.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 1\n2 4 1\n", 4,
     "column 4 out of range 1..3"),
    ("bad.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 1\n2 3 1\n", 2,
     "announces 3 entries but the file has 2"),
])
def test_malformed_snap_and_mtx_are_one_line_too(tmp_path, name, text, line, problem):
    graph = write(tmp_path / name, text)
    result = graphrepro("solve", graph, "--source", 1, "--output", tmp_path / "dist.txt")
    assert_one_line_error(result, f"{graph}:{line}:", problem)


@pytest.mark.parametrize("name, text, source, fragment", [
    ("g.gr", DIMACS, 0, "vertices 1..5"),  # DIMACS counts from 1
    ("g.gr", DIMACS, 6, "vertices 1..5"),
    ("g.txt", SNAP_WEIGHTED, 11, "not a vertex"),  # between ids that exist
])
def test_source_out_of_range_is_one_clear_line(tmp_path, name, text, source, fragment):
    graph = write(tmp_path / name, text)
    out = tmp_path / "dist.txt"
    result = graphrepro("solve", graph, "--source", source, "--output", out)
    assert_one_line_error(result, f"source {source}", fragment)
    assert not out.exists()


def test_unknown_solver_names_itself_and_the_known_ones(tmp_path):
    graph = write(tmp_path / "g.gr", DIMACS)
    result = graphrepro("solve", graph, "--solver", "no_such_solver", "--source", 1,
                        "--output", tmp_path / "dist.txt")
    assert_one_line_error(result, "unknown solver", "no_such_solver", "dijkstra", "harish")


def test_missing_graph_file(tmp_path):
    result = graphrepro("solve", tmp_path / "absent.gr", "--source", 1,
                        "--output", tmp_path / "dist.txt")
    assert_one_line_error(result, "absent.gr", "no such file")


# --- listings ----------------------------------------------------------------------------------

def test_help_lists_the_subcommands():
    result = graphrepro("--help")
    assert result.returncode == 0
    for command in ("solve", "solvers", "targets", "generate", "convert", "sources", "run",
                    "compare", "report", "provenance"):
        assert command in result.stdout


def test_help_lists_study_commands_first_and_workflow_steps_apart(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    study, steps = text.index("study commands:"), text.index("workflow steps")
    assert study < steps < text.index("exit status:")
    listed = re.findall(r"^  ([a-z][a-z0-9-]+)  ", text, re.M)
    assert len(listed) == len(set(listed)) >= 38  # every command once
    for command in ("targets", "rerun", "claims", "solve", "solvers", "fetch"):
        assert study < text.index(f"\n  {command} ") < steps, command
    for command in ("run", "sources", "mst-blocks", "sssp-experiment", "worker"):
        assert text.index(f"\n  {command} ") > steps, command
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"graphrepro {__version__}"


def _listing(capsys, *args):
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_solvers_lists_name_device_document_description(capsys):
    rows = {}
    for row in json.loads(_listing(capsys, "solvers", "--format", "json")):
        assert row["device"] in ("cpu", "gpu") and row["description"]
        rows[row["name"]] = (row["device"], row["document"])
    assert rows["dijkstra"] == ("cpu", "reference")
    assert rows["harish"] == ("gpu", "safari2017")
    # the default is a table under a header; csv has the same rows
    table = _listing(capsys, "solvers").splitlines()
    assert table[0].split() == ["name", "device", "document", "from", "defaults", "description"]
    assert table[1].split()[:5] == ["dijkstra", "cpu", "reference", "built", "in"]
    listed = list(csv.DictReader(io.StringIO(_listing(capsys, "solvers", "--format", "csv"))))
    assert [r["name"] for r in listed] == list(rows) and len(table) == len(rows) + 1


def _target_lines(capsys, *args):
    """name -> 'document item: description (status)', from the JSON listing."""
    return {r["name"]: f"{r['document']} {r['item']}: {r['description']}"
            + (f" ({r['status']})" if r["status"] else "")
            for r in json.loads(_listing(capsys, "targets", "--format", "json", *args))}


def test_targets_lists_the_ready_ones_with_descriptions(capsys):
    lines = _target_lines(capsys)
    assert _listing(capsys, "targets").split()[:5] == ["name", "document", "item", "status",
                                                       "description"]
    assert {"safari2017_table1", "safari2017_table2", "safari2017_fig3", "safari2017_fig4", "safari2017_calnev"} <= set(lines)
    assert not any("planned" in line for line in lines.values())
    assert lines["safari2017_table2"].startswith("safari2017 Table 2: space, kernel launches")
    assert lines["safari2017_fig4"].startswith("safari2017 Figure 4: LBR with relaxation depth")
    assert {"an2017_fig1", "an2017_transfers"} <= set(lines)
    assert "bench_cpu" in lines
    assert {"singla_fig7_9", "singla_fig8_10"} <= set(lines)


def test_targets_all_adds_the_planned_ones_with_their_issue(capsys):
    lines = _target_lines(capsys, "--all")
    assert {"safari2017_table2", "safari2017_fig3"} < set(lines)
    assert "planned" not in lines["safari2017_table2"]
    assert not [line for line in lines.values() if "(planned: issue " in line]  # every issue built
    assert "planned" not in lines["gerritsen2012_table3_1"]  # issue 10 built chapter 3
    assert "planned" not in lines["gerritsen2012_table5_7"]  # issue 11 built chapter 5's tables


def test_retabulate_rebuilds_target_tables_from_committed_runs(tmp_path):
    # The committed H100 results: tables and figures come back from the run tables alone.
    import shutil

    ref = tmp_path / "reference"
    shutil.copytree(REPO / "reports" / "reference", ref)
    shutil.rmtree(ref / "targets")
    configs = [str(REPO / "config" / f) for f in ("config.yaml", "h100.yaml")]
    result = graphrepro("retabulate", str(ref), "--configfile", *configs,
                        "--targets", "safari2017_fig3", "an2017_transfers")
    assert result.returncode == 0, result.stderr
    fig3 = (ref / "targets" / "safari2017_fig3.csv").read_text().splitlines()
    assert len(fig3) == 1 + 7  # the seven Table 1 graphs
    assert (ref / "figures" / "safari2017_fig3.png").stat().st_size > 1000
    assert (ref / "targets" / "an2017_transfers.csv").is_file()
    missing = graphrepro("retabulate", str(ref), "--configfile", configs[0], "--targets", "nope")
    assert missing.returncode != 0
    # a results directory part way through a run: a target none of whose benchmark tables is
    # there is skipped, not tabulated from nothing (nor a crash)
    shutil.rmtree(ref / "benchmarks")
    partial = graphrepro("retabulate", str(ref), "--configfile", *configs, "--targets",
                         "gerritsen2012_table5_1", "gerritsen2012_table3_1")
    assert partial.returncode == 0, partial.stderr
    assert partial.stderr.count("benchmark tables is under") == 2


def test_retabulate_reads_a_copied_tables_own_runs(tmp_path):
    # A target table copied from a call of its own (the peers run of issue 33) carries a `.runs`
    # record naming the run tables it was made from: the table comes back from those, wherever
    # they lie, and a record naming a run table that is gone is refused in one line. Here
    # frontier_sssp's runs are moved into such a call's folder.
    import shutil

    from graphrepro.cli.experiments import _merged_config, retabulate_inputs
    from reference_run import configfiles

    ref = tmp_path / "reference"
    shutil.copytree(REPO / "reports" / "reference", ref,
                    ignore=shutil.ignore_patterns("gerritsen2012", "terrain", "older", "run2",
                                                  "shards", "figures"))
    configs = [str(p) for p in configfiles()]
    settings = _merged_config(configs)["targets"]["frontier_sssp"]
    runs, sources, _ = retabulate_inputs(ref, "frontier_sssp", settings)
    assert runs
    source_of = {p.stem: p for p in sources}
    made = graphrepro("retabulate", str(ref), "--configfile", *configs, "--targets",
                      "frontier_sssp")
    assert made.returncode == 0, made.stderr
    committed = (ref / "targets" / "frontier_sssp.csv").read_text()
    listed = []
    for run in runs:  # moved into call/runs/GRAPH/, their sources beside them
        graph = run.parent.name
        moved = ref / "call" / "runs" / graph / run.name
        moved.parent.mkdir(parents=True, exist_ok=True)
        for suffix in (".csv", ".provenance.json"):
            shutil.move(run.with_suffix(suffix), moved.with_suffix(suffix))
        (ref / "call" / "sources").mkdir(exist_ok=True)
        shutil.copy(source_of[graph], ref / "call" / "sources" / f"{graph}.json")
        listed.append(str(moved.with_suffix(".provenance.json").relative_to(ref)))
    (ref / "targets" / "frontier_sssp.runs").write_text(
        "# the call's own runs, in its order\n" + "\n".join(listed) + "\n")
    again = graphrepro("retabulate", str(ref), "--configfile", *configs, "--targets",
                       "frontier_sssp")
    assert again.returncode == 0, again.stderr
    assert (ref / "targets" / "frontier_sssp.csv").read_text() == committed
    (ref / listed[0].replace(".provenance.json", ".csv")).unlink()
    gone = graphrepro("retabulate", str(ref), "--configfile", *configs, "--targets",
                      "frontier_sssp")
    assert gone.returncode != 0 and "frontier_sssp.runs: names run tables that are not there" in gone.stderr

