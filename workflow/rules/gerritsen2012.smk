# gerritsen2012 chapter 3 (issue 10): the I/O-efficient MST's measurements, as benchmark tables
# its targets read (experiments/gerritsen2012_mst.py). Settings: config `gerritsen2012_mst:`.
from graphrepro.solvers.gerritsen2012.mst_measure import VARIANTS as G12_VARIANTS, is_gpu

G12 = config.get("gerritsen2012_mst") or {}


rule gerritsen2012_mst_blocks:
    """Tables 3.1-3.5, 3.7, Fig. 3.6: one version of the first phase on the centre blocks."""
    input:
        g12_terrain("terrain"),
    output:
        f"{RES}/benchmarks/gerritsen2012_mst_{{variant}}.csv",
    wildcard_constraints:
        variant="|".join(G12_VARIANTS),
    params:
        # a CPU-timed job on a GPU host's timed cores (pin_words, common.smk)
        py=lambda w: [*pin_words(g12_device(w.variant)), *PY],
        args=option_args({"block_side": G12.get("block_side", 32), "blocks": G12.get("blocks", 16),
                          "trials": G12.get("trials", 1)}),
    threads: lambda w: timed_threads(g12_device(w.variant))
    resources:
        **timed(lambda w: g12_device(w.variant), terrain_mem_mb),
    log:
        f"{RES}/logs/benchmarks/gerritsen2012_mst_{{variant}}.log",
    conda:
        lambda w: conda_env(g12_device(w.variant))
    shell:
        "{params.py:q} -m graphrepro mst-blocks {input:q} --variant {wildcards.variant:q} "
        "{params.args:q} --output {output:q} 2> {log:q}"


rule gerritsen2012_mst_io_sweep:
    """Table 3.6: the whole framework on centre crops of growing side, transfers counted."""
    input:
        g12_terrain("terrain"),
    output:
        f"{RES}/benchmarks/gerritsen2012_mst_io_sweep.csv",
    params:
        # a CPU-timed job on a GPU host's timed cores (pin_words, common.smk)
        py=lambda w: [*pin_words(g12_device(G12.get("sweep_variant", "cpu_prealloc"))), *PY],
        args=[*option_args({"variant": G12.get("sweep_variant", "cpu_prealloc"),
                            "block_side": G12.get("io_block_side", 32),
                            "trials": G12.get("trials", 1),
                            "verify_max_vertices": G12.get("verify_max_vertices", 1 << 24)}),
              "--sides", *(str(s) for s in G12.get("sweep_sides", [64, 128, 256]))],
    threads: lambda w: timed_threads(g12_device(G12.get("sweep_variant", "cpu_prealloc")))
    resources:
        **timed(lambda w: g12_device(G12.get("sweep_variant", "cpu_prealloc")), terrain_mem_mb),
    log:
        f"{RES}/logs/benchmarks/gerritsen2012_mst_io_sweep.log",
    conda:
        conda_env(g12_device(G12.get("sweep_variant", "cpu_prealloc")))
    shell:
        "{params.py:q} -m graphrepro mst-io {input:q} {params.args:q} --output {output:q} "
        "2> {log:q}"


rule gerritsen2012_mst_phases:
    """Table 3.8: the three phases on the whole grid, with a CPU or a GPU first phase
    (`phases_full`: resumable across time-boxed calls, common.smk's g12_phases_args)."""
    input:
        lambda w: g12_terrain("phases_terrain" if w.which == "phases" else "full_terrain"),
    output:
        f"{RES}/benchmarks/gerritsen2012_mst_{{which}}_{{device}}.csv",
    wildcard_constraints:
        which="phases|phases_full",
        device="cpu|gpu",
    params:
        # a CPU-timed job on a GPU host's timed cores (pin_words, common.smk)
        py=lambda w: [*pin_words(w.device), *PY],
        variant=lambda w: G12.get(f"phases_{w.device}", "cpu_prealloc" if w.device == "cpu"
                                  else "gpu_reduce"),
        args=lambda w: g12_phases_args(w.which, w.device),
    threads: lambda w: timed_threads(w.device)
    resources:
        **timed(lambda w: w.device, terrain_mem_mb),
    log:
        f"{RES}/logs/benchmarks/gerritsen2012_mst_{{which}}_{{device}}.log",
    conda:
        lambda w: conda_env(w.device)
    shell:
        "{params.py:q} -m graphrepro mst-io {input:q} --variant {params.variant:q} "
        "{params.args:q} --output {output:q} 2> {log:q}"
