# Road stand-ins measured against the real graphs at hand (offline mirrors or earlier downloads):
#   snakemake --cores 2 standins --config offline_mirrors='[../shared/realdata]'
# Nothing is downloaded; with no real road data at hand the table is empty and the report says so.


rule standins:
    output:
        f"{RES}/standins/standins.csv",
    params:
        args=lambda w: (f"--data {DATA} --registry {REGISTRY}{MIRROR_ARGS} "
                        f"--seed {config['seed']} --sources 16"),
    log:
        f"{RES}/logs/standins.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro standins {params.args} --output {output} > {log} 2>&1"


# gerritsen2012's per-block timings on a real terrain beside its stand-in (config `terrain_compare:`)
TC = config.get("terrain_compare") or {}
TC_MST = TC.get("mst_variants", ["cpu_baseline", "gpu_baseline"])


def terrain_compare_outputs():
    return [f"{RES}/standins/terrain_compare.csv"] if TC else []


rule terrain_blocks_mst:
    input:
        f"{RES}/terrain/{{terrain}}.zgrid",
    output:
        f"{RES}/benchmarks/terrain_compare/{{terrain}}_mst_{{variant}}.csv",
    wildcard_constraints:
        terrain=_one_of([TC[k] for k in ("real", "standin") if k in TC]),
        variant=_one_of(TC_MST),
    params:
        args=(f"--block-side {TC.get('block_side', 32)} --blocks {TC.get('blocks', 16)} "
              f"--trials {TC.get('trials', 3)}"),
    log:
        f"{RES}/logs/benchmarks/terrain_compare_{{terrain}}_mst_{{variant}}.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro mst-blocks {input} --variant {wildcards.variant} {params.args} "
        "--output {output} 2> {log}"


rule terrain_blocks_sssp:
    input:
        f"{RES}/terrain/{{terrain}}.zgrid",
    output:
        f"{RES}/benchmarks/terrain_compare/{{terrain}}_sssp.csv",
    wildcard_constraints:
        terrain=_one_of([TC[k] for k in ("real", "standin") if k in TC]),
    params:
        settings=shlex.quote(json.dumps(TC.get("sssp") or {})),
    log:
        f"{RES}/logs/benchmarks/terrain_compare_{{terrain}}_sssp.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro sssp-experiment table5_1 --terrain {input} --settings {params.settings} "
        "--workdir {RES}/work/terrain_compare_{wildcards.terrain} --output {output} 2> {log}"


def _tc_inputs(which):
    name = TC[which]
    return {"zgrid": f"{RES}/terrain/{name}.zgrid",
            "mst": [f"{RES}/benchmarks/terrain_compare/{name}_mst_{v}.csv" for v in TC_MST],
            "sssp": [f"{RES}/benchmarks/terrain_compare/{name}_sssp.csv"]}


rule terrain_compare:
    input:
        lambda w: [f for k in ("real", "standin") for v in _tc_inputs(k).values()
                   for f in ([v] if isinstance(v, str) else v)],
    output:
        f"{RES}/standins/terrain_compare.csv",
    params:
        args=lambda w: " ".join(
            f"--{k.replace('standin', 'standin')} {_tc_inputs(k)['zgrid']} "
            f"--{k}-mst {' '.join(_tc_inputs(k)['mst'])} --{k}-sssp {' '.join(_tc_inputs(k)['sssp'])}"
            for k in ("real", "standin")),
    log:
        f"{RES}/logs/terrain_compare.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro terrain-compare {params.args} --output {output} > {log} 2>&1"
