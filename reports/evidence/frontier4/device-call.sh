#!/usr/bin/env bash
# issue 54's held-out call (one GPU host lease): build the peers from the offline mirror and the
# held-out graphs on the machine, then benchmarks/frontier_heldout.py on them. From the repository
# root, after the install line (numpy < 2.5 for numba-cuda; .whlmin carried: the numpy wheel of
# ../shared/device/requirements.txt), with .realdata (../shared/realdata/road-graphs-pace16) and
# .peers (../shared/peers) carried, never committed:
#   bash reports/evidence/frontier4/device-call.sh SOURCES TRIALS BUDGET_S GRAPH...
# GRAPH: col, nw, fla, ne (distance-like weights), col_w1000, ... (1..1000), web_google_w1000,
# grid (1000^2), uniform. The whole set takes more than one 10-minute call: split it.
# Held out (frontier's defaults were set on real NY and the calnev and western stand-ins): the
# real topologies of COL, NW, FLA and NE with the study's distance-like weights (NY's measured
# weight model, graph/weight_models.json) and with uniform integers 1..1000, a full 1000^2 grid
# with weights 1..1000, the uniform random graph (1M vertices, 8M arcs, 1..1000) and the web
# graph (web_google's R-MAT stand-in, weights 1..1000, as config/h100.yaml's web_google_w1000).
set -u
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0
t0=$(date +%s)
S=${1:-10}; T=${2:-3}; BUDGET=${3:-540}
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.max.sm,temperature.gpu \
    --format=csv > "$OUT/gpu.txt" 2>&1
{ nproc; grep -m1 "model name" /proc/cpuinfo; nvcc --version | tail -2; } > "$OUT/host.txt" 2>&1
python3 -m graphrepro build-peers --mirror .peers --offline > "$OUT/build-peers.log" 2>&1 &
peers=$!
G=/tmp/heldout; mkdir -p $G
build() {  # KEY NAME [reweight args]
    local key=$1 name=$2; shift 2
    python3 -m graphrepro dataset-graph "$key" --mode "${MODE:-paper}" --mirror .realdata \
        --data $G/data --name "$name" --output "$G/$name.npz" "$@" > "$OUT/g-$name.log" 2>&1
}
names=("${@:4}"); flags=(${BENCH_FLAGS:-})  # e.g. BENCH_FLAGS="--runs frontier@c=4 ... --gunrock-sources 0"
for name in "${names[@]}"; do
    case $name in
        grid) flags+=(--grid 1000) ;;
        uniform) flags+=(--uniform) ;;
        web_google_w1000) MODE=standin build web_google web_google_w1000 --reweight 1 1000 5 & ;;
        calnev|western) MODE=standin build "$name" "$name" & ;;
        calnev_w1000|western_w1000) MODE=standin build "${name%_w1000}" "$name" --reweight 1 1000 54 & ;;
        *_w1000) build "${name%_w1000}" "$name" --reweight 1 1000 54 & ;;
        *) build "$name" "$name" & ;;
    esac
done
wait
echo "graphs and peers after $(( $(date +%s) - t0 )) s"
tail -n 3 "$OUT/build-peers.log"; ls -la $G
graphs=(); for name in "${names[@]}"; do [ -f $G/$name.npz ] && graphs+=("$G/$name.npz"); done
left=$(( BUDGET - ($(date +%s) - t0) ))
timeout $left python3 benchmarks/frontier_heldout.py "${graphs[@]}" "${flags[@]}" \
    --kinds web_google_w1000=web --sources "$S" --trials "$T" \
    --csv "$OUT/heldout.csv" --per-source "$OUT/heldout-per-source.csv" 2>&1 | tee "$OUT/heldout.log"
echo "benchmark rc=${PIPESTATUS[0]} after $(( $(date +%s) - t0 )) s"
cd "$OUT" && tar czf logs.tar.gz g-*.log build-peers.log && rm -f g-*.log
