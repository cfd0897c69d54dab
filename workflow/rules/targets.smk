# A table and a figure from small CSVs: quicker here than an sbatch each. A target whose code
# draws no figure (Target.figure None) gets its table only (compare_table): no blank PNG reaches
# the page or `snakemake --report`.
localrules:
    compare_target,
    compare_table,


rule compare_target:
    input:
        runs=lambda w: target_runs(w.target),
        sources=lambda w: target_sources(w.target),
        benchmarks=lambda w: target_benchmarks(w.target),
    output:
        table=report(
            f"{RES}/targets/{{target}}.csv",
            category="{target}",
            caption="../report/target_table.rst",
        ),
        figure=report(
            f"{RES}/figures/{{target}}.png",
            category="{target}",
            caption="../report/target_figure.rst",
        ),
        claims=f"{RES}/targets/{{target}}.claims.csv",
    log:
        f"{RES}/logs/targets/{{target}}.log",
    wildcard_constraints:
        target=_one_of(figure_targets()),
    conda:
        CONDA_ENV
    params:
        py=PY,
        sampling=sampling_args(),
        caption=figure_caption,
    shell:
        compare_shell(figure=True)


rule compare_table:
    input:
        runs=lambda w: target_runs(w.target),
        sources=lambda w: target_sources(w.target),
        benchmarks=lambda w: target_benchmarks(w.target),
    output:
        table=report(
            f"{RES}/targets/{{target}}.csv",
            category="{target}",
            caption="../report/target_table.rst",
        ),
        claims=f"{RES}/targets/{{target}}.claims.csv",
    log:
        f"{RES}/logs/targets/{{target}}.log",
    wildcard_constraints:
        target=_one_of([t for t in ready_targets() if t not in figure_targets()]),
    conda:
        CONDA_ENV
    params:
        py=PY,
        sampling=sampling_args(),
    shell:
        compare_shell(figure=False)


# an2017 section 4.1: transfers timed outside any solver run, on the target's dense graphs.
rule transfer_benchmark:
    input:
        graphs=lambda w: [
            f"{RES}/graphs/{g}.npz" for g in config["targets"]["an2017_transfers"]["graphs"]
        ],
        sources=lambda w: target_sources("an2017_transfers"),
    output:
        table=f"{RES}/benchmarks/an2017_transfers.csv",
        provenance=f"{RES}/benchmarks/an2017_transfers.provenance.json",
    log:
        f"{RES}/logs/benchmarks/an2017_transfers.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/an2017_transfers.tsv"
    conda:
        CONDA_GPU_ENV
    threads: 1
    resources:
        **timed(
            lambda w: "gpu",
            lambda w: max(
                graph_mem_mb(g) for g in config["targets"]["an2017_transfers"]["graphs"]
            ),
        ),
    params:
        anchors=ANCHOR_ARGS,  # (common.smk)
        py=PY,
        trials=config["measure"]["trials"],
        warmup=config["measure"]["warmup"],
    shell:
        "{params.py:q} -m graphrepro transfers {input.graphs:q} --sources {input.sources:q} "
        "--trials {params.trials:q} --warmup {params.warmup:q} {params.anchors:q} --output {output.table:q} 2> {log:q}"


# One named rule per published table or figure: `snakemake --cores all safari2017_table2`.
for _target in ready_targets():

    rule:
        name:
            _target
        input:
            f"{RES}/targets/{_target}.csv",
            [f"{RES}/figures/{_target}.png"] if _target in figure_targets() else [],
