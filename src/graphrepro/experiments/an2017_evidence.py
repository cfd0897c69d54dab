"""an2017's evidence: run tables and the transfer benchmark -> the numbers behind each claim.

The document gives shapes, few numbers. Times are the mean over sources of each source's median
over trials; the transfer benchmark solves one source per matrix, so its intervals are the
measured spread of its trials.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..claims.rule import Across, Bootstrap, Exact, Fit, Spread, Sweep, Untestable
from ..claims.runs import (aligned, across, data_of, interleaved, missing, per_source, ratio,
                          tables, trial_table, unit_name, units_of)
from ..errors import InputError

TRANSFERS = "an2017_transfers"


def _graphs(runs, stats):
    names = list(pd.unique(runs["graph"])) if len(runs) else list(stats)
    return sorted(names, key=lambda g: ((stats.get(g) or {}).get("vertices", 0), g))


def dense_variants(runs) -> dict:
    """{(edges per thread, order): run id} of the dense solver's runs (a run id names only the
    parameters it sets; the registry fills in the rest)."""
    from ..solvers import resolve

    out = {}
    for variant in pd.unique(runs["variant"]) if len(runs) else ():
        try:
            spec, params = resolve(variant)
        except InputError:  # a name no solver has is no dense run
            continue
        if spec.name == "an_bf_dense":
            out[(int(params["edges_per_thread"]), params["order"])] = variant
    return out


def _no_run(runs, graphs, variant) -> Untestable:
    return (missing(runs, graphs[0] if graphs else None, variant)
            or Untestable(reason=f"{variant} did not run"))


def _columns(runs, graph, variants):
    return aligned([per_source(runs, graph, v) for v in variants])


def evidence_fig1(claims, runs, stats) -> dict:
    graphs = _graphs(runs, stats)
    variants = {k: v for (k, order), v in sorted(dense_variants(runs).items())
                if order == "coalesced"}
    ran = {g: a for g in graphs if (a := _columns(runs, g, list(variants.values()))) is not None}
    first = next(iter(variants.values()), "an_bf_dense")
    if not ran or len(variants) < 2:
        why = _no_run(runs, graphs, first)
        return {"a.fig1.best": why, "a.fig1.vertices": why}
    n = f"{len(ran)} graphs x " + " / ".join(sorted({units_of(runs, g, first) for g in ran}))
    read = tables(ran, variants.values())
    out = {"a.fig1.best": Sweep(params=list(variants), groups=list(ran.values()), n=n, reads=read,
                                data=data_of(stats, ran), units=unit_name(runs, graphs[0], first))}
    if len(ran) < 3:
        out["a.fig1.vertices"] = Untestable(reason="fewer than three graph sizes in this config")
        return out
    xs = [stats[g]["vertices"] for g in ran]
    fits = {f"{k} edges/thread": Fit(xs=xs, ys=[a[:, i] for a in ran.values()], n=n,
                                     data=data_of(stats, ran))
            for i, k in enumerate(variants)}
    out["a.fig1.vertices"] = Across(parts=list(fits.values()), labels=list(fits), n=n,
                                    what="settings", data=data_of(stats, ran), reads=read)
    return out


def evidence_coalescing(claims, runs, stats) -> dict:
    graphs = _graphs(runs, stats)
    variants = dense_variants(runs)
    parts = {}
    for g in graphs:
        for (k, order), v in variants.items():
            if order != "coalesced" and (k, "coalesced") in variants:
                parts[f"{g} {k} e/t {order}"] = ratio(runs, stats, g, v, variants[(k, "coalesced")])
    if not parts:
        return {"a.coal": _no_run(runs, graphs, "an_bf_dense")}
    return {"a.coal": across(parts, stats, what="settings")}


def evidence_fig2(claims, runs, stats) -> dict:
    graphs = _graphs(runs, stats)
    basic = dense_variants(runs).get((1, "coalesced"), "an_bf_dense")
    edge = {}
    for g in graphs:
        gone = missing(runs, g, basic, "an_bf_incoming", "an_bf_outgoing")
        a = None if gone else _columns(runs, g, ["an_bf_incoming", "an_bf_outgoing", basic])
        edge[g] = gone or (Untestable(reason="no shared sources") if a is None else Bootstrap(
            groups=[a], statistic=_vertex_over_edge, units=unit_name(runs, g, basic),
            n=units_of(runs, g, basic), data=data_of(stats, [g]),
            reads=tables(g, ["an_bf_incoming", "an_bf_outgoing", basic])))
    return {"a.fig2.edge": across(edge, stats),
            "a.fig2.pull": across({g: ratio(runs, stats, g, "an_bf_outgoing", "an_bf_incoming")
                                   for g in graphs}, stats),
            "a.fig2.atomics": _atomics_share(runs, stats, graphs),
            "a.s43.edgelist": across({g: _edgelist(runs, stats, g) for g in graphs}, stats,
                                     quote_parts=True)}


EDGELIST = ("an_bf_incoming", "an_bf_outgoing", "an_bf_edgelist")


def _edgelist(runs, stats, graph):
    """Section 4.3's edge-list variant against the vertex versions, as Fig. 2 sets the basic
    version against them: the faster vertex version's time over the edge list's, paired by
    (source, trial) where the three were timed interleaved, else by source. The ledger marks the
    jobs each side was timed in, and the rule refuses sides timed apart."""
    gone = missing(runs, graph, *EDGELIST)
    if gone:
        return gone
    rows, units = None, unit_name(runs, graph, "an_bf_edgelist")
    if interleaved(runs, graph, EDGELIST):
        rows, units = trial_table(runs, graph, EDGELIST), "(source, trial) triples"
    a = rows if rows is not None else _columns(runs, graph, list(EDGELIST))
    if a is None:
        return Untestable(reason=f"{graph}: no source all three ran")
    return Bootstrap(groups=[a], statistic=_vertex_over_edge, units=units,
                     n=units_of(runs, graph, "an_bf_edgelist"), data=data_of(stats, [graph]),
                     reads=tables(graph, EDGELIST),
                     detail=f"{graph}: incoming {a[:, 0].mean():.4g} ms, outgoing "
                            f"{a[:, 1].mean():.4g} ms, edge list {a[:, 2].mean():.4g} ms"
                            + (", timed interleaved" if rows is not None else ""))


NO_ATOMICS = "an_bf_outgoing@atomics=0"


def _atomics_share(runs, stats, graphs):
    """How much of outgoing's gap to incoming its atomics make: (outgoing - outgoing without
    atomics) / (outgoing - incoming), paired by source, on each graph the control ran."""
    have = [g for g in graphs if not missing(runs, g, NO_ATOMICS)]
    if not have:
        return Untestable(reason=f"run pending: the control {NO_ATOMICS} is in config/h100.yaml's "
                                 f"an2017_fig2, not yet run")
    unlike = _control_differs(runs, have)
    if unlike:
        return Untestable(reason=f"the control {NO_ATOMICS} does not isolate the atomics: "
                                 f"without them the version does other work, so it is slower "
                                 f"or faster for another reason ({unlike})")
    parts = {}
    for g in graphs:
        cols = [per_source(runs, g, v) for v in ("an_bf_outgoing", NO_ATOMICS, "an_bf_incoming")]
        a = aligned(cols)
        parts[g] = (missing(runs, g, "an_bf_outgoing", NO_ATOMICS, "an_bf_incoming")
                    or (Untestable(reason=f"{g}: no source all three ran") if a is None else
                        Bootstrap(groups=[a], statistic=_gap_share, n=units_of(runs, g, NO_ATOMICS),
                                  units=unit_name(runs, g, NO_ATOMICS), data=data_of(stats, [g]),
                                  reads=tables(g, ["an_bf_outgoing", NO_ATOMICS,
                                                   "an_bf_incoming"]),
                                  detail=f"{g}: outgoing {a[:, 0].mean():.4g} ms, without atomics "
                                         f"{a[:, 1].mean():.4g} ms, incoming {a[:, 2].mean():.4g} ms")))
    return across(parts, stats)


def _control_differs(runs, graphs) -> str:
    """Where the no-atomics control did not do the atomic version's rounds and relaxations (it
    races, so a lost update is found again in later rounds): "g: I x the iterations, A x the
    arcs relaxed" per such graph, "" where every graph's counts are the same."""
    out = []
    for g in graphs:
        counts = {}
        for v in ("an_bf_outgoing", NO_ATOMICS):
            mine = runs[(runs["graph"] == g) & (runs["variant"] == v) & (runs["status"] == "ok")]
            counts[v] = [float(mine[c].mean()) if c in mine else np.nan
                         for c in ("iterations", "arcs_relaxed")]
        (i0, a0), (i1, a1) = counts["an_bf_outgoing"], counts[NO_ATOMICS]
        if np.isfinite([i0, a0, i1, a1]).all() and (i0, a0) != (i1, a1):
            out.append(f"{g}: {i1 / i0:.2g}x the iterations ({i1:.3g} against {i0:.3g}) and "
                       f"{a1 / a0:.2g}x the arcs relaxed")
    return "; ".join(out)


def _gap_share(groups) -> float:
    g = groups[0].mean(axis=0)
    return (g[0] - g[1]) / (g[0] - g[2])


def _vertex_over_edge(groups) -> float:
    g = groups[0]
    return min(g[:, 0].mean(), g[:, 1].mean()) / g[:, 2].mean()


PIECES = ("not measured: the transfer benchmark splits the matrix into two pieces (two streams) "
          "only, so overlap against the number of pieces was never timed")


def evidence_transfers(claims, runs, stats, benchmarks=None) -> dict:
    graphs = _graphs(runs, stats)
    out = {"a.t41.share": _share(runs, stats, graphs), "a.t41.pieces": Untestable(reason=PIECES)}
    b = (benchmarks or {}).get(TRANSFERS)
    ok = b[b["status"] == "ok"] if b is not None and len(b) else pd.DataFrame()
    if ok.empty:
        why = Untestable(reason=str(b["status"].iloc[0]) if b is not None and len(b)
                         else "no transfer benchmark in this config")
        for cid in ("a.t41.pinned", "a.t41.grows", "a.t41.streams", "a.t41.second_half"):
            out[cid] = why
        return out
    sizes = [(g, mine) for g, mine in ok.groupby("graph", sort=False)]
    sizes.sort(key=lambda x: x[1]["matrix_bytes"].iloc[0])
    data = data_of(stats, [g for g, _ in sizes])

    def spread(fn, what):
        parts = {g: Spread(values=list(fn(m)), what="trials", n=f"1 source x {len(m)} trials",
                           data=data_of(stats, [g])) for g, m in sizes}
        return Across(parts=list(parts.values()), labels=list(parts), what=what, reads=(TRANSFERS,),
                      n=f"{len(parts)} sizes x 1 source x {len(sizes[0][1])} trials", data=data)

    out["a.t41.pinned"] = spread(lambda m: m["pageable_ms"] / m["pinned_ms"], "matrix sizes")
    out["a.t41.streams"] = spread(lambda m: (m["pinned_ms"] + m["solve_ms"]) / m["two_stream_ms"],
                                  "matrix sizes")
    out["a.t41.grows"] = (Fit(xs=[m["matrix_bytes"].iloc[0] for _, m in sizes],
                              ys=[(m["pageable_ms"] / m["pinned_ms"]).to_numpy() for _, m in sizes],
                              units="trials", data=data, reads=(TRANSFERS,),
                              n=f"{len(sizes)} sizes x 1 source x {len(sizes[0][1])} trials")
                          if len(sizes) > 2 else
                          Untestable(reason="fewer than three matrix sizes in this config"))
    out["a.t41.second_half"] = _second_half(ok, sizes, stats, data)
    return out


def _second_half(ok, sizes, stats, data):
    """The work to process the second part: arcs the basic version relaxes from scratch over
    those the two-stream version relaxes once both halves are up. The claim is about work, so
    iterations do not stand in for it (an iteration of the second phase relaxes only the arcs
    of active vertices); a table without the arc counts says so, with the iterations it has."""
    if "second_phase_arcs_relaxed" not in ok or ok["second_phase_arcs_relaxed"].isna().all():
        counted = ""
        if "second_phase_iterations" in ok:
            counted = "; iterations from scratch / in the second phase: " + ", ".join(
                f"{g} {m['iterations'].median():.0f}/{m['second_phase_iterations'].median():.0f}"
                for g, m in sizes)
        return Untestable(reason="the claim is about work (arcs relaxed), which this transfer "
                                 "benchmark did not count: rerun it (it now counts "
                                 "second_phase_arcs_relaxed)" + counted)
    parts = {g: Exact(values=list(m["arcs_relaxed"] / m["second_phase_arcs_relaxed"].clip(lower=1)),
                      what="trials", data=data_of(stats, [g]))
             for g, m in sizes}
    return Across(parts=list(parts.values()), labels=list(parts), what="matrix sizes", data=data,
                  reads=(TRANSFERS,), n=f"{len(parts)} sizes x 1 source, arcs counted once")


def _share(runs, stats, graphs):
    """The largest share over the graphs of the pageable upload in upload + solve (basic)."""
    basic = dense_variants(runs).get((1, "coalesced"), "an_bf_dense")
    groups = {}
    for g in graphs:
        up, solve = per_source(runs, g, basic, "upload_ms"), per_source(runs, g, basic)
        both = up.index.intersection(solve.index)
        if len(both):
            groups[g] = np.column_stack([up[both], solve[both]])
    if not groups:
        return _no_run(runs, graphs, basic)

    def largest(gs):
        return 100 * max(g[:, 0].mean() / (g[:, 0].mean() + g[:, 1].mean()) for g in gs)

    best = max(groups, key=lambda g: largest([groups[g]]))
    return Bootstrap(groups=list(groups.values()), statistic=largest, reads=tables(groups, [basic]),
                     units=unit_name(runs, graphs[0], basic), data=data_of(stats, groups),
                     n=f"{len(groups)} graphs x " + units_of(runs, best, basic),
                     detail=f"largest on {best}")
