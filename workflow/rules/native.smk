# The native (C++) baselines: `snakemake --cores all build_native`, or by hand
# `python -m graphrepro build-native`. Native solvers also build them on first use (same code,
# same place, locked), so a timed run never finds them missing; this rule makes the build a
# visible, rerunnable step. It holds the `timing` resource so compiling never overlaps a timed run.
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
    params:
        py=PY,
        out=lambda w, output: os.path.dirname(output[0]),
    resources:
        timing=1,
    log:
        f"{RES}/logs/build_native.log",
    conda:
        CONDA_ENV
    shell:
        "{params.py:q} -m graphrepro build-native --force --out {params.out:q} 2> {log:q}"
