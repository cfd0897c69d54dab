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
