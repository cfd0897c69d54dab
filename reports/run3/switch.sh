#!/usr/bin/env bash
# Issue 32's switch: run 3 becomes the reference the report reads, and runs 1 and 2 move to
# reports/superseded/runs-1-2/, which nothing reads. From the repository root:
#   bash reports/run3/switch.sh           once every table of run 3 is in reports/run3/results/
#   bash reports/run3/switch.sh --trial   a rehearsal on the run so far, in a copy of the tree
#                                         (never in the checkout): each table run 3 lacks is
#                                         taken from runs 1 and 2 and listed, so the tests that
#                                         demand one whole run fail there, as they should
# The real switch first runs `retabulate --complete "run 3"` on a copy of run 3's tables, which
# lists every gap and tabulates nothing if there is one; the tree is changed only once that has
# passed. Then the old and new ledgers are compared (`claims --changed-from`): the verdicts per
# document before and after, and every claim whose verdict changed, for the issue's note. The
# new reference's README is written from its own record; what the calls did stays in
# reports/run3/README.md. Nothing is committed: `git status` shows the switch.
set -euo pipefail
py=${PYTHON:-.venv/bin/python}
configs=(config/config.yaml config/h100.yaml config/h100-run3.yaml)
ref=reports/reference old=reports/superseded/runs-1-2 run=reports/run3
trial=0
case ${1:-} in
    "") ;;
    --trial) trial=1 ;;
    *) echo "usage: bash reports/run3/switch.sh [--trial]" >&2; exit 2 ;;
esac
[ -e "$old" ] && { echo "$old exists: the switch is made" >&2; exit 1; }
[ -d "$run/results" ] || { echo "$run/results: no run 3 tables here" >&2; exit 1; }
if [ $trial = 1 ] && git rev-parse --is-inside-work-tree >/dev/null 2>&1 \
        && [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ] && [ -z "${SWITCH_TRIAL_HERE:-}" ]; then
    echo "--trial leaves stand-in tables from runs 1 and 2 in the reference: run it in a copy" \
         "of the tree (or set SWITCH_TRIAL_HERE=1 in a throwaway checkout)" >&2
    exit 1
fi

work=$(mktemp -d reports/.switch.XXXXXX)
trap 'rm -rf "$work"' EXIT
# the run's tables; not their shards: each merged table holds its shards' rows and its record
# their records (the shards stay in git's history)
cp -a "$run/results/." "$work/"
rm -rf "$work/shards"
if [ $trial = 1 ]; then
    # each table the targets read that run 3 lacks, with its record, from runs 1 and 2
    "$py" - "$work" "$ref" "${configs[@]}" <<'EOF'
import shutil, sys
from pathlib import Path
from graphrepro import configs, wholerun
work, ref, files = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
for table in wholerun.expected_tables(configs.load([Path(f) for f in files]), work):
    old = ref / table.relative_to(work)
    if table.is_file() or not old.is_file():
        continue
    for src in (old, old.with_suffix(".provenance.json")):
        if src.is_file():
            table.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, table.parent / src.name)
    print(f"trial: from runs 1 and 2: {table.relative_to(work)}")
EOF
    "$py" -m graphrepro retabulate "$work" --configfile "${configs[@]}"
    "$py" - "$work" "${configs[@]}" <<'EOF'
import json, sys
from pathlib import Path
from graphrepro import atomic, configs, wholerun
root, files = Path(sys.argv[1]), sys.argv[2:]
record = wholerun.run_record(configs.load([Path(f) for f in files]), root, "run 3", files)
record["trial"] = "a rehearsal: tables run 3 lacks are runs 1 and 2's (never committed)"
atomic.write_text(root / "provenance.json", json.dumps(record, indent=1) + "\n")
EOF
else
    "$py" -m graphrepro retabulate "$work" --configfile "${configs[@]}" --complete "run 3"
fi

mkdir -p "$(dirname "$old")"
mv "$ref" "$old"
mv "$work" "$ref"
trap - EXIT
rm -rf "$run/results"  # the reference now: the tree holds run 3's tables once
"$py" - "$ref" "$old" <<'EOF'
import json, sys
from pathlib import Path
from graphrepro import atomic
ref, old = Path(sys.argv[1]), Path(sys.argv[2])
r = json.loads((ref / "provenance.json").read_text())
# the report says which runs this one replaces, and where they are kept (read by nothing)
r["supersedes"] = {"runs": "runs 1 and 2", "folder": old.as_posix()}
atomic.write_text(ref / "provenance.json", json.dumps(r, indent=1) + "\n")
banner = (f"> **Superseded** by {r['run_name']} (`{ref.as_posix()}/`): nothing reads this folder; "
          "it is kept for the record.\n\n")
atomic.write_text(old / "README.md", banner + (old / "README.md").read_text())
commits = "\n".join(f"| `{c['commit']}` | {c['first']} | {c['last']} | {c['jobs']} |"
                    for c in r["commits"])
text = f"""# Reference GPU run: {r['run_name']}

The workflow's results on a GPU host, committed so that the report shows GPU numbers on machines
without one; the report labels them "reference run". Every table here is one whole run of
`{r['config']}`, checked by `retabulate --complete "{r['run_name']}"` (every run file and
benchmark table the targets read is there, made by this run, with no row of a program never
built, every GPU job on one model of card, every job's record naming its commit, launch path,
wall time and, on a GPU, the card's PCI id), which wrote `provenance.json`. How the run was made,
call by call, with its plan against what it took: `../run3/README.md`.

- GPU: {r['gpu']} (PCI {', '.join(r['pci_bus_ids']) or 'none recorded'}), driver {r['driver']},
  CUDA {r['cuda_runtime']}; CPU: {r['cpu']}; Python {r['python']}.
- Jobs: {r['jobs']}, the last on {r['date']}.

| commit | first job | last job | jobs |
| --- | --- | --- | --- |
{commits}

- `runs/<graph>/<run id>.csv` (+ `.provenance.json`): the run tables, every pass of every row
  verified against CPU Dijkstra on the GPU host; `sources/<graph>.json`: the seeded sources,
  reference digests and the graph's origin; `calibration/`: safari2017's measured N.
- `benchmarks/`: the benchmark tables (gerritsen2012's, an2017's transfers, the launch floor);
  chapter 3's block tables hold their shards' rows and, as `pass` 2, the shards timed again.
- `standins/`: the stand-ins against the real graphs at hand, and the Wake County piece beside
  its stand-in.
- `targets/`, `figures/`, `claims.csv`: remade from those by
  `python -m graphrepro retabulate reports/reference --configfile {' '.join(r['configfiles'])}`.

Runs 1 and 2, which this run replaces, are in `../superseded/runs-1-2/`; nothing reads them.
"""
if r.get("trial"):
    text += f"\n**Trial:** {r['trial']}.\n"
atomic.write_text(ref / "README.md", text)
EOF
echo "switched: $ref is run 3; runs 1 and 2 are in $old"
"$py" -m graphrepro claims --ledger "$ref/claims.csv" --changed-from "$old/claims.csv" --width 140
