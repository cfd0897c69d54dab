#!/usr/bin/env bash
# Device call 4 (see README.md): the rest of config/h100.yaml's sweeps, in one process per batch.
# Run from the repository root on the GPU machine, after the wheel install line; writes to $OUT.
set -u
GRAPHS=$(grep -v '^#' reports/reference/sweep-runs.txt | cut -d/ -f1 | sort -u)
mkdir -p /tmp/bsub && tar xzf .boost/boost-subset.tgz -C /tmp/bsub && export BOOST_INCLUDE=/tmp/bsub
t0=$(date +%s)
# graphs and seeded sources (CPU work, in parallel), the native baselines, and calnev for the smoke check
timeout 200 snakemake --cores 16 --keep-going \
    $(for g in $GRAPHS calnev; do echo results/sources/$g.json; done) build/native/manifest.json \
    --configfile config/h100.yaml > $OUT/snakemake-inputs.log 2>&1
echo "inputs done after $(( $(date +%s) - t0 )) s"
# the CooperativeLauncher refactor's first run on hardware: lbr_persistent both frontiers
mkdir -p /tmp/smoke/graphs /tmp/smoke/sources
cp results/graphs/calnev.npz /tmp/smoke/graphs/ && cp results/sources/calnev.json /tmp/smoke/sources/
python workflow/scripts/run_batch.py --results /tmp/smoke --trials 3 --warmup 1 \
    "calnev/lbr_persistent@k=4,t=1" "calnev/lbr_persistent@frontier=flags,k=2,t=1" > $OUT/smoke.log 2>&1
left=$(( ${BUDGET:-540} - ($(date +%s) - t0) - 60 ))
python workflow/scripts/run_batch.py --results results --trials 3 --warmup 1 --stop-after $left \
    --list reports/reference/sweep-runs.txt > $OUT/batch.log 2>&1
timeout 60 snakemake --cores 16 results/benchmarks/an2017_transfers.csv --configfile config/h100.yaml \
    > $OUT/snakemake-transfers.log 2>&1
echo "all done after $(( $(date +%s) - t0 )) s"
tar czf $OUT/results.tgz results/runs results/sources results/benchmarks /tmp/smoke/runs 2>/dev/null
tail -3 $OUT/batch.log
