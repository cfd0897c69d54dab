#!/usr/bin/env bash
# Issue 34, round 3 on the H100: frontier_sssp with config/h100-peers.yaml through the workflow
# (frontier now, as round 2 left it and as issue 21 did; ADDS, Gunrock, workfront; real NY, COL's
# real topology, calnev/western stand-ins, a uniform random graph, the web graph), then
# frontier's tests on the GPU. The peers' binaries were built off-device for sm_90 (carried,
# kept by their build key); the offline mirrors are copies of ../shared/realdata and
# ../shared/peers. snakemake's ILP scheduler's solver (pulp) stays behind to fit the call.
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0 GRAPHREPRO_COMMIT=${GRAPHREPRO_COMMIT:-}
[ -e ../shared ] || ln -s "$PWD/.dev/p34/shared" ../shared || exit 1
mkdir -p build/peers && tar xzf .dev/p34/bins.tgz -C build/peers || exit 1
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
timeout ${SNAKE_S:-420} snakemake --cores 16 --resources gpu=1 timing=2 --keep-going --scheduler greedy \
    frontier_sssp --configfile config/h100-peers.yaml > $OUT/snakemake.log 2>&1
echo "snakemake rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/snakemake.log
timeout ${TESTS_S:-110} python -m pytest -q -o addopts="" -p no:cacheprovider -x \
    tests/test_frontier_warp.py tests/test_frontier.py > $OUT/tests.log 2>&1
echo "tests rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/tests.log
tar czf $OUT/results.tgz results-h100-peers/runs results-h100-peers/sources results-h100-peers/targets \
    results-h100-peers/figures results-h100-peers/logs results-h100-peers/graphs/*.json build/peers/*.json \
    $OUT/snakemake.log $OUT/gpu.txt $OUT/tests.log 2>/dev/null
grep -h "median of\|hung\|not run\|Error\|error" results-h100-peers/logs/runs/*/*.log | tail -40
tail -3 $OUT/snakemake.log; tail -3 $OUT/tests.log
