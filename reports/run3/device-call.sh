#!/usr/bin/env bash
# One time-boxed call of reference run 3 (issue 32) on the GPU host, from the repository root,
# after the wheels' install line (../shared/device/wheels.sh) and with GRAPHREPRO_COMMIT set to
# this checkout's commit, written into the command here (never `git rev-parse` on the device:
# its copy of the history can be older than the tree it is sent, as in call 28):
#   bash reports/run3/device-call.sh MINUTES
# RUN3_TARGETS (words) replaces the targets below, e.g. the GPU versions' chapter-3 block shards
# beside the last CPU timings: RUN3_TARGETS="main g12-gpu-shards"; the others are native (BGL's
# and the C++ Dijkstra's run files), g12-ch3 (chapter 3's block tables), g12-ch5 (chapter 5,
# Tables 3.6 and 3.8 on the crop, the Wake County piece beside its stand-in) and g12-full
# (Table 3.8 on the whole grid). RUN3_CONFIG adds snakemake
# --config words (which replace the gpu-host profile's: restate host_gpus=auto), e.g.
# "host_gpus=auto host_timed_cores=16 host_cpu_slots=16" for the CPU versions' block shards,
# timed side by side.
# Carried with the call (git-ignored, never committed): .whl, .realdata (../shared/realdata),
# .peers (../shared/peers) and .boost (the Boost headers the native baselines include). A fresh
# machine starts from what the earlier calls completed, as committed in reports/run3/results/
# (graph caches are rebuilt from their datasets first); a warm one goes on from its own
# results-h100-run3/. What completed comes back in $OUT/state.tar.gz: unpack it over
# reports/run3/results/ (results-h100-run3/ -> results/).
set -u
: "${GRAPHREPRO_COMMIT:?the commit of the tree sent here}" "${OUT:?}"
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0
minutes=${1:-7.5}
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.max.sm,temperature.gpu \
    --format=csv > "$OUT/gpu.txt" 2>&1
{ nproc; grep -m1 "model name" /proc/cpuinfo; free -g | head -2; } > "$OUT/host.txt" 2>&1
# whether Table 5.7's capped phases may join a memory cgroup of their own here (else RLIMIT_DATA)
python3 -c "
from graphrepro.solvers.gerritsen2012 import memcap
try:
    cap = memcap.join_capped_cgroup(238); memcap.leave_capped_cgroup(cap); print('memory cgroup: yes', cap)
except OSError as e:
    print('memory cgroup: no:', e)" >> "$OUT/host.txt" 2>&1
# The native baselines (BGL, plain C++): the image has no boost-headers and no room is left for
# its 27 MB wheel, so the headers they include travel as .boost/boost-subset.tgz (made by
# `python -m graphrepro build-native --boost-subset .boost/boost-subset.tgz`). Runs would
# otherwise write "not built" rows, a gap in a reference run: stop before any run instead.
if [ -f .boost/boost-subset.tgz ]; then
    mkdir -p /tmp/boost && tar xzf .boost/boost-subset.tgz -C /tmp/boost && export BOOST_INCLUDE=/tmp/boost
fi
if ! python3 -m graphrepro build-native >> "$OUT/host.txt" 2>&1; then
    echo "the native baselines do not build here (carry .boost): stopping before any run" \
        | tee -a "$OUT/host.txt"
    exit 1
fi
resume=()
if [ ! -d results-h100-run3 ] && [ -d reports/run3/results ]; then
    tar czf /tmp/run3-resume.tar.gz --transform 's,^reports/run3/results,results-h100-run3,' \
        reports/run3/results
    resume=(--resume /tmp/run3-resume.tar.gz)
fi
main=(safari2017_table1 safari2017_table2 safari2017_fig3 safari2017_fig4 safari2017_calnev
      an2017_fig1 an2017_coalescing an2017_fig2 an2017_transfers bench_cpu
      singla_fig7_9 singla_fig8_10 senthilkumar_table senthilkumar_delta senthilkumar_switch
      senthilkumar_iterations frontier_sssp launch_floor standins)
g12_ch3=(gerritsen2012_table3_1 gerritsen2012_table3_2 gerritsen2012_table3_3
         gerritsen2012_table3_4 gerritsen2012_table3_5 gerritsen2012_fig3_6 gerritsen2012_table3_7)
g12_ch5=(gerritsen2012_table5_1 gerritsen2012_table5_2 gerritsen2012_table5_3 gerritsen2012_table5_4
         gerritsen2012_table5_5 gerritsen2012_table5_7 gerritsen2012_table3_6 gerritsen2012_table3_8
         results-h100-run3/standins/terrain_compare.csv)
g12_shards=$(awk '/^ *block_shards:/ {print $2}' config/h100-run3.yaml)
targets=()
for word in ${RUN3_TARGETS:-main}; do
    case $word in
        main) targets+=("${main[@]}") ;;
        g12-ch3) targets+=("${g12_ch3[@]}") ;;
        g12-ch5) targets+=("${g12_ch5[@]}") ;;
        g12-full) targets+=(gerritsen2012_table3_8_full) ;;  # resumable: warm calls back to back
        native)  # the native baselines' run files, remade with the Boost headers carried
            for f in {ny,calnev,western,col,web_google,web_google_w1000,uniform_1m}/bgl_dijkstra \
                     {ny,calnev,western}/cpp_dijkstra; do
                targets+=("results-h100-run3/runs/$f.csv")
            done ;;
        g12-gpu-shards)  # the GPU versions' block shards alone: no CPU timing beside the main ones
            for v in gpu_baseline gpu_mark gpu_prealloc gpu_reduce gpu64_prealloc gpu64_reduce; do
                for ((i = 0; i < g12_shards; i++)); do
                    targets+=("results-h100-run3/shards/benchmarks/gerritsen2012_mst_$v.$i.csv")
                done
            done ;;
        *) targets+=("$word") ;;
    esac
done
extra=()
[ -n "${RUN3_CONFIG:-}" ] && extra=(--config ${RUN3_CONFIG})
python3 workflow/scripts/timeboxed.py --minutes "$minutes" --grace-s 40 --max-file-mb 12 \
    --archive "$OUT/state.tar.gz" "${resume[@]}" -- \
    --workflow-profile workflow/profiles/gpu-host --scheduler greedy "${targets[@]}" \
    --configfile config/h100.yaml config/h100-run3.yaml "${extra[@]}" > "$OUT/call.log" 2>&1
echo "timeboxed rc=$?"
grep -h "^timeboxed:" "$OUT/call.log"
grep -c "not started" results-h100-run3/logs/runs/*/*.log results-h100-run3/logs/shards/*/*.log \
    2>/dev/null | awk -F: '$2 > 0' | wc -l
grep -l -i "error" results-h100-run3/logs/runs/*/*.log results-h100-run3/logs/shards/*/*.log \
    2>/dev/null | head -20
tail -4 "$OUT/call.log"
