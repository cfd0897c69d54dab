"""Targets, one per published table or figure: which there are, re-measuring one, and its table
of published values beside ours, from fresh runs or from run tables already made."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import atomic
from ..errors import InputError
from .common import _merged_config, format_arg, print_rows


def cmd_targets(args) -> int:
    from .. import configs
    from ..experiments import all_targets

    config = configs.load(args.configfile)
    mine = (config.get("targets") or {})
    here, elsewhere = [], []
    for t in sorted(all_targets(), key=lambda t: not t.ready):
        row = {"name": t.name, "document": t.document, "item": t.item,
               "description": t.description, "status": ""}
        if t.ready and t.name not in mine:  # no rule on this config: say which config has one
            where = configs.configs_with(t.name)
            row["status"] = ("not in this config; " + (f"run with --configfile {' or '.join(where)}"
                                                       if where else "in no config file"))
            elsewhere.append(row)
        elif t.ready or args.all:
            row["status"] = "" if t.ready else f"planned: issue {t.planned}"
            here.append(row)
    print_rows(here + elsewhere, ["name", "document", "item", "status", "description"],
               args.format)
    if not args.all:
        print("(--all also lists the tables and figures whose reproduction is still planned)",
              file=sys.stderr)
    return 0


def add_targets(sub) -> None:
    sp = sub.add_parser("targets", help="list the snakemake targets, one per published table or figure")
    sp.add_argument("--all", action="store_true", help="include the ones still planned")
    sp.add_argument("--configfile", nargs="*", default=[],
                    help="config files over the default, as given to snakemake (targets not in "
                         "the result are listed last, with the config that has them)")
    format_arg(sp)
    sp.set_defaults(func=cmd_targets)


def cmd_rerun(args) -> int:
    """Re-measure one target: its run and benchmark files are made again, then its table."""
    import shlex
    import subprocess

    from .. import configcheck, configs, snakemake_args
    from ..experiments import get_target

    config = configs.load(args.configfile)
    configcheck.check_config(config)  # its paths before they reach a command line
    if not get_target(args.target).ready:
        raise InputError(f"target {args.target} is planned, not built yet")
    if args.target not in (config.get("targets") or {}):
        where = configs.configs_with(args.target)
        raise InputError(f"target {args.target} is not in this config"
                         + (f"; add --configfile {' or '.join(where)}" if where else ""))
    files = configs.measured_files(args.target, config)
    _say_if_not_measurable_here(args.target)
    # snakemake_args: the files and target after `--`, each ./PATH, so that no config value
    # (a results folder "-s.") can become an option; only a newer input remakes a job, so
    # graphs and sources that exist are never touched (snakemake would also remake a job whose
    # recorded code or parameters changed)
    options = ["--cores", str(args.cores), "--rerun-triggers", "mtime"]
    if args.configfile:
        options += ["--configfile", *snakemake_args.paths(args.configfile, what="--configfile")]
    if args.dry_run:
        options += ["--dry-run"]
    # --force remakes exactly the named files' jobs (the measurements), not their graphs or
    # sources; the target's table and figure follow because their inputs are newer.
    if files:
        cmd = snakemake_args.command([*options, "--force"], [*files, args.target],
                                     what=f"rerun {args.target}: a measured file")
    else:
        cmd = snakemake_args.command([*options, "--forcerun", "compare_target", "compare_table"],
                                     [args.target])
    print("+ " + shlex.join(cmd), file=sys.stderr)
    return run_through_ctrl_c(subprocess.Popen(cmd))


def run_through_ctrl_c(child) -> int:
    """The child's exit status, waited for through a Ctrl-C: the terminal sent snakemake the
    same SIGINT, and it stops its jobs, removes their incomplete outputs, releases its lock and
    says so in one line before it exits 130 (subprocess.call would kill it a quarter second
    in, leaving its lock and half-made outputs)."""
    try:
        return child.wait()
    except KeyboardInterrupt:
        return child.wait()


def cmd_study(args) -> int:
    """The study, by Snakemake: the working directory's workflow (a checkout), else the one
    that came with the package (an installed wheel, in any folder: results/ and reports/ are
    written here, as in a checkout)."""
    import shlex
    import subprocess

    from .. import configcheck, configs, snakemake_args

    options = ["--cores", str(args.cores)]
    if args.configfile:
        configcheck.check_config(configs.load(args.configfile))  # one line per problem, first
        options += ["--configfile", *snakemake_args.paths(args.configfile, what="--configfile")]
    if args.dry_run:
        options += ["--dry-run"]
    if args.conda:
        options += ["--sdm", "conda"]
    cmd = snakemake_args.command(options, args.targets)
    print("+ " + shlex.join(cmd), file=sys.stderr)
    return subprocess.call(cmd)


def add_study(sub) -> None:
    sp = sub.add_parser("study", help="run the study (the default config, or --configfile) into "
                                      "results/ and reports/index.html here; no checkout needed")
    sp.add_argument("targets", nargs="*", help="targets to build (default: the whole report)")
    sp.add_argument("--configfile", nargs="*", default=[], help="as given to snakemake")
    sp.add_argument("--cores", default="all", type=_cores, help="all, or a whole number >= 1")
    sp.add_argument("-n", "--dry-run", action="store_true", help="show what would run")
    sp.add_argument("--conda", action="store_true",
                    help="each job in the workflow's conda env (snakemake --sdm conda)")
    sp.set_defaults(func=cmd_study)


def _say_if_not_measurable_here(target: str) -> None:
    """A target that times GPU solvers, asked for on a machine with no CUDA device: its GPU runs
    would record "not run" and re-measure nothing. Said before anything runs."""
    from .. import gpu
    from ..report.ledger import gpu_target_names

    if target in gpu_target_names() and not gpu.cuda_available():
        print(f"rerun: {target} times GPU solvers and this machine has no CUDA device: its GPU "
              "runs will record 'not run: no CUDA device' (only its CPU runs are measured); the "
              "report keeps the committed reference run's numbers for it.", file=sys.stderr)


def add_rerun(sub) -> None:
    sp = sub.add_parser("rerun", help="re-measure one target: rerun its solver runs or benchmarks "
                                      "(not its graphs), then rebuild its table and figure")
    sp.add_argument("target")
    sp.add_argument("--configfile", nargs="*", default=[], help="as given to snakemake")
    sp.add_argument("--cores", default="all", type=_cores, help="all, or a whole number >= 1")
    sp.add_argument("-n", "--dry-run", action="store_true", help="show what would run")
    sp.set_defaults(func=cmd_rerun)


def _cores(text: str) -> str:
    import argparse

    if text != "all" and not (text.isdigit() and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"{text!r} is neither 'all' nor a whole number >= 1")
    return text


def cmd_compare(args) -> int:
    from ..report.tables import build_target_table

    from ..experiments import get_target

    table = build_target_table(args.target, args.runs, args.sources, Path(args.output),
                               figure=Path(args.figure) if args.figure else None,
                               benchmark_paths=args.benchmarks,
                               claims=Path(args.claims) if args.claims else None,
                               design=_design(args.sampling))
    if get_target(args.target).prints:  # a benchmark: its numbers in its log, not mid-run
        import pandas as pd

        with pd.option_context("display.width", 200, "display.max_columns", None,
                               "display.float_format", "{:.4g}".format):
            print(f"{args.target}:\n{table.fillna('').to_string(index=False)}", file=sys.stderr)
    return 0


def _design(text: str | None):
    """--sampling first=10,batch=10,cap=100,drift=0.02 -> a sequential Design (None: none)."""
    from ..claims.sequential import Design

    if not text:
        return None
    fields = {"first": int, "batch": int, "cap": int, "drift": float}
    given = {}
    for part in text.split(","):
        key, _, value = part.partition("=")
        try:
            given[key.strip()] = fields[key.strip()](value)
        except (KeyError, ValueError):
            raise InputError(f"--sampling {text!r}: give {', '.join(f'{k}=N' for k in fields)} "
                             f"(whole numbers, drift a fraction); {part!r} is not one") from None
    if min(given.get(k, 1) for k in ("first", "batch", "cap")) < 1 or \
            not 0 <= given.get("drift", 0) <= 1:
        raise InputError(f"--sampling {text!r}: first, batch and cap at least 1, drift 0 to 1")
    return Design(**given)


def add_compare(sub) -> None:
    sp = sub.add_parser("compare", help="one target's table: published values beside ours, with verdicts")
    sp.add_argument("target")
    sp.add_argument("--runs", nargs="*", default=[], help="run tables (none for data-only targets)")
    sp.add_argument("--sources", nargs="*", default=[],
                    help="the graphs' source records (none for targets that read only benchmarks)")
    sp.add_argument("--output", required=True)
    sp.add_argument("--figure", help="also draw the target's figure (PNG)")
    sp.add_argument("--benchmarks", nargs="*", default=[],
                    help="benchmark tables the target reads besides the runs (e.g. transfers)")
    sp.add_argument("--claims", help="where the target's ledger rows go (default: beside --output, "
                                     "NAME.claims.csv)")
    sp.add_argument("--sampling", help="judge each claim on the sources a sequential design "
                    "stops at: first=N,batch=N,cap=N,drift=X (the config's sampling:)")
    sp.set_defaults(func=cmd_compare)


def _listed_runs(root: Path, name: str) -> list[Path]:
    """The run tables a copied target table was made from, where a call of its own made it
    (``targets/<name>.runs``: one provenance record a line, below ``root``; the peers run of
    issue 33): retabulating reads those, not same-named runs of another call."""
    listed = root / "targets" / f"{name}.runs"
    if not listed.is_file():
        return []
    lines = [x.strip() for x in listed.read_text().splitlines()]
    runs = [root / x.replace(".provenance.json", ".csv") for x in lines if x and not x.startswith("#")]
    missing = [str(p) for p in runs if not p.is_file()]
    if missing:
        raise InputError(f"{listed}: names run tables that are not there: {', '.join(missing[:3])}")
    return runs


def retabulate_inputs(root: Path, name: str, settings: dict) -> tuple:
    """(run tables, source records, benchmark tables) of one configured target under a results
    directory; (None, None, None) when none of its graphs has sources there."""
    from ..experiments import get_target
    from ..solvers import run_file

    target = get_target(name)
    run_ids = settings.get("runs") or list(target.solvers)
    listed = _listed_runs(root, name)
    if listed:  # in the record's order (the order the call's compare step had), whatever config
        sources = list(dict.fromkeys(p.parent.parent.parent / "sources" / f"{p.parent.name}.json"
                                     for p in listed))
        return listed, sources, [p for b in (*target.benchmarks, *target.also_reads)
                                 if (p := root / "benchmarks" / f"{b}.csv").is_file()]
    graphs = [g for g in settings.get("graphs") or []
              if (root / "sources" / f"{g}.json").is_file()]
    runs = [p for g in graphs for r in run_ids if (p := run_file(root / "runs" / g, r)).is_file()]
    also = {g: rs for g, rs in (settings.get("also") or {}).items()
            if (root / "sources" / f"{g}.json").is_file()}  # another target's graph
    runs += [p for g, rs in also.items() for r in rs
             if (p := run_file(root / "runs" / g, r)).is_file()]
    if not graphs and not (target.benchmarks and not settings.get("graphs")):
        return None, None, None
    benchmarks = [p for b in (*target.benchmarks, *target.also_reads)
                  if (p := root / "benchmarks" / f"{b}.csv").is_file()]
    sources = [root / "sources" / f"{g}.json" for g in graphs + [g for g in also if g not in graphs]]
    return runs, sources, benchmarks


def cmd_retabulate(args) -> int:
    """Rebuild target tables and figures from run tables already made (no solver runs)."""
    from ..experiments import get_target
    from ..report.tables import build_target_table

    config = _merged_config(args.configfile)
    root = Path(args.results)
    supersedes = None
    if args.complete:
        from ..wholerun import require_whole_run

        require_whole_run(config, root, args.complete)  # before a reference: nothing tabulated
        previous = root / "provenance.json"
        if previous.is_file():  # what the run replaced is in no table: a retabulation keeps it;
            from ..harness.files import read_record  # a damaged record stops it before any write

            supersedes = read_record(previous, "the run's record").get("supersedes")
    names = args.targets or [n for n in config.get("targets", {}) if get_target(n).ready]
    for name in names:
        settings = config["targets"].get(name)
        if settings is None:
            raise InputError(f"target {name} is not in the given config files")
        runs, sources, benchmarks = retabulate_inputs(root, name, settings)
        if runs is None:
            print(f"{name}: no graph of it has sources under {root}; skipped", file=sys.stderr)
            continue
        if get_target(name).benchmarks and not benchmarks and not runs:
            # a results directory part way through a run (issue 32's): no table from nothing
            print(f"{name}: none of its benchmark tables is under {root / 'benchmarks'}; skipped",
                  file=sys.stderr)
            continue
        build_target_table(name, runs, sources, root / "targets" / f"{name}.csv",
                           figure=root / "figures" / f"{name}.png", benchmark_paths=benchmarks,
                           figure_only=args.figures_only)
        print(f"{name}: {len(runs)} run tables over {len(sources)} graphs", file=sys.stderr)
    from ..claims import collect

    ledger = collect(root)
    atomic.write_csv(ledger, root / "claims.csv")
    print(f"{root / 'claims.csv'}: {len(ledger)} claims", file=sys.stderr)
    if args.complete:  # the whole run's record: what the report says of the reference run
        from ..wholerun import run_record

        record = run_record(config, root, args.complete, args.configfile)
        if supersedes is not None:
            record["supersedes"] = supersedes
        atomic.write_text(root / "provenance.json", json.dumps(record, indent=1) + "\n")
        print(f"{root / 'provenance.json'}: {record['jobs']} jobs' records", file=sys.stderr)
    return 0


def add_retabulate(sub) -> None:
    sp = sub.add_parser("retabulate", help="rebuild target tables and figures from the run tables "
                                           "under a results directory (e.g. reports/reference)")
    sp.add_argument("results", help="a results directory: runs/, sources/, benchmarks/")
    sp.add_argument("--configfile", nargs="+", required=True,
                    help="the config files the runs came from, merged in order")
    sp.add_argument("--targets", nargs="*", help="only these (default: every ready one configured)")
    sp.add_argument("--figures-only", action="store_true",
                    help="redraw the figures only; leave the target tables as they are")
    sp.add_argument("--complete", metavar="RUN_NAME",
                    help="first check that the folder is one whole run of that name (every run "
                         "file and benchmark table the targets read, each made by it, none with "
                         "rows of a program never built), and tabulate nothing if not")
    sp.set_defaults(func=cmd_retabulate)
