localrules:
    calibrate,


rule calibrate:
    input:
        f"{RES}/runs/{{graph}}/{{solver}}.csv",
    output:
        f"{RES}/calibration/{{graph}}/{{solver}}.json",
    log:
        f"{RES}/logs/calibration/{{graph}}/{{solver}}.log",
    benchmark:
        f"{RES}/job_stats/calibration/{{graph}}/{{solver}}.tsv"
    conda:
        CONDA_ENV
    params:
        py=PY,
    shell:
        "{params.py:q} -m graphrepro calibrate {input:q} --output {output:q} 2> {log:q}"


rule run_solver:
    input:
        graph=f"{RES}/graphs/{{graph}}.npz",
        sources=f"{RES}/sources/{{graph}}.json",
        calibration=calibration_file,
        peers=peer_build,  # a peer's run (issue 33) waits for its build
    output:
        table=f"{RES}/runs/{{graph}}/{{solver}}.csv",
        provenance=f"{RES}/runs/{{graph}}/{{solver}}.provenance.json",  # written beside the table
    log:
        f"{RES}/logs/runs/{{graph}}/{{solver}}.log",
    benchmark:
        f"{RES}/job_stats/runs/{{graph}}/{{solver}}.tsv"
    priority: run_priority
    group:
        # `--group-components cpu_runs=N gpu_runs=N` (slurm profile): a sweep is a few jobs; runs
        # that wait for another's calibration (LBR after Harish) go in groups of their own
        lambda w: f"{solver_device(w.solver)}_runs" + ("_calibrated" if calibration_file(w) else "")
    conda:
        lambda w: conda_env(solver_device(w.solver))
    threads: lambda w: timed_threads(timed_device(w.solver))
    resources:
        # no run's time includes another's load: see timed_resources (common.smk)
        **timed(lambda w: timed_device(w.solver), lambda w: graph_mem_mb(w.graph), runtime=15),
    params:
        anchors=ANCHOR_ARGS,  # (common.smk)
        counting=lambda w: count_args(w.graph),
        py=lambda w: [*pin_words(timed_device(w.solver)), *PY],  # (pin_words: common.smk)
        trials=config["measure"]["trials"],
        warmup=config["measure"]["warmup"],
        calibration=lambda w, input: (
            ["--calibration", *input.calibration] if input.calibration else []
        ),
        sampling=lambda w: batch_args(w.graph, [w.solver]),  # (common.smk)
    shell:
        "{params.py:q} -m graphrepro run {input.graph:q} --solver {wildcards.solver:q} "
        "--sources {input.sources:q} --trials {params.trials:q} --warmup {params.warmup:q} {params.anchors:q} "
        "{params.calibration:q} {params.counting:q} {params.sampling:q} --output {output.table:q} 2> {log:q}"


# A graph with `shards: N` has its sources split into N contiguous slices, each its own timed job
# (with `--resources gpu=N timing=N`, or on a cluster, one per GPU), merged into the run table
# before any table reads it. Shards are never grouped: each is meant to have a GPU of its own.
SHARDED = {
    g: int(c.get("shards", 1)) for g, c in config["graphs"].items() if c.get("shards", 1) > 1
}


rule run_solver_shard:
    input:
        graph=f"{RES}/graphs/{{graph}}.npz",
        sources=f"{RES}/sources/{{graph}}.json",
        calibration=calibration_file,
        peers=peer_build,
    output:
        table=f"{RES}/shards/{{graph}}/{{solver}}.{{shard}}.csv",
        provenance=f"{RES}/shards/{{graph}}/{{solver}}.{{shard}}.provenance.json",
    log:
        f"{RES}/logs/shards/{{graph}}/{{solver}}.{{shard}}.log",
    benchmark:
        f"{RES}/job_stats/shards/{{graph}}/{{solver}}.{{shard}}.tsv"
    wildcard_constraints:
        graph=_one_of(SHARDED),
        shard=r"\d+",
    priority: run_priority
    conda:
        lambda w: conda_env(solver_device(w.solver))
    threads: lambda w: timed_threads(timed_device(w.solver))
    resources:
        **timed(lambda w: timed_device(w.solver), lambda w: graph_mem_mb(w.graph), runtime=15),
    params:
        anchors=ANCHOR_ARGS,  # (common.smk)
        counting=lambda w: count_args(w.graph),
        py=lambda w: [*pin_words(timed_device(w.solver)), *PY],  # (pin_words: common.smk)
        trials=config["measure"]["trials"],
        warmup=config["measure"]["warmup"],
        calibration=lambda w, input: (
            ["--calibration", *input.calibration] if input.calibration else []
        ),
        shard=lambda w: f"{w.shard}/{SHARDED[w.graph]}",
    shell:
        "{params.py:q} -m graphrepro run {input.graph:q} --solver {wildcards.solver:q} "
        "--sources {input.sources:q} --trials {params.trials:q} --warmup {params.warmup:q} {params.anchors:q} "
        "{params.calibration:q} {params.counting:q} --shard {params.shard:q} --output {output.table:q} 2> {log:q}"


localrules:
    merge_run_shards,


rule merge_run_shards:
    input:
        tables=lambda w: [
            f"{RES}/shards/{w.graph}/{w.solver}.{i}.csv" for i in range(SHARDED[w.graph])
        ],
        provenance=lambda w: [
            f"{RES}/shards/{w.graph}/{w.solver}.{i}.provenance.json"
            for i in range(SHARDED[w.graph])
        ],
        # merged into the run's
    output:
        table=f"{RES}/runs/{{graph}}/{{solver}}.csv",
        provenance=f"{RES}/runs/{{graph}}/{{solver}}.provenance.json",
    log:
        f"{RES}/logs/runs/{{graph}}/{{solver}}.merge.log",
    wildcard_constraints:
        graph=_one_of(SHARDED),
    conda:
        CONDA_ENV
    params:
        py=PY,
    shell:
        "{params.py:q} -m graphrepro merge-runs {input.tables:q} --output {output.table:q} 2> {log:q}"


ruleorder: merge_run_shards > run_solver


# A target's `interleave:` runs are timed in one job per graph (`graphrepro run --interleave`):
# per source, trial t of each back to back, so a drift of the machine while they run hits them
# alike and the ledger compares them paired by (source, trial) with no drift allowance (issue
# 30); on a graph with `shards: N`, one such job per shard (merge_run_shards joins each run's).
# These rules name their files outright, and snakemake prefers a rule without wildcards to
# run_solver and run_solver_shard for them.
INTERLEAVED = interleaved_groups(config)


for _n, (_graph, _ids, _shard) in enumerate(
    (g, ids, i) for g, ids in INTERLEAVED for i in (range(SHARDED[g]) if g in SHARDED else [None])
):

    rule:
        name:
            f"run_interleaved_{_n}"
        input:
            graph=f"{RES}/graphs/{_graph}.npz",
            sources=f"{RES}/sources/{_graph}.json",
            calibration=interleaved_calibration(_graph, _ids),
        output:
            tables=interleaved_files(_graph, _ids, _shard, ".csv"),
            provenance=interleaved_files(_graph, _ids, _shard, ".provenance.json"),
        log:
            f"{RES}/logs/runs/{_graph}/interleaved_{_n}.log"
            if _shard is None
            else f"{RES}/logs/shards/{_graph}/interleaved_{_n}.{_shard}.log",
        benchmark:
            f"{RES}/job_stats/runs/{_graph}/interleaved_{_n}.tsv"
            if _shard is None
            else f"{RES}/job_stats/shards/{_graph}/interleaved_{_n}.{_shard}.tsv"
        priority: group_priority(_graph, _ids)
        conda:
            conda_env(solver_device(_ids[0]))
        threads: timed_threads(timed_device(*_ids))
        resources:
            **timed(
                lambda w, d=timed_device(*_ids): d,
                lambda w, g=_graph: graph_mem_mb(g),
                runtime=15 * len(_ids),
            ),
        params:
            anchors=ANCHOR_ARGS,  # (common.smk)
            counting=count_args(_graph),
            py=lambda w, ids=_ids: [*pin_words(timed_device(*ids)), *PY],  # as run_solver's
            trials=config["measure"]["trials"],
            warmup=config["measure"]["warmup"],
            first=_ids[0],
            rest=list(_ids[1:]),
            rest_tables=interleaved_files(_graph, _ids, _shard, ".csv")[1:],
            calibration=lambda w, input: (
                ["--calibration", *input.calibration] if input.calibration else []
            ),
            shard=[] if _shard is None else ["--shard", f"{_shard}/{SHARDED[_graph]}"],
            sampling=batch_args(_graph, _ids),  # (common.smk)
        shell:
            "{params.py:q} -m graphrepro run {input.graph:q} --solver {params.first:q} "
            "--sources {input.sources:q} --trials {params.trials:q} --warmup {params.warmup:q} {params.anchors:q} "
            "{params.calibration:q} {params.shard:q} {params.counting:q} {params.sampling:q} --output {output.tables[0]:q} --interleave {params.rest:q} "
            "--interleave-output {params.rest_tables:q} 2> {log:q}"
