"""pyproject.toml and envs/*.yaml name the same packages with the same lower bounds; the wheel's
package data holds the dataset registry and the default config (.ci/wheel-check runs the wheel)."""

import re
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
# conda-forge names for PyPI ones, where they differ
CONDA_NAME = {"cupy-cuda13x": "cupy", "cupy-cuda12x": "cupy"}
# in pyproject but not in the rules' envs: snakemake runs the rules, it is not needed inside them
# what the snakemake process itself runs (its logger plugin), never a rule's job
NOT_IN_ENVS = {"snakemake", "snakemake-interface-logger-plugins"}


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


def test_each_requirement_once_and_the_envs_without_test_tools():
    names = [_requirement(r)[0] for r in _pyproject()["dependencies"]]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    # `snakemake --report` needs pygments: a plain `pip install .` must bring it
    assert any(r.startswith("snakemake[reports]") for r in _pyproject()["dependencies"])
    extras = _pyproject()["optional-dependencies"]
    # the test extra also pins Boost for the BGL tests; the rules' envs need it (the boost extra)
    test_only = ({_requirement(r)[0] for r in extras["test"]}
                 - {_requirement(r)[0] for r in extras["boost"]})
    for name in ("graphrepro.yaml", "graphrepro-gpu.yaml"):
        env = yaml.safe_load((REPO / "envs" / name).read_text())
        assert env["channels"] == ["conda-forge", "nodefaults"], name
        assert not test_only & set(_env(name)), f"envs/{name}: {sorted(test_only & set(_env(name)))}"


def test_the_private_api_users_are_bounded_to_the_majors_we_test():
    runtime = dict(_requirement(r) for r in _pyproject()["dependencies"])
    assert runtime["snakemake"] == ">=9,<10"
    assert runtime["numba-cuda"].endswith(",<0.31")  # 0.x: each minor may move the internals


def test_gpu_extras_name_their_cuda():
    extras = _pyproject()["optional-dependencies"]
    for extra, cuda in (("gpu", "13"), ("gpu-cu12", "12")):
        assert f"numba-cuda[cu{cuda}]>=0.21.1,<0.31" in extras[extra]
        assert any(f"cupy-cuda{cuda}x" in r for r in extras[extra])


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


def test_an_installed_wheel_records_checksums_in_the_users_data_directory(tmp_path, monkeypatch):
    """A checkout records first-seen checksums in the repository's lock; an installed wheel in
    $XDG_DATA_HOME/graphrepro/, starting from the packaged lock, never into site-packages."""
    from graphrepro.datasets import registry
    from graphrepro.datasets.download import read_lock, record_lock

    assert registry.DEFAULT_LOCK == registry.PACKAGED_LOCK  # this checkout: config/ is a link
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    user = registry._user_lock()
    assert user == tmp_path / "graphrepro" / "datasets.lock.json"
    monkeypatch.setattr(registry, "DEFAULT_LOCK", user)  # as in a wheel
    packaged = read_lock(registry.PACKAGED_LOCK)
    assert read_lock(user) == packaged and not user.exists()
    record_lock(user, "zz_new", url="u", file="f", size=1, sha256="0" * 64)
    assert set(read_lock(user)) == set(packaged) | {"zz_new"}
    assert "zz_new" not in read_lock(registry.PACKAGED_LOCK)


def test_configs_merge_as_snakemake_does():
    """configs.merge is snakemake's update_config over the files: mappings merge key by key, a
    list or None replaces what was there."""
    import tempfile

    from graphrepro.configs import merge

    docs = [{"a": {"x": 1, "l": [1, 2]}, "b": 1, "n": {"k": 1}},
            {"a": {"l": [3], "y": None}, "b": {"new": 2}, "n": None}]
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, doc in enumerate(docs):
            paths.append(Path(d) / f"{i}.yaml")
            paths[-1].write_text(yaml.safe_dump(doc))
        assert merge(paths) == {"a": {"x": 1, "l": [3], "y": None}, "b": {"new": 2}, "n": None}


def test_the_lock_pins_every_requirement_within_its_bounds_with_hashes():
    """requirements.lock (pip-compile --generate-hashes, README's first command installs from
    it): every runtime and test requirement pinned to a version its bound allows, every pin
    with its sha256s, and no index or machine path in it."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    text = (REPO / "requirements.lock").read_text()
    pins = {canonicalize_name(m[1]): m[2]
            for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+) \\$", text, re.M)}
    blocks = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", text)[1:]
    assert len(blocks) == len(pins) and all("--hash=sha256:" in b for b in blocks)
    assert "--index-url" not in text and "--find-links" not in text and "file://" not in text
    project = _pyproject()
    for line in project["dependencies"] + project["optional-dependencies"]["test"]:
        req = Requirement(line)
        name = canonicalize_name(req.name)
        assert name in pins, f"requirements.lock lacks {req.name}"
        assert req.specifier.contains(pins[name], prereleases=True), (line, pins[name])


def test_the_workflow_ships_in_the_package():
    """Snakefile, rules, profiles, report captions and conda envs are links in src/graphrepro to
    the repository's own files, each matched by a package-data pattern, so the wheel carries the
    whole workflow (`graphrepro study`; .ci/wheel-check dry-runs it from an installed wheel)."""
    package = REPO / "src" / "graphrepro"
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["graphrepro"]
    shipped = [REPO / "Snakefile", *(REPO / "envs").glob("*.yaml"),
               *(REPO / "workflow" / "rules").glob("*.smk"),
               *(REPO / "workflow" / "profiles").glob("*/*.yaml"),
               *(REPO / "workflow" / "report").glob("*.rst")]
    assert len(shipped) > 15
    for path in shipped:
        name = path.relative_to(REPO)
        assert (package / name).resolve() == path, name  # the link reaches the repository's file
        assert any(name.match(p) and len(name.parts) == len(Path(p).parts) for p in patterns), name


def test_study_runs_the_packaged_workflow_where_the_folder_has_none(tmp_path, monkeypatch):
    import subprocess

    from graphrepro import snakemake_args
    from graphrepro.cli import main

    monkeypatch.chdir(REPO)
    assert snakemake_args.snakefile() == []  # a checkout: Snakemake finds ./Snakefile itself
    monkeypatch.chdir(tmp_path)
    ran = []
    monkeypatch.setattr(subprocess, "call", lambda cmd: ran.append(cmd) or 0)
    assert main(["study", "--dry-run", "--cores", "2"]) == 0
    [cmd] = ran
    packaged = Path(cmd[cmd.index("--snakefile") + 1])
    assert packaged.resolve() == REPO / "Snakefile"
    assert cmd[-4:] == ["--cores", "2", "--dry-run", "--"]
    ran.clear()
    assert main(["study", "--conda", "--cores", "2"]) == 0
    assert ran[0][-4:] == ["2", "--sdm", "conda", "--"]


def test_boost_headers_is_an_extra_the_lock_and_the_rules_envs_still_carry():
    """The command line needs no Boost (180 MB): `boost` is an extra; the test extra, which the
    lock is compiled with, and the conda envs the rules run in keep it for the BGL baselines."""
    project = _pyproject()
    assert "boost-headers" not in {_requirement(r)[0] for r in project["dependencies"]}
    for extra in ("boost", "test"):
        assert "boost-headers>=1.80" in project["optional-dependencies"][extra]
    assert "boost-headers==" in (REPO / "requirements.lock").read_text()
    for name in ("graphrepro.yaml", "graphrepro-gpu.yaml"):
        assert _env(name)["boost-headers"] == ">=1.80"


def test_a_conda_job_imports_the_checkouts_src_or_the_installed_package_alone(tmp_path):
    """``--sdm conda`` jobs run the env's python with graphrepro on PYTHONPATH: a checkout's src/
    as it is; for the installed wheel (no src/ beside its Snakefile) a folder of one link to the
    package, not site-packages, whose numpy would shadow the env's."""
    import graphrepro
    from graphrepro.snakemake_args import job_pythonpath

    assert job_pythonpath(REPO / "src", tmp_path) == str(REPO / "src")
    wheel_src = tmp_path / "site-packages" / "graphrepro" / "src"  # the wheel's basedir + src
    path = Path(job_pythonpath(wheel_src, tmp_path))
    assert path == (tmp_path / ".snakemake" / "graphrepro-pythonpath").resolve()
    assert [p.name for p in path.iterdir()] == ["graphrepro"]
    assert (path / "graphrepro").resolve() == Path(graphrepro.__file__).resolve().parent
    assert job_pythonpath(wheel_src, tmp_path) == str(path)  # again: the same link, kept


FAKE_CONDA = """#!/bin/sh
# enough of conda for snakemake's dry run under --sdm conda (it asks, creates nothing)
case "$*" in
  "info --json") echo '{"conda_prefix": "PREFIX", "platform": "linux-64"}';;
  "--version") echo "conda 24.11.0";;
  "config --get channel_priority --json") echo '{"get": {"channel_priority": "strict"}}';;
  *) echo "fake conda: $*" >&2; exit 1;;
esac
"""


@pytest.mark.slow
def test_conda_jobs_from_the_packages_own_workflow_import_the_package_not_a_checkout(tmp_path):
    """The installed wheel's layout: the Snakefile in the package (src/graphrepro/Snakefile, as
    `graphrepro study` runs it), no src/ beside it. A dry run under --sdm conda shows every job's
    command line importing the package through its own folder."""
    import os
    import subprocess
    import sys

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "conda").write_text(FAKE_CONDA.replace("PREFIX", str(tmp_path / "prefix")))
    (fake / "conda").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    (work / "tiny.yaml").write_text("results: res\nreport: rep/index.html\n"
                                    "measure: {sources: 2, trials: 1, warmup: 0}\n")
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "src" / "graphrepro" / "Snakefile"),
         "-n", "-p", "--sdm", "conda", "--cores", "1", "--configfile", "tiny.yaml", "--",
         "res/runs/road_40x40/dijkstra.csv"],
        cwd=work, env=env, capture_output=True, text=True, timeout=600)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-3000:]
    commands = re.findall(r"Shell command: (.*)", text)
    folder = (work / ".snakemake" / "graphrepro-pythonpath").resolve()
    assert len(commands) == 4 and all(
        c.startswith(f"env PYTHONPATH={folder} python -m graphrepro ") for c in commands), commands
    assert (folder / "graphrepro").resolve() == REPO / "src" / "graphrepro"
