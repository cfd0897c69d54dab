"""Road stand-ins measured against the real graphs at hand (``python -m graphrepro standins``).

For every road dataset of the registry (a ``road_network`` or ``road_like`` stand-in) whose real
file or real topology is at hand (downloaded under ``data``, or in an offline mirror; nothing is
downloaded here), the real graph and its paper-size stand-in are measured alike
(graph/roadstats.py): vertices, arcs, strongly connected components, the degree histogram
(distinct neighbours), BFS depth from 16 seeded sources (drawn as the workflow draws them, per
graph) and, where the real file has its real weights (NY), Harish iterations from the same
sources, computed on the CPU as the rounds of safari2017's Algorithm 3.

The benchmark goal of issue 19, printed per stand-in: median BFS depth within 10% of the real
graph's, one component, and every degree's share within 2 percentage points of the real one.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from ..errors import InputError
from .build import obtain_real, standin_graph, topology_dataset
from .registry import get_dataset, load_registry

# A stand-in's knobs fitted on its real graph (config/datasets.yaml); one with none of them is
# built by the default recipe, which is what the registry's check-only datasets (FLA, NE) measure
# for the road graphs that have no real data to fit on (CalNev, Western, the SNAP ones).
FITTED_KNOBS = ("degrees", "parallel_share", "long_share", "aspect")
DEPTH_TOLERANCE = 0.10
DEGREE_TOLERANCE_PP = 2.0
MAX_DEGREE_COLUMN = 6  # degrees above are summed into the last column


def road_keys(registry=None) -> list[str]:
    return [k for k, d in load_registry(str(registry) if registry else None).items()
            if not d.same_as and not d.is_terrain
            and d.standin.get("generator") in ("road_network", "road_like")]


def real_graph(key: str, *, data_dir, registry=None, mirrors=(), lock_path=None):
    """(graph, what it is) of the real file or topology at hand, or (None, why not)."""
    from ..graph.formats import read_graph
    from .build import lock_for
    from .topology import topology_graph

    ds = get_dataset(key, registry)
    lock_path = lock_path or lock_for(registry)
    path, _, why, via = obtain_real(ds, data_dir, lock_path=lock_path, mirrors=mirrors,
                                    online=False)
    if path is not None:
        graph = read_graph(path, ds.format, name=key, snap_vertices=ds.snap_vertices)
        return graph, f"real file ({via}: {path.name})", True
    if ds.topology:
        topo = topology_dataset(ds)
        tpath, _, twhy, tvia = obtain_real(topo, data_dir, lock_path=lock_path, mirrors=mirrors,
                                           online=False)
        if tpath is not None:
            graph, record = topology_graph(tpath, topo, name=key)
            w = record["weights"]
            return graph, (f"real topology ({tvia}: {tpath.name}), synthetic weights "
                           f"({w['model']}, seed {w['seed']})"), False
        why += f"; topology {twhy}"
    return None, why, False


def _row(key, which, data, stats, harish) -> dict:
    hist = np.zeros(MAX_DEGREE_COLUMN + 1)
    h = stats["degrees"]
    hist[:min(len(h), MAX_DEGREE_COLUMN + 1)] = h[:MAX_DEGREE_COLUMN + 1]
    hist[MAX_DEGREE_COLUMN] += h[MAX_DEGREE_COLUMN + 1:].sum()
    d = stats["depths"]
    row = {"dataset": key, "graph": which, "data": data, "vertices": stats["vertices"],
           "arcs": stats["arcs"], "sccs": stats["sccs"]}
    row.update({f"deg{k}_%": round(100 * hist[k], 2) for k in range(MAX_DEGREE_COLUMN + 1)})
    row.update(depth_median=float(np.median(d)), depth_min=int(min(d)), depth_max=int(max(d)))
    if harish:
        it = stats["harish"]
        row.update(harish_median=float(np.median(it)), harish_min=int(min(it)),
                   harish_max=int(max(it)))
    return row


def recipe(ds) -> str:
    """"fitted" where the stand-in's knobs were fitted on its real graph, else "default"."""
    return "fitted" if any(k in ds.standin for k in FITTED_KNOBS) else "default"


def default_recipe_check(table: pd.DataFrame, registry=None) -> str | None:
    """One sentence on the default recipe, where the table measures it: on which real graphs
    it was checked, whether it met the goal there, and which road stand-ins are built by it
    and not checked on their own real graph; None where no row of the table is a default one."""
    if "recipe" not in table:
        return None
    rows = table[(table["graph"] == "stand-in") & (table["recipe"] == "default")]
    if not len(rows):
        return None
    checked = set(table["dataset"])
    users = [k for k in road_keys(registry)
             if k not in checked and recipe(get_dataset(k, registry)) == "default"]
    results = "; ".join(f"{r['dataset']}: {r['goal']}" for _, r in rows.iterrows())
    uses = (f" It also builds the stand-ins of {', '.join(users)}, whose own real graphs are not "
            "at hand: what is measured on them rests on a recipe that did as above." if users
            else "")
    return f"The default road recipe, checked on {', '.join(rows['dataset'])}: {results}.{uses}"


def goal(real: dict, standin: dict) -> dict:
    """The benchmark goal's three parts for one stand-in, and the verdict with any miss."""
    depth_gap = standin["depth_median"] / real["depth_median"] - 1
    degree_gap = max(abs(standin[f"deg{k}_%"] - real[f"deg{k}_%"])
                     for k in range(MAX_DEGREE_COLUMN + 1))
    misses = []
    if abs(depth_gap) > DEPTH_TOLERANCE:
        misses.append(f"median BFS depth {depth_gap:+.1%} (limit +-10%)")
    if standin["sccs"] != 1:
        misses.append(f"{standin['sccs']:,} components (goal 1)")
    if degree_gap > DEGREE_TOLERANCE_PP:
        misses.append(f"degree share off by {degree_gap:.2f} pp (limit 2)")
    return {"depth_vs_real_%": round(100 * depth_gap, 2), "max_degree_gap_pp": round(degree_gap, 2),
            "goal": "meets" if not misses else "misses: " + "; ".join(misses)}


def compare(*, data_dir, registry=None, mirrors=(), sources: int = 16, seed: int = 0,
            keys=None, log=lambda m: print(m, file=sys.stderr)) -> pd.DataFrame:
    from ..graph.roadstats import summary
    from ..harness.sources import draw_sources

    rows = []
    for key in keys or road_keys(registry):
        real, data, weighted = real_graph(key, data_dir=data_dir, registry=registry,
                                          mirrors=mirrors)
        if real is None:
            log(f"{key}: no real data at hand ({data}); not compared")
            continue
        ds = get_dataset(key, registry)
        standin, info = standin_graph(ds, 1.0)
        log(f"{key}: real {real.num_vertices:,} V / {real.num_arcs:,} A; stand-in "
            f"{standin.num_vertices:,} V / {standin.num_arcs:,} A")
        r = summary(real, draw_sources(real, sources, seed), harish=weighted)
        s = summary(standin, draw_sources(standin, sources, seed), harish=weighted)
        real_row = _row(key, "real", data, r, weighted)
        params = ", ".join(f"{k}={v}" for k, v in info["params"].items() if k != "degrees")
        stand_row = _row(key, "stand-in", f"{info['generator']} seed {info['seed']} ({params})",
                         s, weighted)
        stand_row.update(goal(real_row, stand_row), recipe=recipe(ds))
        rows += [real_row, stand_row]
    if keys and not rows:
        raise InputError(f"no real data at hand for {', '.join(keys)}: set offline_mirrors "
                         f"(--mirror) or fetch them")
    columns = ["dataset", "graph", "data", "vertices", "arcs", "sccs",
               *[f"deg{k}_%" for k in range(MAX_DEGREE_COLUMN + 1)], "depth_median",
               "depth_min", "depth_max", "harish_median", "harish_min", "harish_max",
               "depth_vs_real_%", "max_degree_gap_pp", "goal", "recipe"]
    return pd.DataFrame(rows, columns=columns)
