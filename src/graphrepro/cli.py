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
        out[key] = value
    return out


def load_graph(path, fmt=None, name=None):
    """A graph file in any supported format, or our CSR cache (.npz)."""
    from .graph import CSRGraph, read_graph

    path = Path(path)
    if (fmt or "").lower() == "npz" or (fmt is None and path.suffix == ".npz"):
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        graph = CSRGraph.load(path)
        if name:
            graph.name = name
        return graph
    return read_graph(path, fmt, name=name)


def _atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text)
    tmp.replace(path)


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

    for s in all_solvers():
        defaults = " ".join(f"{k}={v}" for k, v in s.defaults.items())
        print(f"{s.name}\t{s.device}\t{s.document}\t{s.description}" + (f" [{defaults}]" if defaults else ""))
    return 0


def cmd_targets(args) -> int:
    from .experiments import all_targets

    for t in sorted(all_targets(), key=lambda t: not t.ready):
        if t.ready or args.all:
            state = "" if t.ready else f"  (planned: issue {t.planned})"
            print(f"{t.name}\t{t.document} {t.item}: {t.description}{state}")
    if not args.all:
        print("(--all also lists the tables and figures whose reproduction is still planned)",
              file=sys.stderr)
    return 0


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


def cmd_convert(args) -> int:
    from .graph import degree_stats

    graph = load_graph(args.graph, args.format, name=args.name)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    graph.save(out)
    stats = degree_stats(graph)
    print(f"{out}: " + ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                                 for k, v in stats.items()), file=sys.stderr)
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
    record = {"graph": graph.name, "seed": args.seed, "stands_for": args.stands_for,
              "sources": [int(s) for s in sources],
              "labels": [int(x) for x in graph.label_of(sources)],
              "digests": digests, "reference_ms": reference_ms, "stats": degree_stats(graph)}
    _atomic_write_text(Path(args.output), json.dumps(record, indent=1) + "\n")
    print(f"{args.output}: {len(sources)} sources, reference distances digested", file=sys.stderr)
    return 0


def cmd_run(args) -> int:
    from .harness import RunSpec, measure, provenance

    if args.trials < 1 or args.warmup < 0:
        raise InputError("--trials must be at least 1 and --warmup at least 0")

    graph = load_graph(args.graph, args.format, name=args.name)
    record = json.loads(Path(args.sources).read_text())
    spec = RunSpec(args.solver, record["sources"], record["digests"], _params(args.param),
                   trials=args.trials, warmup=args.warmup)
    table = measure(graph, spec, log=lambda m: print(m, file=sys.stderr))
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    table.to_csv(tmp, index=False)
    tmp.replace(out)
    prov = provenance({"graph": args.graph, "solver": args.solver, "params": spec.params,
                       "trials": args.trials, "warmup": args.warmup, "sources": args.sources})
    _atomic_write_text(out.with_suffix(".provenance.json"), json.dumps(prov, indent=1) + "\n")
    return 0


def cmd_compare(args) -> int:
    from .report.tables import build_target_table

    build_target_table(args.target, args.runs, args.sources, Path(args.output),
                       figure=Path(args.figure) if args.figure else None)
    return 0


def cmd_report(args) -> int:
    from .report.build import build_report

    build_report(Path(args.results), Path(args.output), reference=Path(args.reference),
                 config_path=Path(args.config) if args.config else None)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def cmd_provenance(args) -> int:
    from .harness import provenance

    print(json.dumps(provenance(), indent=1))
    return 0


# --- parser -----------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m graphrepro",
                                description="Reproduce published GPU graph-algorithm results.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def graph_args(sp, name=True):
        sp.add_argument("graph", help="a .gr, .txt (SNAP) or .mtx file (gzip allowed), or a .npz cache")
        sp.add_argument("--format", choices=["dimacs", "snap", "mtx", "npz"],
                        help="override the format the extension implies")
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
    sp.set_defaults(func=cmd_solvers)

    sp = sub.add_parser("targets", help="list the snakemake targets, one per published table or figure")
    sp.add_argument("--all", action="store_true", help="include the ones still planned")
    sp.set_defaults(func=cmd_targets)

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

    sp = sub.add_parser("convert", help="parse a graph file once into the CSR cache (.npz)")
    graph_args(sp)
    sp.add_argument("--output", required=True)
    sp.set_defaults(func=cmd_convert)

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
    sp.add_argument("--output", required=True, help="tidy CSV, one row per (source, trial)")
    sp.set_defaults(func=cmd_run)

    sp = sub.add_parser("compare", help="one target's table: published values beside ours, with verdicts")
    sp.add_argument("target")
    sp.add_argument("--runs", nargs="+", required=True)
    sp.add_argument("--sources", nargs="+", required=True)
    sp.add_argument("--output", required=True)
    sp.add_argument("--figure", help="also draw the target's figure (PNG)")
    sp.set_defaults(func=cmd_compare)

    sp = sub.add_parser("report", help="write the HTML report from the target tables")
    sp.add_argument("--results", default="results")
    sp.add_argument("--reference", default="reports/reference")
    sp.add_argument("--config", help="the config the results came from (shown in the report)")
    sp.add_argument("--output", default="reports/index.html")
    sp.set_defaults(func=cmd_report)

    sp = sub.add_parser("provenance", help="print this machine's provenance record")
    sp.set_defaults(func=cmd_provenance)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except GraphreproError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: out of host memory (the graph is too large for this machine)", file=sys.stderr)
        return 2
    except Exception as e:  # a CUDA error deserves one clear line too, not a driver traceback
        if type(e).__module__.startswith(("numba.cuda", "numba_cuda")):
            print(f"error: CUDA: {e}", file=sys.stderr)
            return 3
        raise
