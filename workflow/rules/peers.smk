# The peers (issue 33): ADDS and Gunrock from their public source at pinned commits, verified,
# patched and built with nvcc: `snakemake --cores all build_peers`, or by hand `python -m
# graphrepro build-peers`. Their runs (`adds`, `gunrock`: document `peer`) wait for it. Where
# nvcc is missing the manifest says "not built: no nvcc" and their rows say so; a build made
# elsewhere for the same GPU (same tree, patch, driver, flags, arch) is kept as it is. The
# source comes from the offline mirrors first (config `offline_mirrors`, e.g. ../shared/peers),
# then GitHub, by a local job (fetch_peers: where snakemake runs, which has the network; a compute
# node often has not), whose folder of archives is a declared output, so it reaches the build
# wherever that runs; the build reads only it (--offline). An archive that could not be had is
# missing there, and the build records "not built: source not reachable", as before. It holds every `timing` token so compiling never
# overlaps a timed run.
PEERS_DIR = "build/peers"
PEER_DRIVERS = [
    os.path.join(PACKAGE_DIR, "native", f)
    for f in ("adds_driver.cu", "gunrock_driver.cu", "gunrock_device.hpp")
]
PEER_DOWNLOADS = f"{PEERS_DIR}/downloads"


localrules:
    fetch_peers,


rule fetch_peers:
    output:
        directory(PEER_DOWNLOADS),
    log:
        f"{RES}/logs/fetch_peers.log",
    conda:
        CONDA_ENV
    params:
        py=PY,
        mirrors=MIRROR_ARGS,
        out=lambda w, output: os.path.dirname(output[0]),  # PEERS_DIR
    shell:
        "{params.py:q} -m graphrepro build-peers --fetch-only --out {params.out:q} "
        "{params.mirrors:q} 2> {log:q}"


rule build_peers:
    input:
        PEER_DRIVERS,
        PEER_DOWNLOADS,
    output:
        f"{PEERS_DIR}/manifest.json",
    log:
        f"{RES}/logs/build_peers.log",
    benchmark:
        f"{RES}/job_stats/build_peers.tsv"
    conda:
        CONDA_GPU_ENV  # nvcc and the CUDA headers (CCCL's CUB and thrust)
    threads: 1
    resources:
        timing=TIMING_TOKENS,  # compiling never overlaps a timed run here
        mem_mb=4096,
        runtime=30,
    params:
        py=PY,
        out=lambda w, output: os.path.dirname(output[0]),
        mirrors=MIRROR_ARGS,
    shell:
        "{params.py:q} -m graphrepro build-peers --offline --out {params.out:q} {params.mirrors:q} "
        "2> {log:q}"
