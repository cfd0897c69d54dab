# The native (C++) baselines: `snakemake --cores all build_native`, or by hand
# `python -m graphrepro build-native`. Native solvers also build them on first use (same code,
# same place, locked), so a timed run never finds them missing; this rule makes the build a
# visible, rerunnable step; here it holds every `timing` token so compiling never overlaps a
# timed run. On a cluster it builds in a job, with the compute nodes' compiler.
NATIVE_DIR = "build/native"
NATIVE_SOURCES = sorted(
    os.path.join(PACKAGE_DIR, "native", f)
    for f in os.listdir(os.path.join(PACKAGE_DIR, "native"))
    if f.endswith((".cpp", ".hpp"))
)


rule build_native:
    input:
        NATIVE_SOURCES,
    output:
        f"{NATIVE_DIR}/manifest.json",
    log:
        f"{RES}/logs/build_native.log",
    benchmark:
        f"{RES}/job_stats/build_native.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        timing=TIMING_TOKENS,  # compiling never overlaps a timed run here
        mem_mb=2048,
        runtime=20,
    params:
        py=PY,
        out=lambda w, output: os.path.dirname(output[0]),
    shell:
        "{params.py:q} -m graphrepro build-native --force --out {params.out:q} 2> {log:q}"


# The launch floor's CUDA C++ program (nvcc, -arch=native). Where no nvcc is found, or the build
# fails, the manifest says why and the floor is reported without its native column.
rule build_native_cuda:
    input:
        os.path.join(PACKAGE_DIR, "native", "launch_floor.cu"),
    output:
        f"{NATIVE_DIR}/cuda.json",
    log:
        f"{RES}/logs/build_native_cuda.log",
    benchmark:
        f"{RES}/job_stats/build_native_cuda.tsv"
    conda:
        CONDA_GPU_ENV  # nvcc and the CUDA headers (cuda-nvcc), for the GPU it is built for
    threads: 1
    resources:
        timing=TIMING_TOKENS,  # compiling never overlaps a timed run here
        mem_mb=2048,
        runtime=20,
    params:
        py=PY,
        out=lambda w, output: os.path.dirname(output[0]),
    shell:
        "{params.py:q} -m graphrepro build-native --cuda --out {params.out:q} 2> {log:q}"


# What one launch costs here (issue 25): `snakemake --cores all launch_floor`. On a machine
# without a GPU every row says "not run: no GPU".
rule launch_floor:
    input:
        f"{NATIVE_DIR}/cuda.json",
    output:
        table=f"{RES}/benchmarks/launch_floor.csv",
        provenance=f"{RES}/benchmarks/launch_floor.provenance.json",
    log:
        f"{RES}/logs/benchmarks/launch_floor.log",
    benchmark:
        f"{RES}/job_stats/benchmarks/launch_floor.tsv"
    conda:
        CONDA_GPU_ENV
    threads: 1
    resources:
        **timed(lambda w: "gpu"),
    params:
        py=PY,
    shell:
        "{params.py:q} -m graphrepro launch-floor --native {input:q} --output {output.table:q} 2> {log:q}"
