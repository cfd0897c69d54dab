"""singla's evidence: run tables -> the numbers behind each claim in published/claims.

The document's two setups (GeForce GTS 450, Tesla C2075) become our one GPU and CPU, so what is
judged is the speedup (serial CPU time / GPU time, each the mean over sources), its maximum,
its growth with the number of edges, and its sign; absolute times are shown, not judged.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..claims.rule import Bootstrap, Exact, Fit, Untestable
from ..claims.runs import across, data_of, missing, per_source, ratio, tables, units_of

ALGORITHMS = {"singla_fig7_9": ("dijkstra", "singla_dijkstra"),
              "singla_fig8_10": ("bfs", "singla_bfs")}


def _graphs(runs, stats):
    return list(pd.unique(runs["graph"])) if len(runs) else list(stats)


def _pairs(runs, graph, cpu, gpu):
    """Per source, (serial time, GPU time), on the sources both ran."""
    a, b = per_source(runs, graph, cpu), per_source(runs, graph, gpu)
    both = a.index.intersection(b.index)
    return np.column_stack([a[both], b[both]]) if len(both) else None


def evidence(target: str):
    cpu, gpu = ALGORITHMS[target]

    def judge_sweep(claims, runs, stats) -> dict:
        graphs = _graphs(runs, stats)
        ran = {g: p for g in graphs if not missing(runs, g, cpu, gpu)
               and (p := _pairs(runs, g, cpu, gpu)) is not None}
        first_gone = next((m for g in graphs if (m := missing(runs, g, cpu, gpu))), None) \
            or Untestable(reason="no graph in this config")
        out = {}
        for _, claim in claims.iterrows():
            cid, subject = claim["claim_id"], claim["subject"]
            if claim["untestable"]:
                out[cid] = Untestable(reason="hardware")
            elif cid == "s.edge_vs_vertex":
                out[cid] = Untestable(reason=EDGE_VS_VERTEX)
            elif cid == "s.parallelism":
                out[cid] = _threads_per_round(stats, graphs)
            elif cid.endswith(".faster"):
                out[cid] = across({g: ratio(runs, stats, g, cpu, gpu) for g in graphs}, stats)
            elif subject:  # a quoted point: every graph standing for it
                mine = [g for g in graphs if (stats.get(g) or {}).get("stands_for") == subject]
                out[cid] = (across({g: ratio(runs, stats, g, cpu, gpu) for g in mine}, stats)
                            if mine else Untestable(reason=f"not in this config: no graph "
                                                           f"stands for {subject}"))
            elif not ran:
                out[cid] = first_gone
            elif cid.endswith(".max"):
                out[cid] = Bootstrap(groups=list(ran.values()), statistic=_max_speedup,
                                     n=f"{len(ran)} graphs x " + _n(runs, ran, gpu),
                                     data=data_of(stats, ran), reads=tables(ran, [cpu, gpu]),
                                     detail="largest on " + max(ran, key=lambda g: _speedup(ran[g])))
            elif cid.endswith(".trend"):
                edges = [stats[g]["arcs"] for g in ran]
                out[cid] = (Fit(xs=edges, ys=[p[:, 0] / p[:, 1] for p in ran.values()],
                                n=f"{len(ran)} graphs x " + _n(runs, ran, gpu),
                                data=data_of(stats, ran), reads=tables(ran, [cpu, gpu]),
                                detail=f"edges {min(edges):,} to {max(edges):,}")
                            if len(set(edges)) > 2 else
                            Untestable(reason="fewer than three edge counts in this sweep"))
        return out

    return judge_sweep


# singla's claim is about parallelism per round, not speed; timing its Dijkstra against Harish's
# would set two algorithms against each other, not two thread mappings of one
EDGE_VS_VERTEX = (
    "singla claims more parallelism per round (a thread per edge rather than per node), not a "
    "faster run; timing its V-round Dijkstra against Harish et al.'s rounds would compare two "
    "algorithms, not two thread mappings of one, and the threads or relaxations in flight per "
    "round that the claim is about are not counted by these runs")


def _n(runs, ran, gpu) -> str:
    return " / ".join(sorted({units_of(runs, g, gpu) for g in ran}))


def _speedup(pairs) -> float:
    return pairs[:, 0].mean() / pairs[:, 1].mean()


def _max_speedup(groups) -> float:
    return max(_speedup(g) for g in groups)


def _threads_per_round(stats, graphs):
    """singla's own claim: a thread per edge launches arcs threads a round where a thread per
    node launches vertices; counted from each graph's arcs and vertices."""
    have = [g for g in graphs if (stats.get(g) or {}).get("arcs") and stats[g].get("vertices")]
    if not have:
        return Untestable(reason="no graph with its arcs and vertices counted in this config")
    ratios = {g: stats[g]["arcs"] / stats[g]["vertices"] for g in have}
    low, high = min(ratios, key=ratios.get), max(ratios, key=ratios.get)
    return Exact(values=list(ratios.values()), what="graphs", n=f"{len(have)} graphs",
                 data=data_of(stats, have),
                 detail=f"arcs per vertex from {ratios[low]:.3g} ({low}) to {ratios[high]:.3g} "
                        f"({high})")
