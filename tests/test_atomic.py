"""graphrepro.atomic: every output whole or not at all, never through a planted file, and Ctrl-C
answered with one line (issue 37, classes 1-3, 6 and 7)."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrepro import atomic
from graphrepro.errors import InputError

REPO = Path(__file__).resolve().parents[1]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".part" in p.name)


def test_a_write_lands_whole_with_the_users_permissions(tmp_path):
    out = tmp_path / "deep" / "table.csv"
    atomic.write_text(out, "a,b\n1,2\n")
    assert out.read_text() == "a,b\n1,2\n"
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask
    assert _leftovers(out.parent) == []


@pytest.mark.parametrize("failure", [RuntimeError("writer broke"), KeyboardInterrupt()])
def test_a_failed_write_keeps_the_old_file_and_leaves_nothing(tmp_path, failure):
    out = tmp_path / "g.npz"
    out.write_bytes(b"the good one")
    with pytest.raises(type(failure)):
        with atomic.replacing(out) as tmp:
            assert tmp.suffix == ".npz" and tmp.parent == tmp_path and ".part" in tmp.name
            tmp.write_bytes(b"half")
            raise failure
    assert out.read_bytes() == b"the good one"
    assert _leftovers(tmp_path) == []


def test_a_full_disk_names_the_file_and_removes_the_temporary(tmp_path):
    out = tmp_path / "runs.csv"
    with pytest.raises(OSError) as caught:
        with atomic.replacing(out):
            raise OSError(errno.ENOSPC, "No space left on device")
    assert caught.value.filename == str(out) and caught.value.errno == errno.ENOSPC
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_planted_part_link_is_never_written_through(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    out = tmp_path / "out" / "x.txt"
    out.parent.mkdir()
    for name in ("x.txt.part", "x.part.txt"):  # the names writers used to use
        (out.parent / name).symlink_to(victim)
    atomic.write_text(out, "answer")
    assert victim.read_text() == "precious" and out.read_text() == "answer"


def test_an_output_that_is_a_link_is_replaced_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    out = tmp_path / "out.txt"
    out.symlink_to(victim)
    atomic.write_text(out, "answer")
    assert victim.read_text() == "precious"
    assert not out.is_symlink() and out.read_text() == "answer"


def test_a_pipe_is_written_straight_and_stays_a_pipe(tmp_path):
    fifo = tmp_path / "stdout"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    atomic.write_text(fifo, "through the pipe\n")
    reader.join(10)
    assert got == ["through the pipe\n"]
    assert fifo.is_fifo() and _leftovers(tmp_path) == []


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        atomic.write_text(tmp_path, "x")


@settings(max_examples=25, deadline=None)
@given(st.binary(max_size=4096))
def test_whatever_is_written_is_read_back(data):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "blob.bin"
        atomic.write_bytes(out, data)
        assert out.read_bytes() == data and _leftovers(Path(d)) == []


WRITER = """
import sys
from graphrepro import atomic
out, mark, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    atomic.write_text(out, "".join(f"{mark} {i} {j}\\n" for j in range(20000)))
"""


def test_two_processes_writing_one_output_each_leave_a_whole_file(tmp_path):
    """The workflow's case: an orphaned job and its rerun write the same run table at once."""
    out = tmp_path / "same.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(out), mark, "15"], env=env)
               for mark in ("a", "b")]
    assert [w.wait(120) for w in writers] == [0, 0]
    lines = out.read_text().splitlines()
    marks = {line.split()[0] for line in lines}
    trials = {line.split()[1] for line in lines}
    assert len(lines) == 20000 and len(marks) == 1 and len(trials) == 1  # one writer's one file
    assert _leftovers(tmp_path) == []


# A command that is mid-write when the signal comes: it says so on stdout, then waits inside the
# safe writer with its temporary already on disk.
MID_WRITE = """
import sys, time
from graphrepro import atomic, cli
from graphrepro.cli import graphs

def cmd_convert(args):
    with atomic.replacing(args.output) as tmp:
        tmp.write_text("half of it")
        print("writing", flush=True)
        time.sleep(60)
    return 0

graphs.cmd_convert = cmd_convert
sys.exit(cli.main(["convert", "in.gr", "--output", sys.argv[1]]))
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_mid_write_gives_one_line_and_leaves_nothing(tmp_path, signum):
    """A real Ctrl-C (or snakemake's SIGTERM) while a command writes its output."""
    out = tmp_path / "graph.npz"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.Popen([sys.executable, "-c", MID_WRITE, str(out)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == "writing\n"
        assert len(_leftovers(tmp_path)) == 1  # the temporary, caught in the act
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signum, err
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"interrupted ({signal.Signals(signum).name}):"), err
    assert not out.exists() and _leftovers(tmp_path) == []
