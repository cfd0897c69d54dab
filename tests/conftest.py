"""Shared fixtures for the graph, format and solver tests.

The CUDA simulator is switched on here, at import time, because numba decides between the real
driver and the simulator once, when numba is first imported, and conftest.py is imported before
any test module (and so before anything in graphrepro imports numba). CI has no GPU; with the
simulator the GPU kernels still run, slowly, and must match the reference. ``setdefault`` leaves
an explicit ``NUMBA_ENABLE_CUDASIM=0`` alone, so the same tests can run on a real GPU.
"""

import os
import signal

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

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
