#!/usr/bin/env python3
"""Run the workflow until a deadline, keep what finished, go on from there next time.

    python workflow/scripts/timeboxed.py --minutes 8 --archive $OUT/state.tar.gz \
        [--resume PREVIOUS.tar.gz] -- --workflow-profile workflow/profiles/gpu-host \
        --configfile config/h100.yaml [-- targets...]

For a machine lent for a few minutes at a time (the device tool: a call lasts at most 10 minutes
and returns at most 8 files). It
1. unpacks --resume (the archive the last call left) into the working directory, once it has
   checked that the archive holds only its manifest, snakemake's metadata and regular files of
   the results folder, and that the manifest names only results files (SECURITY.md); files the
   archive left out as too large (graph caches) are rebuilt first by snakemake, then every
   unpacked file is touched, so that no finished step looks older than what it was made from
   (a sources record of another graph is still refused: it carries the graph's digest);
2. runs snakemake with the arguments after `--` (its options, then a second `--` before any
   targets, so that no target reads as an option's value; plus --keep-going), telling each timed run the
   deadline and its expected seconds (`graphrepro plan`, from recorded wall times): a run that
   cannot end before the deadline is not started (`python -m graphrepro run` exits 75, writing
   nothing), the running ones finish;
3. stops snakemake if it is still going --grace-s after the deadline (estimates far off), and
   packs the results folder (and snakemake's metadata) into --archive, leaving out files over
   --max-file-mb, which it lists in the archive's manifest.
Snakemake redoes nothing that is done; the last line says how many timed runs are left.

A resumable job (`mst-io --work-dir`: Table 3.8 on the whole grid; `sssp-experiment table5_7`
on the 8192^2 window: each longer than any one call) journals its work under the results
folder's `work/` and stops itself at the deadline (exit 75),
so it starts wherever --resumable-min-s are left, whatever its estimate. Its work directory (GBs
of side files) never goes into the archive: the next call goes on from it on the same warm
machine only; on a fresh machine the job starts over. The last line says how many are unfinished.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path, PurePosixPath
from typing import NamedTuple

MANIFEST = ".timeboxed-manifest.json"
WORK = "work"  # under the results folder: resumable jobs' work directories (gerritsen2012*.smk)


class _Smk(NamedTuple):
    options: list[str]  # snakemake's arguments but the targets (the rebuild's own command)
    configfiles: list[str]
    targets: list[str]


# Snakemake's options as its own parser takes them (snakemake 9; tests/test_public_snakemake.py
# holds the table to the installed parser), by how many words each takes: 1, "?" (0 or 1), "+",
# "*", or none (a flag). A word after one of these is its value, a word after none a target; the
# options a call of ours uses are all here.
_SNAKEMAKE_OPTIONS = {
    1: ("-s --snakefile", "-d --directory", "-c --cores", "-j --jobs", "--local-cores",
        "--workflow-profile", "--profile", "-e --executor", "-w --latency-wait --output-wait",
        "-T --retries --restart-times", "--conda-prefix", "--max-jobs-per-second"),
    "?": ("--scheduler", "--report"),
    "+": ("--configfile --configfiles", "--resources --res", "--set-threads", "--set-resources",
          "--rerun-triggers", "-U --until", "-O --omit-from", "--logger", "--target-jobs",
          "--software-deployment-method --deployment-method --deployment --sdm"),
    "*": ("-C --config", "--default-resources --default-res", "-R --forcerun", "-q --quiet"),
    0: ("-n --dry-run --dryrun", "-p --printshellcmds", "-k --keep-going", "-f --force",
        "-F --forceall", "-t --touch", "--rerun-incomplete --ri", "--keep-incomplete",
        "--nolock", "--notemp --no-temp --nt", "--use-conda", "--show-failed-logs",
        "--benchmark-extended"),
}


def _snakemake_parser() -> argparse.ArgumentParser:
    """Snakemake's command line as far as timeboxed reads it: which words are options' values,
    which config files. No abbreviations (snakemake has --config and --configfile: a prefix is
    not ours to guess)."""
    ap = argparse.ArgumentParser(prog="timeboxed.py ... --", add_help=False, allow_abbrev=False)
    for nargs, options in _SNAKEMAKE_OPTIONS.items():
        for names in options:
            flags = sorted(names.split(), key=lambda f: not f.startswith("--"))
            if nargs == 0:
                ap.add_argument(*flags, action="store_true")
            elif flags[0] == "--configfile":
                ap.add_argument(*flags, nargs="+", action="extend", default=[])
            else:
                ap.add_argument(*flags, nargs=None if nargs == 1 else nargs)
    return ap


def _split(smk_args: list[str]) -> _Smk:
    """Snakemake's arguments: options, config files and targets, read as snakemake reads them.
    A target is a word no option takes, or one after `--` (``snakemake_args``'s rule,
    device_call.py's command). A word after an option not in the table may be its value or a
    target: refused with one line, not guessed."""
    cut = smk_args.index("--") if "--" in smk_args else len(smk_args)
    before, after = smk_args[:cut], smk_args[cut + 1:]
    known, rest = _snakemake_parser().parse_known_args(before)
    targets, unknown = [], None
    for word in rest:
        if word.startswith("-"):
            unknown = None if "=" in word else word
        elif unknown:
            raise SystemExit(f"timeboxed: {word!r} may be a target or the value of {unknown} "
                             "(an option timeboxed does not know): put snakemake's targets "
                             "after a second `--` (`-- OPTIONS -- TARGETS`)")
        else:
            targets.append(word)
    options = [a for a in before if a not in targets]
    return _Smk(options, list(known.configfile), targets + after)


def _estimates(config: dict, results: Path, reference: Path) -> dict:
    """{output path: seconds} for every timed run and shard of the config, and every job (or
    shard) of gerritsen2012 chapter 3's blocks."""
    from graphrepro.configs import block_repeats
    from graphrepro.plan import as_jobs, plan_blocks, plan_runs
    from graphrepro.solvers import run_file_id

    def paths(graph, run_id, shards, whole="runs"):
        name = run_file_id(run_id)
        if shards > 1:
            return [os.path.normpath(results / "shards" / graph / f"{name}.{i}.csv")
                    for i in range(shards)]
        return [os.path.normpath(results / whole / graph / f"{name}.csv")]

    out = {}
    runs = plan_runs(config, reference, results)
    for run in runs:
        out.update(zip(paths(run.graph, run.run_id, run.shards), run.job_seconds()))
    # an interleaved group is one job, started under its first run's output: it needs them all
    for job in as_jobs(config, runs):
        if job.members:
            out.update(zip(paths(job.graph, job.members[0], job.shards), job.job_seconds()))
    # benchmarks/NAME.csv, or its shards shards/benchmarks/NAME.I.csv (graph "benchmarks"), and
    # a shard timed again, shards/benchmarks/repeat/NAME.I.csv, as long as its first pass
    for job in plan_blocks(config, reference, results):
        seconds = job.job_seconds()
        out.update(zip(paths(job.graph, job.run_id, job.shards, whole=""), seconds))
        out.update({os.path.normpath(results / "shards" / "benchmarks" / "repeat"
                                     / f"{job.run_id}.{i}.csv"): seconds[i]
                    for i in block_repeats(config) if i < len(seconds)})
    return out


PEERS_BUILT = "build/peers/manifest.json"  # workflow/rules/peers.smk's output


def _builds(results: Path) -> list[str]:
    """What finished runs read from outside the results folder, made on each machine: the peers'
    build, where a peer's run is among them (else remade in the timed run, it would be newer
    than those runs, and snakemake would redo them)."""
    from graphrepro.errors import InputError
    from graphrepro.solvers import resolve

    for table in (results / "runs").glob("*/*.csv"):
        try:
            if resolve(table.stem.replace("+", ","))[0].document == "peer":
                return [PEERS_BUILT]
        except InputError:  # not a run table of this registry: nothing to build for it
            continue
    return []


def _terrains(results: Path) -> list[str]:
    """The terrain grids finished block tables read (their provenance's settings name them): a
    hand-packed archive (committed results) holds no grid, and one remade inside the timed run
    would be newer than every block shard made from it, which snakemake would redo."""
    from graphrepro.safepath import UnsafePath

    grids = []
    for record in results.rglob("*.provenance.json"):
        try:
            grid = json.loads(record.read_text()).get("settings", {}).get("zgrid")
            grids.append(_in_results(grid, results, f"{record}: settings.zgrid"))
        except (OSError, ValueError, AttributeError):  # a damaged record: retabulate names it
            continue
        except UnsafePath:  # a grid of another folder: not this archive's to rebuild
            continue
    return sorted(set(grids))


# What the checkout's own code lives in: a results folder there would let an archive replace it
CODE = {"Snakefile", "workflow", "src", "config", "profiles", "envs", "tests", ".git",
        ".snakemake", "pyproject.toml"}
METADATA = ".snakemake/metadata"  # snakemake's records of how each output was made


def _in_results(text, results: Path, what: str) -> str:
    """``text``, a path an archive or its records name, if it lies in the results folder: no
    ``..``, no link out of it, never an option. Raises UnsafePath, one line, otherwise."""
    from graphrepro import safepath

    if not isinstance(text, str) or not Path(text).is_relative_to(results):
        raise safepath.UnsafePath(f"{what}: {text!r} is not in the results folder {results}")
    safepath.under(results, str(Path(text).relative_to(results)), what=what)
    return text


def _results_root(results: Path) -> PurePosixPath:
    """The results folder as a plain relative path that holds none of the checkout's code."""
    from graphrepro import safepath

    root = safepath.relative(os.path.normpath(results), what="the config's results folder")
    if root.parts[0] in CODE:
        raise safepath.UnsafePath(f"the config's results folder {str(root)!r} is part of the "
                                  f"checkout's code ({root.parts[0]}): an archive unpacked "
                                  f"there could replace it")
    return root


def _resumable(tar: tarfile.TarFile, archive: Path, root: PurePosixPath):
    """(members, manifest) of a resume archive, or SystemExit naming the first member it may not
    hold: a resume archive holds its manifest, snakemake's metadata records and regular files
    under the results folder, nothing else (never a Snakefile, a rule, a config or a source)."""
    from graphrepro import safepath

    members, manifest = [], {}
    for m in tar.getmembers():
        what = f"timeboxed: {archive}: member"
        try:
            rel = safepath.relative(m.name, what=what)
            if not m.isfile():
                raise safepath.UnsafePath(f"{what} {m.name!r} is not a regular file")
            home = next((h for h in (PurePosixPath(MANIFEST), PurePosixPath(METADATA), root)
                         if rel.is_relative_to(h) and (rel != h or h.name == MANIFEST)), None)
            if home is None:
                raise safepath.UnsafePath(f"{what} {m.name!r} is not a results file of "
                                          f"{str(root)!r} (nor the manifest or snakemake's "
                                          f"metadata)")
            if rel != home:  # no link already in the folder leads it out
                safepath.under(home, str(rel.relative_to(home)), what=f"{what} {m.name!r}")
        except safepath.UnsafePath as e:
            raise SystemExit(f"{e}; nothing was unpacked") from None
        if str(rel) == MANIFEST:
            try:
                manifest = json.loads(tar.extractfile(m).read())
            except (ValueError, UnicodeDecodeError) as e:
                raise SystemExit(f"timeboxed: {archive}: {MANIFEST} is not JSON ({e}); nothing "
                                 f"was unpacked") from None
        members.append(m)
    left_out = manifest.get("left_out", []) if isinstance(manifest, dict) else None
    if not isinstance(left_out, list):
        raise SystemExit(f"timeboxed: {archive}: {MANIFEST}'s left_out is not a list of paths; "
                         f"nothing was unpacked")
    for p in left_out:
        try:
            _in_results(p, Path(root), f"timeboxed: {archive}: {MANIFEST}: left_out")
        except safepath.UnsafePath as e:
            raise SystemExit(f"{e}; nothing was unpacked") from None
    return members, left_out


def unpack(archive: Path, smk: list[str], results: Path) -> list[str]:
    """Unpack the last call's archive; rebuild what it left out; touch what it held. An archive
    packed by hand (no manifest) still has its graphs rebuilt first: each graph a sources
    record names, where its cache is missing. What the archive holds is checked first: only the
    results folder's files (``_resumable``), unpacked, or nothing is."""
    from graphrepro import safepath, snakemake_args

    try:
        root = _results_root(results)
    except safepath.UnsafePath as e:
        raise SystemExit(f"timeboxed: {e}; nothing was unpacked") from None
    with tarfile.open(archive) as tar:
        members, manifest_left_out = _resumable(tar, archive, root)
        names = [m.name for m in members]
        try:
            tar.extractall(".", members=members, filter="data")
        except tarfile.FilterError as e:
            raise SystemExit(f"timeboxed: {archive}: {e}") from None
    graphs = [str(results / "graphs" / f"{p.stem}.npz") for p in (results / "sources").glob("*.json")]
    left_out = [p for p in dict.fromkeys(manifest_left_out + graphs + _terrains(results)
                                         + _builds(results))
                if not Path(p).exists()]
    if left_out:
        print(f"timeboxed: rebuilding {len(left_out)} file(s) the archive left out", flush=True)
        # only those files: the call's targets would remake what reads them, here, untimed
        # (after `--`: neither an option of snakemake's nor another option's value)
        done = subprocess.run(snakemake_args.command(_split(smk).options, left_out),
                              check=False)
        missing = [p for p in left_out if not Path(p).exists()]
        if done.returncode != 0 or missing:
            # going on would remake them inside the timed run, newer than every finished run
            # that reads them, and snakemake would redo all of those
            raise SystemExit(f"timeboxed: the archive's left-out files were not rebuilt "
                             f"(snakemake exited {done.returncode}; {len(missing)} missing, e.g. "
                             f"{missing[:1]}): stopping before anything finished is redone")
    now = time.time()
    for name in names:
        if not name.startswith(".snakemake") and Path(name).is_file():
            os.utime(name, (now, now))
    return names


def pack(archive: Path, results: Path, max_mb: float, max_graph_mb: float) -> dict:
    files, left_out = [], []
    for root in (results, Path(".snakemake/metadata")):
        for p in sorted(root.rglob("*")) if root.exists() else []:
            if not p.is_file() or p.name.startswith(".") or p.is_relative_to(results / WORK):
                continue
            cache = p.parent == results / "graphs" and p.suffix in (".npz", ".gr")
            if p.stat().st_size > (max_graph_mb if cache else max_mb) * 2**20:
                left_out.append(str(p))
            else:
                files.append(p)
    manifest = {"packed": len(files), "left_out": left_out, "date": time.time()}
    Path(MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    archive.parent.mkdir(parents=True, exist_ok=True)
    tmp = archive.with_name(archive.name + ".tmp")
    with tarfile.open(tmp, "w:gz") as tar:
        tar.add(MANIFEST)
        for p in files:
            tar.add(p)
    os.replace(tmp, archive)
    return manifest


def unfinished(results: Path) -> list[str]:
    """The resumable jobs with work journaled and no output yet: a finished one removes its
    work directory once its output is written."""
    root = results / WORK
    return sorted(str(p) for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    when = ap.add_mutually_exclusive_group(required=True)
    when.add_argument("--minutes", type=float, help="the deadline, minutes from now")
    when.add_argument("--deadline", type=float, help="the deadline, a Unix time")
    ap.add_argument("--archive", default="timeboxed.tar.gz",
                    help="where to pack what completed (tar.gz)")
    ap.add_argument("--resume", help="the archive a previous call left (skipped if missing)")
    ap.add_argument("--grace-s", type=float, default=60.0,
                    help="stop snakemake this long after the deadline if it still runs")
    ap.add_argument("--max-file-mb", type=float, default=8.0,
                    help="files larger than this stay out of the archive (rebuilt next time)")
    ap.add_argument("--max-graph-mb", type=float, default=1.0,
                    help="graph caches larger than this too: rebuilt from their dataset faster "
                         "than they travel")
    ap.add_argument("--estimate-from", help="a results folder of an earlier run whose recorded "
                    "wall times estimate this one's runs (default: this run's, then the "
                    "committed reference runs)")
    ap.add_argument("--no-pack", action="store_true", help="pack nothing (the caller packs)")
    ap.add_argument("--resumable-min-s", type=float, default=60.0,
                    help="a resumable job (mst-io --work-dir, Table 5.7) starts where this much time is "
                         "left, however long its estimate")
    ap.add_argument("smk", nargs=argparse.REMAINDER, help="-- then snakemake's arguments")
    args = ap.parse_args(argv)
    smk = args.smk[1:] if args.smk[:1] == ["--"] else args.smk
    deadline = args.deadline or time.time() + 60 * args.minutes

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    from graphrepro import atomic, configcheck, configs
    from graphrepro.errors import InputError

    split = _split(smk)
    config = configs.load(split.configfiles)
    try:
        # its results folder before anything is unpacked there (the schema alone: the deadline
        # runs, and snakemake checks the rest as it starts)
        configcheck.check_config(config, semantic=False)
    except InputError as e:
        raise SystemExit(f"timeboxed: {e}") from None
    results = Path(config.get("results", "results"))
    if args.resume and Path(args.resume).is_file():
        names = unpack(Path(args.resume), smk, results)
        print(f"timeboxed: resumed {len(names)} files from {args.resume}", flush=True)
    reference = (Path(args.estimate_from) if args.estimate_from
                 else configs.root() / config.get("reference", "reports/reference"))
    estimates = _estimates(config, results, reference)
    est_path = results / ".timeboxed-estimates.json"
    est_path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(est_path, json.dumps(estimates, indent=1) + "\n")
    env = {**os.environ, "GRAPHREPRO_DEADLINE": str(deadline),
           "GRAPHREPRO_ESTIMATES": str(est_path.resolve()),
           "GRAPHREPRO_RESUMABLE_MIN_S": str(args.resumable_min_s)}
    started = time.time()
    proc = subprocess.Popen([sys.executable, "-m", "snakemake", "--keep-going", *smk], env=env,
                            start_new_session=True)
    try:
        rc = proc.wait(timeout=max(1.0, deadline + args.grace_s - time.time()))
    except subprocess.TimeoutExpired:
        print("timeboxed: past the deadline and its grace: stopping snakemake", flush=True)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
    ran_s = time.time() - started
    manifest = ({"packed": 0, "left_out": []} if args.no_pack
                else pack(Path(args.archive), results, args.max_file_mb, args.max_graph_mb))
    asked = {os.path.normpath(a) for a in split.targets} & set(estimates)
    left = [p for p in (asked or estimates) if not Path(p).is_file()]
    going = unfinished(results)
    print(f"timeboxed: snakemake exited {rc} after {ran_s:.0f} s; packed {manifest['packed']} "
          f"files into {args.archive} ({len(manifest['left_out'])} left out as too large); "
          f"{len(left)} of the {len(asked or estimates)} timed runs asked for not made yet"
          + (" (call again with --resume)" if left else " (all done)" if not going else "")
          + (f"; {len(going)} resumable job(s) unfinished, their work kept on this machine "
             f"only (call again on it; a fresh machine starts them over): "
             f"{', '.join(going)}" if going else ""), flush=True)
    try:  # the plan said it first: what this call measured against it
        from graphrepro.budget import measured_line

        gpus = config.get("host_gpus")
        gpus = int(gpus) if str(gpus).isdigit() else len(
            [d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",") if d])
        print("timeboxed: " + measured_line(config, results, reference, max(1, gpus),
                                            os.cpu_count() or 2, ran_s), flush=True)
    except Exception as e:  # a summary: never the reason a call that made its runs fails
        print(f"timeboxed: no measured-against-planned line: {e}", flush=True)
    return 0 if rc == 0 or left or going else rc


if __name__ == "__main__":
    raise SystemExit(main())
