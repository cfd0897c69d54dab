"""Bad input ends in one line on stderr, never a traceback, with its kind's exit status
(cli/exitcodes.py): 2 for solver parameters, 6 for outputs that are directories and permissions,
4 for corrupt compressed data and damaged caches."""

import gzip
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrepro import cli
from graphrepro.errors import ExitCode, InputError
from graphrepro.graph.formats import write_dimacs
from graphrepro.solvers import get_solver, parse_run_id, resolve


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "graphrepro", *map(str, args)],
                          capture_output=True, text=True, env=dict(os.environ), cwd=cwd)


def one_line(r, says, code=ExitCode.USAGE):
    assert r.returncode == code, (r.returncode, r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert says in r.stderr, r.stderr


@pytest.fixture
def gr(tmp_path, tiny_graph):
    path = tmp_path / "tiny.gr"
    write_dimacs(tiny_graph, path)
    return path


# --- solver parameters ------------------------------------------------------------------------

BLOCK_SOLVERS = ["harish", "lbr", "lbr_persistent", "an_bf_edgelist", "an_bf_incoming",
                 "singla_bfs", "singla_dijkstra", "workfront", "nearfar", "hybrid"]


@settings(max_examples=60, deadline=None)
@given(solver=st.sampled_from(BLOCK_SOLVERS),
       value=st.one_of(st.integers(-10**6, 0), st.integers(1025, 10**9)))
def test_threads_per_block_outside_cuda_limits_is_refused(solver, value):
    with pytest.raises(InputError, match="threads_per_block"):
        resolve(f"{solver}@threads_per_block={value}")


@pytest.mark.parametrize("run_id", ["nearfar@c=nan", "nearfar@c=inf", "hybrid@m=nan",
                                    "an_bf_dense@block_x=4096", "lbr@t=1e400", "lbr@n=nan"])
def test_numbers_no_kernel_can_use_are_refused_at_resolve(run_id):
    with pytest.raises(InputError):
        resolve(run_id)


@pytest.mark.parametrize("run_id", ["nearfar@c=-1", "nearfar@delta=-5", "lbr@k=0", "lbr@n=-1",
                                    "lbr@calibration_iterations=-2", "hybrid@m=0",
                                    "singla_bfs@check_every=0", "an_bf_edgelist@edges_per_thread=0"])
def test_each_solver_refuses_its_own_bad_ranges(tiny_graph, run_id):
    with pytest.raises(InputError):
        spec, params = resolve(run_id)
        spec.prepare(tiny_graph, **params)


@given(st.sampled_from(["k", "t", "threads_per_block"]), st.integers(1, 8), st.integers(1, 8))
def test_a_parameter_given_twice_is_refused(key, a, b):
    with pytest.raises(InputError, match="twice"):
        parse_run_id(f"lbr@{key}={a},{key}={b}")


def test_cli_params_twice_and_bad_values_are_one_line(gr):
    one_line(run("solve", gr, "--source", 1, "--output", gr.with_suffix(".out"), "--solver",
                 "dijkstra", "--param", "x=1", "--param", "x=2"), "given twice")
    one_line(run("solve", gr, "--source", 1, "--output", gr.with_suffix(".out"), "--solver",
                 "harish@threads_per_block=0"), "threads_per_block")


def test_valid_parameters_still_resolve():
    assert resolve("lbr@k=4,t=2")[1]["k"] == 4
    assert resolve("nearfar@c=0.5")[1]["c"] == 0.5
    assert get_solver("lbr_persistent").params(threads_per_block="1024")["threads_per_block"] == 1024


# --- files ----------------------------------------------------------------------------------------

def test_output_naming_a_directory_is_refused_before_any_work(gr, tmp_path):
    one_line(run("convert", gr, "--output", tmp_path), "is a directory")
    assert not list(tmp_path.glob("*.part*"))


def test_an_unreadable_or_unwritable_place_is_one_line(gr, tmp_path):
    # a folder that is a file
    one_line(run("convert", gr, "--output", gr / "x.npz"), f"{gr}: ", ExitCode.FAILED)
    if os.geteuid() != 0:  # root reads everything
        gr.chmod(0)
        one_line(run("convert", gr, "--output", tmp_path / "x.npz"), "ermission denied",
                 ExitCode.FAILED)


def test_main_turns_any_os_error_into_one_line(monkeypatch, capsys, gr):
    def boom(args):
        raise PermissionError(13, "Permission denied", "/some/file")

    monkeypatch.setattr(cli.graphs, "cmd_convert", boom)
    assert cli.main(["convert", str(gr), "--output", str(gr.with_suffix(".npz"))]) == ExitCode.FAILED
    assert capsys.readouterr().err == "error: /some/file: Permission denied\n"


@settings(max_examples=25, deadline=None)
@given(frac=st.floats(0.05, 0.95), flip=st.integers(1, 255))
def test_a_corrupt_gzip_graph_is_one_line(tmp_path_factory, frac, flip):
    d = tmp_path_factory.mktemp("gz")
    text = b"p sp 50 49\n" + b"".join(b"a %d %d %d\n" % (i, i + 1, i) for i in range(1, 50))
    data = bytearray(gzip.compress(text))
    i = 10 + int(frac * (len(data) - 18))  # inside the deflate stream
    data[i] ^= flip
    (d / "g.gr.gz").write_bytes(bytes(data))
    from graphrepro.errors import GraphFormatError
    from graphrepro.graph.formats import read_graph

    try:
        read_graph(d / "g.gr.gz")
    except GraphFormatError as e:
        assert str(e).startswith(str(d / "g.gr.gz"))


def test_cli_on_a_damaged_cache_and_dense_descriptor_is_one_line(tmp_path):
    (tmp_path / "g.npz").write_bytes(b"PK\x03\x04" + b"\0" * 40)
    one_line(run("sources", tmp_path / "g.npz", "--count", 1, "--seed", 1, "--output",
                 tmp_path / "s.json"), "delete it and run again", ExitCode.BAD_DATA)
    with open(tmp_path / "d.npz", "wb") as f:
        np.savez(f, dense_vertices=np.int64(4), density=np.float64(np.nan), max_weight=np.int64(3),
                 seed=np.int64(1), name=np.str_("d"))
    one_line(run("sources", tmp_path / "d.npz", "--count", 1, "--seed", 1, "--output",
                 tmp_path / "s.json"), "density nan", ExitCode.BAD_DATA)
