# gerritsen2012 chapter 5: one benchmark table per target (`python -m graphrepro sssp-experiment`),
# measured on the target's terrain with its `settings:`; rule compare_target makes the table.
import json

GERRITSEN_SSSP = [t for t in config["targets"] if t.startswith("gerritsen2012_table5_")]
for _t in GERRITSEN_SSSP:  # a misspelt terrain fails here, before anything runs
    for _terrain in config["targets"][_t].get("terrains") or []:
        if _terrain not in (config.get("terrains") or {}):
            raise ValueError(f"target {_t} names terrain {_terrain!r}, which is not under terrains:")


def sssp_terrain(name):
    terrains = config["targets"][name].get("terrains") or []
    if len(terrains) != 1:
        raise ValueError(f"target {name} needs exactly one terrain under terrains:")
    return f"{RES}/terrain/{terrains[0]}.zgrid"


rule gerritsen2012_sssp_bench:
    input:
        lambda w: sssp_terrain(w.name),
    output:
        f"{RES}/benchmarks/{{name}}.csv",
    wildcard_constraints:
        name="|".join(GERRITSEN_SSSP) or "(?!)",
    params:
        py=PY,
        table=lambda w: w.name.replace("gerritsen2012_", ""),
        settings=lambda w: json.dumps(config["targets"][w.name].get("settings") or {}),
        workdir=lambda w: f"{RES}/work/{w.name}",
    resources:
        timing=1,
        gpu=1,
    log:
        f"{RES}/logs/benchmarks/{{name}}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro sssp-experiment {params.table:q} --terrain {input:q} "
        "--settings {params.settings:q} --workdir {params.workdir:q} --output {output:q} 2> {log:q}"
