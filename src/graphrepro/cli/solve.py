"""One graph, one solver, by hand: `solve`, `solvers` and `mst`."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from .. import atomic
from .common import _params, format_arg, graph_args, load_graph, print_rows


def cmd_solve(args) -> int:
    from .. import verify
    from ..solvers import INF, resolve

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
    if args.output == "-":
        sys.stdout.write(lines + "\n")
    else:
        from ..datasets import origin_path, write_origin
        from ..datasets.origin import input_origin

        atomic.write_text(Path(args.output), lines + "\n")
        # which file (path, sha256, format) these distances are of, beside them
        write_origin(origin_path(args.output), input_origin(args.graph, args.format))
    reached = int(np.count_nonzero(dist != INF))
    print(f"{spec.name}: {graph.num_vertices} vertices, {reached} reached from {args.source}, "
          f"solve {result.solve_ms:.3f} ms" + ("" if args.no_verify else ", verified"),
          file=sys.stderr)
    return 0


def add_solve(sub) -> None:
    sp = sub.add_parser("solve", help="shortest distances from one source, written one line per vertex")
    graph_args(sp, name=False)
    sp.add_argument("--solver", default="dijkstra",
                    help="a name from `graphrepro solvers`, optionally with parameters: lbr@k=4,t=2")
    sp.add_argument("--source", type=int, required=True, help="source vertex, in the file's numbering")
    sp.add_argument("--output", required=True,
                    help="'vertex distance' per line, 'inf' if unreachable; '-' for standard "
                         "output (else OUTPUT.origin.json names the graph file, sha256, format)")
    sp.add_argument("--param", action="append", metavar="KEY=VALUE", help="solver parameter")
    sp.add_argument("--no-verify", action="store_true", help="skip the check against the reference")
    sp.set_defaults(func=cmd_solve)


def cmd_solvers(args) -> int:
    from ..solvers import all_solvers, plugins

    if args.problem == "mst":
        from ..mst import all_mst_solvers

        specs = all_mst_solvers()
    else:
        specs = all_solvers()  # a plugin left out says so on stderr, in one line
    rows = [{"name": s.name, "device": s.device, "document": s.document,
             "from": plugins.origin(s.name) or "built in", "description": s.description,
             "defaults": " ".join(f"{k}={v}" for k, v in s.defaults.items())} for s in specs]
    print_rows(rows, ["name", "device", "document", "from", "defaults", "description"], args.format)
    return 0


def add_solvers(sub) -> None:
    sp = sub.add_parser("solvers", help="list solvers: name, device, document, where from (built "
                                        "in, or a plugin's distribution), parameters, description")
    sp.add_argument("--problem", choices=["sssp", "mst"], default="sssp",
                    help="shortest paths (what `solve` takes) or minimum spanning forests (`mst`)")
    format_arg(sp)
    sp.set_defaults(func=cmd_solvers)


def cmd_mst(args) -> int:
    """A minimum spanning forest: `u v weight` per edge in the file's numbering; stdout ends with
    `weight W edges E` (outside checks rely on that line)."""
    from .. import mst

    from ..solvers import parse_run_id

    name, params = parse_run_id(args.solver)
    params.update(_params(args.param))
    spec = mst.get_mst_solver(name)  # an unknown name fails before the grid is read
    edges = mst.load_edges(args.graph, args.format)
    result = spec.prepare(edges, **params).solve()
    if not args.no_verify:
        mst.check(edges, result, solver=spec.name)
    u, v = edges.label_of(result.u).tolist(), edges.label_of(result.v).tolist()
    lines = "".join(f"{a} {b} {c}\n" for a, b, c in zip(u, v, np.asarray(result.w).tolist()))
    atomic.write_text(Path(args.output), lines)
    print(f"{spec.name}: {edges.num_vertices} vertices, {edges.num_edges} edges, "
          f"{edges.components()} components, solve {result.solve_ms:.3f} ms"
          + ("" if args.no_verify else ", verified"), file=sys.stderr)
    print(f"weight {result.weight} edges {len(u)}")
    return 0


def add_mst(sub) -> None:
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
