#!/usr/bin/env bash
# Issue 31, call 3: call 2's work again (50 sources, 1/2/4 GPUs) after its fixes (Harish's
# counting pass summed per block; runs ordered by the call's own estimates, pass 1 reading call
# 2's recorded wall times), then one-core CPU timings side by side against alone on the same
# graph (benchmarks/cpu_slots.py: dijkstra, 4 slots, 5 sources). One archive comes back.
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0 GRAPHREPRO_COMMIT=${GRAPHREPRO_COMMIT:-}
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,memory.total --format=csv > $OUT/machine.txt 2>&1
echo "cores $(nproc); $(free -g | sed -n 2p)" >> $OUT/machine.txt
lscpu | grep -i "model name\|socket\|thread\|core\|numa\|L3" >> $OUT/machine.txt 2>&1
S=/tmp/s
timeout ${BUDGET_CALL_S:-520} python3 benchmarks/host_scaling.py run --gpus 1 2 4 --sources 50 \
    --budget-s ${BUDGET_S:-330} --out $S --cpu-slots 4 --cpu-slot-shard 0/10 \
    --estimate-from reports/evidence/host-scaling/h200x4-call2/g1 > $S.run.log 2>&1
echo "run rc=$?" >> $S.run.log
python3 benchmarks/host_scaling.py check --out $S >> $S.run.log 2>&1
mv $S.run.log $S/run.log; cp $OUT/machine.txt $S/
for n in 1 2 4; do
  mkdir -p $S/g$n && cp -r results-scaling-g$n/runs results-scaling-g$n/logs $S/g$n/ 2>/dev/null
done
mkdir -p $S/prep && cp -r results-scaling-prep/sources results-scaling-prep/logs $S/prep/ 2>/dev/null
cp /tmp/graphrepro-gpu-locks-*/worker-*.log $S/ 2>/dev/null
tar czf $OUT/scaling.tgz -C /tmp s
tail -30 $S/run.log
