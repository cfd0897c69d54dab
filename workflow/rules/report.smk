# The claims ledger: every target's claim rows (and a row for each claim whose target this config
# does not build), beside the report.
rule claims:
    input:
        [f"{RES}/targets/{t}.claims.csv" for t in ready_targets()],
    output:
        CLAIMS,
    params:
        py=PY,
        results=lambda w: RES,
    log:
        f"{RES}/logs/claims.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro claims --results {params.results:q} --output {output:q} > {log:q} 2>&1"


rule report:
    input:
        tables=[f"{RES}/targets/{t}.csv" for t in ready_targets()],
        figures=[f"{RES}/figures/{t}.png" for t in ready_targets()],
        claims=CLAIMS,
    output:
        config["report"],
    params:
        py=PY,
        results=lambda w: RES,  # a folder of many inputs, not one file
        reference=REFERENCE,
        config=lambda w: CONFIGFILE,  # a function: braces in the path are not wildcards
    log:
        f"{RES}/logs/report.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro report --results {params.results:q} "
        "--reference {params.reference:q} --config {params.config:q} --claims {input.claims:q} "
        "--output {output:q} 2> {log:q}"
