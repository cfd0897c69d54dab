"""Warm-up once per worker and kernel (harness/warm.py, issue 57 item 3): a worker asked to
(GRAPHREPRO_WARMUP=once) warms each solver setting on a graph in its first job only."""

from graphrepro import verify
from graphrepro.graph.generate import road_grid
from graphrepro.harness import RunSpec, measure
from graphrepro.harness import warm


def _job(graph, solver="dijkstra"):
    sources = [0, 5]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in sources]
    phases: dict = {}
    logged = []
    measure(graph, RunSpec(solver, sources, digests, trials=1, warmup=1), log=logged.append,
            phases=phases)
    return phases, logged


def test_a_worker_warms_each_setting_once_and_says_so(monkeypatch):
    monkeypatch.setattr(warm, "_WARMED", set())
    graph = road_grid(6, 6, seed=1, name="warm_grid")
    monkeypatch.setenv("GRAPHREPRO_IN_WORKER", "1")
    monkeypatch.setenv("GRAPHREPRO_WARMUP", "once")
    first, _ = _job(graph)
    second, logged = _job(graph)
    assert "warmup_reused" not in first and first["warmup_s"] > 0
    assert second["warmup_reused"] == 1 and second["warmup_s"] == 0
    assert any("warm-up reused" in line for line in logged)
    other, _ = _job(graph, "bellman_ford")  # another kernel: its own warm-up
    assert "warmup_reused" not in other


def test_outside_a_worker_or_unasked_every_job_warms_up(monkeypatch):
    monkeypatch.setattr(warm, "_WARMED", set())
    graph = road_grid(6, 6, seed=1, name="warm_grid")
    monkeypatch.setenv("GRAPHREPRO_WARMUP", "once")
    monkeypatch.delenv("GRAPHREPRO_IN_WORKER", raising=False)
    _job(graph)
    assert "warmup_reused" not in _job(graph)[0]
    monkeypatch.setenv("GRAPHREPRO_IN_WORKER", "1")
    monkeypatch.delenv("GRAPHREPRO_WARMUP")
    assert "warmup_reused" not in _job(graph)[0]


def test_the_counting_pass_runs_only_for_the_sources_asked(monkeypatch):
    from graphrepro import gpu
    from graphrepro.solvers import base
    from graphrepro.solvers.base import SolveResult

    class Counted:
        """A GPU solver stand-in (the simulator is too slow here): its counters come only from
        a counting pass."""
        upload_ms, device_bytes = 0.0, 0
        passes: list = []

        def __init__(self, graph):
            self.graph = graph

        def solve(self, source, *, count=False):
            Counted.passes.append((source, count))
            return SolveResult(verify.reference_distances(self.graph, source), 1.0,
                               counters={"arcs_relaxed": 7} if count else {})

    monkeypatch.setattr(gpu, "cuda_available", lambda: True)
    monkeypatch.setattr(gpu, "device_name", lambda: "stand-in")
    base.load_all()
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))  # this test's solver: its own
    base.register("counted_stand_in", device="gpu", document="reference",
                  description="a GPU stand-in for the counting-pass test")(Counted)
    graph = road_grid(6, 6, seed=1, name="count_grid")
    sources = [0, 5, 9]
    digests = [verify.digest(verify.reference_distances(graph, s)) for s in sources]
    table = measure(graph, RunSpec("counted_stand_in", sources, digests, trials=1, warmup=0,
                                   count_sources=1), log=lambda m: None)
    assert (table["status"] == "ok").all()
    assert table["arcs_relaxed"].notna().tolist() == [True, False, False]
    assert [s for s, count in Counted.passes if count] == [0]  # one counting pass in all
