#!/usr/bin/env bash
# Device calls 8-10 (see README.md): gerritsen2012 reruns after the measurement fixes of that
# session (GPU algorithm 2 warmed on a block of the timed side; GPU phases 2/3 after an untimed
# run; stopped GPU algorithm 1 cells extrapolated from their progress; BGL as one persistent
# process), with config/h100.yaml. Run from the repository root on the GPU machine after the wheel
# install line; writes to $OUT. Usage: bash device-call-8.sh sssp|mst|rest
set -u
mkdir -p /tmp/bsub && tar xzf .boost/boost-subset.tgz -C /tmp/bsub && export BOOST_INCLUDE=/tmp/bsub
B=results/benchmarks/gerritsen2012
t0=$(date +%s)
case "$1" in
  sssp)  # Tables 5.2, 5.3, 5.4 and 5.7
    jobs="results/terrain/neuse_dem.zgrid ${B}_table5_4.csv ${B}_table5_7.csv ${B}_table5_2.csv ${B}_table5_3.csv"
    timeout 560 snakemake --cores 16 --keep-going $jobs --configfile config/h100.yaml > $OUT/snakemake-sssp.log 2>&1 ;;
  mst)   # Tables 3.1-3.5, 3.7 and Figure 3.6 on config/h100.yaml's centre blocks
    jobs="results/terrain/neuse_dem.zgrid build/native/manifest.json"
    for v in cpu_baseline gpu_baseline cpu_tournament cpu_mark gpu_mark cpu_prealloc gpu_prealloc \
             gpu_reduce gpu64_prealloc gpu64_reduce; do jobs="$jobs ${B}_mst_$v.csv"; done
    timeout 560 snakemake --cores 16 --keep-going $jobs --configfile config/h100.yaml > $OUT/snakemake-mst.log 2>&1 ;;
  rest)  # Table 5.1 and the per-block MST benchmark (the batched blocks' time split)
    timeout 330 snakemake --cores 16 --keep-going results/terrain/neuse_dem.zgrid ${B}_table5_1.csv \
        --configfile config/h100.yaml > $OUT/snakemake-rest.log 2>&1
    echo "workflow part after $(( $(date +%s) - t0 )) s"
    timeout 200 python benchmarks/gerritsen2012_mst.py --blocks 256 --gpu-blocks 64 --cpu-blocks 16 \
        --trials 2 --no-whole --csv $OUT/gerritsen2012_mst_benchmark.csv > $OUT/benchmark-mst.log 2>&1 ;;
esac
echo "all done after $(( $(date +%s) - t0 )) s"
tar czf $OUT/results.tgz results/benchmarks results/terrain/*.json results/logs 2>/dev/null
tail -5 $OUT/snakemake-*.log; tail -30 $OUT/benchmark-*.log 2>/dev/null
