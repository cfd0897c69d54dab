# Road stand-ins measured against the real graphs at hand (offline mirrors or earlier downloads):
#   snakemake --cores 2 standins --config offline_mirrors='[../shared/realdata]'
# Nothing is downloaded; with no real road data at hand the table is empty and the report says so.


rule standins:
    output:
        f"{RES}/standins/standins.csv",
    log:
        f"{RES}/logs/standins.log",
    benchmark:
        f"{RES}/job_stats/standins.tsv"
    conda:
        CONDA_ENV
    params:
        py=PY,
        args=lambda w: [
            "--data",
            DATA,
            "--registry",
            REGISTRY,
            *MIRROR_ARGS,
            "--seed",
            str(config["seed"]),
            "--sources",
            "16",
        ],
    shell:
        "{params.py:q} -m graphrepro standins {params.args:q} --output {output:q} > {log:q} 2>&1"


# gerritsen2012's per-block timings on a real terrain beside its stand-in (config `terrain_compare:`)
TC = config.get("terrain_compare") or {}
TC_MST = terrain_compare_parts(config)[1]


rule terrain_blocks_mst:
    input:
        f"{RES}/terrain/{{terrain}}.zgrid",
    output:
        table=f"{RES}/benchmarks/terrain_compare/{{terrain}}_mst_{{variant}}.csv",
        provenance=f"{RES}/benchmarks/terrain_compare/{{terrain}}_mst_{{variant}}.provenance.json",
    log:
        f"{RES}/logs/benchmarks/terrain_compare_{{terrain}}_mst_{{variant}}.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/terrain_compare_{{terrain}}_mst_{{variant}}.tsv"
    wildcard_constraints:
        terrain=_one_of([TC[k] for k in ("real", "standin") if k in TC]),
        variant=_one_of(TC_MST),
    conda:
        lambda w: conda_env(g12_device(w.variant))
    # timed like gerritsen2012_mst_blocks: alone on the CPU, or one GPU
    threads: lambda w: timed_threads(g12_device(w.variant))
    resources:
        **timed(lambda w: g12_device(w.variant), terrain_mem_mb),
    params:
        anchors=ANCHOR_ARGS,  # (common.smk)
        # a CPU-timed job on a GPU host's timed cores (pin_words, common.smk)
        py=lambda w: [*pin_words(g12_device(w.variant)), *PY],
        args=[
            "--block-side",
            str(TC.get("block_side", 32)),
            "--blocks",
            str(TC.get("blocks", 16)),
            "--trials",
            str(TC.get("trials", 3)),
        ],
    shell:
        "{params.py:q} -m graphrepro mst-blocks {input:q} --variant {wildcards.variant:q} "
        "{params.args:q} {params.anchors:q} --output {output.table:q} 2> {log:q}"


rule terrain_blocks_sssp:
    input:
        f"{RES}/terrain/{{terrain}}.zgrid",
    output:
        table=f"{RES}/benchmarks/terrain_compare/{{terrain}}_sssp.csv",
        provenance=f"{RES}/benchmarks/terrain_compare/{{terrain}}_sssp.provenance.json",
    log:
        f"{RES}/logs/benchmarks/terrain_compare_{{terrain}}_sssp.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/terrain_compare_{{terrain}}_sssp.tsv"
    wildcard_constraints:
        terrain=_one_of([TC[k] for k in ("real", "standin") if k in TC]),
    conda:
        CONDA_GPU_ENV
    # Table 5.1 times CPU and GPU phases in one job, as gerritsen2012_sssp_bench does
    threads: timed_threads("cpu+gpu")
    resources:
        **timed(lambda w: "cpu+gpu", terrain_mem_mb, runtime=120),
    params:
        anchors=ANCHOR_ARGS,  # (common.smk)
        # a CPU-timed job on a GPU host's timed cores (pin_words, common.smk)
        py=lambda w: [*pin_words("cpu+gpu"), *PY],  # per job: it may refuse
        settings=json.dumps(TC.get("sssp") or {}),
        # scratch, removed by the command once the table is made (no declared output, as in
        # gerritsen2012_sssp_bench)
        workdir=lambda w: f"{RES}/work/terrain_compare_{w.terrain}",
    shell:
        "{params.py:q} -m graphrepro sssp-experiment table5_1 --terrain {input:q} "
        "--settings {params.settings:q} --workdir {params.workdir:q} {params.anchors:q} --output {output.table:q} "
        "2> {log:q}"


rule terrain_compare:
    input:
        lambda w: [
            f
            for k in ("real", "standin")
            for v in _tc_inputs(k).values()
            for f in ([v] if isinstance(v, str) else v)
        ],
    output:
        table=f"{RES}/standins/terrain_compare.csv",
        meta=f"{RES}/standins/terrain_compare.json",  # which terrain is real, which the stand-in
    log:
        f"{RES}/logs/terrain_compare.log",
    benchmark:
        f"{RES}/job_stats/terrain_compare.tsv"
    conda:
        CONDA_ENV
    params:
        py=PY,
        args=lambda w: [
            a
            for k in ("real", "standin")
            for a in (
                f"--{k}",
                _tc_inputs(k)["zgrid"],
                f"--{k}-mst",
                *_tc_inputs(k)["mst"],
                f"--{k}-sssp",
                *_tc_inputs(k)["sssp"],
            )
        ],
    shell:
        "{params.py:q} -m graphrepro terrain-compare {params.args:q} --output {output.table:q} > {log:q} 2>&1"
