#!/usr/bin/env bash
# frontier (issue 21), after the final workflow call: does pushing improved vertices at once
# (stage=0) instead of at the end of the batch shorten the queue hand-off? Tests on the GPU, then
# the benchmark on real NY and the stand-ins, 10 sources. Same setup as device-call.sh.
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0
t0=$(date +%s)
G=/tmp/frontier-graphs
mkdir -p $G/data/ny && cp data/USA-road-d.NY.gr.gz $G/data/ny/
(python -m graphrepro dataset-graph ny --mode paper --data $G/data --output $G/ny.npz
 python -m graphrepro dataset-graph calnev --mode standin --data $G/data --output $G/calnev.npz
 python -m graphrepro dataset-graph western --mode standin --data $G/data --output $G/western.npz) > $OUT/graphs.log 2>&1 &
timeout 120 python -m pytest tests/test_frontier.py -x -q -p no:cacheprovider > $OUT/tests.log 2>&1
echo "tests rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/tests.log
wait
timeout 300 python benchmarks/frontier_sssp.py $G/ny.npz $G/calnev.npz $G/western.npz --sources 10 \
    --trials 3 --depth-sources 1 --runs $1 --csv $OUT/stage.csv > $OUT/stage.log 2>&1
echo "stage rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/stage.log
tail -3 $OUT/tests.log; cat $OUT/stage.log
