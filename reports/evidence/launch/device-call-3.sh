#!/bin/bash
# Issue 25, H100 call 3: the floor again, Harish on real NY over more sources (the 20 us goal),
# gerritsen2012's loops with their own wall times, and the launch tests on the real GPU.
#   bash reports/evidence/launch/device-call-3.sh OUT_DIR [NY.gr.gz]
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
step ny
timeout 150 python benchmarks/launch_goals.py $ny --sources 5 --trials 5 --runs harish \
  --csv $out/goals_ny_harish.csv 2>&1 | tail -5
step terrain
timeout 150 python benchmarks/launch_goals.py --terrain 1024 --trials 3 --csv $out/goals_terrain.csv 2>&1 | grep -v -i warn | tail -8
step tests
timeout 100 python -m pytest -x -q -p no:cacheprovider tests/test_launch.py tests/test_safari2017.py 2>&1 | tail -2
step done
