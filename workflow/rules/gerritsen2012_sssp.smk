# gerritsen2012 chapter 5: one benchmark table per target (`python -m graphrepro sssp-experiment`),
# measured on the target's terrain with its `settings:`; rule compare_target makes the table.
import json

GERRITSEN_SSSP = [t for t in config["targets"] if t.startswith("gerritsen2012_table5_")]
for _t in GERRITSEN_SSSP:  # a misspelt terrain fails here, before anything runs
    for _terrain in config["targets"][_t].get("terrains") or []:
        if _terrain not in (config.get("terrains") or {}):
            raise ValueError(
                f"target {_t} names terrain {_terrain!r}, which is not under terrains:"
            )


rule gerritsen2012_sssp_bench:
    input:
        lambda w: sssp_terrain(w.name),
    output:
        table=f"{RES}/benchmarks/{{name}}.csv",
        provenance=f"{RES}/benchmarks/{{name}}.provenance.json",
    log:
        f"{RES}/logs/benchmarks/{{name}}.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/{{name}}.tsv"
    wildcard_constraints:
        name="|".join(GERRITSEN_SSSP) or "(?!)",
    conda:
        CONDA_GPU_ENV
    threads: timed_threads("cpu+gpu")
    resources:
        # CPU and GPU phases are timed in the same job: it holds a GPU and the whole machine
        **timed(lambda w: "cpu+gpu", terrain_mem_mb, runtime=120),
    params:
        anchors=ANCHOR_ARGS,  # (common.smk)
        # a CPU-timed job on a GPU host's timed cores (pin_words, common.smk)
        py=lambda w: [*pin_words("cpu+gpu"), *PY],  # per job: it may refuse
        table=lambda w: w.name.replace("gerritsen2012_", ""),
        settings=lambda w: json.dumps(config["targets"][w.name].get("settings") or {}),
        # scratch (G', windows of the grid), removed once the table is made; no declared output:
        # snakemake would delete it before a rerun, and Table 5.7 journals its finished block
        # sizes there to go on from them in the next time-boxed call (timeboxed.py's WORK)
        workdir=lambda w: f"{RES}/work/{w.name}",
    shell:
        "{params.py:q} -m graphrepro sssp-experiment {params.table:q} --terrain {input:q} "
        "--settings {params.settings:q} --workdir {params.workdir:q} {params.anchors:q} --output {output.table:q} 2> {log:q}"
