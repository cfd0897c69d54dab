"""Graph file readers and the DIMACS writer: correct arcs, and errors a user can act on."""

import gzip
from pathlib import Path

import numpy as np
import pytest

from graphrepro.errors import GraphFormatError
from graphrepro.graph.csr import CSRGraph
from graphrepro.graph.formats import detect_format, read_graph, write_dimacs
from graphrepro.graph.generate import random_digraph


def write(tmp_path: Path, name: str, text: str, *, crlf: bool = False) -> Path:
    """Write ``text`` to ``name``, gzip-compressed when the name ends in .gz."""
    data = (text.replace("\n", "\r\n") if crlf else text).encode()
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def arcs_in_labels(graph: CSRGraph) -> list[tuple[int, int, int]]:
    """Arcs as (from, to, weight) in the file's own vertex ids, in CSR order."""
    src = graph.label_of(graph.arc_sources())
    dst = graph.label_of(graph.indices)
    return list(zip(src.tolist(), dst.tolist(), graph.weights.tolist()))


def assert_error(path: Path, line: int | None, *fragments: str, **kwargs):
    with pytest.raises(GraphFormatError) as err:
        read_graph(path, **kwargs)
    message = str(err.value)
    assert err.value.line == line
    expected_where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert message.startswith(expected_where), message
    for fragment in fragments:
        assert fragment in message, message
    return message


# --- DIMACS ------------------------------------------------------------------------------------

DIMACS = """\
c 9th DIMACS challenge style
p sp 4 5
a 1 2 7
a 2 3 0

c a comment and a blank line in the middle of the arcs
a 1 3 2
a 3 1 5
a 1 1 4
"""
DIMACS_ARCS = [(1, 2, 7), (1, 3, 2), (1, 1, 4), (2, 3, 0), (3, 1, 5)]


@pytest.mark.parametrize("name", ["g.gr", "g.gr.gz"])
@pytest.mark.parametrize("crlf", [False, True])
def test_dimacs(tmp_path, name, crlf):
    g = read_graph(write(tmp_path, name, DIMACS, crlf=crlf))
    assert g.num_vertices == 4  # vertex 4 has no arcs at all yet still exists
    assert g.base == 1 and g.labels is None
    assert g.name == "g"
    assert arcs_in_labels(g) == DIMACS_ARCS


def test_dimacs_with_tabs_and_no_final_newline(tmp_path):
    text = "p\tsp\t2\t1\na\t1\t2\t3"
    g = read_graph(write(tmp_path, "t.gr", text))
    assert arcs_in_labels(g) == [(1, 2, 3)]


def test_dimacs_with_no_arcs(tmp_path):
    g = read_graph(write(tmp_path, "empty.gr", "p sp 3 0\n"))
    assert g.num_vertices == 3 and g.num_arcs == 0


@pytest.mark.parametrize("name", ["w.gr", "w.gr.gz"])
def test_write_dimacs_round_trip(tmp_path, name):
    g = random_digraph(30, 120, seed=3)  # zero weights, self-loops and parallel arcs included
    path = tmp_path / name
    write_dimacs(g, path, comment="generated\nfor a test")
    back = read_graph(path)
    for attr in ("indptr", "indices", "weights"):
        np.testing.assert_array_equal(getattr(back, attr), getattr(g, attr))
    assert back.name == "w"
    assert not list(tmp_path.glob("*.part*"))
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt") as f:
        assert f.readline() == "c generated\n"


# Each case is one line of DIMACS replaced, with the line and the words the error must carry.
GOOD = ["c header", "p sp 3 2", "a 1 2 5", "c middle", "a 2 3 1"]


@pytest.mark.parametrize("line, replacement, fragments", [
    (3, "a 1 x 3", ["bad number"]),
    (5, "a 2 3 1.5", ["bad number"]),
    (5, "a 2 3", ["wrong number of fields", "expected 3"]),
    (5, "a 2 3 1 9", ["wrong number of fields"]),
    (3, "a 1 4 5", ["vertex 4 out of range 1..3"]),
    (5, "a 0 3 1", ["vertex 0 out of range 1..3"]),
    (5, "a 2 3 -1", ["negative weight -1"]),
    (5, "e 2 3 1", ["unexpected line"]),
    (5, "p sp 3 2", ["unexpected line"]),  # a second problem line
    (2, "p sp 3", ["problem line must be 'p sp <vertices> <arcs>'"]),
    (2, "p max 3 2", ["problem line"]),
    (2, "p sp three 2", ["bad number in problem line"]),
    (2, "p sp -3 2", ["negative count"]),
])
def test_dimacs_errors_name_file_line_and_problem(tmp_path, line, replacement, fragments):
    lines = list(GOOD)
    lines[line - 1] = replacement
    path = write(tmp_path, "bad.gr", "\n".join(lines) + "\n")
    assert_error(path, line, *fragments)


@pytest.mark.parametrize("arcs", [1, 3])
def test_dimacs_arc_count_disagreeing_with_problem_line(tmp_path, arcs):
    text = "c x\np sp 3 2\n" + "".join(f"a 1 2 {i}\n" for i in range(arcs))
    assert_error(write(tmp_path, "count.gr", text), 2, "announces 2 arcs", f"has {arcs}")


def test_dimacs_arc_before_problem_line(tmp_path):
    assert_error(write(tmp_path, "early.gr", "c x\na 1 2 3\np sp 2 1\n"), 2,
                 "arc before the 'p sp n m' problem line")


def test_dimacs_missing_problem_line(tmp_path):
    assert_error(write(tmp_path, "nop.gr", "c only\nc comments\n"), None, "no 'p sp n m'")


def test_error_line_numbers_count_crlf_lines(tmp_path):
    path = write(tmp_path, "crlf.gr", "c x\r\n\r\np sp 2 1\r\na 1 x 3\r\n")
    assert_error(path, 4, "bad number")


def test_error_in_gzip_file_names_the_gz_file(tmp_path):
    path = write(tmp_path, "bad.gr.gz", "p sp 2 1\na 1 2 -4\n")
    assert_error(path, 2, "negative weight")


# --- SNAP --------------------------------------------------------------------------------------

SNAP_UNWEIGHTED = """\
# Directed graph (each unordered pair of nodes is saved once)
# FromNodeId\tToNodeId
10\t30
30\t7

# a comment in the middle
10\t7
7\t10
"""


@pytest.mark.parametrize("name", ["s.txt", "s.txt.gz"])
@pytest.mark.parametrize("crlf", [False, True])
def test_snap_unweighted_with_non_contiguous_ids(tmp_path, name, crlf):
    g = read_graph(write(tmp_path, name, SNAP_UNWEIGHTED, crlf=crlf))
    assert g.num_vertices == 3  # only the ids that occur; 8, 9, 11.. do not exist
    assert g.labels.tolist() == [7, 10, 30]
    assert g.name == "s"
    # Without a weight column every arc weighs 1, and each line is one arc (no symmetrising).
    assert arcs_in_labels(g) == [(7, 10, 1), (10, 30, 1), (10, 7, 1), (30, 7, 1)]
    assert g.to_internal(30) == 2


def test_snap_weighted(tmp_path):
    g = read_graph(write(tmp_path, "w.txt", "0 1 5\n1 2 0\n 2   0\t9 \n"))
    assert g.labels.tolist() == [0, 1, 2]
    assert arcs_in_labels(g) == [(0, 1, 5), (1, 2, 0), (2, 0, 9)]


@pytest.mark.parametrize("text, line, fragments", [
    ("# h\n1 2\n3 4 5\n", 3, ["wrong number of fields", "expected 2"]),
    ("# h\n1 2 5\n3 4\n", 3, ["wrong number of fields", "expected 3"]),
    ("1 2 3 4\n", 1, ["expected 'from to' or 'from to weight'"]),
    ("1 2\n3 b\n", 2, ["bad number"]),
    ("1 2 1\n3 4 -2\n", 2, ["negative weight -2"]),
    ("1 2\n-3 4\n", 2, ["vertex id -3 out of range"]),
])
def test_snap_errors(tmp_path, text, line, fragments):
    assert_error(write(tmp_path, "bad.txt", text), line, *fragments)


def test_snap_with_only_comments(tmp_path):
    assert_error(write(tmp_path, "none.txt", "# nothing\n\n"), None, "no edges")


# --- MatrixMarket ------------------------------------------------------------------------------

def test_mtx_general_integer(tmp_path):
    text = """\
%%MatrixMarket matrix coordinate integer general
% a comment
3 3 3
1 2 4

% another, between entries
2 3 0
3 1 6
"""
    g = read_graph(write(tmp_path, "m.mtx", text))
    assert g.num_vertices == 3 and g.base == 1
    assert arcs_in_labels(g) == [(1, 2, 4), (2, 3, 0), (3, 1, 6)]


@pytest.mark.parametrize("name", ["p.mtx", "p.mtx.gz"])
def test_mtx_symmetric_pattern(tmp_path, name):
    # Symmetric files store one triangle: each off-diagonal entry is two arcs, a diagonal one.
    text = "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 3\n4 2\n"
    g = read_graph(write(tmp_path, name, text))
    assert g.num_vertices == 4
    assert sorted(arcs_in_labels(g)) == [(1, 2, 1), (2, 1, 1), (2, 4, 1), (3, 3, 1), (4, 2, 1)]


def test_mtx_symmetric_integer_keeps_weights_on_both_arcs(tmp_path):
    text = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 8\n3 2 5\n"
    g = read_graph(write(tmp_path, "s.mtx", text, crlf=True))
    assert sorted(arcs_in_labels(g)) == [(1, 2, 8), (2, 1, 8), (2, 3, 5), (3, 2, 5)]


def test_mtx_real_with_integral_values(tmp_path):
    text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1\t2\t3\n"
    assert arcs_in_labels(read_graph(write(tmp_path, "r.mtx", text))) == [(1, 2, 3)]


BANNER = "%%MatrixMarket matrix coordinate integer general"


@pytest.mark.parametrize("text, line, fragments", [
    (f"{BANNER}\n% c\n3 3 2\n1 2 1\n", 3, ["announces 2 entries", "has 1"]),
    (f"{BANNER}\n3 3 1\n1 2 1\n2 3 1\n", 2, ["announces 1 entries", "has 2"]),
    (f"{BANNER}\n3 4 1\n1 2 1\n", 2, ["square matrix", "3 x 4"]),
    (f"{BANNER}\n3 3\n1 2 1\n", 2, ["size line must be 'rows cols entries'"]),
    (f"{BANNER}\n3 3 -1\n", 2, ["negative count"]),
    (f"{BANNER}\n3 3 2\n1 2 1\n4 1 1\n", 4, ["row 4 out of range 1..3"]),
    (f"{BANNER}\n3 3 1\n1 0 1\n", 3, ["column 0 out of range 1..3"]),
    (f"{BANNER}\n3 3 1\n1 2 -7\n", 3, ["negative weight -7"]),
    (f"{BANNER}\n3 3 1\n1 2\n", 3, ["wrong number of fields"]),
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\n", 3, ["bad number"]),
    ("%%MatrixMarket matrix array integer general\n2 2\n", 1, ["coordinate"]),
    ("%%MatrixMarket matrix coordinate complex general\n", 1, ["field 'complex'"]),
    ("%%MatrixMarket matrix coordinate integer hermitian\n", 1, ["symmetry 'hermitian'"]),
    ("3 3 1\n1 2 1\n", 1, ["not a MatrixMarket file"]),
])
def test_mtx_errors(tmp_path, text, line, fragments):
    assert_error(write(tmp_path, "bad.mtx", text), line, *fragments)


def test_mtx_without_size_line(tmp_path):
    assert_error(write(tmp_path, "nosize.mtx", f"{BANNER}\n% only comments\n"), None,
                 "no size line")


# --- choosing a reader -------------------------------------------------------------------------

@pytest.mark.parametrize("name, fmt", [("a.gr", "dimacs"), ("a.GR.gz", "dimacs"),
                                       ("a.txt", "snap"), ("a.el.gz", "snap"),
                                       ("a.tsv", "snap"), ("a.mtx", "mtx"), ("a.mtx.gz", "mtx")])
def test_detect_format(name, fmt):
    assert detect_format(name) == fmt


@pytest.mark.parametrize("name, shown", [("graph.csv", ".csv"), ("graph", "(none)"),
                                         ("graph.gz", "(none)")])
def test_unknown_extension(tmp_path, name, shown):
    path = write(tmp_path, name, "1 2\n")
    assert_error(path, None, f"extension {shown}", ".gr, .txt or .mtx")


def test_format_argument_overrides_extension(tmp_path):
    path = write(tmp_path, "edges.dat", "1 2 3\n")
    g = read_graph(path, format="snap", name="custom")
    assert g.name == "custom"
    assert arcs_in_labels(g) == [(1, 2, 3)]


def test_unknown_format_argument(tmp_path):
    assert_error(write(tmp_path, "x.gr", "p sp 1 0\n"), None, "unknown format 'csv'",
                 format="csv")


def test_missing_file(tmp_path):
    assert_error(tmp_path / "absent.gr", None, "no such file")


def test_corrupt_gzip(tmp_path):
    path = tmp_path / "broken.gr.gz"
    path.write_bytes(b"not gzip at all")
    assert_error(path, None, "cannot read")


def test_a_comment_longer_than_the_search_window_ends_at_its_own_newline(tmp_path):
    # Header lines are found through a window that widens; a long comment must not swallow
    # the problem line after it.
    text = "c " + "x" * 10000 + "\np sp 2 1\na 1 2 7\n"
    graph = read_graph(write(tmp_path, "long.gr", text))
    assert graph.num_vertices == 2 and graph.weights.tolist() == [7]


# --- additions for the datasets (issue 3) ------------------------------------------------------

SNAP_HEADER = "# Directed graph (each unordered pair of nodes is saved once): x.txt\n" \
              "# Nodes: 3 Edges: 3\n# FromNodeId\tToNodeId\n0\t1\n1\t0\n1\t5\n"


def test_snap_header_counts_are_checked(tmp_path):
    assert read_graph(write(tmp_path, "ok.txt", SNAP_HEADER)).num_arcs == 3
    assert_error(write(tmp_path, "cut.txt", SNAP_HEADER.rsplit("1\t5\n", 1)[0]), 2,
                 "announces 3 edges but the file has 2")
    assert_error(write(tmp_path, "nodes.txt", SNAP_HEADER.replace("Nodes: 3", "Nodes: 4")), 2,
                 "announces 4 nodes but the file's edges name 3")


def test_snap_max_id_numbering_keeps_absent_ids_as_isolated_vertices(tmp_path):
    g = read_graph(write(tmp_path, "gap.txt", SNAP_HEADER), snap_vertices="max_id")
    assert g.num_vertices == 6 and g.labels is None and g.base == 0
    assert g.out_degrees().tolist() == [1, 2, 0, 0, 0, 0]
    assert arcs_in_labels(g) == [(0, 1, 1), (1, 0, 1), (1, 5, 1)]


def tar_gz(tmp_path, name, members):
    import io
    import tarfile

    path = tmp_path / name
    with tarfile.open(path, "w:gz") as tar:
        for member, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


REAL_SYM = "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2.5e1\n2 1 -0.75\n3 2 0\n"


def test_suitesparse_archive_picks_the_matrix_and_ignores_real_values(tmp_path):
    path = tar_gz(tmp_path, "door.tar.gz", {"door/door_b.mtx": "%%MatrixMarket nonsense\n",
                                            "door/door.mtx": REAL_SYM})
    assert detect_format(path) == "mtx"
    g = read_graph(path, mtx_values="ignore")
    assert g.name == "door"
    assert sorted(arcs_in_labels(g)) == [(1, 1, 1), (1, 2, 1), (2, 1, 1), (2, 3, 1), (3, 2, 1)]
    with pytest.raises(GraphFormatError) as err:  # values are not integer weights
        read_graph(path)
    assert str(err.value).startswith(f"{path}!door/door.mtx:3: bad number")


def test_archive_without_the_matrix_lists_what_it_has(tmp_path):
    path = tar_gz(tmp_path, "x.tar.gz", {"x/a.mtx": REAL_SYM, "x/b.mtx": REAL_SYM})
    assert_error(path, None, "archive holds no x.mtx", "x/a.mtx, x/b.mtx")
