# The native (C++) baselines: `snakemake --cores all build_native`, or by hand
# `python -m graphrepro build-native`. Native solvers also build them on first use (same code,
# same place, locked), so a timed run never finds them missing; this rule makes the build a
# visible, rerunnable step; here it holds every `timing` token so compiling never overlaps a
# timed run. On a cluster it builds in a job, with the compute nodes' compiler.
NATIVE_DIR = "build/native"
NATIVE_SOURCES = sorted(
    os.path.join(workflow.basedir, "src", "graphrepro", "native", f)
    for f in os.listdir(os.path.join(workflow.basedir, "src", "graphrepro", "native"))
    if f.endswith((".cpp", ".hpp"))
)


rule build_native:
    input:
        NATIVE_SOURCES,
    output:
        f"{NATIVE_DIR}/manifest.json",
    threads: 1
    resources:
        timing=TIMING_TOKENS,  # compiling never overlaps a timed run here
        mem_mb=2048,
        runtime=20,
    log:
        f"{RES}/logs/build_native.log",
    conda:
        CONDA_ENV
    shell:
        "{PY} -m graphrepro build-native --force --out {NATIVE_DIR} 2> {log}"
