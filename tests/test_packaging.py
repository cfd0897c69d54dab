"""pyproject.toml and envs/*.yaml name the same packages with the same lower bounds; the wheel's
package data holds the dataset registry and the default config (.ci/wheel-check runs the wheel)."""

import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
# conda-forge names for PyPI ones, where they differ
CONDA_NAME = {"cupy-cuda13x": "cupy", "cupy-cuda12x": "cupy"}
# in pyproject but not in the rules' envs: snakemake runs the rules, it is not needed inside them
NOT_IN_ENVS = {"snakemake"}


def _pyproject():
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def _requirement(text):
    m = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]+\])?\s*(.*)", text.strip())
    return m[1].lower(), m[3].replace(" ", "")


def _env(name):
    deps, pip = {}, {}
    for item in yaml.safe_load((REPO / "envs" / name).read_text())["dependencies"]:
        if isinstance(item, dict):
            pip.update(_requirement(r) for r in item["pip"])
        else:
            parts = item.split(None, 1)
            deps[parts[0].lower()] = parts[1].replace(" ", "") if len(parts) > 1 else ""
    return {**deps, **pip}


def test_envs_match_pyproject():
    runtime = dict(_requirement(r) for r in _pyproject()["dependencies"])
    base, gpu = _env("graphrepro.yaml"), _env("graphrepro-gpu.yaml")
    for name, bound in runtime.items():
        if name in NOT_IN_ENVS:
            assert name not in base
            continue
        assert base.get(name) == bound, f"envs/graphrepro.yaml: {name} {base.get(name)!r} != {bound!r}"
        assert gpu.get(name) == bound, f"envs/graphrepro-gpu.yaml: {name}"
    extra = dict(_requirement(r) for r in _pyproject()["optional-dependencies"]["gpu"])
    for name, bound in extra.items():
        conda = CONDA_NAME.get(name, name)
        assert gpu.get(conda) == bound, f"envs/graphrepro-gpu.yaml: {conda} {gpu.get(conda)!r} != {bound!r}"
    assert "cupy" not in base  # the CPU env stays without the CUDA libraries
    assert "pyarrow" not in runtime and "pyarrow" not in base  # nothing reads parquet


def test_gpu_extras_name_their_cuda():
    extras = _pyproject()["optional-dependencies"]
    assert "numba-cuda[cu13]>=0.20" in extras["gpu"] and any("cupy-cuda13x" in r for r in extras["gpu"])
    assert "numba-cuda[cu12]>=0.20" in extras["gpu-cu12"] and any("cupy-cuda12x" in r for r in extras["gpu-cu12"])


def test_registry_and_default_config_are_package_data():
    from graphrepro.datasets.registry import DEFAULT_LOCK, DEFAULT_REGISTRY, SCHEMA

    package = REPO / "src" / "graphrepro"
    for path in (DEFAULT_REGISTRY, DEFAULT_LOCK, SCHEMA):
        assert path.is_file()
        assert path.resolve().parent.parent in (REPO / "config", REPO)  # the repository's own files
    assert (package / "config").resolve() == REPO / "config"
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = data["graphrepro"]
    for name in ("config/datasets.yaml", "config/datasets.lock.json", "config/config.yaml",
                 "config/schema/datasets.schema.yaml"):
        assert any(Path(name).match(p) for p in patterns), name
