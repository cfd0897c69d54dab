"""``python -m graphrepro``: every workflow step is one of these subcommands, so each runs by hand."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from .errors import GraphreproError, InputError

FAMILY_KINDS = ("sparse", "general", "almost_complete")  # graph.families.FAMILIES, without numpy


def _params(pairs: list[str] | None) -> dict:
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--param wants KEY=VALUE, got {pair!r}")
        if key in out:
            raise InputError(f"--param {key} given twice")
        out[key] = value
    return out


def load_graph(path, fmt=None, name=None):
    """A graph file in any supported format (graph.load.load_graph, kept here for callers)."""
    from .graph.load import load_graph as load

    return load(path, fmt, name)


def _atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text)
    tmp.replace(path)


def _atomic_write_csv(table, path) -> Path:
    """A table written whole or not at all (a temporary name, then a rename)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    table.to_csv(tmp, index=False)
    tmp.replace(out)
    return out


# --- subcommands ------------------------------------------------------------------------------

def cmd_solve(args) -> int:
    from . import verify
    from .solvers import INF, resolve

    graph = load_graph(args.graph, args.format)
    spec, params = resolve(args.solver, **_params(args.param))
    source = graph.to_internal(args.source)
    prepared = spec.factory(graph, **params)
    result = prepared.solve(source)
    if not args.no_verify:
        verify.check(graph, source, result.distances, solver=spec.name, metric=spec.metric)
    dist = result.distances
    text = np.where(dist == INF, "inf", dist.astype(str))
    lines = "\n".join(f"{label} {d}" for label, d in zip(graph.all_labels().tolist(), text.tolist()))
    _atomic_write_text(Path(args.output), lines + "\n")
    reached = int(np.count_nonzero(dist != INF))
    print(f"{spec.name}: {graph.num_vertices} vertices, {reached} reached from {args.source}, "
          f"solve {result.solve_ms:.3f} ms" + ("" if args.no_verify else ", verified"),
          file=sys.stderr)
    return 0


def cmd_solvers(args) -> int:
    from .solvers import all_solvers

    if args.problem == "mst":
        from .mst import all_mst_solvers

        specs = all_mst_solvers()
    else:
        specs = all_solvers()
    for s in specs:  # one line format for both problems
        defaults = " ".join(f"{k}={v}" for k, v in s.defaults.items())
        print(f"{s.name}\t{s.device}\t{s.document}\t{s.description}" + (f" [{defaults}]" if defaults else ""))
    return 0


def cmd_mst(args) -> int:
    """A minimum spanning forest: `u v weight` per edge in the file's numbering; stdout ends with
    `weight W edges E` (outside checks rely on that line)."""
    from . import mst

    from .solvers import parse_run_id

    name, params = parse_run_id(args.solver)
    params.update(_params(args.param))
    spec = mst.get_mst_solver(name)  # an unknown name fails before the grid is read
    edges = mst.load_edges(args.graph, args.format)
    result = spec.prepare(edges, **params).solve()
    if not args.no_verify:
        mst.check(edges, result, solver=spec.name)
    u, v = edges.label_of(result.u).tolist(), edges.label_of(result.v).tolist()
    lines = "".join(f"{a} {b} {c}\n" for a, b, c in zip(u, v, np.asarray(result.w).tolist()))
    _atomic_write_text(Path(args.output), lines)
    print(f"{spec.name}: {edges.num_vertices} vertices, {edges.num_edges} edges, "
          f"{edges.components()} components, solve {result.solve_ms:.3f} ms"
          + ("" if args.no_verify else ", verified"), file=sys.stderr)
    print(f"weight {result.weight} edges {len(u)}")
    return 0


def cmd_mst_blocks(args) -> int:
    """gerritsen2012 Tables 3.1-3.5, 3.7, Fig. 3.6: phase 1 on the centre blocks, parts timed."""
    from .solvers.gerritsen2012.mst_measure import measure_blocks

    table = measure_blocks(args.zgrid, variant=args.variant, per_block=args.step,
                           reduce=args.reduce, block_side=args.block_side, blocks=args.blocks,
                           trials=args.trials, warmup=args.warmup,
                           log=lambda m: print(m, file=sys.stderr))
    _atomic_write_csv(table, args.output)
    return 0


def cmd_mst_io(args) -> int:
    """gerritsen2012 Tables 3.6, 3.8: the whole I/O-efficient MST, phases and block transfers."""
    from .solvers.gerritsen2012.mst_measure import VARIANTS, measure_io

    per_block, reduce = args.step, args.reduce
    if args.variant:
        if args.variant not in VARIANTS:
            raise InputError(f"unknown variant {args.variant!r}; one of {', '.join(VARIANTS)}")
        per_block, reduce = VARIANTS[args.variant]
    if not per_block or not reduce:
        raise InputError("give --variant, or both --step and --reduce")
    table = measure_io(args.zgrid, block=args.block_side, per_block=per_block, reduce=reduce,
                       sides=args.sides or (None,), trials=args.trials,
                       verify_max_vertices=args.verify_max_vertices,
                       log=lambda m: print(m, file=sys.stderr))
    if args.variant:
        table.insert(0, "variant", args.variant)
    _atomic_write_csv(table, args.output)
    return 0


def cmd_build_native(args) -> int:
    from . import native

    directory = Path(args.out) if args.out else native.native_dir()
    if args.cuda:
        manifest = native.build_cuda(directory, force=args.force)
        for program, why in manifest["not_built"].items():
            print(f"{program}: not built: {why}", file=sys.stderr)
        print(f"{directory}: {', '.join(manifest['programs']) or 'no CUDA program'} "
              f"({manifest.get('nvcc_version', 'no nvcc')})", file=sys.stderr)
        return 0
    manifest = native.build(directory, force=args.force)
    print(f"{directory}: {', '.join(manifest['programs'])} ({manifest.get('compiler_version', '')}, "
          f"Boost {manifest.get('boost', '?')})", file=sys.stderr)
    return 0


def cmd_launch_floor(args) -> int:
    import json

    import pandas as pd

    from .harness import launch_floor

    binary, why = None, ""
    if args.native:
        manifest = json.loads(Path(args.native).read_text())
        if "launch_floor" in manifest.get("programs", {}):
            binary = Path(args.native).parent / manifest["programs"]["launch_floor"]["binary"]
        else:
            why = "not run: " + manifest.get("not_built", {}).get("launch_floor", "not built")
    rows = launch_floor.measure(binary, vertices=args.vertices, trials=args.trials,
                                native_note=why)
    _atomic_write_csv(pd.DataFrame(rows), args.output)
    return 0


def cmd_targets(args) -> int:
    from . import configs
    from .experiments import all_targets

    config = configs.load(args.configfile)
    mine = (config.get("targets") or {})
    elsewhere = []
    for t in sorted(all_targets(), key=lambda t: not t.ready):
        if t.ready and t.name not in mine:
            elsewhere.append(t)
        elif t.ready or args.all:
            state = "" if t.ready else f"  (planned: issue {t.planned})"
            print(f"{t.name}\t{t.document} {t.item}: {t.description}{state}")
    for t in elsewhere:  # no rule on this config: say which config has one
        where = configs.configs_with(t.name)
        print(f"{t.name}\t{t.document} {t.item}: not in this config; "
              + (f"run with --configfile {' '.join(where)}" if where else "in no config file"))
    if not args.all:
        print("(--all also lists the tables and figures whose reproduction is still planned)",
              file=sys.stderr)
    return 0


def cmd_rerun(args) -> int:
    """Re-measure one target: its run and benchmark files are made again, then its table."""
    import shlex
    import shutil
    import subprocess

    from . import configs
    from .experiments import get_target

    config = configs.load(args.configfile)
    if not get_target(args.target).ready:
        raise InputError(f"target {args.target} is planned, not built yet")
    if args.target not in (config.get("targets") or {}):
        where = configs.configs_with(args.target)
        raise InputError(f"target {args.target} is not in this config"
                         + (f"; add --configfile {' '.join(where)}" if where else ""))
    files = configs.measured_files(args.target, config)
    snakemake = shutil.which("snakemake")
    cmd = ([snakemake] if snakemake else [sys.executable, "-m", "snakemake"]) + [
        "--cores", str(args.cores)]
    if args.configfile:
        cmd += ["--configfile", *args.configfile]
    if args.dry_run:
        cmd += ["--dry-run"]
    # --force remakes exactly the named files' jobs (the measurements), not their graphs or
    # sources; the target's table and figure follow because their inputs are newer.
    cmd += ["--force", *files, args.target] if files else ["--forcerun", "compare_target", "--",
                                                             args.target]
    print("+ " + shlex.join(cmd), file=sys.stderr)
    return subprocess.call(cmd)


def cmd_generate(args) -> int:
    from .graph import generate, write_dimacs

    if args.kind == "road_grid":
        graph = generate.road_grid(args.rows, args.cols, keep=args.keep, max_weight=args.max_weight,
                                   seed=args.seed)
    elif args.kind in FAMILY_KINDS:
        from .graph.families import family_graph

        try:
            graph = family_graph(args.kind, args.vertices, args.arcs, max_weight=args.max_weight,
                                 seed=args.seed)
        except ValueError as e:
            raise InputError(f"generate: {e}") from None
    else:
        graph = generate.random_digraph(args.vertices, args.arcs, max_weight=args.max_weight,
                                        seed=args.seed)
    comment = (f"graphrepro generate {args.kind}: " +
               " ".join(f"{k}={v}" for k, v in sorted(vars(args).items())
                        if k not in ("func", "output", "command")))
    write_dimacs(graph, args.output, comment=comment)
    print(f"{args.output}: {graph.num_vertices} vertices, {graph.num_arcs} arcs", file=sys.stderr)
    return 0


def cmd_dense(args) -> int:
    """A dense graph's descriptor: its matrix is generated from the seed wherever it is used."""
    from .graph.dense import DenseGraph

    graph = DenseGraph(args.vertices, args.density, args.max_weight, args.seed,
                       name=args.name or Path(args.output).stem)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    graph.save(out)
    print(f"{out}: dense graph, {graph.num_vertices} vertices, density {graph.density:g}, "
          f"weights 1..{graph.max_weight}, seed {graph.seed}", file=sys.stderr)
    return 0


def cmd_convert(args) -> int:
    from .graph import degree_stats

    graph = load_graph(args.graph, args.format, name=args.name)
    graph = _reweighted(graph, args.reweight)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    graph.save(out)
    if args.reweight:
        from .datasets import origin_path, write_origin

        write_origin(origin_path(out), {"kind": "file", "file": str(args.graph),
                                        "reweight": _reweight_record(args.reweight)})
    stats = degree_stats(graph)
    print(f"{out}: " + ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                                 for k, v in stats.items()), file=sys.stderr)
    return 0


def _reweighted(graph, reweight):
    if not reweight:
        return graph
    from .graph.generate import reweight as apply

    low, high, seed = reweight
    return apply(graph, low, high, seed)


def _reweight_record(reweight) -> dict | None:
    return dict(zip(("low", "high", "seed"), reweight)) if reweight else None


def _print_table(rows: list[dict], columns: list[str]) -> None:
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns).rstrip())
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in columns).rstrip())


def cmd_datasets(args) -> int:
    from .datasets import list_datasets

    from .datasets.mirror import mirror_dirs

    mirrors = _mirrors(args)
    rows = list_datasets(args.data, registry=args.registry, mirrors=mirrors)
    _print_table(rows, ["key", "name", "documents", "format", "source", "size", "state"])
    dirs = ", ".join(str(d) for d in mirror_dirs(mirrors)) or "none"
    print(f"(files under {args.data}; offline mirrors: {dirs}; `python -m graphrepro fetch KEY` "
          f"downloads one)", file=sys.stderr)
    return 0


def _mirrors(args):
    """The offline mirrors a data command uses: None (none at all) or the folders given."""
    return None if getattr(args, "no_mirrors", False) else list(getattr(args, "mirror", []) or [])


def cmd_fetch(args) -> int:
    from .datasets import fetch, get_dataset, load_registry
    from .datasets.build import lock_for

    keys = args.keys or []
    if args.all:
        keys = [k for k, d in load_registry(args.registry).items()
                if d.source == "download" and not d.same_as]
    if not keys:
        raise InputError("name datasets to fetch (`python -m graphrepro datasets`) or pass --all")
    failed = []
    for key in keys:
        ds = get_dataset(key, args.registry)
        try:
            path, digest = fetch(ds, args.data, timeout=(args.timeout, args.timeout),
                                 retries=args.retries, lock_path=lock_for(args.registry),
                                 deadline_s=args.deadline, forget=args.forget_lock)
            print(f"{key}: {path} sha256 {digest}", file=sys.stderr)
        except GraphreproError as e:
            print(f"error: {key}: {e}", file=sys.stderr)
            failed.append(key)
    return 2 if failed else 0


def cmd_dataset_graph(args) -> int:
    """A registry dataset as the CSR cache, with its origin record beside it."""
    from .datasets import build_graph, origin_path, write_origin
    from .graph import degree_stats

    graph, origin = build_graph(args.dataset, mode=args.mode, data_dir=args.data,
                                scale=args.scale, registry=args.registry, mirrors=_mirrors(args))
    graph = _reweighted(graph, args.reweight)
    if args.reweight:
        origin["reweight"] = _reweight_record(args.reweight)
    graph.name = args.name or args.dataset
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    origin["stats"] = degree_stats(graph)
    write_origin(origin_path(out), origin)
    graph.save(out)
    print(f"{out}: {origin['kind']} {args.dataset} ({origin['document_name']}), "
          f"{graph.num_vertices} vertices, {graph.num_arcs} arcs", file=sys.stderr)
    return 0


def cmd_standins(args) -> int:
    """Road stand-ins against the real graphs at hand, with the benchmark goal per stand-in."""
    import pandas as pd

    from .datasets.standins import compare

    table = compare(data_dir=args.data, registry=args.registry, mirrors=_mirrors(args),
                    sources=args.sources, seed=args.seed, keys=args.keys or None)
    _atomic_write_csv(table, args.output)
    shown = table.drop(columns=["data"])
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(shown.to_string(index=False) if len(shown) else "no road dataset has real data at "
              "hand (set offline_mirrors / --mirror, or fetch ny, col, nw)")
    for _, row in table[table["graph"] == "stand-in"].iterrows():
        print(f"goal {row['dataset']}: {row['goal']} (depth {row['depth_vs_real_%']:+.1f}%, "
              f"components {row['sccs']}, degree gap {row['max_degree_gap_pp']:.2f} pp)")
    return 0


def cmd_terrain_compare(args) -> int:
    """gerritsen2012 per-block timings on a real terrain beside its stand-in's."""
    from .datasets.terrain_compare import compare

    table = compare({"mst": args.real_mst, "sssp": args.real_sssp, "zgrid": args.real},
                    {"mst": args.standin_mst, "sssp": args.standin_sssp, "zgrid": args.standin})
    _atomic_write_csv(table, args.output)
    meta = Path(args.output).with_suffix(".json")
    _atomic_write_text(meta, json.dumps({"real": table.attrs["real"],
                                         "stand-in": table.attrs["stand-in"]}, indent=1) + "\n")
    print(table.to_string(index=False))
    return 0


def cmd_dem(args) -> int:
    """Convert an elevation grid (a registry key or a file) as gerritsen2012 section 1.5.1 says."""
    from .datasets import load_registry, write_origin
    from .datasets.build import convert_terrain
    from .terrain import convert_file

    out = Path(args.output)
    if args.source in load_registry(args.registry):
        origin = convert_terrain(args.source, out, mode=args.mode, data_dir=args.data,
                                 scale=args.scale, dtype=args.dtype, registry=args.registry,
                                 mirrors=_mirrors(args))
    else:
        meta = convert_file(args.source, out, dtype=args.dtype)
        origin = {"kind": "file", "file": args.source, "converted": meta}
    write_origin(out.with_name(out.name + ".origin.json"), origin)
    c = origin["converted"] if "side" in origin["converted"] else origin["converted"]
    print(f"{out}: {origin['kind']}, {c['rows']} x {c['cols']} padded to {c['side']}^2 "
          f"{c['dtype']} in z-order, {c['unknown_values']} unknown values set to 0",
          file=sys.stderr)
    return 0


def cmd_dem_standin(args) -> int:
    from .terrain import write_standin

    write_standin(args.output, rows=args.rows, cols=args.cols, seed=args.seed,
                  roughness=args.roughness)
    print(f"{args.output}: diamond-square terrain {args.rows} x {args.cols}, seed {args.seed}",
          file=sys.stderr)
    return 0


def cmd_sources(args) -> int:
    """Seeded random sources for a graph, with reference digests and the graph's statistics."""
    from . import verify
    from .graph import degree_stats
    from .harness import draw_sources

    if args.count < 1:
        raise InputError("--count must be at least 1")
    graph = load_graph(args.graph, args.format, name=args.name)
    sources = draw_sources(graph, args.count, args.seed)
    digests, reference_ms = [], []
    for s in sources:
        t0 = time.perf_counter()
        digests.append(verify.digest(verify.reference_distances(graph, int(s))))
        reference_ms.append((time.perf_counter() - t0) * 1e3)
    origin = _origin_of(args.graph)
    stands_for = args.stands_for or (origin or {}).get("document_name")
    record = {"graph": graph.name, "seed": args.seed, "stands_for": stands_for, "origin": origin,
              "sources": [int(s) for s in sources],
              "labels": [int(x) for x in graph.label_of(sources)],
              "digests": digests, "reference_ms": reference_ms, "stats": degree_stats(graph)}
    _atomic_write_text(Path(args.output), json.dumps(record, indent=1) + "\n")
    print(f"{args.output}: {len(sources)} sources, reference distances digested", file=sys.stderr)
    return 0


def _origin_of(graph_path) -> dict | None:
    """The origin record written beside a CSR cache (real file or stand-in), if any."""
    from .datasets import origin_path

    path = origin_path(graph_path)
    return json.loads(path.read_text()) if path.is_file() else None


def cmd_run(args) -> int:
    from .harness import RunSpec, measure, provenance

    if args.trials < 1 or args.warmup < 0:
        raise InputError("--trials must be at least 1 and --warmup at least 0")

    from .harness.files import read_sources

    graph = load_graph(args.graph, args.format, name=args.name)
    record = read_sources(args.sources, graph.num_vertices)
    params = _params(args.param)
    if args.calibration:
        params = {**_calibrated(args.solver, Path(args.calibration)), **params}
    sources, digests = record["sources"], record["digests"]
    if args.shard:
        from .harness.shards import parse_shard, shard_slice

        part = shard_slice(len(sources), parse_shard(args.shard))
        sources, digests = sources[part], digests[part]
    spec = RunSpec(args.solver, sources, digests, params, trials=args.trials, warmup=args.warmup)
    table = measure(graph, spec, log=lambda m: print(m, file=sys.stderr))
    out = _atomic_write_csv(table, args.output)
    prov = provenance({"graph": args.graph, "solver": args.solver, "params": spec.params,
                       "trials": args.trials, "warmup": args.warmup, "sources": args.sources,
                       **({"shard": args.shard} if args.shard else {})})
    _atomic_write_text(out.with_suffix(".provenance.json"), json.dumps(prov, indent=1) + "\n")
    return 0


def cmd_merge_runs(args) -> int:
    from .harness.shards import merge_provenance, merge_run_tables

    shards = [Path(s) for s in args.shards]
    out = _atomic_write_csv(merge_run_tables(shards), args.output)
    prov = merge_provenance([s.with_suffix(".provenance.json") for s in shards])
    _atomic_write_text(out.with_suffix(".provenance.json"), json.dumps(prov, indent=1) + "\n")
    return 0


def _calibrated(run_id: str, path: Path) -> dict:
    """The parameter a calibration file sets (safari2017's N comes from Harish's iterations)."""
    from .solvers import parse_run_id

    from .harness.files import damaged

    try:
        record = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
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

    from .harness.files import read_run_table
    from .harness.sources import degenerate_minimum

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
    _atomic_write_text(Path(args.output), json.dumps(record, indent=1) + "\n")
    print(f"{args.output}: min iterations {record['min_iterations']}", file=sys.stderr)
    return 0


def cmd_transfers(args) -> int:
    """an2017 section 4.1: pageable vs pinned uploads of each graph's matrix, two-stream overlap."""
    from .solvers.an2017.transfers import transfer_benchmark

    if len(args.graphs) != len(args.sources):
        raise InputError("give one --sources file per graph, in the same order")
    if args.trials < 1 or args.warmup < 0:
        raise InputError("--trials must be at least 1 and --warmup at least 0")
    from .harness.files import read_sources

    cases = []
    for path, sources in zip(args.graphs, args.sources):
        graph = load_graph(path)
        record = read_sources(sources, graph.num_vertices)
        cases.append((graph, int(record["sources"][0]), record["digests"][0]))
    table = transfer_benchmark(cases, trials=args.trials, warmup=args.warmup,
                               edges_per_thread=args.edges_per_thread,
                               log=lambda m: print(m, file=sys.stderr))
    out = _atomic_write_csv(table, args.output)
    from .harness import provenance

    prov = provenance({"graphs": args.graphs, "trials": args.trials, "warmup": args.warmup,
                       "edges_per_thread": args.edges_per_thread})
    _atomic_write_text(out.with_suffix(".provenance.json"), json.dumps(prov, indent=1) + "\n")
    return 0


def cmd_compare(args) -> int:
    from .report.tables import build_target_table

    from .experiments import get_target

    table = build_target_table(args.target, args.runs, args.sources, Path(args.output),
                               figure=Path(args.figure) if args.figure else None,
                               benchmark_paths=args.benchmarks,
                               claims=Path(args.claims) if args.claims else None)
    if get_target(args.target).prints:  # a benchmark: its numbers in its log, not mid-run
        import pandas as pd

        with pd.option_context("display.width", 200, "display.max_columns", None,
                               "display.float_format", "{:.4g}".format):
            print(f"{args.target}:\n{table.fillna('').to_string(index=False)}", file=sys.stderr)
    return 0


def _merged_config(paths) -> dict:
    """Config files merged key by key, later ones winning, as snakemake merges --configfile."""
    from .configs import merge

    return merge(paths)


def cmd_retabulate(args) -> int:
    """Rebuild target tables and figures from run tables already made (no solver runs)."""
    from .experiments import get_target
    from .report.tables import build_target_table

    config = _merged_config(args.configfile)
    root = Path(args.results)
    names = args.targets or [n for n in config.get("targets", {}) if get_target(n).ready]
    for name in names:
        target, settings = get_target(name), config["targets"].get(name)
        if settings is None:
            raise InputError(f"target {name} is not in the given config files")
        run_ids = settings.get("runs") or list(target.solvers)
        graphs = [g for g in settings.get("graphs") or []
                  if (root / "sources" / f"{g}.json").is_file()]
        runs = [p for g in graphs for r in run_ids if (p := root / "runs" / g / f"{r}.csv").is_file()]
        also = {g: rs for g, rs in (settings.get("also") or {}).items()
                if (root / "sources" / f"{g}.json").is_file()}  # another target's graph
        runs += [p for g, rs in also.items() for r in rs
                 if (p := root / "runs" / g / f"{r}.csv").is_file()]
        if not graphs and not (target.benchmarks and not settings.get("graphs")):
            print(f"{name}: no graph of it has sources under {root}; skipped", file=sys.stderr)
            continue
        benchmarks = [p for b in target.benchmarks
                      if (p := root / "benchmarks" / f"{b}.csv").is_file()]
        build_target_table(name, runs, [root / "sources" / f"{g}.json"
                                        for g in graphs + [g for g in also if g not in graphs]],
                           root / "targets" / f"{name}.csv",
                           figure=root / "figures" / f"{name}.png", benchmark_paths=benchmarks,
                           figure_only=args.figures_only)
        print(f"{name}: {len(runs)} run tables over {len(graphs)} graphs", file=sys.stderr)
    from .claims import collect

    ledger = collect(root)
    _atomic_write_csv(ledger, root / "claims.csv")
    print(f"{root / 'claims.csv'}: {len(ledger)} claims", file=sys.stderr)
    return 0


def cmd_claims(args) -> int:
    """The ledger of a results directory, filtered, printed, and written with --output."""
    import pandas as pd

    from .claims import VERDICTS, collect

    if args.verdict and args.verdict not in VERDICTS:
        raise InputError(f"--verdict {args.verdict!r}: one of {', '.join(VERDICTS)}")
    ledger = collect(Path(args.results))
    if args.document:
        if args.document not in set(ledger["document"]):
            raise InputError(f"--document {args.document!r}: no claims; documents with claims: "
                             f"{', '.join(pd.unique(ledger['document']))}")
        ledger = ledger[ledger["document"] == args.document]
    if args.verdict:
        ledger = ledger[ledger["verdict"] == args.verdict]
    if args.output:
        _atomic_write_csv(ledger, args.output)
    shown = ledger[["document", "where", "claim", "published", "ours", "ours_low", "ours_high",
                    "unit", "verdict", "reason"]]
    with pd.option_context("display.width", 250, "display.max_columns", None,
                           "display.max_colwidth", 60, "display.max_rows", None):
        print(shown.to_string(index=False) if len(shown) else "no claims")
    return 0


def cmd_report(args) -> int:
    from .report.build import build_report

    ref_config = (_merged_config(args.reference_config)
                  if args.reference_config and all(Path(p).is_file() for p in args.reference_config)
                  else None)
    build_report(Path(args.results), Path(args.output), reference=Path(args.reference),
                 config_path=Path(args.config) if args.config else None,
                 claims=Path(args.claims) if args.claims else None,
                 reference_claims=Path(args.reference_claims) if args.reference_claims else None,
                 reference_config=ref_config)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def cmd_provenance(args) -> int:
    from .harness import provenance

    print(json.dumps(provenance(), indent=1))
    return 0


def cmd_io_sssp(args) -> int:
    """gerritsen2012 chapter 4: the three-phase I/O-efficient SSSP on a .zgrid, counted and checked."""
    from .solvers.gerritsen2012 import sssp_io

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
        record["memory_cap"].pop("previous_soft")
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
        print(f"memory cap {c['rlimit']} {c['limit_mib']} MiB (baseline {c['baseline_mib']} + "
              f"budget {c['budget_mib']}); max rss {record['max_rss_mib']} MiB")
    print(f"check {check}")
    if args.json:
        _atomic_write_text(Path(args.json), json.dumps(record, indent=1, default=float) + "\n")
    return 0


def cmd_sssp_experiment(args) -> int:
    """gerritsen2012 chapter 5: measure one table's numbers (a benchmark table for its target)."""
    from .experiments.gerritsen2012_sssp import run_experiment
    from .harness import provenance

    settings = json.loads(args.settings) if args.settings else {}
    table = run_experiment(args.table, args.terrain, settings, args.workdir,
                           log=lambda m: print(m, file=sys.stderr))
    out = _atomic_write_csv(table, args.output)
    prov = provenance({"table": args.table, "terrain": args.terrain, "settings": settings})
    _atomic_write_text(out.with_suffix(".provenance.json"), json.dumps(prov, indent=1) + "\n")
    return 0


# --- parser -----------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m graphrepro",
                                description="Reproduce published GPU graph-algorithm results.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def reweight_arg(sp):
        sp.add_argument("--reweight", nargs=3, type=int, metavar=("LOW", "HIGH", "SEED"),
                        help="replace every weight by a seeded random integer LOW..HIGH")

    def graph_args(sp, name=True):
        sp.add_argument("graph", help="a .gr, .txt (SNAP) or .mtx file (gzip allowed), a .npz "
                        "cache, or a DEM grid (GRASS/ESRI ASCII by content, gzip allowed; .npy; "
                        ".zgrid): the 8-neighbour grid of gerritsen2012 1.5.1, ids row-major over "
                        "the padded power-of-two square")
        sp.add_argument("--format", choices=["dimacs", "snap", "mtx", "npz", "dem"],
                        help="override the format the extension or content implies")
        if name:
            sp.add_argument("--name", help="the graph's name in tables (default: the file's stem)")

    sp = sub.add_parser("solve", help="shortest distances from one source, written one line per vertex")
    graph_args(sp, name=False)
    sp.add_argument("--solver", default="dijkstra",
                    help="a name from `graphrepro solvers`, optionally with parameters: lbr@k=4,t=2")
    sp.add_argument("--source", type=int, required=True, help="source vertex, in the file's numbering")
    sp.add_argument("--output", required=True, help="'vertex distance' per line, 'inf' if unreachable")
    sp.add_argument("--param", action="append", metavar="KEY=VALUE", help="solver parameter")
    sp.add_argument("--no-verify", action="store_true", help="skip the check against the reference")
    sp.set_defaults(func=cmd_solve)

    sp = sub.add_parser("solvers", help="list solvers: name, device, document, description")
    sp.add_argument("--problem", choices=["sssp", "mst"], default="sssp",
                    help="shortest paths (what `solve` takes) or minimum spanning forests (`mst`)")
    sp.set_defaults(func=cmd_solvers)

    sp = sub.add_parser("mst", help="a minimum spanning forest, written one edge per line")
    graph_args(sp, name=False)
    sp.add_argument("--solver", default="kruskal",
                    help="a name from `graphrepro solvers --problem mst`, optionally with "
                         "parameters: gerritsen_io@block=64,step=tournament")
    sp.add_argument("--param", action="append", metavar="KEY=VALUE", help="solver parameter")
    sp.add_argument("--output", required=True, help="'u v weight' per tree edge, in the file's numbering")
    sp.add_argument("--no-verify", action="store_true",
                    help="skip the check (spanning forest, weight of the Kruskal reference)")
    sp.set_defaults(func=cmd_mst)

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

    sp = sub.add_parser("mst-blocks", help="gerritsen2012 ch. 3: per-block MST, dead ends and "
                        "contraction on the centre blocks of a grid, five parts timed, verified")
    zgrid_args(sp)
    sp.add_argument("--blocks", type=int, required=True, help="centre blocks (the thesis: 10,000)")
    sp.add_argument("--warmup", type=int, default=1)
    sp.set_defaults(func=cmd_mst_blocks)

    sp = sub.add_parser("mst-io", help="gerritsen2012 ch. 2 / 3.5: the whole I/O-efficient MST, "
                        "three phases timed, block transfers counted, verified")
    zgrid_args(sp)
    sp.add_argument("--sides", type=int, nargs="*",
                    help="a size sweep: the centre SIDE x SIDE crop of the grid for each (Table 3.6)")
    sp.add_argument("--verify-max-vertices", type=int, default=1 << 24,
                    help="check the weight against Kruskal up to this many vertices; beyond, a "
                         "spanning-tree check and an edge digest only")
    sp.set_defaults(func=cmd_mst_io)

    sp = sub.add_parser("build-native", help="compile the C++ baselines (BGL, plain C++) with g++ -O3")
    sp.add_argument("--out", help="where the binaries go (default: build/native, or $GRAPHREPRO_NATIVE_DIR)")
    sp.add_argument("--force", action="store_true", help="rebuild even when up to date")
    sp.add_argument("--cuda", action="store_true",
                    help="build the CUDA C++ programs (the launch floor) with nvcc instead")
    sp.set_defaults(func=cmd_build_native)

    sp = sub.add_parser("launch-floor", help="what one launch costs here: empty launch, launch + "
                        "read-back, a Harish round, grid sync, copy bandwidth; native and ours")
    sp.add_argument("--native", help="the CUDA build manifest (build-native --cuda) naming the "
                    "native program; without it, no native column")
    sp.add_argument("--vertices", type=int, default=264346,
                    help="vertices of the Harish-style round (default: NY's)")
    sp.add_argument("--trials", type=int, default=7)
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_launch_floor)

    sp = sub.add_parser("targets", help="list the snakemake targets, one per published table or figure")
    sp.add_argument("--all", action="store_true", help="include the ones still planned")
    sp.add_argument("--configfile", nargs="*", default=[],
                    help="config files over the default, as given to snakemake (targets not in "
                         "the result are listed last, with the config that has them)")
    sp.set_defaults(func=cmd_targets)

    sp = sub.add_parser("rerun", help="re-measure one target: rerun its solver runs or benchmarks "
                                      "(not its graphs), then rebuild its table and figure")
    sp.add_argument("target")
    sp.add_argument("--configfile", nargs="*", default=[], help="as given to snakemake")
    sp.add_argument("--cores", default="all")
    sp.add_argument("-n", "--dry-run", action="store_true", help="show what would run")
    sp.set_defaults(func=cmd_rerun)

    sp = sub.add_parser("generate", help="write a deterministic synthetic graph as DIMACS .gr")
    sp.add_argument("kind", choices=["road_grid", "random", *FAMILY_KINDS],
                    help="sparse, general, almost_complete: singla's families (simple digraphs "
                         "with exactly --arcs arcs, weights 1..--max-weight)")
    sp.add_argument("--rows", type=int, default=32)
    sp.add_argument("--cols", type=int, default=32)
    sp.add_argument("--keep", type=float, default=0.6, help="road_grid: probability a street exists")
    sp.add_argument("--vertices", type=int, default=1000)
    sp.add_argument("--arcs", type=int, default=4000)
    sp.add_argument("--max-weight", type=int, default=1000)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_generate)

    sp = sub.add_parser("dense", help="write a dense graph's descriptor (.npz): the adjacency "
                        "matrix is generated from a hash of (i, j, seed) wherever it is used")
    sp.add_argument("--vertices", type=int, required=True)
    sp.add_argument("--density", type=float, default=1.0,
                    help="probability that each arc i -> j (i != j) exists; 1: complete (default)")
    sp.add_argument("--max-weight", type=int, default=100, help="weights are uniform in 1..this")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--name", help="the graph's name in tables (default: the output's stem)")
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_dense)

    sp = sub.add_parser("convert", help="parse a graph file once into the CSR cache (.npz)")
    graph_args(sp)
    reweight_arg(sp)
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_convert)

    def data_args(sp):
        sp.add_argument("--data", default="resources/datasets",
                        help="where downloads and stand-in files live (default: %(default)s)")
        sp.add_argument("--mirror", action="append", default=[], metavar="DIR",
                        help="an offline mirror: a folder searched by file name before any URL "
                             "(repeatable; also $GRAPHREPRO_OFFLINE_MIRRORS, os.pathsep-separated)")
        sp.add_argument("--no-mirrors", action="store_true",
                        help="use no offline mirror, not even the environment's (a stand-in by name)")
        sp.add_argument("--registry", default=None,
                        help="the dataset registry (default: config/datasets.yaml)")

    sp = sub.add_parser("datasets", help="list every dataset with its state (downloaded, verified, "
                        "stand-in)")
    data_args(sp)
    sp.set_defaults(func=cmd_datasets)

    sp = sub.add_parser("fetch", help="download datasets and verify them (size, sha256)")
    sp.add_argument("keys", nargs="*", metavar="KEY")
    sp.add_argument("--all", action="store_true", help="every downloadable dataset")
    sp.add_argument("--timeout", type=float, default=60.0, help="connect and read timeout, s")
    sp.add_argument("--retries", type=int, default=4)
    sp.add_argument("--deadline", type=float, default=4 * 3600.0,
                    help="give up on one dataset after this many seconds (the .part is kept)")
    sp.add_argument("--forget-lock", action="store_true",
                    help="drop the lock's first-seen checksum first (when it was recorded from a "
                         "wrong file; the error that needs this says so)")
    data_args(sp)
    sp.set_defaults(func=cmd_fetch)

    sp = sub.add_parser("dataset-graph", help="a registry dataset (real file or labelled stand-in) "
                        "as the CSR cache, with its origin record")
    sp.add_argument("dataset", metavar="KEY")
    sp.add_argument("--mode", choices=["paper", "standin"], default="standin",
                    help="paper: the real file when it can be had; standin: always the stand-in")
    sp.add_argument("--scale", type=float, default=1.0,
                    help="a stand-in at this fraction of the original's size")
    sp.add_argument("--name", help="the graph's name in tables (default: the key)")
    reweight_arg(sp)
    data_args(sp)
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_dataset_graph)

    sp = sub.add_parser("standins", help="road stand-ins against the real graphs at hand (real "
                        "file or topology): counts, components, degrees, BFS depth, Harish "
                        "rounds for NY; the benchmark goal per stand-in")
    sp.add_argument("keys", nargs="*", metavar="KEY", help="datasets (default: every road one)")
    sp.add_argument("--sources", type=int, default=16, help="seeded BFS sources per graph")
    sp.add_argument("--seed", type=int, default=0, help="the sources' seed (the config's seed:)")
    data_args(sp)
    sp.add_argument("--output", required=True, help="CSV, one row per real graph and stand-in")
    sp.set_defaults(func=cmd_standins)

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

    sp = sub.add_parser("dem", help="convert an elevation grid (registry key, GRASS/ESRI ASCII, "
                        ".npy or .npz) to z-order binary, as gerritsen2012 section 1.5.1 says")
    sp.add_argument("source", help="a terrain dataset key or a file")
    sp.add_argument("--mode", choices=["paper", "standin"], default="standin")
    sp.add_argument("--scale", type=float, default=1.0)
    sp.add_argument("--dtype", choices=["uint16", "uint32"], default="uint16")
    data_args(sp)
    sp.add_argument("--output", required=True, help="NAME.zgrid (NAME.zgrid.json beside it)")
    sp.set_defaults(func=cmd_dem)

    sp = sub.add_parser("dem-standin", help="write a diamond-square terrain in Listing 1.1's "
                        "ASCII format")
    sp.add_argument("--rows", type=int, default=12555)
    sp.add_argument("--cols", type=int, default=17630)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--roughness", type=float, default=0.55)
    sp.add_argument("--output", required=True, help=".asc (or .asc.gz)")
    sp.set_defaults(func=cmd_dem_standin)

    sp = sub.add_parser("sources", help="draw seeded random sources and digest reference distances")
    graph_args(sp)
    sp.add_argument("--count", type=int, required=True)
    sp.add_argument("--seed", type=int, required=True)
    sp.add_argument("--stands-for", default=None, help="the document's graph this one stands in for")
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_sources)

    sp = sub.add_parser("run", help="time one solver on one graph over the sources; verify every pass")
    graph_args(sp)
    sp.add_argument("--solver", required=True,
                    help="a solver name, optionally with parameters (a run id): lbr@k=4,t=2")
    sp.add_argument("--sources", required=True, help="the JSON written by `sources`")
    sp.add_argument("--trials", type=int, default=3)
    sp.add_argument("--warmup", type=int, default=1)
    sp.add_argument("--param", action="append", metavar="KEY=VALUE")
    sp.add_argument("--calibration", help="a JSON written by `calibrate` (sets safari2017's N)")
    sp.add_argument("--shard", metavar="I/N",
                    help="run only shard I (from 0) of N contiguous slices of the sources")
    sp.add_argument("--output", required=True, help="tidy CSV, one row per (source, trial)")
    sp.set_defaults(func=cmd_run)

    sp = sub.add_parser("merge-runs", help="the run tables of one run's source shards, as one "
                                           "table (in shard order)")
    sp.add_argument("shards", nargs="+", help="run tables written by `run --shard I/N`, I = 0..N-1")
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_merge_runs)

    sp = sub.add_parser("calibrate", help="minimum iterations over the sources of a run table "
                                          "(safari2017's N = that / k)")
    sp.add_argument("runs", help="a run table written by `run` (e.g. runs/<graph>/harish.csv)")
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_calibrate)

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
    sp.set_defaults(func=cmd_transfers)

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
    sp.set_defaults(func=cmd_compare)

    sp = sub.add_parser("report", help="write the HTML report from the target tables")
    sp.add_argument("--results", default="results")
    sp.add_argument("--reference", default="reports/reference")
    sp.add_argument("--config", help="the config the results came from (shown in the report)")
    sp.add_argument("--output", default="reports/index.html")
    sp.add_argument("--claims", help="this run's claims ledger (written by `claims --output`)")
    sp.add_argument("--reference-claims", default="reports/reference/claims.csv",
                    help="the reference run's claims ledger CSV, used where it exists")
    sp.add_argument("--reference-config", nargs="*",
                    default=["config/config.yaml", "config/h100.yaml"],
                    help="the config files the reference run used, merged in order (to credit "
                         "each reference table with its own runs' provenance)")
    sp.set_defaults(func=cmd_report)

    sp = sub.add_parser("claims", help="the claims ledger: every published claim, ours with its "
                                       "interval, and the verdict of the one rule")
    sp.add_argument("--results", default="results",
                    help="a results directory whose targets/*.claims.csv the compare steps wrote")
    sp.add_argument("--document", help="only this document's claims (short name)")
    sp.add_argument("--verdict", help="only claims with this verdict (e.g. 'not reproduced')")
    sp.add_argument("--output", help="write the ledger as CSV here (besides printing it)")
    sp.set_defaults(func=cmd_claims)

    sp = sub.add_parser("retabulate", help="rebuild target tables and figures from the run tables "
                                           "under a results directory (e.g. reports/reference)")
    sp.add_argument("results", help="a results directory: runs/, sources/, benchmarks/")
    sp.add_argument("--configfile", nargs="+", required=True,
                    help="the config files the runs came from, merged in order")
    sp.add_argument("--targets", nargs="*", help="only these (default: every ready one configured)")
    sp.add_argument("--figures-only", action="store_true",
                    help="redraw the figures only; leave the target tables as they are")
    sp.set_defaults(func=cmd_retabulate)

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

    sp = sub.add_parser("sssp-experiment", help="gerritsen2012 ch. 5: measure one table "
                                                "(table5_1 .. table5_7) on a .zgrid, verified")
    sp.add_argument("table", help="table5_1, table5_2, table5_3, table5_4, table5_5 or table5_7")
    sp.add_argument("--terrain", required=True, help="a converted grid (.zgrid)")
    sp.add_argument("--settings", help="JSON: the table's settings (config targets: settings:)")
    sp.add_argument("--workdir", required=True, help="scratch space for G' and windows")
    sp.add_argument("--output", required=True, help="the benchmark table (CSV)")
    sp.set_defaults(func=cmd_sssp_experiment)

    sp = sub.add_parser("provenance", help="print this machine's provenance record")
    sp.set_defaults(func=cmd_provenance)
    return p


def _check_outputs(args) -> None:
    """An output naming a directory is refused before any work (it would fail at the rename)."""
    for key in ("output", "figure", "json"):
        value = getattr(args, key, None)
        if isinstance(value, str) and value and Path(value).is_dir():
            raise InputError(f"--{key} {value} is a directory; name a file")


def main(argv=None) -> int:
    import zlib

    args = build_parser().parse_args(argv)
    try:
        _check_outputs(args)
        return args.func(args)
    except GraphreproError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # permissions, a full disk, a directory where a file goes: one line
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    except (zlib.error, EOFError) as e:
        print(f"error: corrupt or truncated compressed data ({e})", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: out of host memory (the graph is too large for this machine)", file=sys.stderr)
        return 2
    except Exception as e:  # a CUDA error deserves one clear line too, not a driver traceback
        if type(e).__module__.startswith(("numba.cuda", "numba_cuda")):
            print(f"error: CUDA: {e}", file=sys.stderr)
            return 3
        raise
