# Graphs and terrains from the dataset registry (config/datasets.yaml).
#   graphs: {NAME: {dataset: KEY, scale: F, reweight: {low, high, seed}}}
#   datasets: paper    the real file where it can be had (downloaded once into `data:`), else the
#                      labelled stand-in; `standin` (the default) always the stand-in
#   terrains: {NAME: {dataset: KEY, scale: F}}   gerritsen2012's z-order conversion
# A local job fetches each (its record: {results}/downloads/...json); a submitted one parses it.
# Every graph still ends as {results}/graphs/{name}.npz; its origin (real: URL and sha256; or
# stand-in: generator, seed, the original's counts) is written beside it and reaches the report.
import re
import shlex

DATASETS_MODE = config.get("datasets", "standin")
DATA = config.get("data", "resources/datasets")
# The registry (its lock file of first-seen checksums lies beside it); a config may name another.
REGISTRY = os.path.abspath(
    config.get("registry") or os.path.join(workflow.basedir, "config", "datasets.yaml")
)
# Offline mirrors (config `offline_mirrors:`, plus $GRAPHREPRO_OFFLINE_MIRRORS, which rules inherit)
MIRROR_ARGS = [
    a for d in config.get("offline_mirrors") or [] for a in ("--mirror", os.path.abspath(d))
]
DATASET_GRAPHS = [g for g, c in config["graphs"].items() if "dataset" in c]
FILE_GRAPHS = [g for g, c in config["graphs"].items() if "dataset" not in c]
TERRAINS = config.get("terrains") or {}


# Downloads run where snakemake runs (a login node has the network; compute nodes often do not);
# the parsing and conversion they feed are ordinary jobs, which read only the fetch's record.
localrules:
    fetch_dataset,
    downloads,
    datasets,


rule fetch_dataset:
    """Obtain a graph's or terrain's real file (download, offline mirror; verified) or settle on
    its stand-in, and record which; nothing is parsed here."""
    output:
        record=f"{RES}/downloads/{{kind}}/{{name}}.json",
        # the real file (a link to it), declared so that it reaches the parsing job's node
        files=directory(f"{RES}/downloads/{{kind}}/{{name}}.files"),
    log:
        f"{RES}/logs/downloads/{{kind}}/{{name}}.log",
    wildcard_constraints:
        kind="graphs|terrain",
        name=_one_of([*DATASET_GRAPHS, *TERRAINS]),
    conda:
        CONDA_ENV
    params:
        py=PY,
        args=lambda w: fetch_args(w.kind, w.name),
    shell:
        "{params.py:q} -m graphrepro fetch-record {params.args:q} --output {output.record:q} 2> {log:q}"


rule dataset_graph:
    input:
        fetched=f"{RES}/downloads/graphs/{{graph}}.json",
        files=f"{RES}/downloads/graphs/{{graph}}.files",
    output:
        graph=f"{RES}/graphs/{{graph}}.npz",
        origin=f"{RES}/graphs/{{graph}}.origin.json",
    log:
        f"{RES}/logs/datasets/{{graph}}.log",
    benchmark:
        f"{RES}/job_stats/datasets/{{graph}}.tsv"
    wildcard_constraints:
        graph=_one_of(DATASET_GRAPHS),
    conda:
        CONDA_ENV
    resources:
        mem_mb=lambda w: graph_mem_mb(w.graph, 2.0),  # a real file parsed, or a stand-in made
    params:
        py=PY,
        args=lambda w: dataset_graph_args(w.graph),
    shell:
        "{params.py:q} -m graphrepro dataset-graph {params.args:q} --fetched {input.fetched:q} "
        "--output {output.graph:q} 2> {log:q}"


rule convert_dem:
    input:
        fetched=f"{RES}/downloads/terrain/{{terrain}}.json",
        files=f"{RES}/downloads/terrain/{{terrain}}.files",
    output:
        zgrid=f"{RES}/terrain/{{terrain}}.zgrid",
        meta=f"{RES}/terrain/{{terrain}}.zgrid.json",
        origin=f"{RES}/terrain/{{terrain}}.zgrid.origin.json",
    log:
        f"{RES}/logs/terrain/{{terrain}}.log",
    benchmark:
        f"{RES}/job_stats/terrain/{{terrain}}.tsv"
    wildcard_constraints:
        terrain=_one_of(TERRAINS),
    conda:
        CONDA_ENV
    resources:
        mem_mb=terrain_mem_mb,  # the grid read whole, then its padded z-order copy
        runtime=60,  # the Neuse grid (221 M cells of ASCII) parses in minutes
    params:
        py=PY,
        args=lambda w: terrain_args(w.terrain),
    shell:
        "{params.py:q} -m graphrepro dem {params.args:q} --fetched {input.fetched:q} "
        "--output {output.zgrid:q} 2> {log:q}"


rule downloads:
    """Only the fetches of every dataset graph and terrain of the config (`snakemake --cores 1
    downloads` on a login node, before submitting the rest)."""
    input:
        fetch_outputs(),


rule datasets:
    """Every dataset graph and terrain of the config (`snakemake --cores all datasets`)."""
    input:
        dataset_outputs(),
