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


def test_markers_are_strict_and_every_test_has_a_timeout(request):
    # a misspelt marker (@pytest.mark.slwo) is an error, not a test that silently runs in the
    # wrong lane; a hung simulator kernel fails its own test after the timeout
    assert "--strict-markers" in request.config.getini("addopts")
    assert request.config.pluginmanager.hasplugin("timeout")
    assert float(request.config.getini("timeout")) >= 600
