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
MIRROR_ARGS = [a for d in config.get("offline_mirrors") or []
               for a in ("--mirror", os.path.abspath(d))]
DATASET_GRAPHS = [g for g, c in config["graphs"].items() if "dataset" in c]
FILE_GRAPHS = [g for g, c in config["graphs"].items() if "dataset" not in c]
TERRAINS = config.get("terrains") or {}


# Downloads run where snakemake runs (a login node has the network; compute nodes often do not).
localrules:
    dataset_graph,
    convert_dem,
    datasets,


rule dataset_graph:
    output:
        graph=f"{RES}/graphs/{{graph}}.npz",
        origin=f"{RES}/graphs/{{graph}}.origin.json",
    wildcard_constraints:
        graph=_one_of(DATASET_GRAPHS),
    params:
        py=PY,
        args=lambda w: dataset_graph_args(w.graph),
    resources:
        mem_mb=lambda w: graph_mem_mb(w.graph, 2.0),  # a real file parsed, or a stand-in made
    log:
        f"{RES}/logs/datasets/{{graph}}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro dataset-graph {params.args:q} --output {output.graph:q} "
        "2> {log:q}"


rule convert_dem:
    output:
        zgrid=f"{RES}/terrain/{{terrain}}.zgrid",
        meta=f"{RES}/terrain/{{terrain}}.zgrid.json",
        origin=f"{RES}/terrain/{{terrain}}.zgrid.origin.json",
    wildcard_constraints:
        terrain=_one_of(TERRAINS),
    params:
        py=PY,
        args=lambda w: terrain_args(w.terrain),
    log:
        f"{RES}/logs/terrain/{{terrain}}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro dem {params.args:q} --output {output.zgrid:q} 2> {log:q}"


rule datasets:
    """Every dataset graph and terrain of the config (`snakemake --cores all datasets`)."""
    input:
        dataset_outputs(),
