#!/usr/bin/env bash
# the rest of device-call-run-2.sh's workflow run (same commit): the run files its 420 s left
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0 GRAPHREPRO_COMMIT=${GRAPHREPRO_COMMIT:-}
[ -e ../shared ] || ln -s "$PWD/.dev/p34/shared" ../shared || exit 1
mkdir -p build/peers && tar xzf .dev/p34/bins.tgz -C build/peers || exit 1
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,temperature.gpu --format=csv > $OUT/gpu2.txt 2>&1
R=results-h100-peers/runs
T=""
for g in ny col; do for r in frontier "frontier@chase=2+warp=0" "frontier@chase=8+chunk=128+hub=0+threads_per_block=128+warp=0" adds gunrock workfront; do T="$T $R/$g/$r.csv"; done; done
T="$T $R/web_google_w1000/frontier@chase=8+chunk=128+hub=0+threads_per_block=128+warp=0.csv"
timeout ${SNAKE_S:-400} snakemake --cores 16 --resources gpu=1 timing=2 --keep-going --scheduler greedy \
    $T --configfile config/h100-peers.yaml > $OUT/snakemake2.log 2>&1
echo "snakemake rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/snakemake2.log
tar czf $OUT/results2.tgz results-h100-peers/runs results-h100-peers/sources results-h100-peers/logs \
    results-h100-peers/graphs/*.json $OUT/snakemake2.log $OUT/gpu2.txt 2>/dev/null
grep -h "median of\|hung\|not run\|Error\|error" results-h100-peers/logs/runs/*/*.log | tail -15
tail -3 $OUT/snakemake2.log
