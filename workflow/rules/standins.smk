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
