def calibration_file(w):
    """safari2017's N comes from Harish's runs on the same graph: those run first."""
    by = resolve(w.solver)[0].calibrated_by
    return [f"{RES}/calibration/{w.graph}/{by}.json"] if by else []


localrules:
    calibrate,


rule calibrate:
    input:
        f"{RES}/runs/{{graph}}/{{solver}}.csv",
    output:
        f"{RES}/calibration/{{graph}}/{{solver}}.json",
    log:
        f"{RES}/logs/calibration/{{graph}}/{{solver}}.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro calibrate {input} --output {output} 2> {log}"


rule run_solver:
    input:
        graph=f"{RES}/graphs/{{graph}}.npz",
        sources=f"{RES}/sources/{{graph}}.json",
        calibration=calibration_file,
    output:
        f"{RES}/runs/{{graph}}/{{solver}}.csv",
    params:
        trials=config["measure"]["trials"],
        warmup=config["measure"]["warmup"],
        calibration=lambda w, input: f"--calibration {input.calibration}" if input.calibration else "",
    threads: lambda w: timed_threads(solver_device(w.solver))
    resources:
        # no run's time includes another's load: see timed_resources (common.smk)
        **timed(lambda w: solver_device(w.solver), lambda w, input: graph_mem_mb(w.graph, input.size_mb)),
    group:
        # `--group-components cpu_runs=N gpu_runs=N` (slurm profile): a sweep is a few jobs
        lambda w: f"{solver_device(w.solver)}_runs"
    log:
        f"{RES}/logs/runs/{{graph}}/{{solver}}.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro run {input.graph} --solver {wildcards.solver} --sources {input.sources} "
        "--trials {params.trials} --warmup {params.warmup} {params.calibration} --output {output} 2> {log}"


# A graph with `shards: N` has its sources split into N contiguous slices, each its own timed job
# (with `--resources gpu=N timing=N`, or on a cluster, one per GPU), merged into the run table
# before any table reads it. Shards are never grouped: each is meant to have a GPU of its own.
SHARDED = {g: int(c.get("shards", 1)) for g, c in config["graphs"].items() if c.get("shards", 1) > 1}


rule run_solver_shard:
    input:
        graph=f"{RES}/graphs/{{graph}}.npz",
        sources=f"{RES}/sources/{{graph}}.json",
        calibration=calibration_file,
    output:
        f"{RES}/shards/{{graph}}/{{solver}}.{{shard}}.csv",
    wildcard_constraints:
        graph=_one_of(SHARDED),
        shard=r"\d+",
    params:
        trials=config["measure"]["trials"],
        warmup=config["measure"]["warmup"],
        calibration=lambda w, input: f"--calibration {input.calibration}" if input.calibration else "",
        shard=lambda w: f"{w.shard}/{SHARDED[w.graph]}",
    threads: lambda w: timed_threads(solver_device(w.solver))
    resources:
        **timed(lambda w: solver_device(w.solver), lambda w, input: graph_mem_mb(w.graph, input.size_mb)),
    log:
        f"{RES}/logs/shards/{{graph}}/{{solver}}.{{shard}}.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro run {input.graph} --solver {wildcards.solver} --sources {input.sources} "
        "--trials {params.trials} --warmup {params.warmup} {params.calibration} "
        "--shard {params.shard} --output {output} 2> {log}"


localrules:
    merge_run_shards,


rule merge_run_shards:
    input:
        lambda w: [f"{RES}/shards/{w.graph}/{w.solver}.{i}.csv" for i in range(SHARDED[w.graph])],
    output:
        f"{RES}/runs/{{graph}}/{{solver}}.csv",
    wildcard_constraints:
        graph=_one_of(SHARDED),
    log:
        f"{RES}/logs/runs/{{graph}}/{{solver}}.merge.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro merge-runs {input} --output {output} 2> {log}"


ruleorder: merge_run_shards > run_solver
