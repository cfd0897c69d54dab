#!/usr/bin/env bash
# Issue 56 (item 2's launch figure, item 10's suite on a GPU), one nvidia-h200 call, from the
# repository root with .whlgpu (../shared/device/wheels.sh's wheels less pulp) and .whlcc (the
# cuda-core wheel, used only where the image has none) carried; the tree and the wheels pass the
# tool's 64 MiB only with reports/reference moved aside and carried packed as
# .refpack/reference.tar.gz (the suite reads it):
#   bash reports/evidence/launch/cuda-core/device-call.sh [TEST_SECONDS]
# 1. benchmarks/launch_cuda_core.py: cuda.core's launch and graph API against graphrepro.launch;
# 2. the non-slow suite with `pytest --gpu`, in SHARDS (14) processes (one per file group, each its own
#    basetemp and numba cache), stopped with SIGINT at TEST_SECONDS so each prints its summary.
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
[ -f reports/reference/claims.csv ] || tar xzf .refpack/reference.tar.gz
# into the image's own environment (not a --target folder): the suite's subprocesses run
# `python -m snakemake` with their own PYTHONPATH, and provenance reads graphrepro's metadata
python3 -m pip install -q --no-index --no-deps --no-compile .whlgpu/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . > "$OUT/install.txt" 2>&1 \
  || export PYTHONPATH=$PWD/src
python3 -c "import cuda.core" 2>/dev/null && echo "cuda.core: the image's" > "$OUT/core.txt" || {
  python3 -m pip install -q --no-index --no-deps --no-compile .whlcc/*.whl
  echo "cuda.core: carried wheel $(ls .whlcc)" > "$OUT/core.txt"; }
python3 -m pip list 2>/dev/null | grep -i -E "^(numba|numba-cuda|cuda|cupy|numpy)" >> "$OUT/core.txt"
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
echo "=== cuda.core against graphrepro.launch ($(( $(date +%s) - t0 )) s)"
[ -n "${SKIP_CORE:-}" ] || timeout 150 python3 benchmarks/launch_cuda_core.py --trials 9 --csv "$OUT/cuda_core.csv" \
  --json "$OUT/cuda_core.json" 2>&1 | grep -v -i "warn"
echo "=== pytest --gpu ($(( $(date +%s) - t0 )) s)"
mkdir -p /tmp/pt; files=$(ls -S tests/test_*.py)
shards=${SHARDS:-14}
i=0; for f in $files; do echo "$f" >> /tmp/pt/group-$(( i % shards )); i=$(( i + 1 )); done
for g in /tmp/pt/group-*; do
  n=${g##*-}
  NUMBA_CACHE_DIR=/tmp/pt/nc-$n timeout -s INT "${1:-330}" python3 -m pytest --gpu -q -m "not slow" \
    -p no:cacheprovider --basetemp=/tmp/pt/tmp-$n $(cat "$g") > /tmp/pt/log-$n.txt 2>&1 &
done
# SLOW_GPU_FILES: files whose slow tests run on the device too (kernels too slow for the simulator)
[ -z "${SLOW_GPU_FILES:-}" ] || NUMBA_CACHE_DIR=/tmp/pt/nc-slow timeout -s INT "${1:-330}" \
  python3 -m pytest --gpu -q -m slow -p no:cacheprovider --basetemp=/tmp/pt/tmp-slow \
  $SLOW_GPU_FILES > /tmp/pt/log-slow.txt 2>&1 &
wait
for g in /tmp/pt/log-*.txt; do tail -n 1 "$g"; done | tee "$OUT/pytest-summary.txt"
grep -h -E "^(FAILED|ERROR)" /tmp/pt/log-*.txt | sort | tee "$OUT/pytest-failed.txt" | head -40
(cd /tmp/pt && tar czf "$OUT/pytest-logs.tar.gz" log-*.txt group-*)
echo "=== done ($(( $(date +%s) - t0 )) s)"
