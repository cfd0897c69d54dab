"""One suite for both kinds of machine: `pytest --gpu` runs the GPU tests on the device, and is
refused in one line where there is none (rather than quietly falling back to the simulator)."""

from __future__ import annotations

import conftest
import machine
import pytest


class _Config:
    def __init__(self, gpu):
        self.gpu = gpu

    def getoption(self, name):
        assert name == "--gpu"
        return self.gpu


def test_the_gpu_switch_is_refused_without_a_device(monkeypatch):
    monkeypatch.setattr(machine, "real_cuda_device", lambda: False)
    with pytest.raises(pytest.UsageError, match="--gpu: no CUDA device here"):
        conftest.pytest_configure(_Config(gpu=True))
    conftest.pytest_configure(_Config(gpu=False))  # the simulator needs no device
    monkeypatch.setattr(machine, "real_cuda_device", lambda: True)
    conftest.pytest_configure(_Config(gpu=True))
