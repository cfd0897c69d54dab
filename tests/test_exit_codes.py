"""Each kind of failure exits with its own status (cli/exitcodes.py), so a script or CI can tell a
typo from bad data from a wrong answer from a machine that cannot run the step; `--help` and the
README print the same table."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from graphrepro import cli, gpu, verify
from graphrepro.cli.exitcodes import EXIT_CODES, exit_code
from graphrepro.datasets.download import DownloadError
from graphrepro.datasets.validate import InvalidDatasetFile
from graphrepro.errors import (DamagedFile, DeviceUnavailable, ExitCode, GraphFormatError,
                               GraphreproError, InputError, VerificationError)
from graphrepro.graph.formats import write_dimacs
from graphrepro.native import NativeBuildError, NoBoostError

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.parametrize("error, code", [
    (InputError("bad"), ExitCode.USAGE),
    (DamagedFile("x"), ExitCode.BAD_DATA),  # an InputError, but the data is what is wrong
    (GraphFormatError("g.gr", 3, "bad"), ExitCode.BAD_DATA),
    (InvalidDatasetFile("x"), ExitCode.BAD_DATA),
    (VerificationError("WRONG ANSWER"), ExitCode.WRONG_ANSWER),
    (DeviceUnavailable("no CUDA device"), ExitCode.UNAVAILABLE),
    (NoBoostError("no Boost"), ExitCode.UNAVAILABLE),
    (NativeBuildError("compile error"), ExitCode.UNAVAILABLE),
    (DownloadError("offline"), ExitCode.FAILED),
    (GraphreproError("a peer stopped"), ExitCode.FAILED),
    (PermissionError(13, "denied"), ExitCode.FAILED),
    (EOFError(), ExitCode.BAD_DATA),
])
def test_each_error_class_has_its_kinds_code(error, code):
    assert exit_code(error) == code


def test_the_codes_are_distinct_and_usage_is_argparses():
    codes = [int(code) for code, _, _ in EXIT_CODES]
    assert len(codes) == len(set(codes)) == len(ExitCode)
    assert ExitCode.USAGE == 2 and ExitCode.INTERRUPTED == 130 and ExitCode.TERMINATED == 143
    with pytest.raises(SystemExit) as stop:
        cli.build_parser().parse_args(["solve", "--no-such-flag"])
    assert stop.value.code == ExitCode.USAGE


def test_help_and_readme_print_the_one_table(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    helped = capsys.readouterr().out
    readme = README.read_text()
    for code, meaning, _ in EXIT_CODES:
        assert re.search(rf"^\s+{int(code)}\s+{re.escape(meaning[:30])}", helped, re.M), code
        assert re.search(rf"^\| {int(code)} \|", readme, re.M), f"README lacks exit status {code}"


@pytest.fixture
def gr(tmp_path, tiny_graph):
    path = tmp_path / "tiny.gr"
    write_dimacs(tiny_graph, path)
    return path


def _solve(gr, tmp_path, *extra):
    return cli.main(["solve", str(gr), "--source", "1", "--output", str(tmp_path / "d.txt"),
                     *extra])


def test_a_typo_bad_data_a_wrong_answer_and_no_device_exit_apart(gr, tmp_path, monkeypatch,
                                                                   capsys):
    assert _solve(gr, tmp_path) == ExitCode.OK
    assert _solve(gr, tmp_path, "--solver", "no_such_solver") == ExitCode.USAGE

    bad = tmp_path / "bad.gr"
    bad.write_text("p sp 2 1\na 1 x 3\n")
    assert _solve(bad, tmp_path) == ExitCode.BAD_DATA

    real = verify.reference_distances
    monkeypatch.setattr(verify, "reference_distances",
                        lambda *a, **k: np.asarray(real(*a, **k)) + 1)
    assert _solve(gr, tmp_path) == ExitCode.WRONG_ANSWER
    assert "WRONG ANSWER" in capsys.readouterr().err
    monkeypatch.undo()

    monkeypatch.setattr(gpu, "cuda_available", lambda: False)
    assert _solve(gr, tmp_path, "--solver", "harish") == ExitCode.UNAVAILABLE
    assert "no CUDA device" in capsys.readouterr().err


def test_a_reader_that_stops_early_gets_no_traceback_and_no_error_code():
    """Issue 56 item 9: `graphrepro targets | head` exits quietly (0, or 141 as a shell's
    command killed by SIGPIPE would), never with a traceback or exit 6."""
    import os
    import subprocess
    import sys

    read, write = os.pipe()
    os.close(read)  # the reader has gone before a byte is written: every write fails
    try:
        done = subprocess.run([sys.executable, "-m", "graphrepro", "targets", "--format", "json"],
                              stdout=write, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write)
    assert done.returncode == int(ExitCode.READER_GONE) == 141, done.stderr
    assert "Traceback" not in done.stderr and "error" not in done.stderr.lower()
