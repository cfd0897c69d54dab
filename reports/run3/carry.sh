#!/usr/bin/env bash
# Keep what a device call sends under its 64 MiB (the tree, plus .whl, .realdata, .peers and
# .boost carried): from the repository root,
#   bash reports/run3/carry.sh aside [main|native|g12|full]    before the call
#   bash reports/run3/carry.sh back                             after it (and after a failed one)
# aside moves what the call does not read to $RUN3_ASIDE (default ../run3-aside, outside the
# repository) and lists it there; back returns exactly that. The kinds:
#   main    the whole run's targets: reports/evidence, the reference's folders the deadline gate does not read
#           (it reads reports/reference/benchmarks and runs/ for its estimates), the call logs,
#           FLA and NE (the stand-ins table is made: name the targets without `standins`), and
#           the wheels only the tests need;
#   native  main, and run 3's finished run files, calibration, stand-ins and graphs' shards but
#           the native baselines': a call that remakes named run files (their sources and
#           chapter 3's block shards stay);
#   g12     native, and the sources, every graph's shards, the block tables whose shards are all
#           here (merged again there), the real road graphs and the peers: gerritsen2012 alone
#           (no graph cache is rebuilt either).
#   full    g12, and every chapter-3 block shard too: the whole-grid Table 3.8 reads neither
#           shards nor block tables, and with chapter 3 made (repeat passes in) g12 no longer fits
#           under the limit (66.7 MiB after call 19).
set -euo pipefail
aside=${RUN3_ASIDE:-../run3-aside}
manifest=$aside/moved.txt

size() {  # what the call would send: the tree git sees and the carried folders, in MiB
    { git ls-files -z | xargs -0 stat -c %s 2>/dev/null
      git ls-files -o --exclude-standard -z | xargs -0 -r stat -c %s
      find .whl .realdata .peers .boost -type f -exec stat -c %s {} + 2>/dev/null; } |
        awk '{s += $1} END {printf "%.1f MiB\n", s / 1048576}'
}

case ${1:-} in
aside)
    kind=${2:-main}
    [ -e "$manifest" ] && { echo "$manifest exists: run 'back' first" >&2; exit 1; }
    ref=reports/reference res=reports/run3/results
    shards=$(awk '/^ *block_shards:/ {print $2}' config/h100-run3.yaml)
    paths=(reports/evidence $ref/{peers,figures,older,checks}
           $ref/runs/{roadnet_ca,roadnet_cal,msdoor} reports/run3/calls
           .realdata/road-graphs-pace16/{FLA,NE}.gr.xz .whl/{pulp,networkx,hypothesis,pytest,iniconfig,pluggy}-*.whl)
    case $kind in
        main) ;;
        native|g12|full)
            paths+=($res/{runs,calibration,standins,standins.csv})
            # native: the native baselines' shards stay (finished ones of an unfinished run
            # file are not redone); g12: every run file is made, so no graph's shards are read
            for d in "$res"/shards/*/; do
                [ "$(basename "$d")" = benchmarks ] && continue
                if [ "$kind" != native ]; then paths+=("${d%/}"); continue; fi
                for f in "$d"*; do
                    case $(basename "$f") in bgl_dijkstra.*|cpp_dijkstra.*) ;; *) paths+=("$f") ;; esac
                done
            done
            [ "$kind" = full ] && paths+=("$res/shards/benchmarks")
            if [ "$kind" != native ]; then
                # no graph is read: not the road graphs (of the real data only the Wake County
                # piece travels), nor the peers' source (no peer runs)
                paths+=($res/sources .peers .realdata/USA-road-d.NY.gr.gz
                        .realdata/road-graphs-pace16/{COL,NW,NY}.gr.xz)
                # a block table whose shards all travel is merged again there in seconds (it
                # would not fit beside them)
                for f in "$res"/benchmarks/gerritsen2012_mst_*.provenance.json; do
                    v=$(basename "$f" .provenance.json)
                    n=$(find "$res/shards/benchmarks" -maxdepth 1 -name "$v.*.csv" | wc -l)  # not repeat/
                    [ "$n" -eq "$shards" ] && paths+=("$res/benchmarks/$v.csv" "$f")
                done
            fi ;;
        *) echo "aside: main, native, g12 or full, not $kind" >&2; exit 2 ;;
    esac
    mkdir -p "$aside"
    : > "$manifest.part"
    for p in "${paths[@]}"; do
        [ -e "$p" ] || continue
        mkdir -p "$aside/$(dirname "$p")"
        # a folder moved onto one already there would land inside it, and not come back
        [ -e "$aside/$p" ] && { echo "already aside: $p (run 'back')" >&2; exit 1; }
        mv "$p" "$aside/$p"
        echo "$p" >> "$manifest.part"
    done
    mv "$manifest.part" "$manifest"
    echo "moved $(wc -l < "$manifest") paths to $aside; the call sends $(size)" ;;
back)
    [ -f "$manifest" ] || { echo "nothing to bring back ($manifest missing)" >&2; exit 1; }
    # before unpacking a call's state over results/: else a folder it makes is here twice
    while read -r p; do
        if [ ! -e "$aside/$p" ]; then
            [ -e "$p" ] && continue  # brought back by an earlier, interrupted 'back'
            echo "missing: $aside/$p" >&2; exit 1
        fi
        [ -e "$p" ] && { echo "both here and aside: $p (left aside)" >&2; exit 1; }
        mkdir -p "$(dirname "$p")"
        mv "$aside/$p" "$p"
    done < "$manifest"
    rm "$manifest"
    find "$aside" -depth -type d -empty -delete
    echo "brought back; the tree sends $(size) with the carried folders" ;;
*)
    echo "usage: bash reports/run3/carry.sh aside [main|native|g12|full] | back" >&2; exit 2 ;;
esac
