#!/usr/bin/env bash
# frontier (issue 21) on the H100: tests on the real GPU, a parameter sweep on real NY, then the
# comparison on real NY and the calnev / western stand-ins (config/datasets.yaml's road_like
# generator, seeds 105 / 107). Run from the worktree root on the GPU machine after the wheel
# install line, with USA-road-d.NY.gr.gz in ./data; writes to $OUT.
# Usage: bash reports/evidence/frontier/device-call.sh "SWEEP RUNS" "COMPARE RUNS"
# "best" in COMPARE RUNS stands for the sweep's fastest frontier variant on NY.
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0
t0=$(date +%s)
G=/tmp/frontier-graphs
mkdir -p $G/data/ny && cp data/USA-road-d.NY.gr.gz $G/data/ny/
python -m graphrepro dataset-graph ny --mode paper --data $G/data --output $G/ny.npz > $OUT/graphs.log 2>&1
(python -m graphrepro dataset-graph calnev --mode standin --data $G/data --output $G/calnev.npz
 python -m graphrepro dataset-graph western --mode standin --data $G/data --output $G/western.npz) >> $OUT/graphs.log 2>&1 &
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
timeout 170 python -m pytest tests/test_frontier.py -x -q -p no:cacheprovider > $OUT/tests.log 2>&1
echo "tests rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/tests.log
timeout 150 python benchmarks/frontier_sssp.py $G/ny.npz --sources 3 --trials 3 --floor-path 100000 \
    --runs $1 --csv $OUT/sweep-ny.csv > $OUT/sweep-ny.log 2>&1
echo "sweep rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/sweep-ny.log
wait
cat $OUT/graphs.log
best=$(python -c "import pandas as pd; d = pd.read_csv('$OUT/sweep-ny.csv'); f = d[d.run.str.startswith('frontier')]; print(f.loc[f.median_ms.idxmin(), 'run'])")
runs=$(echo "$2" | sed "s/\bbest\b/$best/" | tr ' ' '\n' | awk '!seen[$0]++' | tr '\n' ' ')
echo "compare runs: $runs" | tee $OUT/compare-runs.txt
left=$(( 565 - ($(date +%s) - t0) ))
timeout $left python benchmarks/frontier_sssp.py $G/ny.npz $G/calnev.npz $G/western.npz --sources 10 \
    --trials 3 --floor-path 100000 --depth-sources 3 --runs $runs --csv $OUT/compare.csv > $OUT/compare.log 2>&1
echo "compare rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/compare.log
tail -3 $OUT/tests.log; cat $OUT/sweep-ny.log $OUT/compare.log
