#!/bin/bash
# Issue 25, H100 call 4: the read-back as a copy (the default) or stored by a kernel into mapped
# host memory (GRAPHREPRO_READBACK=mapped): the floor, Harish on real NY, the tests, both ways.
#   bash reports/reference/launch/device-call-4.sh OUT_DIR [NY.gr.gz]
set -u
out=${1:?output directory}; ny=${2:-data/USA-road-d.NY.gr.gz}
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0 PYTHONPATH=$PWD/src:$PWD/benchmarks:${PYTHONPATH:-}
export NUMBA_CACHE_DIR=/tmp/numba-cache
step() { echo "=== $1 ($(date -u +%T))"; }
step floor
python -m graphrepro build-native --cuda --out build/native 2>&1 | tail -1
timeout 100 python -m graphrepro launch-floor --native build/native/cuda.json \
  --output $out/launch_floor.csv 2>&1 | grep -v -i warn
cut -d, -f1-6 $out/launch_floor.csv
for rb in copy mapped; do
  step "ny $rb"
  GRAPHREPRO_READBACK=$rb timeout 120 python benchmarks/launch_goals.py $ny --sources 5 --trials 5 \
    --runs harish lbr --csv $out/goals_ny_$rb.csv 2>&1 | tail -7
  step "tests $rb"
  GRAPHREPRO_READBACK=$rb timeout 100 python -m pytest -x -q -p no:cacheprovider tests/test_launch.py \
    tests/test_safari2017.py tests/test_an2017.py 2>&1 | tail -1
done
step done
