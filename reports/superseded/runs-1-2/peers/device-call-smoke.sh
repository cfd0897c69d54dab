#!/usr/bin/env bash
# Issue 33 smoke test on the H100: both peers' binaries (built off-device for sm_90) on a small
# uniform random graph and on real NY, through `python -m graphrepro run` (the harness); ADDS's
# published occupancy launch with a short deadline, to see a hang recorded.
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0
cd "$(dirname "$0")"
mkdir -p repo && tar xzf repo.tgz -C repo && mkdir -p repo/build/peers && tar xzf bins.tgz -C repo/build/peers
cd repo
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv | tee $OUT/gpu.txt
python -m graphrepro build-peers --offline --mirror ../shared/peers 2>&1 | tail -3
G=/tmp/g; mkdir -p $G
python -m graphrepro generate random --vertices 200000 --arcs 800000 --max-weight 100 --seed 33 --output $G/rand.gr
python -m graphrepro sources $G/rand.gr --count 3 --seed 1 --output $G/rand.json
for s in adds "adds@launch=host" gunrock "adds@blocks_per_sm=2,deadline_s=8"; do
  timeout 120 python -m graphrepro run $G/rand.gr --solver "$s" --sources $G/rand.json --trials 2 --warmup 1 --output "$OUT/rand_${s//[@=,]/_}.csv" 2>&1 | tail -4
done
python -m graphrepro dataset-graph ny --mode paper --data $G/data --mirror ../shared/realdata --output $G/ny.npz 2>&1 | tail -1
python -m graphrepro sources $G/ny.npz --count 3 --seed 20170901 --output $G/ny.json
for s in adds "adds@launch=host" gunrock; do
  timeout 120 python -m graphrepro run $G/ny.npz --solver "$s" --sources $G/ny.json --trials 2 --warmup 1 --output "$OUT/ny_${s//[@=,]/_}.csv" 2>&1 | tail -4
done
cd $OUT && tar czf smoke.tgz *.csv && rm -f *.csv
