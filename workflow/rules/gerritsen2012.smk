# gerritsen2012 chapter 3 (issue 10): the I/O-efficient MST's measurements, as benchmark tables
# its targets read (experiments/gerritsen2012_mst.py). Settings: config `gerritsen2012_mst:`.
from graphrepro.experiments.gerritsen2012_mst_measured import FULL_REFERENCE as G12_FULL_REFERENCE
from graphrepro.solvers.gerritsen2012.mst_measure import VARIANTS as G12_VARIANTS, is_gpu

G12 = config.get("gerritsen2012_mst") or {}
# `block_shards: N` > 1 times each version's blocks in N jobs (every N-th block a job), merged
# into the one table per version before any table reads it, as a graph's `shards:` are.
G12_SHARDS = int(G12.get("block_shards", 1))
G12_BLOCK_ARGS = option_args(
    {
        "block_side": G12.get("block_side", 32),
        "blocks": G12.get("blocks", 16),
        "trials": G12.get("trials", 1),
    }
)
# Every centre block's reference, made once for the ten versions (block_check.py); named by its
# block side and count, so another choice of blocks makes its own.
G12_REFS = (
    f"{RES}/benchmarks/gerritsen2012_block_refs_{G12.get('block_side', 32)}x"
    f"{G12.get('blocks', 16)}.json"
)


rule gerritsen2012_block_refs:
    """Each centre block's reference (minimum weight, the kruskal step's tree), made in parallel
    once, so each version's job checks a block in milliseconds, as a graph's sources record
    carries its reference distances."""
    input:
        g12_terrain("terrain"),
    output:
        G12_REFS,
    log:
        f"{RES}/logs/benchmarks/gerritsen2012_block_refs.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/gerritsen2012_block_refs.tsv"
    conda:
        CONDA_ENV
    threads: prep_threads()
    resources:
        mem_mb=2048,
        runtime=20,
        prep=1,
    params:
        py=PY,
        args=option_args({"block_side": G12.get("block_side", 32), "blocks": G12.get("blocks", 16)}),
    shell:
        "{params.py:q} -m graphrepro mst-block-refs {input:q} {params.args:q} --jobs {threads} "
        "--output {output:q} 2> {log:q}"


rule gerritsen2012_mst_blocks:
    """Tables 3.1-3.5, 3.7, Fig. 3.6: one version of the first phase on the centre blocks."""
    input:
        zgrid=g12_terrain("terrain"),
        # made once, never a reason to redo a version's finished table (it is deterministic)
        refs=ancient(G12_REFS),
    output:
        table=f"{RES}/benchmarks/gerritsen2012_mst_{{variant}}.csv",
        provenance=f"{RES}/benchmarks/gerritsen2012_mst_{{variant}}.provenance.json",
    log:
        f"{RES}/logs/benchmarks/gerritsen2012_mst_{{variant}}.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/gerritsen2012_mst_{{variant}}.tsv"
    wildcard_constraints:
        variant="|".join(G12_VARIANTS),
    priority: g12_priority
    conda:
        lambda w: conda_env(g12_device(w.variant))
    threads: lambda w: timed_threads(g12_device(w.variant))
    resources:
        **timed(lambda w: g12_device(w.variant), terrain_mem_mb),
    params:
        anchors=ANCHOR_ARGS,  # (common.smk)
        # a CPU-timed job on a GPU host's timed cores (pin_words, common.smk)
        py=lambda w: [*pin_words(g12_device(w.variant)), *PY],
        args=G12_BLOCK_ARGS,
    shell:
        "{params.py:q} -m graphrepro mst-blocks {input.zgrid:q} --variant {wildcards.variant:q} "
        "{params.args:q} --references {input.refs:q} {params.anchors:q} --output {output.table:q} 2> {log:q}"


rule gerritsen2012_mst_blocks_shard:
    """One shard of a version's centre blocks (block_shards: N); its record says where it ran."""
    input:
        zgrid=g12_terrain("terrain"),
        refs=ancient(G12_REFS),
    output:
        table=f"{RES}/shards/benchmarks/gerritsen2012_mst_{{variant}}.{{shard}}.csv",
        provenance=f"{RES}/shards/benchmarks/gerritsen2012_mst_{{variant}}.{{shard}}.provenance.json",
    log:
        f"{RES}/logs/shards/benchmarks/gerritsen2012_mst_{{variant}}.{{shard}}.log",
    benchmark:
        f"{RES}/job_stats/shards/benchmarks/gerritsen2012_mst_{{variant}}.{{shard}}.tsv"
    wildcard_constraints:
        variant="|".join(G12_VARIANTS),
        shard=r"\d+",
    priority: g12_priority
    conda:
        lambda w: conda_env(g12_device(w.variant))
    threads: lambda w: timed_threads(g12_shard_device(w.variant))
    resources:
        **timed(lambda w: g12_shard_device(w.variant), terrain_mem_mb),
    params:
        anchors=ANCHOR_ARGS,  # (common.smk)
        # a CPU version's shard is a one-core timing ("cpu1": g12_shard_device, common.smk)
        py=lambda w: [*pin_words(g12_shard_device(w.variant)), *PY],
        args=G12_BLOCK_ARGS,
        shard=lambda w: f"{w.shard}/{G12_SHARDS}",
    shell:
        "{params.py:q} -m graphrepro mst-blocks {input.zgrid:q} --variant {wildcards.variant:q} "
        "{params.args:q} --references {input.refs:q} --shard {params.shard:q} "
        "{params.anchors:q} --output {output.table:q} 2> {log:q}"


# A shard of a version's blocks timed again, as a second pass (block_repeat_shards): the shard's
# own job (command, pinning, resources, priority), its rows the measure of how far passes drift.
# Its own folder keeps its files apart from the first pass's (and out of the shards' globs).
use rule gerritsen2012_mst_blocks_shard as gerritsen2012_mst_blocks_repeat with:
    output:
        table=f"{RES}/shards/benchmarks/repeat/gerritsen2012_mst_{{variant}}.{{shard}}.csv",
        provenance=f"{RES}/shards/benchmarks/repeat/gerritsen2012_mst_{{variant}}.{{shard}}.provenance.json",
    log:
        f"{RES}/logs/shards/benchmarks/repeat/gerritsen2012_mst_{{variant}}.{{shard}}.log",
    benchmark:
        f"{RES}/job_stats/shards/benchmarks/repeat/gerritsen2012_mst_{{variant}}.{{shard}}.tsv"


localrules:
    gerritsen2012_mst_blocks_merge,


rule gerritsen2012_mst_blocks_merge:
    """A version's block shards as its one table, checked, saying how its blocks were timed."""
    input:
        tables=lambda w: g12_shard_files(w.variant, ".csv"),
        provenance=lambda w: g12_shard_files(w.variant, ".provenance.json"),  # read beside each
        # its second passes (block_repeat_shards), none where none is configured
        repeats=lambda w: g12_repeat_files(w.variant, ".csv"),
        repeat_provenance=lambda w: g12_repeat_files(w.variant, ".provenance.json"),
    output:
        table=f"{RES}/benchmarks/gerritsen2012_mst_{{variant}}.csv",
        provenance=f"{RES}/benchmarks/gerritsen2012_mst_{{variant}}.provenance.json",
    log:
        f"{RES}/logs/benchmarks/gerritsen2012_mst_{{variant}}.merge.log",
    wildcard_constraints:
        variant=_one_of(G12_VARIANTS if G12_SHARDS > 1 else []),
    conda:
        CONDA_ENV
    params:
        py=PY,
    shell:
        "{params.py:q} -m graphrepro merge-blocks {input.tables:q} --repeats {input.repeats:q} "
        "--output {output.table:q} 2> {log:q}"


ruleorder: gerritsen2012_mst_blocks_merge > gerritsen2012_mst_blocks


rule gerritsen2012_mst_io_sweep:
    """Table 3.6: the whole framework on centre crops of growing side, transfers counted."""
    input:
        g12_terrain("terrain"),
    output:
        table=f"{RES}/benchmarks/gerritsen2012_mst_io_sweep.csv",
        provenance=f"{RES}/benchmarks/gerritsen2012_mst_io_sweep.provenance.json",
    log:
        f"{RES}/logs/benchmarks/gerritsen2012_mst_io_sweep.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/gerritsen2012_mst_io_sweep.tsv"
    conda:
        conda_env(g12_device(G12.get("sweep_variant", "cpu_prealloc")))
    threads: lambda w: timed_threads(g12_device(G12.get("sweep_variant", "cpu_prealloc")))
    resources:
        **timed(lambda w: g12_device(G12.get("sweep_variant", "cpu_prealloc")), terrain_mem_mb),
    params:
        # a CPU-timed job on a GPU host's timed cores (pin_words, common.smk)
        py=lambda w: [*pin_words(g12_device(G12.get("sweep_variant", "cpu_prealloc"))), *PY],
        args=[
            *option_args(
                {
                    "variant": G12.get("sweep_variant", "cpu_prealloc"),
                    "block_side": G12.get("io_block_side", 32),
                    "trials": G12.get("trials", 1),
                    "verify_max_vertices": G12.get("verify_max_vertices", 1 << 24),
                }
            ),
            "--sides",
            *(str(s) for s in G12.get("sweep_sides", [64, 128, 256])),
        ],
    shell:
        "{params.py:q} -m graphrepro mst-io {input:q} {params.args:q} --output {output.table:q} "
        "2> {log:q}"


rule gerritsen2012_mst_phases:
    """Table 3.8: the three phases on the whole grid, with a CPU or a GPU first phase
    (`phases_full`: resumable across time-boxed calls, common.smk's g12_phases_args)."""
    input:
        lambda w: g12_terrain("phases_terrain" if w.which == "phases" else "full_terrain"),
    output:
        table=f"{RES}/benchmarks/gerritsen2012_mst_{{which}}_{{device}}.csv",
        provenance=f"{RES}/benchmarks/gerritsen2012_mst_{{which}}_{{device}}.provenance.json",
    log:
        f"{RES}/logs/benchmarks/gerritsen2012_mst_{{which}}_{{device}}.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/gerritsen2012_mst_{{which}}_{{device}}.tsv"
    wildcard_constraints:
        which="phases|phases_full",
        device="cpu|gpu",
    conda:
        lambda w: conda_env(w.device)
    threads: lambda w: timed_threads(w.device)
    resources:
        **timed(lambda w: w.device, terrain_mem_mb),
    params:
        # a CPU-timed job on a GPU host's timed cores (pin_words, common.smk)
        py=lambda w: [*pin_words(w.device), *PY],
        variant=lambda w: G12.get(
            f"phases_{w.device}", "cpu_prealloc" if w.device == "cpu" else "gpu_reduce"
        ),
        args=lambda w: g12_phases_args(w.which, w.device),
    shell:
        "{params.py:q} -m graphrepro mst-io {input:q} --variant {params.variant:q} "
        "{params.args:q} --output {output.table:q} 2> {log:q}"


rule gerritsen2012_mst_full_reference:
    """Table 3.8 on the whole grid: its minimum spanning tree weight, made apart (minutes of one
    core, 10 bytes a vertex), against which the whole-grid runs are checked where the grid is
    past their own Kruskal check (verify_max_vertices)."""
    input:
        g12_terrain("full_terrain"),
    output:
        table=f"{RES}/benchmarks/{G12_FULL_REFERENCE}.csv",
        provenance=f"{RES}/benchmarks/{G12_FULL_REFERENCE}.provenance.json",
    log:
        f"{RES}/logs/benchmarks/{G12_FULL_REFERENCE}.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/{G12_FULL_REFERENCE}.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=terrain_mem_mb,
        runtime=30,
        prep=1,
    params:
        py=PY,
    shell:
        "{params.py:q} -m graphrepro mst-grid-reference {input:q} --output {output.table:q} "
        "2> {log:q}"
