#!/bin/bash
# Issue 25 on the H100 (device tool), from the repository root with src/ on PYTHONPATH:
#   bash reports/evidence/launch/device-call.sh OUT_DIR [NY.gr.gz]
# The launch floor (native CUDA C++ and ours), the launch-path goals on real NY, gerritsen2012's
# loops, singla's Dijkstra, numba's disk cache across two processes, the Western stand-in, then
# the touched tests on the real GPU. Step time limits come from the environment (*_S).
set -u
out=${1:?output directory}; ny=${2:-data/USA-road-d.NY.gr.gz}
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0 PYTHONPATH=$PWD/src:$PWD/benchmarks:${PYTHONPATH:-}
export NUMBA_CACHE_DIR=/tmp/numba-cache
step() { echo "=== $1 ($(date -u +%T))"; }
step floor
python -m graphrepro build-native --cuda --out build/native 2>&1 | tail -3
timeout 120 python -m graphrepro launch-floor --native build/native/cuda.json \
  --output $out/launch_floor.csv 2>&1 | tail -5
cat $out/launch_floor.csv
step jit-cache
for i in 1 2; do timeout 100 python benchmarks/jit_cache.py 2>&1 | grep -v Warn; done | tee $out/jit_cache.log
step ny
timeout 200 python benchmarks/launch_goals.py $ny --sources 2 --trials 3 \
  --runs harish lbr an_bf_edgelist singla_bfs --csv $out/goals_ny.csv 2>&1 | tail -15
step terrain
timeout 120 python benchmarks/launch_goals.py --terrain 1024 --trials 3 --csv $out/goals_terrain.csv 2>&1 | grep -v Warn | tail -8
step singla
timeout 100 python benchmarks/launch_goals.py --random 20000 200000 --sources 2 --trials 3 \
  --runs singla_dijkstra singla_bfs --csv $out/goals_singla.csv 2>&1 | tail -6
step tests
timeout ${TESTS_S:-200} python -m pytest -x -q -p no:cacheprovider tests/test_launch.py \
  tests/test_safari2017.py tests/test_singla.py tests/test_an2017.py \
  tests/test_gerritsen2012_mst_gpu.py "tests/test_gerritsen2012_sssp_gpu.py" -k "not workflow" 2>&1 | tail -4
step western
timeout ${WESTERN_S:-200} python benchmarks/launch_goals.py --western --sources 1 --trials 2 \
  --runs harish lbr an_bf_edgelist singla_bfs --csv $out/goals_western.csv 2>&1 | tail -12
step done
