# The committed reference run's ledger, and the config files its own record names, to credit
# each reference table with its own runs' provenance.
REFERENCE_CLAIMS = os.path.join(REFERENCE, "claims.csv")
REFERENCE_CONFIG = [str(p) for p in reference_configfiles(REFERENCE, workflow.basedir)]


# The one claims ledger: every target's claim rows (and a row for each claim whose target this
# config does not build), merged with the reference run's rows (report/ledger.py::precedence),
# each naming its run; the page, its summary and `graphrepro claims` all read it.
rule claims:
    input:
        [f"{RES}/targets/{t}.claims.csv" for t in ready_targets()],
        reference_claims=lambda w: [REFERENCE_CLAIMS] if os.path.exists(REFERENCE_CLAIMS) else [],
    output:
        report(CLAIMS, category="Claims", caption="../report/claims.rst"),
    log:
        f"{RES}/logs/claims.log",
    conda:
        CONDA_ENV
    params:
        py=PY,
        results=lambda w: RES,
        reference=REFERENCE,
    shell:
        "{params.py:q} -m graphrepro claims --results {params.results:q} "
        "--reference {params.reference:q} --output {output:q} > {log:q} 2>&1"


localrules:
    report,
    claims,


rule report:
    input:
        tables=[f"{RES}/targets/{t}.csv" for t in ready_targets()],
        figures=[f"{RES}/figures/{t}.png" for t in figure_targets()],
        claims=CLAIMS,
        reference_claims=lambda w: [REFERENCE_CLAIMS] if os.path.exists(REFERENCE_CLAIMS) else [],
        standins=f"{RES}/standins/standins.csv",
        terrain_compare=terrain_compare_outputs(),
        # what the page says of each graph, terrain and run: read under --results, declared here
        # so that an executor sharing no file system brings them along
        sources=sorted({f for t in ready_targets() for f in target_sources(t)}),
        terrains=[f"{RES}/terrain/{t}.zgrid.origin.json" for t in TERRAINS],
        provenance=sorted(
            {
                f[: -len(".csv")] + ".provenance.json"
                for t in ready_targets()
                for f in target_runs(t)
            }
        ),
    output:
        html=report(config["report"], category="Report", caption="../report/page.rst"),
        # counts by verdict for the closing lines of the run (Snakefile: onsuccess)
        summary=os.path.splitext(config["report"])[0] + ".summary.json",
    log:
        f"{RES}/logs/report.log",
    conda:
        CONDA_ENV
    params:
        py=PY,
        results=lambda w: RES,  # where the inputs above lie (the page finds them by their names)
        reference=REFERENCE,
        config=lambda w: CONFIGFILE,  # a function: braces in the path are not wildcards
        reference_claims=REFERENCE_CLAIMS,
        reference_config=REFERENCE_CONFIG,
    shell:
        "{params.py:q} -m graphrepro report --results {params.results:q} "
        "--reference {params.reference:q} --config {params.config:q} --claims {input.claims:q} "
        "--reference-claims {params.reference_claims:q} "
        "--reference-config {params.reference_config:q} --output {output.html:q} 2> {log:q}"
