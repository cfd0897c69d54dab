"""Graphs and datasets: synthetic and dense graphs, the CSR cache, the dataset registry,
downloads, and the road stand-ins beside the real graphs."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import atomic
from ..errors import GraphreproError, InputError
from .common import (_fetched, _mirrors, data_args, fetched_arg, graph_args, load_graph,
                     print_rows)
from .exitcodes import exit_code

FAMILY_KINDS = ("sparse", "general", "almost_complete")  # graph.families.FAMILIES, without numpy


def reweight_arg(sp):
    sp.add_argument("--reweight", nargs=3, type=int, metavar=("LOW", "HIGH", "SEED"),
                    help="replace every weight by a seeded random integer LOW..HIGH")


def _reweighted(graph, reweight):
    if not reweight:
        return graph
    from ..graph.generate import reweight as apply

    low, high, seed = reweight
    return apply(graph, low, high, seed)


def _reweight_record(reweight) -> dict | None:
    return dict(zip(("low", "high", "seed"), reweight)) if reweight else None


def cmd_generate(args) -> int:
    from ..graph import generate, write_dimacs

    if args.kind == "road_grid":
        graph = generate.road_grid(args.rows, args.cols, keep=args.keep, max_weight=args.max_weight,
                                   seed=args.seed)
    elif args.kind in FAMILY_KINDS:
        from ..graph.families import family_graph

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
    if str(args.output).endswith(".npz"):  # the CSR cache `run` reads, not DIMACS text in it
        graph.save(args.output)
    else:
        write_dimacs(graph, args.output, comment=comment)
    print(f"{args.output}: {graph.num_vertices} vertices, {graph.num_arcs} arcs", file=sys.stderr)
    return 0


def add_generate(sub) -> None:
    sp = sub.add_parser("generate", help="write a deterministic synthetic graph as DIMACS .gr "
                                         "(or, to a name ending .npz, as the CSR cache)")
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


def cmd_dense(args) -> int:
    """A dense graph's descriptor: its matrix is generated from the seed wherever it is used."""
    from ..graph.dense import DenseGraph

    graph = DenseGraph(args.vertices, args.density, args.max_weight, args.seed,
                       name=args.name or Path(args.output).stem)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    graph.save(out)
    print(f"{out}: dense graph, {graph.num_vertices} vertices, density {graph.density:g}, "
          f"weights 1..{graph.max_weight}, seed {graph.seed}", file=sys.stderr)
    return 0


def add_dense(sub) -> None:
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


def cmd_convert(args) -> int:
    from ..graph import degree_stats

    graph = load_graph(args.graph, args.format, name=args.name)
    graph = _reweighted(graph, args.reweight)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    graph.save(out)
    from ..datasets import origin_path, write_origin
    from ..datasets.origin import file_origin

    if args.generated:  # the config's generator made it: no record, and tables say synthetic
        origin_path(out).unlink(missing_ok=True)
    else:
        origin = file_origin(args.graph, args.format)
        if args.reweight:
            origin["reweight"] = _reweight_record(args.reweight)
        write_origin(origin_path(out), origin)
    stats = degree_stats(graph)
    print(f"{out}: " + ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                                 for k, v in stats.items()), file=sys.stderr)
    return 0


def add_convert(sub) -> None:
    sp = sub.add_parser("convert", help="parse a graph file once into the CSR cache (.npz)")
    graph_args(sp)
    reweight_arg(sp)
    sp.add_argument("--output", required=True)
    sp.add_argument("--generated", action="store_true",
                    help="the file was made by `generate` (the workflow's config generator): "
                         "write no origin record (else OUTPUT's .origin.json names the file, its "
                         "sha256 and format, and tables say 'your file NAME')")
    sp.set_defaults(func=cmd_convert)


def cmd_datasets(args) -> int:
    from ..datasets import list_datasets

    from ..datasets.mirror import mirror_dirs

    mirrors = _mirrors(args)
    rows = list_datasets(args.data, registry=args.registry, mirrors=mirrors)
    print_rows(rows, ["key", "name", "documents", "format", "source", "size", "state"])
    dirs = ", ".join(str(d) for d in mirror_dirs(mirrors)) or "none"
    print(f"(files under {args.data}; offline mirrors: {dirs}; `python -m graphrepro fetch KEY` "
          f"downloads one)", file=sys.stderr)
    return 0


def add_datasets(sub) -> None:
    sp = sub.add_parser("datasets", help="list every dataset with its state (downloaded, verified, "
                        "stand-in)")
    data_args(sp)
    sp.set_defaults(func=cmd_datasets)


def cmd_fetch(args) -> int:
    from ..datasets import fetch, get_dataset, load_registry
    from ..datasets.build import lock_for

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
            failed.append(exit_code(e))
    return failed[0] if failed else 0  # the first failure's kind (cli/exitcodes.py)


def add_fetch(sub) -> None:
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


def cmd_fetch_record(args) -> int:
    """Obtain a dataset's real file (or settle on its stand-in) and record which, for
    `dataset-graph` or `dem` with --fetched to build from without the network."""
    from ..datasets.build import fetch_record
    from ..datasets.fetched import write_record

    record = fetch_record(args.dataset, mode=args.mode, data_dir=args.data,
                          registry=args.registry, mirrors=_mirrors(args))
    write_record(args.output, record)
    said = record.get("file") or record.get("reason")
    print(f"{args.output}: {args.dataset} {record['kind']}" + (f": {said}" if said else ""),
          file=sys.stderr)
    return 0


def add_fetch_record(sub) -> None:
    sp = sub.add_parser("fetch-record", help="obtain a dataset's real file (download, offline "
                        "mirror, verified) or settle on its stand-in, and write which (JSON)")
    sp.add_argument("dataset", metavar="KEY")
    sp.add_argument("--mode", choices=["paper", "standin"], default="standin")
    data_args(sp)
    sp.add_argument("--output", required=True, help="the record (JSON), for --fetched")
    sp.set_defaults(func=cmd_fetch_record)


def cmd_dataset_graph(args) -> int:
    """A registry dataset as the CSR cache, with its origin record beside it."""
    from ..datasets import build_graph, origin_path, write_origin
    from ..graph import degree_stats

    graph, origin = build_graph(args.dataset, mode=args.mode, data_dir=args.data,
                                scale=args.scale, registry=args.registry, mirrors=_mirrors(args),
                                fetched=_fetched(args, args.dataset))
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


def add_dataset_graph(sub) -> None:
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
    fetched_arg(sp)
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_dataset_graph)


def cmd_standins(args) -> int:
    """Road stand-ins against the real graphs at hand, with the benchmark goal per stand-in."""
    import pandas as pd

    from ..datasets.standins import compare

    table = compare(data_dir=args.data, registry=args.registry, mirrors=_mirrors(args),
                    sources=args.sources, seed=args.seed, keys=args.keys or None)
    atomic.write_csv(table, args.output)
    shown = table.drop(columns=["data"])
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(shown.to_string(index=False) if len(shown) else "no road dataset has real data at "
              "hand (set offline_mirrors / --mirror, or fetch ny, col, nw)")
    for _, row in table[table["graph"] == "stand-in"].iterrows():
        print(f"goal {row['dataset']}: {row['goal']} (depth {row['depth_vs_real_%']:+.1f}%, "
              f"components {row['sccs']}, degree gap {row['max_degree_gap_pp']:.2f} pp)")
    return 0


def add_standins(sub) -> None:
    sp = sub.add_parser("standins", help="road stand-ins against the real graphs at hand (real "
                        "file or topology): counts, components, degrees, BFS depth, Harish "
                        "rounds for NY; the benchmark goal per stand-in")
    sp.add_argument("keys", nargs="*", metavar="KEY", help="datasets (default: every road one)")
    sp.add_argument("--sources", type=int, default=16, help="seeded BFS sources per graph")
    sp.add_argument("--seed", type=int, default=0, help="the sources' seed (the config's seed:)")
    data_args(sp)
    sp.add_argument("--output", required=True, help="CSV, one row per real graph and stand-in")
    sp.set_defaults(func=cmd_standins)
