"""Shared fixtures for the graph, format and solver tests, and the one switch between the CUDA
simulator and a real GPU.

The simulator is switched on here, at import time, because numba decides between the real driver
and the simulator once, when numba is first imported, and conftest.py is imported before any test
module (and so before anything in graphrepro imports numba). CI has no GPU; with the simulator the
GPU kernels still run, slowly, and must match the reference. On a GPU machine `pytest --gpu` (or
``NUMBA_ENABLE_CUDASIM=0``, which ``setdefault`` leaves alone) runs the same tests on the device;
tests whose expectations depend on the machine ask ``tests/machine.py``. A test that needs Boost
headers is skipped, saying so, on a machine without them (the hook below).
"""

import os
import signal
import sys

# `--gpu` is read here, not from pytest's parsed options: those come after this module's imports,
# and by then numba may have chosen
if "--gpu" in sys.argv[1:]:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
# The study's tests see the study alone: a plugin installed beside it (CI installs the example)
# would add its claims to every ledger the tests hold against the committed reference run.
# tests/test_plugins.py turns plugins back on for its own tests.
os.environ["GRAPHREPRO_NO_PLUGINS"] = "1"

# A shell that starts the suite in the background (`cmd &` without job control) hands it SIGINT
# ignored, and every child inherits that: the tests that press Ctrl-C on a command would then see
# it run on. Ctrl-C is restored here, so the children start as from a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

import pytest  # noqa: E402

from graphrepro.graph.csr import CSRGraph  # noqa: E402


@pytest.fixture
def tiny_graph() -> CSRGraph:
    """Five vertices numbered from 1 as in DIMACS: out-degrees 3, 1, 2, 1, 0.

    Vertex 5 (internal 4) has no out-arcs and nothing reaches it; arc 3->1 weighs 0. Arcs are
    listed out of source order so that from_arcs has something to sort.
    """
    src = [2, 0, 0, 1, 0, 3, 2]
    dst = [3, 1, 2, 3, 3, 0, 1]
    weights = [4, 7, 1, 2, 9, 0, 3]
    return CSRGraph.from_arcs(5, src, dst, weights, base=1, name="tiny")


def pytest_addoption(parser):
    parser.addoption("--gpu", action="store_true",
                     help="run the GPU tests on this machine's CUDA device instead of numba's "
                          "simulator (the same as NUMBA_ENABLE_CUDASIM=0); refused without one")


def pytest_configure(config):
    if config.getoption("--gpu"):
        from machine import real_cuda_device

        if not real_cuda_device():
            raise pytest.UsageError("--gpu: no CUDA device here (numba finds none with the "
                                    "simulator off)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that needs Boost headers is skipped, with the reason, where this machine has none
    (NoBoostError); where it has them a NoBoostError is a failure like any other."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or report.skipped:
        return
    from graphrepro.native import NoBoostError

    if call.excinfo.errisinstance(NoBoostError):
        from machine import boost_missing

        why = boost_missing()
        if why:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0,
                               f"Skipped: no Boost headers here ({why})")
