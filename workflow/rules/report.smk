rule report:
    input:
        tables=[f"{RES}/targets/{t}.csv" for t in ready_targets()],
        figures=[f"{RES}/figures/{t}.png" for t in ready_targets()],
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
        "--reference {params.reference:q} --config {params.config:q} --output {output:q} 2> {log:q}"
