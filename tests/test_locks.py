"""Issue 56 item 2 (the rest): the GPU environment locked as requirements.lock is (hashed, by
pip-compile from pyproject.toml, CUDA 12's cupy and numba-cuda), and the reference run's exact
packages, as its provenance records them, as a lock pip installs."""

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "reports" / "reference"


def _pins(lock: Path) -> dict[str, str]:
    """{name: version} of a hashed lock, after checking every pin carries its sha256."""
    text = lock.read_text()
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+) \\$", text, re.M))
    blocks = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", text)[1:]
    assert len(blocks) == len(pins) and pins
    for block in blocks:
        assert "--hash=sha256:" in block, block.splitlines()[0]
    return {k.lower(): v for k, v in pins.items()}


def _command(lock: Path) -> str:
    header = "".join(line.lstrip("# ") for line in lock.read_text().splitlines()[:8])
    assert "pip-compile" in header and "--generate-hashes" in header, header
    return header


def test_the_gpu_environment_is_locked_like_the_cpu_one():
    gpu, cpu = REPO / "requirements-gpu.lock", REPO / "requirements.lock"
    assert "--extra=gpu-cu12" in _command(gpu) and "--extra=test" in _command(gpu)
    pins, cpu_pins = _pins(gpu), _pins(cpu)
    assert pins["numba-cuda"].startswith("0.") and "cupy-cuda12x" in pins
    assert any(name.startswith("nvidia-") and "cu12" in name for name in pins)
    # the two environments agree on every package they share but the CUDA 12 bindings (the CPU
    # lock has numba-cuda's default, CUDA 13's)
    differ = sorted(k for k in set(pins) & set(cpu_pins) if pins[k] != cpu_pins[k])
    assert differ == ["cuda-bindings"], differ
    assert pins["cuda-bindings"].startswith("12.")
    assert set(cpu_pins) <= set(pins)


def test_the_reference_runs_packages_are_recorded_as_exact_pins_pip_installs():
    """reports/reference/requirements.txt is `lock-from-run`'s file of the reference record:
    its pins are the record's, each hashed (pip checks every file), the header saying the run
    recorded seven packages and nothing else."""
    from packaging.requirements import Requirement

    recorded = json.loads((REFERENCE / "provenance.json").read_text())["packages"]
    for prov in sorted((REFERENCE / "runs").glob("*/*.provenance.json")):
        assert json.loads(prov.read_text())["packages"] == recorded, prov
    text = (REFERENCE / "requirements.txt").read_text()
    assert "lock-from-run reports/reference/provenance.json" in text
    assert "only these 7 packages" in text
    pins = {}
    for line in text.replace("\\\n", " ").splitlines():  # what pip reads: continuations joined
        if line and not line.startswith("#"):
            req = Requirement(line.split(" --hash")[0].strip())
            (spec,) = req.specifier
            assert spec.operator == "==", line
            assert re.search(r"--hash=sha256:[0-9a-f]{64}", line), line
            pins[req.name] = spec.version
    assert pins == recorded
