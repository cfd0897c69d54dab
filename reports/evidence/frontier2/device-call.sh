#!/usr/bin/env bash
# issue 34 device call: build the graphs in parallel, then the benchmark. Usage: call.sh SOURCES TRIALS RUNS...
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0
t0=$(date +%s)
S=$1; T=$2; shift 2
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
G=/tmp/g; mkdir -p $G/data/ny && cp ../shared/realdata/USA-road-d.NY.gr.gz $G/data/ny/
python -m graphrepro dataset-graph ny --mode paper --data $G/data --output $G/ny.npz > $OUT/g-ny.log 2>&1
python -m graphrepro dataset-graph web_google --mode standin --reweight 1 1000 5 --data $G/data --output $G/web.npz > $OUT/g-web.log 2>&1 &
python -m graphrepro dataset-graph calnev --mode standin --data $G/data --output $G/calnev.npz > $OUT/g-calnev.log 2>&1 &
python -m graphrepro dataset-graph western --mode standin --data $G/data --output $G/western.npz > $OUT/g-western.log 2>&1 &
echo "ny built after $(( $(date +%s) - t0 )) s"
timeout ${LEFT1:-100} python benchmarks/frontier_adds.py $G/ny.npz --uniform --sources $S --trials $T --depth-sources 2 --runs "$@" --csv $OUT/a.csv > $OUT/a.log 2>&1
echo "part a rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/a.log
wait
echo "graphs built after $(( $(date +%s) - t0 )) s"; ls -la $G
left=$(( ${BUDGET:-225} - ($(date +%s) - t0) ))
timeout $left python benchmarks/frontier_adds.py $G/web.npz $G/calnev.npz $G/western.npz --sources $S --trials $T --depth-sources 2 --runs "$@" --csv $OUT/b.csv > $OUT/b.log 2>&1
echo "part b rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/b.log
cat $OUT/a.log $OUT/b.log
