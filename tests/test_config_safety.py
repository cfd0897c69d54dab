"""Config is data, never code: hostile names are refused by the schema in one line, and whatever
reaches a shell line is quoted, so nothing in a config (or a config file's path) ever runs.

The snakemake runs here are small: a dry run of a hostile config (refused before any rule), and
one real run of a 4 x 4 grid whose config file lies in a folder named like a command substitution.
"""

import copy
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrepro.configcheck import check_config
from graphrepro.errors import InputError

REPO = Path(__file__).resolve().parents[1]

BASE = {
    "results": "results", "report": "reports/index.html", "seed": 1,
    "measure": {"sources": 2, "trials": 1, "warmup": 0},
    "graphs": {"g": {"generate": {"kind": "road_grid", "rows": 4, "cols": 4, "keep": 1.0,
                                  "max_weight": 10, "seed": 1}}},
    "targets": {"safari2017_table2": {"graphs": ["g"], "runs": ["harish"]}},
}

# Characters a shell gives meaning to, and white space: every hostile value holds at least one.
SHELL = ";|&$`()<>\\'\"*?[]{}!#~\n\t "


def hostile(chars=SHELL):
    return st.builds(lambda a, c, b: a + c + b, st.text(max_size=6), st.sampled_from(chars),
                     st.text(max_size=6))


def _rename_graph(cfg, new):
    cfg["graphs"] = {new: cfg["graphs"]["g"]}
    cfg["targets"]["safari2017_table2"]["graphs"] = [new]


# Every config place whose value reaches a file name or a command line.
PLACES = {
    "graph name": _rename_graph,
    "target graph": lambda c, v: c["targets"]["safari2017_table2"].update(graphs=[v]),
    "stands_for": lambda c, v: c["graphs"]["g"].update(stands_for=v),
    "run id": lambda c, v: c["targets"]["safari2017_table2"].update(runs=[f"lbr@k={v}"]),
    "run id key": lambda c, v: c["targets"]["safari2017_table2"].update(runs=[f"lbr@{v}=1"]),
    "dataset key": lambda c, v: c["graphs"].update(d={"dataset": v}),
    "terrain name": lambda c, v: c.update(terrains={v: {"dataset": "jacksboro_dem"}}),
    "terrain dataset": lambda c, v: c.update(terrains={"t": {"dataset": v}}),
    "data": lambda c, v: c.update(data=v),
    "results": lambda c, v: c.update(results=v),
    "report": lambda c, v: c.update(report=v),
    "registry": lambda c, v: c.update(registry=v),
    "reference": lambda c, v: c.update(reference=v),
    "file": lambda c, v: c["graphs"].update(f={"file": v}),
}


def _refusal(cfg) -> str:
    with pytest.raises(InputError) as e:
        check_config(cfg)
    return str(e.value)


def _merged(base, new):
    """Config files merged key by key, as snakemake merges --configfile over the default."""
    out = dict(base)
    for key, value in new.items():
        out[key] = (_merged(out[key], value) if isinstance(value, dict)
                    and isinstance(out.get(key), dict) else value)
    return out


def test_a_widened_sweep_or_a_table_of_every_run_passes():
    cfg = copy.deepcopy(BASE)
    cfg["targets"]["safari2017_table2"]["runs"] = ["lbr@k=7,t=3"]  # its solver, other parameters
    cfg["targets"]["frontier_sssp"] = {"graphs": ["g"], "runs": ["dijkstra", "bfs"]}  # every run
    check_config(cfg)


def test_the_shipped_configs_pass():
    default = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    check_config(default)
    for name in ("paper.yaml", "h100.yaml", "h100-gerritsen-full.yaml"):
        check_config(_merged(default, yaml.safe_load((REPO / "config" / name).read_text())))


@settings(max_examples=150, deadline=None)
@given(place=st.sampled_from(sorted(PLACES)), data=st.data())
def test_shell_characters_are_refused_everywhere(place, data):
    # a document's name may hold spaces and parentheses ("20,000 edges"): quoting carries those
    value = data.draw(hostile(SHELL.translate({ord(c): None for c in "() "})
                              if place == "stands_for" else SHELL))
    cfg = copy.deepcopy(BASE)
    PLACES[place](cfg, value)
    message = _refusal(cfg)
    assert message.startswith("bad config: ") and "\n" not in message.rstrip("\n") or \
        repr(value) in message  # the value is shown escaped, so its own newline is not a line


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(["results", "report"]),
       path=st.one_of(st.builds("/{}".format, st.from_regex(r"[a-z/]{0,10}", fullmatch=True)),
                      st.builds("{}../{}".format, st.from_regex(r"([a-z]+/)?", fullmatch=True),
                                st.from_regex(r"[a-z/.]{0,8}", fullmatch=True))))
def test_output_paths_stay_below_the_working_directory(key, path):
    cfg = copy.deepcopy(BASE)
    cfg[key] = path
    parts = [p for p in path.split("/") if p]
    if key == "results" and path.startswith("/") and len(parts) >= 2 and ".." not in parts:
        # a cluster's scratch folder (/scratch/me/results: issue 56, scale-out): an absolute
        # results folder two or more levels deep is allowed; / or /tmp alone never
        return
    assert f"{key}: " in _refusal(cfg)


@pytest.mark.parametrize("path", ["/", "/scratch", "/scratch/../etc", "/scratch/./x"])
def test_an_absolute_results_folder_is_refused_unless_two_plain_levels_deep(path):
    cfg = copy.deepcopy(BASE)
    cfg["results"] = path
    assert "results: " in _refusal(cfg)


@pytest.mark.parametrize("edit, says", [
    (lambda c: c["graphs"]["g"].update(reweight={"low": 9, "high": 2, "seed": 1}), "low 9 > high 2"),
    (lambda c: c["graphs"].update(d={"dense": {"vertices": 4, "desnity": 0.5}}), "desnity"),
    (lambda c: c["measure"].update(trials="3"), "measure/trials: '3' is not of type 'integer'"),
    (lambda c: c["targets"].update(gerritsen2012_table5_2={"terrains": ["t"],
                                                         "settings": {"block": "64"}}),
     "block: '64' is not a number"),
    (lambda c: c["targets"]["safari2017_table2"].update(runs=["lbr@k=2,k=3"]), "twice"),
    (lambda c: c["targets"]["safari2017_table2"].update(graphs=["nope"]), "'nope' is not defined"),
    # a run its table has no place for would be run, verified and dropped without a word
    (lambda c: c["targets"]["safari2017_table2"].update(runs=["harish", "dijkstra"]),
     "targets/safari2017_table2/runs: run 'dijkstra' cannot be shown by target "
     "safari2017_table2's table (its solvers: harish, lbr, lbr_persistent)"),
    (lambda c: c["graphs"].update(r={"generate": {"kind": "road_grid", "rows": 3, "cols": 3,
                                                  "max_weight": 0}}),
     "graphs/r/generate/max_weight: 0 is less than the minimum of 1"),
])
def test_values_that_would_fail_deep_in_a_job_are_refused_up_front(edit, says):
    cfg = copy.deepcopy(BASE)
    cfg["terrains"] = {"t": {"dataset": "jacksboro_dem"}}
    edit(cfg)
    assert says in _refusal(cfg)


def test_a_registry_file_name_cannot_leave_the_data_folder(tmp_path):
    from graphrepro.datasets import load_registry

    reg = yaml.safe_load((REPO / "config" / "datasets.yaml").read_text())
    for bad in ("../../outside.gr.gz", "/etc/x.gr", "a/b.gr", ".."):
        entry = reg["datasets"]["ny"]
        entry["file"] = bad
        path = tmp_path / f"reg{abs(hash(bad))}.yaml"
        path.write_text(yaml.safe_dump(reg))
        with pytest.raises(InputError, match="ny/file"):
            load_registry(str(path))


def _snakemake(workdir: Path, cfg: Path, *args):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
         *args, "--cores", "2", "--replace-workflow-config", "--configfile", str(cfg)],
        capture_output=True, text=True, env=dict(os.environ), timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("dry", [True, False])
def test_a_hostile_config_runs_nothing(tmp_path, dry):
    marker = tmp_path / "MARKER"
    cfg = copy.deepcopy(BASE)
    evil = f"x;touch {marker};#"
    _rename_graph(cfg, "g1;touch${IFS}" + str(marker) + ";#")
    cfg["graphs"][next(iter(cfg["graphs"]))]["stands_for"] = f"a'; touch {marker}; '"
    cfg["targets"]["safari2017_table2"]["runs"] = [f"lbr_persistent@frontier=$(touch {marker})"]
    cfg["data"] = evil
    cfg["results"] = f"r`touch {marker}`"
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump(cfg))
    result = _snakemake(tmp_path, path, *(["-n", "-p"] if dry else []))
    assert result.returncode != 0
    [line] = [x for x in (result.stdout + result.stderr).splitlines() if "bad config: " in x]
    assert "graphs: " in line and "results: " in line and "data: " in line and "runs/0: " in line
    assert not marker.exists()
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_every_value_reaches_the_command_line_as_one_word(tmp_path):
    """A real run with a config file in a folder named like a command substitution, and a
    stands_for with spaces and parentheses: each arrives as one argument, nothing runs."""
    workdir = tmp_path / "w $(touch MARKER) `touch MARKER` {HOME}"  # run there: MARKER is local
    workdir.mkdir()
    cfg = copy.deepcopy(BASE)
    cfg["reference"] = str(tmp_path / "no-reference")
    cfg["graphs"]["g"]["stands_for"] = "New York (a, b) 1+2/3"
    path = workdir / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    dry = _snakemake(workdir, path, "-n", "-p", "--quiet", "host")  # the profile is terse
    assert dry.returncode == 0, dry.stderr
    lines = [x for x in (dry.stdout + dry.stderr).splitlines() if " -m graphrepro " in x]
    argvs = [shlex.split(x.split("2>")[0]) for x in lines]
    assert any(["--config", str(path)] == a[i:i + 2] for a in argvs for i in range(len(a)))
    assert any(["--stands-for", "New York (a, b) 1+2/3"] == a[i:i + 2]
               for a in argvs for i in range(len(a)))
    real = _snakemake(workdir, path)
    assert real.returncode == 0, real.stderr
    assert (workdir / "reports" / "index.html").is_file()
    assert not list(tmp_path.rglob("MARKER"))


def test_lint_reports_nothing_about_shell_commands():
    result = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"),
                             "--lint"], capture_output=True, text=True, cwd=REPO, timeout=300)
    lints = result.stdout + result.stderr
    assert "Shell command" not in lints and "by index in shell commands" not in lints
    assert "is a prefix of input or output file but hardcoded" not in lints
