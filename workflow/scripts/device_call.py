#!/usr/bin/env python3
"""One call of a reference run on a lent GPU host: the one script every run's calls use.

    GRAPHREPRO_COMMIT=<commit of the tree sent> python3 workflow/scripts/device_call.py \
        --run-name "run 4" --replicate A --minutes 7.5 \
        --configfile config/h100.yaml config/h100-real.yaml -- main g12-ch3 [TARGET ...]

From the repository root on the device machine, after the wheels' install line
(../shared/device/wheels.sh) and with .whl, .realdata, .peers and .boost carried (git-ignored,
never committed). It replaces the per-call shell scripts of runs 1-3 (in git history; see
reports/history/README.md). In order, it
1. writes ``$OUT/call.json``: its own arguments, the commit, the run's name and replicate, the
   start time; the same record goes to every job of the call as ``GRAPHREPRO_CALL``, which
   harness/provenance.py writes into each run table's provenance (``call``), so a table says
   which call made it and how;
2. records the machine: ``$OUT/gpu.txt`` (nvidia-smi: model, driver, PCI id, clocks) and
   ``$OUT/host.txt`` (cores, CPU, memory, whether a memory cgroup can be made for Table 5.7);
3. builds the native baselines (Boost headers from ``.boost/boost-subset.tgz`` when carried) and
   stops before any run if they do not build: "not built" rows would be a gap in a reference run;
4. runs ``workflow/scripts/timeboxed.py`` (the deadline, the resume archive, the packing) on the
   targets, with ``--workflow-profile workflow/profiles/gpu-host``, and leaves what completed in
   ``$OUT/state.tar.gz`` and the log in ``$OUT/call.log``.

Target words: a target's name or file, or a group (``GROUPS``: ``main`` is every target of the
other four documents, ``g12-ch3``/``g12-ch5``/``g12-full`` gerritsen2012's chapters, which need
other carries). ``--dry-run`` prints the record and the snakemake command and runs nothing
(tested without a GPU: tests/test_device_call.py).

The commit comes from ``GRAPHREPRO_COMMIT``, never ``git rev-parse`` on the device: the
device's copy of the history can be older than the tree it was sent (run 3's call 28).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

MAIN = ("safari2017_table1", "safari2017_table2", "safari2017_fig3", "safari2017_fig4",
        "safari2017_calnev", "an2017_fig1", "an2017_coalescing", "an2017_fig2", "an2017_transfers",
        "bench_cpu", "singla_fig7_9", "singla_fig8_10", "senthilkumar_table", "senthilkumar_delta",
        "senthilkumar_switch", "senthilkumar_iterations", "frontier_sssp", "launch_floor",
        "standins")
G12_CH3 = ("gerritsen2012_table3_1", "gerritsen2012_table3_2", "gerritsen2012_table3_3",
           "gerritsen2012_table3_4", "gerritsen2012_table3_5", "gerritsen2012_fig3_6",
           "gerritsen2012_table3_7")
G12_CH5 = ("gerritsen2012_table5_1", "gerritsen2012_table5_2", "gerritsen2012_table5_3",
           "gerritsen2012_table5_4", "gerritsen2012_table5_5", "gerritsen2012_table5_7",
           "gerritsen2012_table3_6", "gerritsen2012_table3_8")
GROUPS = {"main": MAIN, "g12-ch3": G12_CH3, "g12-ch5": G12_CH5,
          "g12-full": ("gerritsen2012_table3_8_full",)}
PROFILE = "workflow/profiles/gpu-host"
CGROUP_PROBE = """
from graphrepro.solvers.gerritsen2012 import memcap
try:
    cap = memcap.join_capped_cgroup(238); memcap.leave_capped_cgroup(cap)
    print('memory cgroup: yes', cap)
except OSError as e:
    print('memory cgroup: no:', e)
"""


def expand(words: list[str]) -> list[str]:
    """Target words -> snakemake targets, groups expanded, order kept, each once."""
    targets: list[str] = []
    for word in words:
        for target in GROUPS.get(word, (word,)):
            if target not in targets:
                targets.append(target)
    return targets


def snakemake_args(args) -> list[str]:
    smk = ["--workflow-profile", PROFILE, "--scheduler", "greedy",
           "--configfile", *args.configfile]
    if args.config:
        # a --config replaces the profile's config words: the placement is the profile file's
        # own (issue 56), so only what the call asks for goes here
        smk += ["--config", *args.config]
    # targets after `--`: a target never reads as an option (snakemake_args.py's rule)
    return smk + ["--", *expand(args.targets)]


def call_record(args, commit: str) -> dict:
    return {"run_name": args.run_name, "replicate": args.replicate, "commit": commit,
            "configfiles": list(args.configfile), "config": list(args.config or []),
            "targets": list(args.targets), "minutes": args.minutes,
            "resume": args.resume, "started": dt.datetime.now(dt.timezone.utc).isoformat(
                timespec="seconds"),
            "script": "workflow/scripts/device_call.py"}


def timeboxed_command(args, out: Path) -> list[str]:
    cmd = [sys.executable, "workflow/scripts/timeboxed.py", "--minutes", str(args.minutes),
           "--grace-s", str(args.grace_s), "--max-file-mb", str(args.max_file_mb),
           "--archive", str(out / "state.tar.gz")]
    if args.resume:
        cmd += ["--resume", args.resume]
    return cmd + ["--", *snakemake_args(args)]


def _shell_to(path: Path, cmd: list[str], env=None, append: bool = False) -> int:
    with open(path, "a" if append else "w") as f:
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode


def record_machine(out: Path) -> None:
    _shell_to(out / "gpu.txt", ["nvidia-smi", "--query-gpu=index,name,driver_version,pci.bus_id,"
                                "clocks.max.sm,temperature.gpu", "--format=csv"])
    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
               "unknown")
    with open(out / "host.txt", "w") as f:
        f.write(f"cores {os.cpu_count()}\ncpu {cpu}\n")
    _shell_to(out / "host.txt", ["free", "-g"], append=True)
    _shell_to(out / "host.txt", [sys.executable, "-c", CGROUP_PROBE], append=True)


def build_native(out: Path) -> bool:
    env = dict(os.environ)
    subset = Path(".boost/boost-subset.tgz")
    if subset.is_file():
        include = Path("/tmp/boost")
        include.mkdir(exist_ok=True)
        subprocess.run(["tar", "xzf", str(subset), "-C", str(include)], check=True)
        env["BOOST_INCLUDE"] = str(include)
        os.environ["BOOST_INCLUDE"] = str(include)
    return _shell_to(out / "host.txt", [sys.executable, "-m", "graphrepro", "build-native"],
                     env=env, append=True) == 0


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run-name", required=True, help='the reference run, e.g. "run 4"')
    ap.add_argument("--replicate", default="", help="A or B: which replicate this call adds to")
    ap.add_argument("--minutes", type=float, default=7.5, help="the call's deadline for snakemake")
    ap.add_argument("--grace-s", type=float, default=40.0)
    ap.add_argument("--max-file-mb", type=float, default=12.0)
    ap.add_argument("--resume", help="the archive the run's last call left (state.tar.gz)")
    ap.add_argument("--configfile", nargs="+", required=True)
    ap.add_argument("--config", nargs="+", help="snakemake --config words for this call")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the call's record and command; run nothing")
    ap.add_argument("targets", nargs="+", help="target names or files, or groups: "
                    + ", ".join(GROUPS))
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse(argv)
    if args.replicate not in ("", "A", "B"):
        print(f"device_call: --replicate is A or B, not {args.replicate!r}", file=sys.stderr)
        return 2
    commit = os.environ.get("GRAPHREPRO_COMMIT", "")
    if not commit and not args.dry_run:
        print("device_call: set GRAPHREPRO_COMMIT to the commit of the tree sent", file=sys.stderr)
        return 2
    out = Path(os.environ.get("OUT", "."))
    record = call_record(args, commit)
    command = timeboxed_command(args, out)
    if args.dry_run:
        print(json.dumps(record, indent=1))
        print(" ".join(command))
        return 0
    (out / "call.json").write_text(json.dumps(record, indent=1) + "\n")
    os.environ.update(PYTHONUNBUFFERED="1", NUMBA_ENABLE_CUDASIM="0",
                      GRAPHREPRO_CALL=json.dumps(record, sort_keys=True))
    record_machine(out)
    if not build_native(out):
        print("device_call: the native baselines do not build here (carry .boost): "
              "stopping before any run", file=sys.stderr)
        return 1
    rc = _shell_to(out / "call.log", command)
    print(f"timeboxed rc={rc}")
    lines = (out / "call.log").read_text(errors="replace").splitlines()
    print("\n".join([line for line in lines if line.startswith("timeboxed:")] + lines[-4:]))
    return rc


if __name__ == "__main__":
    sys.exit(main())
