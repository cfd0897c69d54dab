rule run_solver:
    input:
        graph=f"{RES}/graphs/{{graph}}.npz",
        sources=f"{RES}/sources/{{graph}}.json",
    output:
        f"{RES}/runs/{{graph}}/{{solver}}.csv",
    params:
        trials=config["measure"]["trials"],
        warmup=config["measure"]["warmup"],
    resources:
        # timed runs take the machine one at a time, so no run's time includes another's load
        timing=1,
        gpu=lambda w: 1 if resolve(w.solver)[0].device == "gpu" else 0,
    log:
        f"{RES}/logs/runs/{{graph}}/{{solver}}.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro run {input.graph} --solver {wildcards.solver} --sources {input.sources} "
        "--trials {params.trials} --warmup {params.warmup} --output {output} 2> {log}"
