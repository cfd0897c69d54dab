"""gerritsen2012's terrains: elevation grids converted and stood in for, the I/O-efficient MST and
SSSP measured on them, and a real terrain's timings beside its stand-in's."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .. import atomic
from ..bounded import json_text
from ..errors import InputError, interrupt_in
from ..harness.files import write_provenance
from .common import (_fetched, _mirrors, _params, anchor_arg, data_args, fetched_arg)


def zgrid_args(sp):
    sp.add_argument("zgrid", help="a converted grid (NAME.zgrid, written by `dem`)")
    sp.add_argument("--variant", help="one of chapter 3's versions (a per-block step and a "
                    "reduce step): cpu_baseline, gpu_baseline, cpu_tournament, cpu_mark, "
                    "gpu_mark, cpu_prealloc, gpu_prealloc, gpu_reduce, gpu64_prealloc, "
                    "gpu64_reduce")
    sp.add_argument("--step", help="per-block MST step run id instead: bgl, tournament, "
                    "kruskal, gpu_boruvka32, gpu_boruvka64")
    sp.add_argument("--reduce", help="reduce step run id instead: cpu@deletion=mark,"
                    "storage=prealloc, gpu")
    sp.add_argument("--block-side", type=int, required=True,
                    help="side of the start-level blocks (the thesis: 256)")
    sp.add_argument("--trials", type=int, default=1)
    sp.add_argument("--output", required=True, help="tidy CSV")


def cmd_mst_blocks(args) -> int:
    """gerritsen2012 Tables 3.1-3.5, 3.7, Fig. 3.6: phase 1 on the centre blocks, parts timed."""
    from ..placement import process_age_s

    started, t0 = process_age_s(), time.perf_counter()
    from ..solvers.gerritsen2012.mst_measure import load_block_references, measure_blocks

    shard = None
    if args.shard:
        from ..harness.shards import parse_shard

        shard = parse_shard(args.shard)
    references = (load_block_references(args.references, args.zgrid, block_side=args.block_side,
                                        blocks=args.blocks) if args.references else None)
    from ..harness.anchors import Around

    with Around(args.anchor_repeats) as anchors:
        table = measure_blocks(args.zgrid, variant=args.variant, per_block=args.step,
                               reduce=args.reduce, block_side=args.block_side, blocks=args.blocks,
                               trials=args.trials, warmup=args.warmup, shard=shard,
                               references=references, log=lambda m: print(m, file=sys.stderr))
    # its record: the run that made it (a whole run names each table's), and for a shard where
    # and when it was timed (the merge reads these). Written first: a table is done only with it.
    from ..harness import provenance
    from ..harness.block_shards import block_job_record

    settings = {"zgrid": args.zgrid, "variant": args.variant, "step": args.step,
                "reduce": args.reduce, "block_side": args.block_side, "blocks": args.blocks,
                "trials": args.trials, "warmup": args.warmup, "shard": args.shard}
    record = block_job_record(provenance(settings), table, settings=settings, started_s=started,
                              wall_s=time.perf_counter() - t0)
    record["anchors"] = anchors.record(record)
    out = Path(args.output)
    write_provenance(out, record)
    atomic.write_csv(table, out)
    return 0


def add_mst_blocks(sub) -> None:
    sp = sub.add_parser("mst-blocks", help="gerritsen2012 ch. 3: per-block MST, dead ends and "
                        "contraction on the centre blocks of a grid, five parts timed, verified")
    zgrid_args(sp)
    sp.add_argument("--blocks", type=int, required=True, help="centre blocks (the thesis: 10,000)")
    sp.add_argument("--warmup", type=int, default=1)
    sp.add_argument("--shard", metavar="I/N",
                    help="time only shard I (from 0) of N: every N-th of the centre blocks from "
                         "the I-th (a provenance record beside the table; `merge-blocks` joins "
                         "the N)")
    sp.add_argument("--references", metavar="JSON",
                    help="check each block against this file of `mst-block-refs` (made for the "
                         "same grid and blocks) instead of making its reference here")
    anchor_arg(sp)
    sp.set_defaults(func=cmd_mst_blocks)


def cmd_mst_block_refs(args) -> int:
    from ..solvers.gerritsen2012.mst_measure import block_references

    record = block_references(args.zgrid, block_side=args.block_side, blocks=args.blocks,
                              jobs=args.jobs, log=lambda m: print(m, file=sys.stderr))
    atomic.write_text(args.output, json.dumps(record) + "\n")
    return 0


def add_mst_block_refs(sub) -> None:
    sp = sub.add_parser("mst-block-refs", help="gerritsen2012 ch. 3: each centre block's "
                        "reference (minimum weight, the kruskal step's tree), made once for "
                        "every version's `mst-blocks --references`")
    sp.add_argument("zgrid", help="a converted grid (NAME.zgrid, written by `dem`)")
    sp.add_argument("--block-side", type=int, required=True)
    sp.add_argument("--blocks", type=int, required=True, help="centre blocks, as `mst-blocks`")
    sp.add_argument("--jobs", type=int, default=1, help="processes (every N-th block each)")
    sp.add_argument("--output", required=True, help="JSON")
    sp.set_defaults(func=cmd_mst_block_refs)


def cmd_mst_grid_reference(args) -> int:
    """The whole grid's MST weight, the reference Table 3.8's whole-grid runs are checked by."""
    import pandas as pd

    from ..harness import provenance
    from ..solvers.gerritsen2012.mst_grid_reference import grid_mst_weight
    from ..terrain import open_zgrid, to_rows

    t0 = time.perf_counter()
    z, meta = open_zgrid(args.zgrid)
    # padded: the three phases span the padded square (its zeros too), as verify_whole checks
    weight, edges = grid_mst_weight(to_rows(z, meta, padded=True))
    seconds = round(time.perf_counter() - t0, 1)
    side = int(meta["side"])
    print(f"{args.zgrid}: {side}^2 padded grid, minimum spanning tree weight {weight} "
          f"({edges} edges) in {seconds} s", file=sys.stderr)
    if edges != side * side - 1:
        raise InputError(f"{args.zgrid}: the grid graph is not connected ({edges} tree edges "
                         f"for {side * side} vertices)")
    table = pd.DataFrame([{"grid": Path(args.zgrid).stem, "side": side, "vertices": side * side,
                           "weight": weight, "edges": edges, "seconds": seconds,
                           "method": "vertices added by elevation (weight max(z(u), z(v)))"}])
    settings = {"zgrid": args.zgrid}
    out = Path(args.output)
    write_provenance(out, {**provenance(settings), "settings": settings,
                           "job": {"wall_s": seconds}})
    atomic.write_csv(table, out)
    return 0


def add_mst_grid_reference(sub) -> None:
    sp = sub.add_parser("mst-grid-reference", help="gerritsen2012 ch. 3: the whole padded grid's "
                        "minimum spanning tree weight, without an edge list (the reference of "
                        "Table 3.8 on grids past mst-io's --verify-max-vertices)")
    sp.add_argument("zgrid", help="a converted grid (NAME.zgrid, written by `dem`)")
    sp.add_argument("--output", required=True, help="a one-row table (its provenance beside)")
    sp.set_defaults(func=cmd_mst_grid_reference)


def cmd_merge_blocks(args) -> int:
    from ..harness.block_shards import merge_block_shards

    table, record = merge_block_shards(args.shards, args.repeats)
    out = atomic.write_csv(table, args.output)
    write_provenance(out, record)
    if record.get("timed_as"):
        print(f"{out}: {record['timed_as']}", file=sys.stderr)
    return 0


def add_merge_blocks(sub) -> None:
    sp = sub.add_parser("merge-blocks", help="gerritsen2012 ch. 3: one version's `mst-blocks "
                        "--shard` tables as one table, checked, saying how they were timed")
    sp.add_argument("shards", nargs="+", help="tables written by `mst-blocks --shard I/N`, "
                                              "I = 0..N-1 (each with its provenance beside it)")
    sp.add_argument("--repeats", nargs="*", default=[], metavar="TABLE",
                    help="shards of the same measurement timed again, in another pass (each with "
                         "its provenance beside it): their rows join the table as pass 2, the "
                         "shards' as pass 1; none given: every row is pass 1")
    sp.add_argument("--output", required=True, help="the version's table (its provenance beside)")
    sp.set_defaults(func=cmd_merge_blocks)


def cmd_mst_io(args) -> int:
    """gerritsen2012 Tables 3.6, 3.8: the whole I/O-efficient MST, phases and block transfers."""
    from ..client import deadline_stop
    from ..harness.provenance import git_commit
    from ..solvers.gerritsen2012.mst_journal import Stopped
    from ..solvers.gerritsen2012.mst_measure import VARIANTS, clear_work_dir, measure_io

    per_block, reduce = args.step, args.reduce
    if args.variant:
        if args.variant not in VARIANTS:
            raise InputError(f"unknown variant {args.variant!r}; one of {', '.join(VARIANTS)}")
        per_block, reduce = VARIANTS[args.variant]
    if not per_block or not reduce:
        raise InputError("give --variant, or both --step and --reduce")
    t0 = time.perf_counter()
    resumable = bool(args.work_dir)  # main() has let it start (client.past_deadline)
    # a resumable run stops itself at a time-boxed call's deadline, between two units of work
    should_stop = deadline_stop() if resumable else None
    try:
        table = measure_io(args.zgrid, block=args.block_side, per_block=per_block, reduce=reduce,
                           sides=args.sides or (None,), trials=args.trials,
                           verify_max_vertices=args.verify_max_vertices, work_dir=args.work_dir,
                           should_stop=should_stop, log=lambda m: print(m, file=sys.stderr),
                           commit=git_commit() if resumable else "unknown")
    except Stopped as e:
        print(f"{e}; the same command goes on from there (the next call)", file=sys.stderr)
        return 75
    except (KeyboardInterrupt, SystemError) as e:
        if resumable and interrupt_in(e) is not None:
            print(f"mst-io: what was journaled in {args.work_dir} is kept; the same command goes "
                  f"on from there", file=sys.stderr)
        raise
    if args.variant:
        table.insert(0, "variant", args.variant)
    # its record first (the run that made it; a table is done only with one), then the table
    from ..harness import provenance

    settings = {"zgrid": args.zgrid, "variant": args.variant, "step": per_block,
                "reduce": reduce, "block_side": args.block_side, "sides": args.sides,
                "trials": args.trials, "resumable": resumable}
    record = {**provenance(settings), "settings": settings,
              "job": {"wall_s": round(time.perf_counter() - t0, 4)}}
    out = Path(args.output)
    write_provenance(out, record)
    atomic.write_csv(table, out)
    if resumable:  # its rows are in the output now; the side files can be GBs
        clear_work_dir(args.work_dir)
    return 0


def add_mst_io(sub) -> None:
    sp = sub.add_parser("mst-io", help="gerritsen2012 ch. 2 / 3.5: the whole I/O-efficient MST, "
                        "three phases timed, block transfers counted, verified")
    zgrid_args(sp)
    sp.add_argument("--sides", type=int, nargs="*",
                    help="a size sweep: the centre SIDE x SIDE crop of the grid for each (Table 3.6)")
    sp.add_argument("--verify-max-vertices", type=int, default=1 << 24,
                    help="check the weight against Kruskal up to this many vertices; beyond, a "
                         "spanning-tree check and an edge digest only")
    sp.add_argument("--work-dir", help="resumable: keep the side files and a journal of finished "
                    "work here, and go on from them when run again with the same arguments "
                    "(another run's directory is refused); under a time-boxed call "
                    "(GRAPHREPRO_DEADLINE) stop at the deadline, exit 75. Removed once the "
                    "output is written")
    sp.set_defaults(func=cmd_mst_io)


def cmd_terrain_compare(args) -> int:
    """gerritsen2012 per-block timings on a real terrain beside its stand-in's."""
    from ..datasets.terrain_compare import compare

    table = compare({"mst": args.real_mst, "sssp": args.real_sssp, "zgrid": args.real},
                    {"mst": args.standin_mst, "sssp": args.standin_sssp, "zgrid": args.standin})
    atomic.write_csv(table, args.output)
    meta = Path(args.output).with_suffix(".json")
    atomic.write_text(meta, json.dumps({"real": table.attrs["real"],
                                         "stand-in": table.attrs["stand-in"]}, indent=1) + "\n")
    print(table.to_string(index=False))
    return 0


def add_terrain_compare(sub) -> None:
    sp = sub.add_parser("terrain-compare", help="gerritsen2012 ch. 3 and 5 per-block timings on a "
                        "real terrain beside its stand-in's (medians, stand-in / real)")
    sp.add_argument("--real", help="the real grid's .zgrid (its origin is shown)")
    sp.add_argument("--standin", help="the stand-in's .zgrid")
    sp.add_argument("--real-mst", nargs="*", default=[], help="mst-blocks tables on the real grid")
    sp.add_argument("--standin-mst", nargs="*", default=[], help="... on the stand-in")
    sp.add_argument("--real-sssp", nargs="*", default=[],
                    help="sssp-experiment table5_1 tables on the real grid")
    sp.add_argument("--standin-sssp", nargs="*", default=[], help="... on the stand-in")
    sp.add_argument("--output", required=True, help="CSV (a .json beside it says what each grid is)")
    sp.set_defaults(func=cmd_terrain_compare)


def cmd_dem(args) -> int:
    """Convert an elevation grid (a registry key or a file) as gerritsen2012 section 1.5.1 says."""
    from ..datasets import load_registry, write_origin
    from ..datasets.build import convert_terrain
    from ..terrain import convert_file

    out = Path(args.output)
    if args.source in load_registry(args.registry):
        origin = convert_terrain(args.source, out, mode=args.mode, data_dir=args.data,
                                 scale=args.scale, dtype=args.dtype, registry=args.registry,
                                 mirrors=_mirrors(args), fetched=_fetched(args, args.source))
    elif args.fetched:
        raise InputError(f"--fetched is for a registry key, not a file ({args.source})")
    else:
        meta = convert_file(args.source, out, dtype=args.dtype)
        origin = {"kind": "file", "file": args.source, "converted": meta}
    write_origin(out.with_name(out.name + ".origin.json"), origin)
    c = origin["converted"] if "side" in origin["converted"] else origin["converted"]
    print(f"{out}: {origin['kind']}, {c['rows']} x {c['cols']} padded to {c['side']}^2 "
          f"{c['dtype']} in z-order, {c['unknown_values']} unknown values set to 0",
          file=sys.stderr)
    return 0


def add_dem(sub) -> None:
    sp = sub.add_parser("dem", help="convert an elevation grid (registry key, GRASS/ESRI ASCII, "
                        ".npy or .npz) to z-order binary, as gerritsen2012 section 1.5.1 says")
    sp.add_argument("source", help="a terrain dataset key or a file")
    sp.add_argument("--mode", choices=["paper", "standin"], default="standin")
    sp.add_argument("--scale", type=float, default=1.0)
    sp.add_argument("--dtype", choices=["uint16", "uint32"], default="uint16")
    data_args(sp)
    fetched_arg(sp)
    sp.add_argument("--output", required=True, help="NAME.zgrid (NAME.zgrid.json beside it)")
    sp.set_defaults(func=cmd_dem)


def cmd_dem_standin(args) -> int:
    from ..terrain import write_standin

    write_standin(args.output, rows=args.rows, cols=args.cols, seed=args.seed,
                  roughness=args.roughness)
    print(f"{args.output}: diamond-square terrain {args.rows} x {args.cols}, seed {args.seed}",
          file=sys.stderr)
    return 0


def add_dem_standin(sub) -> None:
    sp = sub.add_parser("dem-standin", help="write a diamond-square terrain in Listing 1.1's "
                        "ASCII format")
    sp.add_argument("--rows", type=int, default=12555)
    sp.add_argument("--cols", type=int, default=17630)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--roughness", type=float, default=0.55)
    sp.add_argument("--output", required=True, help=".asc (or .asc.gz)")
    sp.set_defaults(func=cmd_dem_standin)


def cmd_io_sssp(args) -> int:
    """gerritsen2012 chapter 4: the three-phase I/O-efficient SSSP on a .zgrid, counted and checked."""
    from ..solvers.gerritsen2012 import sssp_io

    if "1" in args.phases:
        if args.block is None or args.block < 2 or args.block & (args.block - 1):
            raise InputError(f"--block {args.block}: phase 1 needs the I/O-block side, a power "
                             "of two >= 2")
        workdir = Path(args.workdir or Path(args.zgrid).with_suffix(f".gprime{args.block}"))
    elif args.workdir is None:
        raise InputError("--phases 23 needs --workdir: the G' that phase 1 wrote")
    else:
        workdir = Path(args.workdir)
    record: dict = {"zgrid": args.zgrid, "source": args.source, "block": args.block,
                    "phase1": args.phase1, "phase2": args.phase2}
    counter = sssp_io.IOCounter()
    timings, counters = {}, {}
    if "3" in args.phases:
        sssp_io.check_source(args.zgrid, args.source)  # before phase 1's minutes, not after
    if "1" in args.phases:
        t0 = time.perf_counter()
        only = None
        if args.centre_blocks:
            per = sssp_io.ZBlocks(args.zgrid).blocks_per_side(args.block)
            only = sssp_io.centre_blocks(per, args.centre_blocks)
        g = sssp_io.phase1(args.zgrid, workdir, args.block, step_name=args.phase1,
                           params=_params(args.phase1_param), batch_vertices=args.batch_vertices,
                           counter=counter, only_blocks=only, warmup=args.warmup,
                           log=lambda m: print(f"{time.time():.3f} {m}", file=sys.stderr, flush=True))
        record["phase1_meta"] = {k: g.meta.get(k) for k in ("batch_ms", "blocks", "timings", "dtype", "warmup")}
        timings["phase1_ms"] = (time.perf_counter() - t0) * 1e3
        counters["phase1_io"] = counter.as_dict()
        counters.update({f"phase1_{k}": v for k, v in g.meta["counters"].items()})
    if "2" in args.phases or "3" in args.phases:
        sssp_io.warm_up()  # compilation outside the timed phases (and the compiler's memory
        # outside a memory cap)
        if args.phase2 == "gpu":
            # an untimed run first: the CUDA context and the near-far kernels are compiled for
            # this G''s index and weight types, which depend on its size
            sssp_io.phases23(workdir, args.source, phase2="gpu", batch_vertices=args.batch_vertices,
                             counter=sssp_io.IOCounter())
            record["warmup"] = "one untimed run of phases 2 and 3"
        if args.memory_cap_mb is not None:
            record["memory_cap"] = sssp_io.apply_memory_cap(args.memory_cap_mb)
        p23 = sssp_io.phases23(workdir, args.source, phase2=args.phase2,
                               batch_vertices=args.batch_vertices, counter=counter)
        timings.update(p23.timings)
        counters.update(p23.counters)
        import resource

        record["max_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    record.update(timings=timings, counters=counters, io=counter.as_dict())
    check = "not checked"
    if "memory_cap" in record:
        sssp_io.lift_memory_cap(record["memory_cap"])  # the check is not the capped algorithm
        record["memory_cap"].pop("previous_soft", None)
    if not args.no_check and "3" in args.phases:
        dist = sssp_io.read_distances(workdir)
        ref, base = sssp_io.whole_grid_dijkstra(sssp_io.grid_values(args.zgrid), args.source)
        sssp_io.check_distances(dist, ref, what=f"io-sssp {args.zgrid} from {args.source}")
        timings["baseline_dijkstra_ms"] = base["dijkstra_ms"]
        check = "ok: every distance equals whole-grid Dijkstra"
    record["check"] = check
    for key, value in timings.items():
        print(f"{key} {value:.1f}")
    io = counter.as_dict()
    print(f"block_reads {io['block_reads']} block_writes {io['block_writes']} "
          f"bytes_read {io['bytes_read']} bytes_written {io['bytes_written']}")
    for key, value in counters.items():
        if not isinstance(value, dict):
            print(f"{key} {value}")
    if "memory_cap" in record:
        c = record["memory_cap"]
        peak = f", peak {c['peak_mib']} MiB charged to it" if "peak_mib" in c else ""
        print(f"memory cap {c['rlimit']} {c['limit_mib']} MiB (baseline {c['baseline_mib']} + "
              f"budget {c['budget_mib']}{peak}); max rss {record['max_rss_mib']} MiB")
    print(f"check {check}")
    if args.json:
        atomic.write_text(Path(args.json), json.dumps(record, indent=1, default=float) + "\n")
    return 0


def add_io_sssp(sub) -> None:
    sp = sub.add_parser("io-sssp", help="gerritsen2012 ch. 4: three-phase I/O-efficient SSSP on a "
                                        ".zgrid (times, block I/O counts, check against Dijkstra)")
    sp.add_argument("zgrid", help="a converted grid (python -m graphrepro dem)")
    sp.add_argument("--source", type=int, default=0, help="row-major id in the padded square grid")
    sp.add_argument("--block", type=int,
                    help="I/O-block side m (M = m^2 vertices), a power of two (phase 1)")
    sp.add_argument("--phase1", default="cpu_dijkstra",
                    help="phase-1 step: cpu_dijkstra, gpu_alg1, gpu_alg2")
    sp.add_argument("--phase1-param", action="append", metavar="KEY=VALUE",
                    help="a phase-1 step parameter (gpu_alg1: c=16, variant=2d|3d|zorder)")
    sp.add_argument("--phase2", choices=["cpu", "gpu"], default="cpu")
    sp.add_argument("--phases", default="123", choices=["123", "1", "23"],
                    help="run phase 1 only, or phases 2 and 3 on an existing G' (--workdir)")
    sp.add_argument("--workdir", help="where G' and the distance records go (default: beside ZGRID)")
    sp.add_argument("--memory-cap-mb", type=float,
                    help="cap phases 2 and 3 (RLIMIT_DATA = data segment after start-up + this)")
    sp.add_argument("--batch-vertices", type=int, default=1 << 20,
                    help="vertices of I/O-blocks handed to a phase-1 step at once")
    sp.add_argument("--centre-blocks", type=int,
                    help="phase 1 on the N I/O-blocks nearest the centre only (a timing run)")
    sp.add_argument("--warmup", action="store_true",
                    help="run the phase-1 step once, untimed, before timing it")
    sp.add_argument("--no-check", action="store_true", help="skip the whole-grid Dijkstra check")
    sp.add_argument("--json", help="also write the record (times, counters, I/O) as JSON")
    sp.set_defaults(func=cmd_io_sssp)


def cmd_sssp_experiment(args) -> int:
    """gerritsen2012 chapter 5: measure one table's numbers (a benchmark table for its target)."""
    from ..experiments.gerritsen2012_sssp import run_experiment
    from ..experiments.gerritsen2012_sssp_run import settings_for
    from ..experiments.gerritsen2012_sssp_evidence_t57 import memory_cap_record
    from ..client import deadline_stop
    from ..experiments.gerritsen2012_sssp_work import Work
    from ..harness import provenance
    from ..solvers.gerritsen2012.mst_journal import Stopped

    def log(m):
        print(m, file=sys.stderr)

    settings = json_text(args.settings, "--settings") if args.settings else {}
    # a resumable table (Table 5.7) stops itself between two block sizes at a call's deadline
    work = Work(args.workdir, args.table, settings_for(args.table, settings), args.terrain,
                should_stop=deadline_stop(), log=log)
    from ..harness.anchors import Around

    try:
        with Around(args.anchor_repeats) as anchors:
            table = run_experiment(args.table, args.terrain, settings, work, log=log)
    except Stopped as e:
        log(f"{e}; the same command goes on from there (the next call)")
        return 75
    except (KeyboardInterrupt, SystemError) as e:
        if work.resumable and interrupt_in(e) is not None:
            log(f"sssp-experiment: the block sizes journaled in {args.workdir} are kept; the "
                f"same command goes on from there")
        raise
    # its record first (the run that made it; a table is done only with one), then the table
    out = Path(args.output)
    record = {**provenance({"table": args.table, "terrain": args.terrain, "settings": settings}),
              "job": {**work.record(), "anchors_s": round(anchors.seconds, 4)}}
    # Table 5.7: which memory cap its capped phases had (a cgroup, else RLIMIT_DATA) and why
    if (cap := memory_cap_record(table)) is not None:
        record["memory_cap"] = cap
    write_provenance(out, {**record, "anchors": anchors.record(record)})
    atomic.write_csv(table, out)
    work.finish()
    return 0


def add_sssp_experiment(sub) -> None:
    sp = sub.add_parser("sssp-experiment", help="gerritsen2012 ch. 5: measure one table "
                                                "(table5_1 .. table5_7) on a .zgrid, verified")
    sp.add_argument("table", help="table5_1, table5_2, table5_3, table5_4, table5_5 or table5_7")
    sp.add_argument("--terrain", required=True, help="a converted grid (.zgrid)")
    sp.add_argument("--settings", help="JSON: the table's settings (config targets: settings:)")
    sp.add_argument("--workdir", required=True,
                    help="scratch space for G' and windows, removed once the table is written; "
                         "Table 5.7 journals each finished block size here and, run again with "
                         "the same arguments, goes on from them (under a time-boxed call, "
                         "GRAPHREPRO_DEADLINE, it stops between two at the deadline, exit 75)")
    sp.add_argument("--output", required=True, help="the benchmark table (CSV)")
    anchor_arg(sp)
    sp.set_defaults(func=cmd_sssp_experiment)
