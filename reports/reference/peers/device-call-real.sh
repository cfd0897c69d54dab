#!/usr/bin/env bash
# Issue 33, the workflow run on the H100: frontier_sssp with config/h100-peers.yaml (frontier,
# ADDS, Gunrock on real NY, COL's real topology, the calnev / western stand-ins, a uniform random
# graph of 1M vertices; ADDS's host launch there too). Peers' binaries built off-device for sm_90
# (build/peers, carried); the source archives are in the offline mirror ../shared/peers.
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0 GRAPHREPRO_COMMIT=996ffc2fbb0eeaa4b9550f7b984f94ce2665d015
cd "$(dirname "$0")"
mkdir -p repo && tar xzf repo.tgz -C repo && mkdir -p repo/build/peers && tar xzf bins.tgz -C repo/build/peers
cd repo
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
timeout ${SNAKE_S:-290} snakemake --cores 16 --resources gpu=1 timing=2 --keep-going frontier_sssp \
    --configfile config/h100-peers.yaml > $OUT/snakemake.log 2>&1
echo "snakemake rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/snakemake.log
tar czf $OUT/results.tgz results-h100-peers/runs results-h100-peers/sources results-h100-peers/targets \
    results-h100-peers/figures results-h100-peers/logs results-h100-peers/graphs/*.json build/peers/*.json \
    $OUT/snakemake.log $OUT/gpu.txt 2>/dev/null
rm -f $OUT/snakemake.log
grep -h "median of\|hung\|not run\|Error\|error" results-h100-peers/logs/runs/*/*.log | tail -60
