"""A user's own graph file is named wherever its numbers go: `convert` and `solve` write its origin
record (path, sha256, format), and tables say "your file NAME", never synthetic."""

from __future__ import annotations

import hashlib
import json

from graphrepro.claims.runs import data_of
from graphrepro.cli import main
from graphrepro.datasets.origin import describe_origin
from graphrepro.graph.formats import write_dimacs


def _user_file(tmp_path, tiny_graph):
    gr = tmp_path / "my roads.gr"
    write_dimacs(tiny_graph, gr)
    return gr, hashlib.sha256(gr.read_bytes()).hexdigest()


def test_convert_records_the_users_file_and_tables_name_it(tmp_path, tiny_graph):
    gr, sha = _user_file(tmp_path, tiny_graph)
    npz = tmp_path / "mine.npz"
    assert main(["convert", str(gr), "--name", "mine", "--output", str(npz)]) == 0
    origin = json.loads((tmp_path / "mine.origin.json").read_text())
    assert origin == {"kind": "file", "file": str(gr.resolve()), "name": "my roads.gr",
                      "sha256": sha, "format": "dimacs"}
    # the sources record carries it to every table and claim of the graph
    sources = tmp_path / "s.json"
    assert main(["sources", str(npz), "--count", "1", "--seed", "1", "--output",
                 str(sources)]) == 0
    stats = {"mine": {"origin": json.loads(sources.read_text())["origin"]}}
    said = data_of(stats, ["mine"])
    assert said == f"mine: your file my roads.gr (dimacs, sha256 {sha[:12]}...)"
    assert "synthetic" not in said


def test_a_generated_graph_stays_synthetic(tmp_path, tiny_graph):
    gr, _ = _user_file(tmp_path, tiny_graph)
    npz = tmp_path / "g.npz"
    (tmp_path / "g.origin.json").write_text('{"kind": "file"}')  # an older conversion's
    assert main(["convert", str(gr), "--generated", "--output", str(npz)]) == 0
    assert not (tmp_path / "g.origin.json").exists()
    assert describe_origin(None) == "synthetic (config generator)"


def test_solve_records_the_file_beside_its_answer_and_dash_is_standard_output(
        tmp_path, tiny_graph, capsys, monkeypatch):
    gr, sha = _user_file(tmp_path, tiny_graph)
    out = tmp_path / "d.txt"
    assert main(["solve", str(gr), "--source", "1", "--output", str(out)]) == 0
    assert json.loads((tmp_path / "d.txt.origin.json").read_text())["sha256"] == sha
    # solved from the cache, the record is still the user's file, not the cache's
    npz = tmp_path / "mine.npz"
    assert main(["convert", str(gr), "--output", str(npz)]) == 0
    assert main(["solve", str(npz), "--source", "1", "--output", str(tmp_path / "e.txt")]) == 0
    assert json.loads((tmp_path / "e.txt.origin.json").read_text())["name"] == "my roads.gr"

    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    assert main(["solve", str(gr), "--source", "1", "--output", "-"]) == 0
    assert capsys.readouterr().out == out.read_text()
    assert not (tmp_path / "-").exists() and not (tmp_path / "-.origin.json").exists()
