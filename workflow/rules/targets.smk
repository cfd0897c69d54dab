rule compare_target:
    input:
        runs=lambda w: target_runs(w.target),
        sources=lambda w: target_sources(w.target),
    output:
        table=report(f"{RES}/targets/{{target}}.csv", category="{target}",
                     caption="../report/target_table.rst"),
        figure=report(f"{RES}/figures/{{target}}.png", category="{target}",
                      caption="../report/target_figure.rst"),
    log:
        f"{RES}/logs/targets/{{target}}.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro compare {wildcards.target} --runs {input.runs} "
        "--sources {input.sources} --output {output.table} --figure {output.figure} 2> {log}"


# One named rule per published table or figure: `snakemake --cores all safari2017_table2`.
for _target in ready_targets():

    rule:
        name:
            _target
        input:
            f"{RES}/targets/{_target}.csv",
            f"{RES}/figures/{_target}.png",
