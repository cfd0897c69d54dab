# The claims ledger: every target's claim rows (and a row for each claim whose target this config
# does not build), beside the report.
rule claims:
    input:
        [f"{RES}/targets/{t}.claims.csv" for t in ready_targets()],
    output:
        CLAIMS,
    log:
        f"{RES}/logs/claims.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro claims --results {RES} --output {output} > {log} 2>&1"


rule report:
    input:
        tables=[f"{RES}/targets/{t}.csv" for t in ready_targets()],
        figures=[f"{RES}/figures/{t}.png" for t in ready_targets()],
        claims=CLAIMS,
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
        "--config {params.config} --claims {input.claims} --output {output} 2> {log}"
