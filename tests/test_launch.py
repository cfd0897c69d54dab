"""graphrepro.launch: prepared launches, replayed rounds and read-backs give what numba's own
launches give (under the simulator they are numba's; on a GPU, NUMBA_ENABLE_CUDASIM=0, the
prepared path and the CUDA graphs); the launch-floor command and the CUDA build degrade cleanly."""

import json
import sys

import numpy as np
import pandas as pd
import pytest
from numba import cuda

from graphrepro import gpu, launch, native
from graphrepro.cli import main
from graphrepro.errors import InputError


@cuda.jit
def _add(out, value, step):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] += value + step * i


@cuda.jit
def _count(counter, flag):
    if cuda.grid(1) == 0:
        counter[0] += 1
        flag[0] = counter[0]


def test_prepared_launch_rewrites_its_scalars():
    stream = cuda.stream()
    out = cuda.to_device(np.zeros(300, dtype=np.int64), stream=stream)
    add = launch.Launch(_add, gpu.blocks_for(300, 128), 128, stream, out, 5, 0)
    add()
    add.set(1, 7)
    add.set(2, 2)
    add()
    stream.synchronize()
    assert np.array_equal(out.copy_to_host(), 12 + 2 * np.arange(300))


def test_a_round_replays_its_launches_and_reads_back_each_time():
    stream = cuda.stream()
    counter = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
    flag = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
    host = launch.host_buffer(1, np.int64)
    tick = launch.Launch(_count, 1, 32, stream, counter, flag)
    round_ = launch.Round(stream, [tick, tick], read=flag, host=host)
    assert [int(round_()[0]) for _ in range(3)] == [2, 4, 6]
    blind = launch.Round(stream, [tick])
    assert blind() is None
    assert int(launch.Read(stream, flag, host)()[0]) == 7
    with pytest.raises(ValueError):
        launch.Round(stream, [tick], read=flag)


def test_kernel_clock_times_every_launch_and_round():
    stream = cuda.stream()
    counter = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
    tick = launch.Launch(_count, 1, 32, stream, counter, counter)
    with launch.KernelClock() as clock:
        tick()
        launch.Round(stream, [tick])()
    assert clock.ms >= 0.0
    assert launch._clock is None
    assert int(counter.copy_to_host()[0]) == 2


def test_the_mode_is_checked_and_needs_no_cupy(monkeypatch):
    # the launch path is numba-cuda's own bindings only: asked in a fresh interpreter, since
    # another test here (the GPU reduce's device compaction) may have imported cupy already
    import subprocess

    probe = "import sys, graphrepro.launch as l; l.mode(); print('cupy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
    if gpu.simulated():
        assert launch.mode() == "numba"
    monkeypatch.setattr(gpu, "simulated", lambda: False)
    monkeypatch.setenv("GRAPHREPRO_LAUNCH", "fast")
    with pytest.raises(InputError, match="GRAPHREPRO_LAUNCH"):
        launch.mode()
    monkeypatch.setenv("GRAPHREPRO_LAUNCH", "numba")
    assert launch.mode() == "numba"


@pytest.mark.skipif(not gpu.simulated(), reason="on a GPU the floor is measured, not skipped")
def test_launch_floor_says_not_run_without_a_gpu(tmp_path):
    out = tmp_path / "floor.csv"
    assert main(["launch-floor", "--output", str(out)]) == 0
    record = json.loads(out.with_suffix(".provenance.json").read_text())
    assert record["settings"]["trials"] > 0 and record["job"]["wall_s"] > 0
    table = pd.read_csv(out)
    assert set(table["measure"]) == {"empty_launch", "launch_readback", "harish_round",
                                     "grid_sync", "copy_tbps"}
    assert (table["note"] == "not run: no GPU").all()


def test_cuda_build_without_nvcc_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(native, "find_nvcc", lambda: None)
    manifest = native.build_cuda(tmp_path)
    assert manifest["programs"] == {}
    assert "no nvcc" in manifest["not_built"]["launch_floor"]
    assert (tmp_path / "cuda.json").is_file()


def test_the_report_shows_the_floor_beside_per_round_columns(tmp_path):
    from graphrepro.report.build import _beside_floor, _launch_floor

    here, reference = tmp_path / "results", tmp_path / "reference"
    (here / "benchmarks").mkdir(parents=True)
    (reference / "benchmarks").mkdir(parents=True)
    pd.DataFrame([{"measure": "harish_round", "path": "all", "value": None, "unit": "us",
                   "trials": 0, "note": "not run: no GPU"}]).to_csv(
        here / "benchmarks" / "launch_floor.csv", index=False)
    pd.DataFrame([{"measure": "harish_round", "path": "native", "value": 19.1, "unit": "us",
                   "trials": 7, "note": "", "device": "NVIDIA H100 80GB HBM3"},
                  {"measure": "harish_round", "path": "graphrepro", "value": 19.8, "unit": "us",
                   "trials": 7, "note": "graph replay", "device": "NVIDIA H100 80GB HBM3"}]
                 ).to_csv(reference / "benchmarks" / "launch_floor.csv", index=False)
    floor = _launch_floor(here, reference)  # nothing measured here: the reference's is shown
    assert floor["where"] == "the reference run's machine" and floor["native_round_us"] == 19.1
    table = pd.DataFrame({"graph": ["ny"], "Harish us/iteration": ["147"], "x": ["1"]})
    shown = _beside_floor(table, floor)
    assert list(shown.columns) == ["graph", "Harish us/iteration",
                                   "Harish us/iteration: native floor", "x"]
    assert shown.iloc[0, 2] == "19.1"
    assert _launch_floor(tmp_path / "none", tmp_path / "none") is None


@pytest.mark.skipif(not gpu.simulated(), reason="needs a kernel numba cannot prepare")
def test_a_kernel_that_cannot_be_prepared_is_an_error_unless_a_fallback_is_asked_for(monkeypatch):
    from graphrepro.errors import DeviceUnavailable

    monkeypatch.setattr(launch, "mode", lambda: "native")
    monkeypatch.delenv("GRAPHREPRO_LAUNCH_FALLBACK", raising=False)
    stream = cuda.stream()
    out = cuda.to_device(np.zeros(4, dtype=np.int64), stream=stream)
    with pytest.raises(DeviceUnavailable, match="GRAPHREPRO_LAUNCH=numba"):
        launch.Launch(_add, 1, 32, stream, out, 3, 1)
    monkeypatch.setenv("GRAPHREPRO_LAUNCH_FALLBACK", "1")
    with pytest.warns(UserWarning, match="numba's own launches"):
        add = launch.Launch(_add, 1, 32, stream, out, 3, 1)  # the simulator's kernels have no
    add()                                                    # compiled form to prepare
    assert not add.native
    assert np.array_equal(out.copy_to_host(), 3 + np.arange(4))
