"""Sources and runs: seeded sources with reference digests, timed solver runs and their shards,
safari2017's calibration, an2017's transfers."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from pathlib import Path

from .. import atomic
from ..bounded import load_json
from ..errors import InputError
from ..harness.files import write_provenance
from .common import _params, anchor_arg, graph_args, load_graph


def cmd_sources(args) -> int:
    """Seeded random sources for a graph, with reference digests and the graph's statistics."""
    from .. import verify
    from ..graph import degree_stats
    from ..harness import draw_sources

    if args.count < 1:
        raise InputError("--count must be at least 1")
    graph = load_graph(args.graph, args.format, name=args.name)
    sources = draw_sources(graph, args.count, args.seed)
    if args.workers < 1:
        raise InputError("--workers must be at least 1")
    digests, reference_ms = verify.reference_digests(graph, sources, args.workers)
    origin = _origin_of(args.graph)
    stands_for = args.stands_for or (origin or {}).get("document_name")
    record = {"graph": graph.name, "graph_digest": verify.graph_digest(graph), "seed": args.seed,
              "stands_for": stands_for, "origin": origin,
              "sources": [int(s) for s in sources],
              "labels": [int(x) for x in graph.label_of(sources)],
              "digests": digests, "reference_ms": reference_ms, "stats": degree_stats(graph)}
    atomic.write_text(Path(args.output), json.dumps(record, indent=1) + "\n")
    print(f"{args.output}: {len(sources)} sources, reference distances digested", file=sys.stderr)
    return 0


def add_sources(sub) -> None:
    sp = sub.add_parser("sources", help="draw seeded random sources and digest reference distances")
    graph_args(sp)
    sp.add_argument("--count", type=int, required=True)
    sp.add_argument("--seed", type=int, required=True)
    sp.add_argument("--stands-for", default=None, help="the document's graph this one stands in for")
    sp.add_argument("--workers", type=int, default=1,
                    help="threads computing the reference distances (the same digests whatever "
                         "the number; the workflow gives the job's threads)")
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_sources)


def _origin_of(graph_path) -> dict | None:
    """The origin record written beside a CSR cache (real file or stand-in), if any."""
    from ..datasets import origin_path
    from ..datasets.origin import read_origin

    path = origin_path(graph_path)
    return read_origin(path) if path.is_file() else None


def cmd_run(args) -> int:
    from ..placement import process_age_s

    # interpreter start and imports so far: the job's start-up (in a GPU worker, its client's)
    client = os.environ.get("GRAPHREPRO_CLIENT_STARTUP_S")
    started = float(client) if client else process_age_s()
    t0 = time.perf_counter()
    from ..harness import RunSpec, measure_interleaved, provenance

    if args.trials < 1 or args.warmup < 0:
        raise InputError("--trials must be at least 1 and --warmup at least 0")

    from ..harness.files import read_sources

    imported = time.perf_counter()
    params = _params(args.param)
    if args.calibration:
        params = {**_calibrated(args.solver, Path(args.calibration)), **params}
    others = list(args.interleave or [])
    from ..harness.warm import precompile

    # the kernels compile on their own thread while the graph loads (GRAPHREPRO_WARMUP=once)
    compiling = precompile([(args.solver, params),
                            *[(r, _params_for(r, args)) for r in others]])
    graph, digest = _graph_for_run(args.graph, args.format, args.name)
    loaded = time.perf_counter()
    compile_wait = compiling.join() if compiling else None
    waited = time.perf_counter()
    record = read_sources(args.sources, graph.num_vertices, graph, graph_digest=digest)
    sources, digests = record["sources"], record["digests"]
    counted = args.count_sources  # of the graph's sources in draw order, not of a shard's
    if counted is not None and counted < 0:
        raise InputError(f"--count-sources {counted}: give 0 or more")
    if args.shard:
        from ..harness.shards import parse_shard, shard_slice

        part = shard_slice(len(sources), parse_shard(args.shard))
        sources, digests = sources[part], digests[part]
        counted = None if counted is None else max(0, counted - (part.start or 0))
    spec = RunSpec(args.solver, sources, digests, params, trials=args.trials, warmup=args.warmup,
                   count_sources=counted)
    checked = time.perf_counter()
    outputs = list(args.interleave_output or [])
    if len(others) != len(outputs):
        raise InputError(f"--interleave names {len(others)} runs and --interleave-output "
                         f"{len(outputs)} files: one each")
    specs = [spec] + [RunSpec(r, sources, digests, _params_for(r, args), trials=args.trials,
                              warmup=args.warmup, count_sources=counted) for r in others]
    phases: dict = {}
    if compiling:  # the thread's own seconds, and those the job waited for it past the load
        phases.update(precompile_s=compiling.seconds, precompile_wait_s=compile_wait,
                      precompiled=compiling.compiled)
    from ..harness.anchors import Around

    looks = _sampling_looks(args, specs, [args.output, *outputs])
    with Around(args.anchor_repeats) as anchors:
        tables = measure_interleaved(graph, specs, log=lambda m: print(m, file=sys.stderr),
                                     phases=phases, enough=looks)
    phases["anchors_s"] = anchors.seconds
    sampled = _sampled(args, looks, specs)
    if sampled:
        sources = sources[:sampled["sources"]]
    measured = time.perf_counter()
    records = []
    for s, table, output in zip(specs, tables, [args.output, *outputs]):
        out = atomic.write_csv(table, output)
        prov = provenance({"graph": args.graph, "solver": s.solver, "params": s.params,
                           "trials": args.trials, "warmup": args.warmup, "sources": args.sources,
                           **({"count_sources": args.count_sources}
                              if args.count_sources is not None else {}),
                           **({"shard": args.shard} if args.shard else {}),
                           **({"interleaved": [x.solver for x in specs]} if others else {})})
        if others:  # said in the record too, not only in its config hash
            prov["interleaved"] = [x.solver for x in specs]
        if sampled:  # the ledger's n and `sampled` come from here (report/tables.load_runs)
            prov["sampling"] = sampled
        prov.update(_peer_build(s.solver))
        records.append((out, prov))
    # the job's wall time and where it went: what `graphrepro plan` predicts the next run from
    # (an interleaved group's records each carry the whole job's)
    done = time.perf_counter()
    job = {"startup_s": started, "imports_s": imported - t0, "graph_load_s": loaded - imported,
           "sources_check_s": checked - waited, **phases,
           "provenance_write_s": done - measured, "wall_s": (started or 0.0) + done - t0,
           "sources": len(sources),
           # when it ran, for the wall clock of a host's timed part (several jobs at once)
           "start_unix": time.time() - (started or 0.0) - (done - t0), "end_unix": time.time()}
    # one id for the job, in every table it wrote: tables that share it were timed in one job
    # (an interleaved group), whatever second each record's date says
    job["id"] = uuid.uuid4().hex[:16]
    anchor_record = anchors.record(records[0][1])
    for out, prov in records:
        prov["job"] = {k: round(v, 4) if isinstance(v, float) and not k.endswith("_unix") else v
                       for k, v in job.items()}
        prov["anchors"] = anchor_record
        write_provenance(out, prov)
    return 0


def _sampling_looks(args, specs, outputs):
    """With --sampling, the group's sources cut to the cap and the looks between its batches
    (claims/sequential.Looks over claims/batches.GroupDecider): None without it. A group no
    claim reads (--decides names no target with claims) is cut to --eye-sources, no look."""
    if not args.sampling:
        return None
    from ..claims import ledger
    from ..claims.batches import GroupDecider
    from ..claims.sequential import Looks
    from ..experiments import get_target
    from ..harness.provenance import LAUNCH_PATH
    from ..report.tables import load_stats
    from .experiments import _design

    if args.shard:
        raise InputError("--sampling takes a group's sources in batches from the first: it "
                         "cannot time a shard of them (--shard)")
    design, available = _design(args.sampling), len(specs[0].sources)
    with_claims = set(ledger.load_claims()["target"])
    targets = [get_target(t) for t in args.decides or [] if t in with_claims]
    if not targets:
        n = min(args.eye_sources or design.first, available)
        for spec in specs:
            spec.sources, spec.digests = spec.sources[:n], spec.digests[:n]
        return None
    names = [f"runs/{Path(o).parent.name}/{Path(o).name}" for o in outputs]
    decider = GroupDecider(targets, names, load_stats([args.sources]), design.drift,
                           launch_path=LAUNCH_PATH)
    looks = Looks(design, available, decider)
    for spec in specs:
        cap = looks.counts[-1]
        spec.sources, spec.digests = spec.sources[:cap], spec.digests[:cap]
    return looks


def _sampled(args, looks, specs) -> dict | None:
    """The provenance's record of a sampled run: its sources, the looks taken, why it stopped."""
    if not args.sampling:
        return None
    record = {"design": args.sampling, "decides": list(args.decides or [])}
    if looks is None:
        n = len(specs[0].sources)
        return {**record, "sources": n, "looks": [],
                "stopped": f"for the eye: no claim reads it ({n} sources)"}
    stop = looks.stop
    read_by = looks.decide.read_by  # (a GroupDecider)
    reason = stop.reason if read_by else f"for the eye: no claim reads it ({stop.n} sources)"
    return {**record, "sources": stop.n, "looks": looks.taken, "stopped": reason,
            "claims": sorted(read_by)}


def _params_for(run_id: str, args) -> dict:
    """An interleaved run's parameters: --param, and the calibration where its solver takes one."""
    from ..solvers import resolve

    params = _params(args.param)
    if args.calibration and resolve(run_id)[0].calibrated_by:
        params = {**_calibrated(run_id, Path(args.calibration)), **params}
    return params


_GRAPHS: dict = {}  # a GPU worker's graphs: (path, size, mtime, format, name) -> (graph, digest)


def _graph_for_run(path, fmt, name):
    """The graph and its digest; a GPU worker (cli/worker.py) keeps the last few it loaded, so
    the run files of one graph load it once."""
    if os.environ.get("GRAPHREPRO_IN_WORKER") != "1":
        return load_graph(path, fmt, name=name), None
    from ..verify import graph_digest

    st = Path(path).stat()
    key = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns, fmt, name)
    if key not in _GRAPHS:
        while len(_GRAPHS) >= 2:  # a road graph is hundreds of MB: keep the last two
            _GRAPHS.pop(next(iter(_GRAPHS)))
        graph = load_graph(path, fmt, name=name)
        _GRAPHS[key] = (graph, graph_digest(graph))
    return _GRAPHS[key]


def _peer_build(run_id: str) -> dict:
    """A peer's run (issue 33) names what its binary was built from: commit, tree, patch, nvcc."""
    from ..native.peers import read_manifest
    from ..solvers import resolve

    spec, _ = resolve(run_id)
    if spec.document != "peer":
        return {}
    manifest = read_manifest()
    return {"peer_build": (manifest.get("peers") or {}).get(spec.name)
            or (manifest.get("not_built") or {}).get(spec.name)}


def add_run(sub) -> None:
    sp = sub.add_parser("run", help="time one solver on one graph over the sources; verify every pass")
    graph_args(sp)
    sp.add_argument("--solver", required=True,
                    help="a solver name, optionally with parameters (a run id): lbr@k=4,t=2")
    sp.add_argument("--sources", required=True, help="the JSON written by `sources`")
    sp.add_argument("--trials", type=int, default=3)
    sp.add_argument("--warmup", type=int, default=1)
    sp.add_argument("--param", action="append", metavar="KEY=VALUE")
    sp.add_argument("--calibration", help="a JSON written by `calibrate` (sets safari2017's N)")
    sp.add_argument("--count-sources", type=int, default=None, metavar="N",
                    help="the untimed counting pass for the graph's first N sources only (0: "
                         "none, where no claim reads the counters; default: every source)")
    sp.add_argument("--shard", metavar="I/N",
                    help="run only shard I (from 0) of N contiguous slices of the sources")
    sp.add_argument("--output", required=True, help="tidy CSV, one row per (source, trial)")
    sp.add_argument("--sampling", metavar="first=N,batch=N,cap=N,drift=X",
                    help="time the sources in batches, in their seeded order, until the claims "
                         "of --decides that read these tables are decided (the config's "
                         "sampling:; claims/sequential.py), or the cap")
    sp.add_argument("--decides", nargs="*", metavar="TARGET",
                    help="with --sampling: the targets that read these tables")
    sp.add_argument("--eye-sources", type=int, metavar="N",
                    help="with --sampling: the sources where none of --decides has a claim "
                         "(default: the design's first look)")
    anchor_arg(sp)
    sp.add_argument("--interleave", nargs="+", metavar="RUN_ID",
                    help="time these runs interleaved with --solver: per source, trial t of each "
                         "back to back, so drift hits them alike (each to its --interleave-output)")
    sp.add_argument("--interleave-output", nargs="+", metavar="CSV",
                    help="the tables of the --interleave runs, in their order")
    sp.set_defaults(func=cmd_run)


def cmd_merge_runs(args) -> int:
    from ..harness.shards import merge_provenance, merge_run_tables

    shards = [Path(s) for s in args.shards]
    out = atomic.write_csv(merge_run_tables(shards), args.output)
    prov = merge_provenance([s.with_suffix(".provenance.json") for s in shards])
    write_provenance(out, prov)
    return 0


def add_merge_runs(sub) -> None:
    sp = sub.add_parser("merge-runs", help="the run tables of one run's source shards, as one "
                                           "table (in shard order)")
    sp.add_argument("shards", nargs="+", help="run tables written by `run --shard I/N`, I = 0..N-1")
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_merge_runs)


def _calibrated(run_id: str, path: Path) -> dict:
    """The parameter a calibration file sets (safari2017's N comes from Harish's iterations)."""
    from ..errors import damaged
    from ..solvers import parse_run_id

    try:
        record = load_json(path)
    except (ValueError) as e:
        raise damaged(path, f"not a calibration record ({e})") from None
    if not isinstance(record, dict):
        raise damaged(path, "not a calibration record (a JSON object)")
    name, asked = parse_run_id(run_id)
    if record.get("min_iterations") is None or "n" in asked:
        return {}  # the calibrating solver did not run here, or N is given explicitly
    return {"calibration_iterations": str(record["min_iterations"])}


def cmd_calibrate(args) -> int:
    """Minimum iteration count over the sources of one solver's runs (safari2017 Section 3.2)."""
    import pandas as pd

    from ..harness.files import read_run_table
    from ..harness.sources import degenerate_minimum

    runs = read_run_table(args.runs)
    ok = runs[runs["status"] == "ok"]
    per_source = ok.groupby("source")["iterations"].min() if len(ok) else pd.Series(dtype=int)
    why = degenerate_minimum(per_source.to_dict())
    if why:
        raise InputError(f"{args.runs}: no calibration from a degenerate minimum: {why}")
    record = {"graph": str(runs["graph"].iloc[0]) if len(runs) else None,
              "solver": str(runs["solver"].iloc[0]) if len(runs) else None,
              "min_iterations": int(per_source.min()) if len(per_source) else None,
              "iterations_by_source": {str(k): int(v) for k, v in per_source.items()},
              "why": "safari2017 Section 3.2: N = (minimum Harish iteration count over the "
                     "sources) / k",
              "status": "ok" if len(per_source) else str(runs["status"].iloc[0]) if len(runs) else "empty"}
    atomic.write_text(Path(args.output), json.dumps(record, indent=1) + "\n")
    print(f"{args.output}: min iterations {record['min_iterations']}", file=sys.stderr)
    return 0


def add_calibrate(sub) -> None:
    sp = sub.add_parser("calibrate", help="minimum iterations over the sources of a run table "
                                          "(safari2017's N = that / k)")
    sp.add_argument("runs", help="a run table written by `run` (e.g. runs/<graph>/harish.csv)")
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_calibrate)


def cmd_transfers(args) -> int:
    """an2017 section 4.1: pageable vs pinned uploads of each graph's matrix, two-stream overlap."""
    from ..harness.transfers import transfer_benchmark

    started = time.perf_counter()

    if len(args.graphs) != len(args.sources):
        raise InputError("give one --sources file per graph, in the same order")
    if args.trials < 1 or args.warmup < 0:
        raise InputError("--trials must be at least 1 and --warmup at least 0")
    from ..harness.files import read_sources

    cases = []
    for path, sources in zip(args.graphs, args.sources):
        graph = load_graph(path)
        record = read_sources(sources, graph.num_vertices, graph)
        cases.append((graph, int(record["sources"][0]), record["digests"][0]))
    from ..harness.anchors import Around

    with Around(args.anchor_repeats) as anchors:
        table = transfer_benchmark(cases, trials=args.trials, warmup=args.warmup,
                                   edges_per_thread=args.edges_per_thread,
                                   log=lambda m: print(m, file=sys.stderr))
    from ..harness import provenance

    # its record first (the run that made it, the job's wall time: what `plan` estimates from),
    # then the table: a table is done only with one
    out = Path(args.output)
    settings = {"graphs": args.graphs, "trials": args.trials, "warmup": args.warmup,
                "edges_per_thread": args.edges_per_thread}
    record = {**provenance(settings), "settings": settings,
              "job": {"wall_s": round(time.perf_counter() - started, 4),
                      "anchors_s": round(anchors.seconds, 4)}}
    write_provenance(out, {**record, "anchors": anchors.record(record)})
    atomic.write_csv(table, out)
    return 0


def add_transfers(sub) -> None:
    sp = sub.add_parser("transfers", help="an2017 section 4.1: host-to-device time of each dense "
                        "matrix from pageable and pinned memory, and the two-stream overlap")
    sp.add_argument("graphs", nargs="+", help="graph caches (.npz), dense descriptors or CSR")
    sp.add_argument("--sources", nargs="+", required=True,
                    help="the JSON written by `sources`, one per graph: its first source is solved")
    sp.add_argument("--trials", type=int, default=5)
    sp.add_argument("--warmup", type=int, default=1)
    sp.add_argument("--edges-per-thread", type=int, default=1,
                    help="edges per thread of the dense version (coalesced order); 1: the basic "
                         "version whose transfer share the document reports")
    sp.add_argument("--output", required=True, help="tidy CSV, one row per (graph, trial)")
    anchor_arg(sp)
    sp.set_defaults(func=cmd_transfers)


def cmd_plan(args) -> int:
    """Jobs, GPU- and CPU-seconds per target and the expected wall time of a config on a host."""
    from .. import configs
    from ..budget import format_host_plan, plan_host, shards_config

    if args.gpus < 1 or args.cores < 2 or (args.cpu_slots is not None and args.cpu_slots < 1):
        raise InputError("--gpus and --cpu-slots must be at least 1 and --cores at least 2")
    if args.timed_cores is not None and not 1 <= args.timed_cores <= args.cores - 1:
        # one core at least is left for the GPU jobs' hosts and the graph preparation
        raise InputError(f"--timed-cores {args.timed_cores}: must be from 1 to --cores - 1 "
                         f"({args.cores - 1})")
    if args.max_job_share is not None and not 0 < args.max_job_share <= 1:
        raise InputError(f"--max-job-share {args.max_job_share}: give a share above 0, at most 1")
    if args.budget is not None and args.budget <= 0:
        raise InputError(f"--budget {args.budget}: give the minutes, above 0")
    config = configs.load(args.configfile)
    result = plan_host(config, args.gpus, args.cores,
                       Path(args.reference or configs.root() /
                            config.get("reference", "reports/reference")),
                       Path(args.results) if args.results else None, args.timed_cores,
                       args.targets, args.cpu_slots, args.max_job_share, args.budget)
    if args.json:
        atomic.write_text(Path(args.json), json.dumps(result, indent=1) + "\n")
    if args.write_shards:
        import yaml

        atomic.write_text(Path(args.write_shards), "# written by graphrepro plan --max-job-share "
                          f"{args.max_job_share}: give it last to snakemake's --configfile\n"
                          + yaml.safe_dump(shards_config(result), sort_keys=True))
    print(format_host_plan(result))
    return 0


def _slots(text: str) -> int | None:
    """--cpu-slots: auto (None: the host's own) or a whole number."""
    if text == "auto":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give auto or a whole number") from None


def add_plan(sub) -> None:
    sp = sub.add_parser("plan", help="jobs, GPU- and CPU-seconds per target and the expected wall "
                                     "time of a config on a host of N GPUs and C cores")
    sp.add_argument("--configfile", nargs="*", default=[], help="as given to snakemake")
    sp.add_argument("--gpus", type=int, default=1)
    sp.add_argument("--cores", type=int, default=16)
    sp.add_argument("--timed-cores", type=int, default=None,
                    help="cores kept for CPU timings (default: with --cpu-slots auto, every "
                         "core the GPU workers and the workflow leave; else a quarter, at most 16)")
    sp.add_argument("--cpu-slots", type=_slots, default=None,
                    help="one-core CPU timings side by side (the config's host_cpu_slots); "
                         "default auto: as the gpu-host profile, a slot a core of every core "
                         "the GPU workers (2 a GPU) and the workflow (1) leave")
    sp.add_argument("--results", help="the results folder whose recorded wall times are read "
                                      "(default: the config's)")
    sp.add_argument("--reference", help="committed runs to estimate from (default: the config's "
                                        "reference folder)")
    sp.add_argument("--targets", nargs="+", help="only these targets (default: every ready one)")
    sp.add_argument("--json", help="also write the plan here")
    sp.add_argument("--max-job-share", type=float, default=None,
                    help="split graphs' sources into shards until no GPU job is longer than this "
                         "share of the plan (e.g. 0.1)")
    sp.add_argument("--write-shards", help="with --max-job-share: write those shards here, a "
                                           "config to give last to snakemake's --configfile")
    sp.add_argument("--budget", type=float, default=None, metavar="MIN",
                    help="say which targets fit in MIN minutes and which source cap fits them all")
    sp.set_defaults(func=cmd_plan)
