# A graph's generate -> convert -> sources chain is one job on a cluster (group graph_prep; the
# slurm profile puts several graphs in one, run one step at a time: `prep` is 1 within a job);
# the dense descriptor is a few bytes, made here.
localrules:
    dense_graph,


rule generate_graph:
    output:
        f"{RES}/graphs/{{graph}}.gr",
    log:
        f"{RES}/logs/generate/{{graph}}.log",
    benchmark:
        f"{RES}/job_stats/generate/{{graph}}.tsv"
    wildcard_constraints:
        graph=_one_of([g for g, c in config["graphs"].items() if "generate" in c]),
    group:
        "graph_prep"
    conda:
        CONDA_ENV
    resources:
        prep=1,
        runtime=10,
    params:
        py=PY,
        args=lambda w: generate_args(w.graph),
    shell:
        "{params.py:q} -m graphrepro generate {params.args:q} --output {output:q} 2> {log:q}"


rule convert_graph:
    input:
        lambda w: graph_file(w.graph),
    output:
        f"{RES}/graphs/{{graph}}.npz",
    log:
        f"{RES}/logs/convert/{{graph}}.log",
    benchmark:
        f"{RES}/job_stats/convert/{{graph}}.tsv"
    wildcard_constraints:
        # registry datasets: rule dataset_graph (datasets.smk); dense ones: rule dense_graph (a
        # group job that finds a dense descriptor made outside it must not try to convert it)
        graph=_one_of([g for g in FILE_GRAPHS if g not in dense_graph_names()]),
    group:
        "graph_prep"
    conda:
        CONDA_ENV
    resources:
        mem_mb=lambda w: graph_mem_mb(w.graph, 2.0),  # text in, arrays out
        runtime=10,
        prep=1,
    params:
        py=PY,
        reweight=lambda w: reweight_args(graph_config(w.graph)),
        # a generated graph is synthetic; a user's file gets an origin record naming it
        generated=lambda w: ["--generated"] if "generate" in graph_config(w.graph) else [],
    shell:
        "{params.py:q} -m graphrepro convert {input:q} --name {wildcards.graph:q} "
        "{params.reweight:q} {params.generated:q} --output {output:q} 2> {log:q}"


rule draw_sources:
    input:
        f"{RES}/graphs/{{graph}}.npz",
    output:
        f"{RES}/sources/{{graph}}.json",
    log:
        f"{RES}/logs/sources/{{graph}}.log",
    benchmark:
        f"{RES}/job_stats/sources/{{graph}}.tsv"
    group:
        "graph_prep"
    conda:
        CONDA_ENV
    # the references from many sources at once, so the graph's GPU runs start soon after it
    threads: prep_threads()
    resources:
        # the reference Dijkstra from every source, on the whole graph (a dense one's matrix)
        mem_mb=lambda w: graph_mem_mb(w.graph),
        runtime=20,
        prep=1,
    params:
        py=PY,
        n=lambda w: sources_of(config, w.graph),
        seed=config["seed"],
        stands_for=lambda w: (
            ["--stands-for", graph_config(w.graph)["stands_for"]]
            if graph_config(w.graph).get("stands_for")
            else []
        ),
    shell:
        "{params.py:q} -m graphrepro sources {input:q} --count {params.n:q} --seed {params.seed:q} "
        "{params.stands_for:q} --workers {threads} --output {output:q} 2> {log:q}"


# an2017's dense graphs: a descriptor, not a CSR cache; the matrix is generated where it is used.
rule dense_graph:
    output:
        f"{RES}/graphs/{{graph}}.npz",
    log:
        f"{RES}/logs/dense/{{graph}}.log",
    benchmark:
        f"{RES}/job_stats/dense/{{graph}}.tsv"
    wildcard_constraints:
        graph=DENSE_GRAPH,
    conda:
        CONDA_ENV
    params:
        py=PY,
        args=lambda w: dense_args(w.graph),
    shell:
        "{params.py:q} -m graphrepro dense {params.args:q} --name {wildcards.graph:q} "
        "--output {output:q} 2> {log:q}"


ruleorder: dense_graph > convert_graph
