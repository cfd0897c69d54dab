rule generate_graph:
    output:
        f"{RES}/graphs/{{graph}}.gr",
    params:
        py=PY,
        args=lambda w: generate_args(w.graph),
    log:
        f"{RES}/logs/generate/{{graph}}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro generate {params.args:q} --output {output:q} 2> {log:q}"


rule convert_graph:
    input:
        lambda w: graph_file(w.graph),
    output:
        f"{RES}/graphs/{{graph}}.npz",
    wildcard_constraints:
        graph=_one_of(FILE_GRAPHS),  # registry datasets: rule dataset_graph (datasets.smk)
    params:
        py=PY,
        reweight=lambda w: reweight_args(graph_config(w.graph)),
    log:
        f"{RES}/logs/convert/{{graph}}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro convert {input:q} --name {wildcards.graph:q} "
        "{params.reweight:q} --output {output:q} 2> {log:q}"


rule draw_sources:
    input:
        f"{RES}/graphs/{{graph}}.npz",
    output:
        f"{RES}/sources/{{graph}}.json",
    params:
        py=PY,
        n=config["measure"]["sources"],
        seed=config["seed"],
        stands_for=lambda w: (["--stands-for", graph_config(w.graph)["stands_for"]]
                              if graph_config(w.graph).get("stands_for") else []),
    log:
        f"{RES}/logs/sources/{{graph}}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro sources {input:q} --count {params.n:q} --seed {params.seed:q} "
        "{params.stands_for:q} --output {output:q} 2> {log:q}"


# an2017's dense graphs: a descriptor, not a CSR cache; the matrix is generated where it is used.
rule dense_graph:
    output:
        f"{RES}/graphs/{{graph}}.npz",
    wildcard_constraints:
        graph=DENSE_GRAPH,
    params:
        py=PY,
        args=lambda w: dense_args(w.graph),
    log:
        f"{RES}/logs/dense/{{graph}}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro dense {params.args:q} --name {wildcards.graph:q} "
        "--output {output:q} 2> {log:q}"


ruleorder: dense_graph > convert_graph
