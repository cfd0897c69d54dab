"""safari2017's N blind launches (Algorithm 6, lines 4-6): whether a graph's N was calibrated as
the paper sets it, and what the blind launches left (section 3.2's "majority of vertices"), for
the evidence of Table 2 and Figures 3 and 4 (``safari2017_evidence``)."""

from __future__ import annotations

import pandas as pd

from ..claims.rule import Exact, Readings, Untestable
from ..claims.runs import data_of, left_out, missing, tables
from ..harness.sources import degenerate_minimum


def calibration_problem(runs: pd.DataFrame, graph: str) -> str | None:
    """Why LBR's N on ``graph`` was calibrated on a degenerate minimum (defect 1), else None:
    a source that reaches a handful of vertices ends Harish in a few rounds, N = that / k, and
    LBR then runs almost all its launches with a read-back."""
    h = runs[(runs["graph"] == graph) & (runs["variant"] == "harish") & (runs["status"] == "ok")]
    if h.empty:
        return None
    iterations = h.groupby("source")["iterations"].min()
    why = degenerate_minimum(iterations.to_dict())
    return f"LBR's N on {graph} was calibrated on a degenerate minimum ({why})" if why else None


# run 3's LBR tables: made before the counting pass counted what the blind launches left
MAJORITY = ("not counted in this run: its LBR tables predate the counting pass's count of the "
            "distances set and final when the N blind launches ended (blind_set_vertices, "
            "blind_final_vertices); a run since counts them")
# "updated the distances": given one at all, or given the final one; the text does not say
MAJORITY_READINGS = {"final": "blind_final_vertices", "set at all": "blind_set_vertices"}


def blind_majority(runs, stats, graphs):
    """Section 3.2's "after the N blind launches we expect to have updated the distances of
    majority of vertices": per counted source of LBR at the calibrated N, the share of the
    vertices the source reaches whose distance was final (or set at all) when the blind launches
    ended. Counts: every source must show a majority under both readings."""
    shares: dict = {label: [] for label in MAJORITY_READINGS}
    used, gone, medians = [], {}, []
    for g in graphs:
        problem = missing(runs, g, "lbr")
        problem = problem.reason if problem else calibration_problem(runs, g)
        if problem:
            gone[g] = problem
            continue
        ok = runs[(runs["graph"] == g) & (runs["variant"] == "lbr") & (runs["status"] == "ok")]
        if "blind_final_vertices" not in ok or ok["blind_final_vertices"].isna().all():
            gone[g] = MAJORITY
            continue
        per = ok.dropna(subset=["blind_final_vertices"]).groupby("source").first()
        for label, column in MAJORITY_READINGS.items():
            shares[label] += (100 * per[column] / per["reached_vertices"]).tolist()
        used.append(g)
        final = 100 * per["blind_final_vertices"] / per["reached_vertices"]
        medians.append(f"{g} {final.median():.3g}% final after N = "
                       f"{int(per['blind_launches'].median())}")
    if not used:
        return Untestable(reason=next(iter(gone.values()), "no LBR run in this config"))
    detail = "; ".join(medians + ([left_out(gone)] if gone else []))
    parts = [Exact(values=v, what="sources", data=data_of(stats, used),
                   reads=tables(used, ["lbr"])) for v in shares.values()]
    return Readings(parts=parts, labels=list(shares), n=f"{len(shares['final'])} sources counted",
                    data=data_of(stats, used), reads=tables(used, ["lbr"]), detail=detail)
