#!/usr/bin/env bash
# Issue 31, call 2: the clean scaling run (one call): 50 sources, pass 1's deadline gate reading
# call 1's recorded wall times (Harish's real cost), then `check`. Everything the call made comes
# back packed in one archive.
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0 GRAPHREPRO_COMMIT=${GRAPHREPRO_COMMIT:-}
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,memory.total --format=csv > $OUT/machine.txt 2>&1
echo "cores $(nproc); $(free -g | sed -n 2p)" >> $OUT/machine.txt
S=/tmp/s
timeout ${BUDGET_CALL_S:-540} python3 benchmarks/host_scaling.py run --gpus 1 2 4 --sources 50 \
    --budget-s ${BUDGET_S:-460} --out $S \
    --estimate-from reports/evidence/host-scaling/h200x4-call1/g2 > $S.run.log 2>&1
echo "run rc=$?" >> $S.run.log
python3 benchmarks/host_scaling.py check --out $S >> $S.run.log 2>&1
mv $S.run.log $S/run.log; cp $OUT/machine.txt $S/
for n in 1 2 4; do
  mkdir -p $S/g$n && cp -r results-scaling-g$n/runs results-scaling-g$n/logs $S/g$n/ 2>/dev/null
done
mkdir -p $S/prep && cp -r results-scaling-prep/sources results-scaling-prep/logs $S/prep/ 2>/dev/null
cp /tmp/graphrepro-gpu-locks-*/worker-*.log $S/ 2>/dev/null
tar czf $OUT/scaling.tgz -C /tmp s
tail -40 $S/run.log
