"""Readers bounded before they allocate: headers that lie about their size and compression bombs
are refused in one line, while reading, with the memory a small file needs (issue 37, classes 4
and 5); any bytes at all give a graph or a GraphFormatError, nothing else."""

from __future__ import annotations

import gzip
import io
import lzma
import resource
import tarfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrepro.errors import GraphFormatError
from graphrepro.graph import csr, formats
from graphrepro.graph.formats import read_graph

GiB = 1 << 30


@pytest.fixture
def small_machine(monkeypatch):
    """A machine of 64 MiB, so a modest lie is already too large to build."""
    monkeypatch.setattr(csr, "host_memory", lambda: 64 << 20)
    monkeypatch.setattr(formats, "host_memory", lambda: 64 << 20)


@pytest.mark.parametrize("name, text, said", [
    ("big.gr", "p sp 2147483648 2\na 1 2 1\na 2 1 1\n", "2,147,483,648 vertices and 2 arcs"),
    ("huge.gr", "p sp 1099511627776 2\na 1 2 1\na 2 1 1\n", "1,099,511,627,776 vertices"),
    ("big_pace.gr", "p tw 2147483648 1\n1 2\n", "2,147,483,648 vertices and 1 edges"),
    ("big.mtx", "%%MatrixMarket matrix coordinate pattern general\n2147483648 2147483648 1\n1 1\n",
     "2,147,483,648 rows and 1 entries"),
])
def test_a_header_announcing_more_than_the_machine_holds_is_refused_first(tmp_path, name, text,
                                                                          said, small_machine):
    # on a 64 MiB machine: a 2^31-vertex graph fits an H200 host's 128 GiB, so there it is no lie
    path = tmp_path / name
    path.write_text(text)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(GraphFormatError, match=f"{name}:[12]: the header announces {said}.*GiB"):
        read_graph(path)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 256 << 10  # nothing like the 16 GiB to 8 TiB the header asked for


def test_snap_ids_numbered_up_to_a_huge_id_are_refused_with_their_line(tmp_path, small_machine):
    path = tmp_path / "ids.txt"
    path.write_text("0 1\n1 99999999\n")
    with pytest.raises(GraphFormatError, match=r"ids.txt:2: vertex id 99999999 numbers 0..max id"):
        read_graph(path, snap_vertices="max_id")


BLANKS = b"\n" * (8 << 20)


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9)


@pytest.mark.parametrize("name, head, pack", [
    ("bomb.gr.gz", b"p sp 3 2\na 1 2 5\na 2 3 1\n", _gz),
    ("bomb.gr.xz", b"p sp 3 2\na 1 2 5\na 2 3 1\n", lzma.compress),
    ("bomb.txt.gz", b"# Nodes: 3 Edges: 2\n0 1\n1 2\n", _gz),
    ("bomb.mtx.gz", b"%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n2 3 1\n", _gz),
])
def test_a_compression_bomb_is_refused_while_it_is_read(tmp_path, name, head, pack):
    """A valid graph and then megabytes of blank lines: more than the header's lines can take."""
    path = tmp_path / name
    path.write_bytes(pack(head + BLANKS * 4))  # 32 MiB expanded, a few kB on disk
    with pytest.raises(GraphFormatError, match="more than its header's 2 lines can take"):
        read_graph(path)
    path.write_bytes(pack(head))  # the same graph without the padding reads as before
    assert read_graph(path).num_arcs == 2


def test_a_bomb_without_a_header_count_is_bounded_by_the_machine(tmp_path, small_machine):
    path = tmp_path / "plain.txt.gz"
    path.write_bytes(_gz(b"0 1\n1 2\n" + BLANKS * 6))  # 48 MiB of blank lines, more than 32 MiB
    with pytest.raises(GraphFormatError, match="more than half of this machine's memory"):
        read_graph(path)


def test_a_bomb_inside_an_archive_member_is_refused(tmp_path):
    member = b"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n" + BLANKS * 4
    path = tmp_path / "Bomb.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("Bomb/Bomb.mtx")
        info.size = len(member)
        tar.addfile(info, io.BytesIO(member))
    # its header declares more than 100 times the archive: refused before a byte is extracted
    with pytest.raises(GraphFormatError, match=r"Bomb.tar.gz: member Bomb/Bomb.mtx declares "
                                               r".* refused before extraction"):
        read_graph(path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["g.gr", "g.txt", "g.mtx", "g.gr.gz"]),
       st.lists(st.sampled_from(["p sp 3 2", "p tw 3 1", "a 1 2 5", "a 2 3 -1", "a 9 1 1", "1 2",
                                 "0 1 7", "# Nodes: 3 Edges: 2", "c note", "3 3 2", "1 2 x",
                                 "%%MatrixMarket matrix coordinate integer general", "",
                                 "p sp 99999999999 1", "a 1 2 99999999999999999999"]),
                max_size=8),
       st.binary(max_size=16))
def test_any_bytes_give_a_graph_or_one_clear_error(tmp_path, name, lines, tail):
    data = ("\n".join(lines) + "\n").encode() + tail
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    try:
        graph = read_graph(path)
    except GraphFormatError as e:
        assert str(e).startswith(str(path)) and "\n" not in str(e)
    else:
        assert graph.num_vertices >= 0 and len(graph.indices) == graph.num_arcs


# --- a run that would be misnamed or misattributed (class 8) ----------------------------------

def _graph_and_sources(tmp_path, seed, name):
    from graphrepro.cli import main

    gr = tmp_path / f"{name}.gr"
    assert main(["generate", "road_grid", "--rows", "6", "--cols", "6", "--keep", "0.8",
                 "--max-weight", "50", "--seed", str(seed), "--output", str(gr)]) == 0
    src = tmp_path / f"{name}.sources.json"
    assert main(["sources", str(gr), "--count", "3", "--seed", "3", "--output", str(src)]) == 0
    return gr, src


def test_a_param_contradicting_the_run_id_is_refused(tmp_path, capsys):
    from graphrepro.cli import main

    gr, src = _graph_and_sources(tmp_path, 1, "g")
    out = tmp_path / "runs.csv"
    common = ["run", str(gr), "--sources", str(src), "--trials", "1", "--warmup", "0",
              "--output", str(out)]
    assert main([*common, "--solver", "delta_stepping@delta=5", "--param", "delta=7"]) == 2
    assert "run id delta_stepping@delta=5 names delta=5 but --param gives delta=7" in \
        capsys.readouterr().err
    assert not out.exists()
    assert main([*common, "--solver", "delta_stepping@delta=5", "--param", "delta=5"]) == 0
    assert main([*common, "--solver", "delta_stepping", "--param", "delta=7"]) == 0


def test_run_interleaves_competing_runs_into_a_table_each(tmp_path, capsys):
    import json

    import pandas as pd

    from graphrepro.cli import main

    gr, src = _graph_and_sources(tmp_path, 1, "g")
    a, b = tmp_path / "dijkstra.csv", tmp_path / "delta.csv"
    run = ["run", str(gr), "--solver", "dijkstra", "--sources", str(src), "--trials", "2",
           "--warmup", "0", "--output", str(a), "--interleave", "delta_stepping@delta=5"]
    assert main([*run, "--interleave-output", str(b), str(b)]) == 2
    assert "--interleave names 1 runs and --interleave-output 2 files" in capsys.readouterr().err
    assert main([*run, "--interleave-output", str(b)]) == 0
    for path, variant in ((a, "dijkstra"), (b, "delta_stepping@delta=5")):
        table = pd.read_csv(path)
        assert list(table["variant"].unique()) == [variant] and len(table) == 6
        assert set(table["interleaved"]) == {"dijkstra|delta_stepping@delta=5"}
        prov = json.loads(path.with_suffix(".provenance.json").read_text())
        assert prov["interleaved"] == ["dijkstra", "delta_stepping@delta=5"]


def test_another_graphs_sources_are_refused_before_anything_is_timed(tmp_path, capsys):
    import json

    from graphrepro.cli import main

    gr, src = _graph_and_sources(tmp_path, 1, "g")
    other, other_src = _graph_and_sources(tmp_path, 2, "h")
    out = tmp_path / "runs.csv"
    run = ["run", str(gr), "--solver", "dijkstra", "--trials", "1", "--warmup", "0",
           "--output", str(out)]
    assert main([*run, "--sources", str(other_src), "--name", "h"]) == 2  # same name, other graph
    assert "drawn on another graph than h (its digest differs)" in capsys.readouterr().err
    legacy = json.loads(other_src.read_text())
    del legacy["graph_digest"]  # a record drawn before digests: its graph's name must match
    other_src.write_text(json.dumps(legacy))
    assert main([*run, "--sources", str(other_src)]) == 2
    assert "drawn on graph 'h', not 'g'" in capsys.readouterr().err
    assert not out.exists()
    assert main([*run, "--sources", str(src)]) == 0


@pytest.mark.parametrize("args, says", [
    (["road_grid", "--rows", "0", "--cols", "5"], "rows and cols must be positive"),
    (["road_grid", "--rows", "5", "--cols", "5", "--max-weight", "0"], "max_weight must be at least 1"),
    (["random", "--vertices", "0", "--arcs", "3"], "a random graph needs at least 1 vertex"),
    (["random", "--vertices", "5", "--arcs", "-1"], "at least 0 arcs"),
])
def test_generator_arguments_out_of_range_are_one_line(tmp_path, capsys, args, says):
    from graphrepro.cli import main

    out = tmp_path / "g.gr"
    assert main(["generate", *args, "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and says in err and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("name", ['=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)", "\tx"])
def test_a_registry_name_that_a_spreadsheet_would_run_is_refused(tmp_path, name):
    """Names are row labels in every downloadable CSV (class 10): none may open as a formula."""
    import yaml

    from graphrepro.datasets import load_registry
    from graphrepro.datasets.registry import DEFAULT_REGISTRY
    from graphrepro.errors import InputError

    raw = yaml.safe_load(DEFAULT_REGISTRY.read_text())
    entry = raw["datasets"]["ny"]
    raw["datasets"] = {"ny": {**entry, "name": name}}
    path = tmp_path / "reg.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(InputError, match="datasets/ny/name"):
        load_registry(str(path))
    raw["datasets"]["ny"]["name"] = "USA-road-d.NY"
    path.write_text(yaml.safe_dump(raw))
    assert load_registry(str(path))["ny"].name == "USA-road-d.NY"
