# The claims ledger: this run's (reports/claims.csv) where a rule of the workflow writes it, the
# committed reference run's where it exists. Without them the report reads the target tables'
# own verdict columns (report/ledger.py: the interim source).
CLAIMS = os.path.join(os.path.dirname(config["report"]), "claims.csv")
REFERENCE_CLAIMS = os.path.join(REFERENCE, "claims.csv")
# the reference run's config (reports/reference/README.md), to credit each table with its runs
REFERENCE_CONFIG = [os.path.join(workflow.basedir, "config", f) for f in ("config.yaml", "h100.yaml")]


def claims_inputs(wildcards):
    made = any(CLAIMS in map(str, r.output) for r in workflow.rules)
    return ([CLAIMS] if made else []) + (
        [REFERENCE_CLAIMS] if os.path.exists(REFERENCE_CLAIMS) else [])


rule report:
    input:
        tables=[f"{RES}/targets/{t}.csv" for t in ready_targets()],
        figures=[f"{RES}/figures/{t}.png" for t in ready_targets()],
        claims=claims_inputs,
    output:
        html=config["report"],
        # counts by verdict for the closing lines of the run (Snakefile: onsuccess)
        summary=os.path.splitext(config["report"])[0] + ".summary.json",
    params:
        config=CONFIGFILE,
        reference_config=REFERENCE_CONFIG,
    log:
        f"{RES}/logs/report.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro report --results {RES} --reference {REFERENCE} "
        "--claims {CLAIMS} --reference-claims {REFERENCE_CLAIMS} "
        "--reference-config {params.reference_config} "
        "--config {params.config} --output {output.html} 2> {log}"
