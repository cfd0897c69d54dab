#!/usr/bin/env bash
# Device calls 5 and 6 (see README.md): gerritsen2012 chapters 3 and 5 with config/h100.yaml, and
# the GPU benchmarks of issues 10 and 11. Run from the repository root on the GPU machine after the
# wheel install line; writes to $OUT. Usage: bash device-call-5.sh 5|6
set -u
mkdir -p /tmp/bsub && tar xzf .boost/boost-subset.tgz -C /tmp/bsub && export BOOST_INCLUDE=/tmp/bsub
B=results/benchmarks/gerritsen2012
t0=$(date +%s)
if [ "$1" = 5 ]; then
  jobs="results/terrain/neuse_dem.zgrid build/native/manifest.json"
  for v in cpu_baseline gpu_baseline cpu_tournament cpu_mark gpu_mark cpu_prealloc gpu_prealloc \
           gpu_reduce gpu64_prealloc gpu64_reduce; do jobs="$jobs ${B}_mst_$v.csv"; done
  jobs="$jobs ${B}_mst_io_sweep.csv ${B}_table5_2.csv ${B}_table5_3.csv ${B}_table5_4.csv"
  timeout 400 snakemake --cores 16 --keep-going $jobs --configfile config/h100.yaml > $OUT/snakemake-5.log 2>&1
  echo "workflow part after $(( $(date +%s) - t0 )) s"
  timeout 130 python benchmarks/gerritsen2012_mst.py --blocks 256 --gpu-blocks 64 --cpu-blocks 16 \
      --trials 2 --csv $OUT/gerritsen2012_mst_benchmark.csv > $OUT/benchmark-mst.log 2>&1
else
  jobs="${B}_table5_1.csv ${B}_table5_5.csv ${B}_table5_7.csv ${B}_mst_phases_cpu.csv ${B}_mst_phases_gpu.csv"
  timeout 330 snakemake --cores 16 --keep-going $jobs --configfile config/h100.yaml > $OUT/snakemake-6.log 2>&1
  echo "workflow part after $(( $(date +%s) - t0 )) s"
  timeout 150 python benchmarks/gerritsen2012_sssp.py --phase1-side 1024 --blocks 32 --side 8192 \
      --skip alg1 --trials 2 > $OUT/benchmark-sssp.log 2>&1
  # the an2017 and singla kernels after folding their relax code: a run each, verified
  mkdir -p /tmp/smoke/graphs /tmp/smoke/sources
  timeout 60 snakemake --cores 16 results/sources/dense_1024.json results/sources/singla_general_2m3.json \
      --configfile config/h100.yaml > $OUT/snakemake-smoke.log 2>&1
  cp results/graphs/dense_1024.npz results/graphs/singla_general_2m3.npz /tmp/smoke/graphs/
  cp results/sources/dense_1024.json results/sources/singla_general_2m3.json /tmp/smoke/sources/
  timeout 60 python workflow/scripts/run_batch.py --results /tmp/smoke \
      "dense_1024/an_bf_dense@edges_per_thread=4,order=coalesced" dense_1024/an_bf_outgoing \
      singla_general_2m3/singla_dijkstra singla_general_2m3/singla_bfs > $OUT/smoke.log 2>&1
fi
echo "all done after $(( $(date +%s) - t0 )) s"
tar czf $OUT/results.tgz results/benchmarks results/terrain/*.json results/logs /tmp/smoke/runs 2>/dev/null
tail -4 $OUT/snakemake-*.log; tail -30 $OUT/benchmark-*.log
