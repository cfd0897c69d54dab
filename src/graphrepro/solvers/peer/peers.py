"""ADDS and Gunrock as solvers of document ``peer`` (issue 33): today's best public GPU SSSP codes,
built from their own source at a pinned commit (``graphrepro.datasets.peers``), run through the
same harness as every other solver.

Each prepared graph is exported once in the format the peer reads (ADDS: Galois's binary .gr;
Gunrock: Matrix Market) and loaded once by a driver process (``native/adds_driver.cu``,
``native/gunrock_driver.cu``); each source is one request. ``solve_ms`` is our CUDA events around
the whole call (ADDS: its init kernel and worklist reset included); the peer's own timer comes
beside it as the counter ``peer_ms`` (ADDS: its events around the weight profiler and the solve;
Gunrock: the time ``sssp::run`` returns). The distances come back whole and the harness checks
every one against the reference digest.

Every answer has a deadline (``deadline_s``): a peer that misses it is killed and the harness
records the source as ``hung``; the next source starts a fresh process. After ``max_hangs`` hangs
the solver stops trying, and the rest of the run says so.

Both peers keep distances in 32 bits and relax ``dist[u] + w`` in them: where a source's largest
finite distance plus the largest weight reaches INT32_MAX (their "unreached") they give no answer
at all (issue 54: both hung with weights just below INT32_MAX). So a source is refused before the
peer is asked, with the reason as its row's status, unless the graph's own bound already clears
it: (n - 1) * max weight + max weight < INT32_MAX. Where that bound does not clear, the source's
largest finite distance is the reference Dijkstra's (computed once a source, never inside the
timed call: ``solve_ms`` is the driver's own CUDA events).

``LAUNCH_GRID`` is each peer's own small grid of launch settings (issue 54: peers at their best):
ADDS's device (its published one-thread launch) or host launch at 1 or 2 worker blocks per SM,
Gunrock's three load-balancing schedules. A table sets our time beside the fastest setting of
the grid that ran on the same graph, and says which won.
"""

from __future__ import annotations

import numpy as np

from ...native import peers as native_peers
from ...native import temp_file
from ..base import INF, SolveResult, register

LAUNCH_GRID = {
    "adds": ("adds", "adds@launch=host", "adds@blocks_per_sm=2", "adds@blocks_per_sm=2,launch=host"),
    "gunrock": ("gunrock", "gunrock@balance=thread_mapped", "gunrock@balance=merge_path"),
}


def largest_sum_clears(graph) -> bool:
    """Whether no path of the graph can reach the peers' 32-bit limit: a shortest path has at most
    n - 1 arcs, and a relaxation adds one more weight to the largest distance."""
    w = np.asarray(graph.weights)
    if not len(w):
        return True
    return int(w.max()) * max(graph.num_vertices, 1) < native_peers.INT32_MAX


def largest_finite_distance(graph, source: int) -> int:
    from ..reference import dijkstra_csr

    dist = dijkstra_csr(graph.indptr, graph.indices, graph.weights, int(source))[0]
    finite = dist[dist != INF]
    return int(finite.max()) if len(finite) else 0


class PeerSolver:
    upload_ms = 0.0
    device_bytes = 0
    counters_free = True  # its counters come with every solve: no extra counting pass

    def __init__(self, peer: str, graph, args: list[str], suffix: str, writer, *,
                 deadline_s: float, max_hangs: int, load_deadline_s: float = 600.0):
        native_peers.binary(peer)  # not built here: say so before exporting anything
        self.peer, self.n = peer, graph.num_vertices
        # kept only where the graph's bound does not clear the 32-bit limit (see the module's doc)
        self.limit_graph = None if largest_sum_clears(graph) else graph
        self.limit_checked: dict[int, str | None] = {}
        self.deadline_s, self.max_hangs, self.hangs = deadline_s, max_hangs, 0
        self.load_deadline_s = load_deadline_s
        self.path = temp_file(suffix)
        writer(graph, self.path)
        self.args = [str(self.path), *args]
        self.process = None

    def _process(self):
        if self.process is None:
            self.process = native_peers.PeerProcess(self.peer, self.args, self.n,
                                                    self.load_deadline_s)
        return self.process

    def refusal(self, source: int) -> str | None:
        """Why this source's distances cannot be the peer's to give, or None."""
        if self.limit_graph is None:
            return None
        if source not in self.limit_checked:
            g = self.limit_graph
            largest = largest_finite_distance(g, source)
            top = int(np.asarray(g.weights).max())
            self.limit_checked[source] = (
                None if largest + top < native_peers.INT32_MAX else
                f"not run: distances past int32 (largest {largest:,} + weight {top:,} >= "
                f"{native_peers.INT32_MAX:,}, {self.peer}'s 32-bit limit)")
        return self.limit_checked[source]

    def solve(self, source: int, *, count: bool = False) -> SolveResult:
        why = self.refusal(int(source))
        if why:
            raise native_peers.PeerRefused(f"{self.peer}, source {source}: {why}", status=why)
        if self.hangs >= self.max_hangs:
            raise native_peers.PeerHung(f"{self.peer}: not run after {self.hangs} hangs",
                                        status=f"not run: {self.peer} hung {self.hangs} times")
        try:
            peer_ms, call_ms, down_ms, work, dist = self._process().solve(source, self.deadline_s)
        except native_peers.PeerHung:
            self.hangs += 1
            self.process = None  # killed: the next source loads the graph again
            raise
        counters = {"peer_ms": peer_ms, **({"work": work} if work >= 0 else {})}
        return SolveResult(dist, call_ms, download_ms=down_ms, counters=counters)

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
            self.process = None
        self.path.unlink(missing_ok=True)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


@register("adds", device="gpu", document="peer",
          description="ADDS (Wang, Pan, Cong et al., PPoPP 2021; UCLA-VAST/adds 9ef8166, ads_int): "
                      "asynchronous delta-stepping with a persistent worker grid and a manager "
                      "kernel; built from its source with the study's patch for CUDA 13 / sm_90",
          defaults={"launch": "device", "blocks_per_sm": 1, "deadline_s": 20.0, "max_hangs": 2})
def adds(graph, *, launch: str, blocks_per_sm: int, deadline_s: float, max_hangs: int):
    from ...errors import InputError

    if launch not in ("device", "host"):
        raise InputError(f"adds: launch must be device (its published launch, from a one-thread "
                         f"kernel) or host, not {launch!r}")
    if blocks_per_sm < 0 or deadline_s <= 0 or max_hangs < 1:
        raise InputError("adds: blocks_per_sm >= 0 (0: its occupancy), deadline_s > 0, "
                         "max_hangs >= 1")
    return PeerSolver("adds", graph, [launch, str(blocks_per_sm)], ".gr",
                      native_peers.write_galois_gr, deadline_s=deadline_s, max_hangs=max_hangs)


GUNROCK_BALANCE = ("block_mapped", "thread_mapped", "merge_path")


@register("gunrock", device="gpu", document="peer",
          description="Gunrock essentials (gunrock/gunrock 01f125c): frontier Bellman-Ford "
                      "(advance + filter per iteration) with int weights; built from its source "
                      "with nvcc and the study's one force-included header",
          defaults={"balance": "block_mapped", "deadline_s": 60.0, "max_hangs": 2})
def gunrock(graph, *, balance: str, deadline_s: float, max_hangs: int):
    from ...errors import InputError

    if balance not in GUNROCK_BALANCE:
        raise InputError(f"gunrock: balance must be one of {', '.join(GUNROCK_BALANCE)}")
    if deadline_s <= 0 or max_hangs < 1:
        raise InputError("gunrock: deadline_s > 0 and max_hangs >= 1")
    return PeerSolver("gunrock", graph, [balance], ".mtx", native_peers.write_matrix_market,
                      deadline_s=deadline_s, max_hangs=max_hangs)
