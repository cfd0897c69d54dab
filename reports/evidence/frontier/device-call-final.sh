#!/usr/bin/env bash
# frontier (issue 21), the last H100 call of that session: the tests on the real GPU, the
# benchmark's goals (frontier alone, with the measured floor), then the workflow target
# frontier_sssp on real NY and the calnev / western stand-ins (config/h100-frontier.yaml).
# Run from the worktree root after installing .whl (snakemake); USA-road-d.NY.gr.gz in ./data.
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0
t0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
mkdir -p resources/datasets/ny && cp data/USA-road-d.NY.gr.gz resources/datasets/ny/
timeout 120 python -m pytest tests/test_frontier.py tests/test_frontier_target.py -x -q \
    -p no:cacheprovider > $OUT/tests.log 2>&1
echo "tests rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/tests.log
G=/tmp/frontier-graphs
mkdir -p $G/data/ny && cp data/USA-road-d.NY.gr.gz $G/data/ny/
python -m graphrepro dataset-graph ny --mode paper --data $G/data --output $G/ny.npz > $OUT/graphs.log 2>&1
python -m graphrepro dataset-graph calnev --mode standin --data $G/data --output $G/calnev.npz >> $OUT/graphs.log 2>&1
python -m graphrepro dataset-graph western --mode standin --data $G/data --output $G/western.npz >> $OUT/graphs.log 2>&1
timeout 170 python benchmarks/frontier_sssp.py $G/ny.npz $G/calnev.npz $G/western.npz --sources 10 \
    --trials 3 --floor-path 100000 --depth-sources 3 --runs frontier --csv $OUT/goals.csv > $OUT/goals.log 2>&1
echo "goals rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/goals.log
left=$(( 560 - ($(date +%s) - t0) ))
timeout $left snakemake --cores 8 --resources gpu=1 timing=2 --keep-going frontier_sssp \
    --configfile config/h100-frontier.yaml > $OUT/snakemake.log 2>&1
echo "snakemake rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/snakemake.log
tar czf $OUT/results.tgz results/runs results/sources results/targets results/figures results/logs \
    results/graphs/*.json 2>/dev/null
cat $OUT/tests.log | tail -3; cat $OUT/goals.log; tail -40 $OUT/snakemake.log
