def calibration_file(w):
    """safari2017's N comes from Harish's runs on the same graph: those run first."""
    by = resolve(w.solver)[0].calibrated_by
    return [f"{RES}/calibration/{w.graph}/{by}.json"] if by else []


rule calibrate:
    input:
        f"{RES}/runs/{{graph}}/{{solver}}.csv",
    output:
        f"{RES}/calibration/{{graph}}/{{solver}}.json",
    params:
        py=PY,
    log:
        f"{RES}/logs/calibration/{{graph}}/{{solver}}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro calibrate {input:q} --output {output:q} 2> {log:q}"


rule run_solver:
    input:
        graph=f"{RES}/graphs/{{graph}}.npz",
        sources=f"{RES}/sources/{{graph}}.json",
        calibration=calibration_file,
    output:
        f"{RES}/runs/{{graph}}/{{solver}}.csv",
    params:
        py=PY,
        trials=config["measure"]["trials"],
        warmup=config["measure"]["warmup"],
        calibration=lambda w, input: ["--calibration", *input.calibration] if input.calibration else [],
    resources:
        # timed runs take the machine one at a time, so no run's time includes another's load
        timing=1,
        gpu=lambda w: 1 if resolve(w.solver)[0].device == "gpu" else 0,
    log:
        f"{RES}/logs/runs/{{graph}}/{{solver}}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro run {input.graph:q} --solver {wildcards.solver:q} "
        "--sources {input.sources:q} --trials {params.trials:q} --warmup {params.warmup:q} "
        "{params.calibration:q} --output {output:q} 2> {log:q}"
