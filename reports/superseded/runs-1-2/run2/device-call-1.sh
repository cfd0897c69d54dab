#!/usr/bin/env bash
# Reference run 2 (issue 24), call 1: safari2017 on real data with the paper's 100 sources, on
# the H100, through snakemake (config/h100.yaml + config/h100-real.yaml). In the order that
# matters most if device time runs out: real NY's GPU runs (Table 1, Table 2, Fig. 3, calibration),
# real NY reweighted 1..10 (Fig. 4), COL's real topology, then the CPU runs. Each phase gets what is
# left of the deadline; finished run tables are copied to $OUT as they appear, so a call cut
# short still brings back every run that completed (a run table is written whole or not at all).
# Run from the repository root after installing .whl-dev; .realdata/ holds the offline mirror.
#   bash reports/reference/run2/device-call-1.sh [SECONDS (default 330)]
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0
deadline=$(( $(date +%s) + ${1:-330} ))
R=results-h100-real
SMK=(--cores 16 --scheduler greedy --resources gpu=1 timing=1 --keep-going --nolock --rerun-incomplete
     --configfile config/h100.yaml config/h100-real.yaml)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv \
    > "$OUT/gpu.txt" 2>&1
python -m graphrepro provenance > "$OUT/provenance.json" 2>&1
save() {
    mkdir -p "$OUT/results"
    (cd "$R" 2>/dev/null && find runs sources calibration logs graphs -type f \
        \( -name '*.csv' -o -name '*.json' -o -name '*.log' \) 2>/dev/null \
        | tar cf - -T - 2>/dev/null) | tar xf - -C "$OUT/results" 2>/dev/null
}
( while sleep 20; do save; done ) &
saver=$!
phase() {  # phase NAME GRAPH RUN...
    local name=$1 graph=$2; shift 2
    local left=$(( deadline - $(date +%s) ))
    if [ "$left" -lt 30 ]; then echo "$name: skipped, ${left} s left" | tee -a "$OUT/phases.log"; return; fi
    local targets=()
    for run in "$@"; do targets+=("$R/runs/$graph/$run.csv"); done
    local t=$(date +%s)
    timeout "$left" snakemake "${targets[@]}" "${SMK[@]}" > "$OUT/snakemake-$name.log" 2>&1
    echo "$name: rc=$? in $(( $(date +%s) - t )) s" | tee -a "$OUT/phases.log"
    save
}
# safari2017's claims rest on the GPU runs (Harish, LBR); the CPU runs give Table 1 its context
phase ny_gpu ny harish lbr lbr_persistent
phase ny_w10 ny_w10 harish "lbr@k=1,t=2" "lbr@k=2,t=2" "lbr@k=3,t=2" "lbr@k=4,t=1" \
    "lbr@k=4,t=2" "lbr@k=4,t=3" "lbr@k=5,t=2" "lbr_persistent@k=1,t=1" \
    "lbr_persistent@k=2,t=1" "lbr_persistent@k=4,t=1"
phase col_gpu col harish lbr lbr_persistent
phase ny_cpu ny dijkstra delta_stepping_par bfs scipy_dijkstra delta_stepping
phase col_cpu col dijkstra delta_stepping_par bfs scipy_dijkstra delta_stepping
kill $saver 2>/dev/null
save
grep -h "Error\|error\|not built" "$OUT"/snakemake-*.log | sort | uniq -c | head -20
