localrules:
    report,


rule report:
    input:
        tables=[f"{RES}/targets/{t}.csv" for t in ready_targets()],
        figures=[f"{RES}/figures/{t}.png" for t in ready_targets()],
    output:
        config["report"],
    params:
        config=CONFIGFILE,
    log:
        f"{RES}/logs/report.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro report --results {RES} --reference {REFERENCE} "
        "--config {params.config} --output {output} 2> {log}"
