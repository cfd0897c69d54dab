# Shared names for the rules. Rules stay thin: each one is a `python -m graphrepro` call.
import json
import re
import shlex
import sys

from snakemake.settings.types import DeploymentMethod

sys.path.insert(0, os.path.join(workflow.basedir, "src"))  # a checkout works without installing
from graphrepro.experiments import get_target
from graphrepro.solvers import parse_run_id, resolve

SRC = os.path.join(workflow.basedir, "src")
CONDA_ENV = os.path.join(workflow.basedir, "envs", "graphrepro.yaml")
# A list, so `{params.py:q}` quotes each word: no config value or path is ever shell syntax.
if DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method:
    PY = ["env", f"PYTHONPATH={SRC}", "python"]  # --sdm conda: the env's python, our package
else:
    PY = [sys.executable]  # the interpreter running snakemake, so rules see the same packages
RES = config["results"]
REFERENCE = os.path.join(workflow.basedir, config["reference"])
CLAIMS = os.path.join(os.path.dirname(config["report"]) or ".", "claims.csv")  # beside the report
# The config the report names: the last --configfile given, else the embedded default. (snakemake
# lists --configfile files first and appends the Snakefile's own configfile after them, so
# workflow.configfiles[-1] would always be the default even when a user config overrides it.)
_CLI_CONFIGFILES = list(workflow.overwrite_configfiles or [])
CONFIGFILE = str(_CLI_CONFIGFILES[-1] if _CLI_CONFIGFILES else
                 (workflow.configfiles[-1] if workflow.configfiles else ""))


def ready_targets():
    """The configured targets whose code exists (planned ones are listed, not run)."""
    return [name for name in config["targets"] if get_target(name).ready]


def target_run_ids(name):
    """The runs a target needs: the config's `runs:` list if given, else the target's own."""
    return config["targets"][name].get("runs") or list(get_target(name).solvers)


def target_graphs(name):
    """A target's graphs; targets that read only benchmark tables (gerritsen2012's) have none."""
    return config["targets"][name].get("graphs") or []


def target_also(name):
    """{graph: [run ids]} a target reads besides its own graphs' runs (config key `also`)."""
    return config["targets"][name].get("also") or {}


def target_runs(name):
    return ([f"{RES}/runs/{g}/{r}.csv" for g in target_graphs(name) for r in target_run_ids(name)]
            + [f"{RES}/runs/{g}/{r}.csv" for g, rs in target_also(name).items() for r in rs])


def target_sources(name):
    graphs = target_graphs(name) + [g for g in target_also(name) if g not in target_graphs(name)]
    return [f"{RES}/sources/{g}.json" for g in graphs]


def graph_config(name):
    try:
        return config["graphs"][name]
    except KeyError:
        raise ValueError(f"graph {name!r} is used by a target but not defined under graphs:") from None


def option_args(spec):
    """`{k: v}` as argv words `--k v` (a list: the shell lines quote each word with `:q`)."""
    return [w for k, v in sorted(spec.items()) for w in (f"--{k.replace('_', '-')}", str(v))]


def generate_args(name):
    spec = dict(graph_config(name)["generate"])
    return [spec.pop("kind"), *option_args(spec)]


def dense_graph_names():
    """Graphs given as `dense:` (an2017): their .npz is a descriptor made by rule dense_graph."""
    return [g for g, c in config["graphs"].items() if "dense" in c]


DENSE_GRAPH = "|".join(re.escape(g) for g in dense_graph_names()) or "(?!)"  # (?!): matches nothing


def dense_args(name):
    return option_args(graph_config(name)["dense"])


def target_benchmarks(name):
    """Benchmark tables a target reads besides its runs (an2017_transfers)."""
    return [f"{RES}/benchmarks/{b}.csv" for b in get_target(name).benchmarks]


def graph_file(name):
    cfg = graph_config(name)
    return cfg["file"] if "file" in cfg else f"{RES}/graphs/{name}.gr"


for _name in config["targets"]:
    get_target(_name)  # an unknown target, solver or parameter fails here, before anything runs
    for _run in target_run_ids(_name):
        resolve(_run)
    for _g in target_graphs(_name) + list(target_also(_name)):
        graph_config(_g)
    for _runs in target_also(_name).values():
        for _run in _runs:
            resolve(_run)
