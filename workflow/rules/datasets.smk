# Graphs and terrains from the dataset registry (config/datasets.yaml).
#   graphs: {NAME: {dataset: KEY, scale: F, reweight: {low, high, seed}}}
#   datasets: paper    the real file where it can be had (downloaded once into `data:`), else the
#                      labelled stand-in; `standin` (the default) always the stand-in
#   terrains: {NAME: {dataset: KEY, scale: F}}   gerritsen2012's z-order conversion
# Every graph still ends as {results}/graphs/{name}.npz; its origin (real: URL and sha256; or
# stand-in: generator, seed, the original's counts) is written beside it and reaches the report.
import re
import shlex

DATASETS_MODE = config.get("datasets", "standin")
DATA = config.get("data", "resources/datasets")
# The registry (its lock file of first-seen checksums lies beside it); a config may name another.
REGISTRY = os.path.abspath(config.get("registry") or
                           os.path.join(workflow.basedir, "config", "datasets.yaml"))
# Offline mirrors (config `offline_mirrors:`, plus $GRAPHREPRO_OFFLINE_MIRRORS, which rules inherit)
MIRROR_ARGS = "".join(f" --mirror {shlex.quote(os.path.abspath(d))}"
                      for d in config.get("offline_mirrors") or [])
DATASET_GRAPHS = [g for g, c in config["graphs"].items() if "dataset" in c]
FILE_GRAPHS = [g for g, c in config["graphs"].items() if "dataset" not in c]
TERRAINS = config.get("terrains") or {}


def _one_of(names):
    """A wildcard constraint matching exactly these names (never matching when there are none)."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


def reweight_args(cfg):
    r = cfg.get("reweight")
    return f"--reweight {r['low']} {r['high']} {r['seed']}" if r else ""


def dataset_graph_args(name):
    cfg = graph_config(name)
    return (f"{cfg['dataset']} --mode {DATASETS_MODE} --data {DATA} --registry {REGISTRY} "
            f"--name {name} --scale {cfg.get('scale', 1.0)} {reweight_args(cfg)}{MIRROR_ARGS}")


def terrain_args(name):
    cfg = TERRAINS[name]
    which = "--mode standin --no-mirrors" if cfg.get("standin") else f"--mode {DATASETS_MODE}{MIRROR_ARGS}"
    return (f"{cfg['dataset']} {which} --data {DATA} --registry {REGISTRY} "
            f"--scale {cfg.get('scale', 1.0)}")


def terrain_outputs():
    return [f"{RES}/terrain/{t}.zgrid" for t in TERRAINS]


def dataset_outputs():
    """Every registry graph and terrain the config names: `--config datasets=paper` fetches and
    verifies each of them, whether or not a target uses it yet."""
    return [f"{RES}/graphs/{g}.npz" for g in DATASET_GRAPHS] + terrain_outputs()


rule dataset_graph:
    output:
        f"{RES}/graphs/{{graph}}.npz",
        f"{RES}/graphs/{{graph}}.origin.json",
    wildcard_constraints:
        graph=_one_of(DATASET_GRAPHS),
    params:
        args=lambda w: dataset_graph_args(w.graph),
    log:
        f"{RES}/logs/datasets/{{graph}}.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro dataset-graph {params.args} --output {output[0]} 2> {log}"


rule convert_dem:
    output:
        f"{RES}/terrain/{{terrain}}.zgrid",
        f"{RES}/terrain/{{terrain}}.zgrid.json",
        f"{RES}/terrain/{{terrain}}.zgrid.origin.json",
    wildcard_constraints:
        terrain=_one_of(TERRAINS),
    params:
        args=lambda w: terrain_args(w.terrain),
    log:
        f"{RES}/logs/terrain/{{terrain}}.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro dem {params.args} --output {output[0]} 2> {log}"


rule datasets:
    """Every dataset graph and terrain of the config (`snakemake --cores all datasets`)."""
    input:
        dataset_outputs(),
