"""``frontier_sssp`` on the page: graphs frontier was tuned on apart from those held out, and each
peer at its best setting beside the setting that won (issue 54, issue 53 item 4).

frontier's defaults were chosen on the tuning set alone (``solvers/frontier/defaults.py``); a
lead on those graphs says less than one on graphs it never saw. Each peer runs over its own grid
of launch settings (``solvers/peer/peers.py::LAUNCH_GRID``), and is judged at the fastest of
those that answered on each graph; the settings that hung are counted, not dropped. Read from the
target's own table (one row per run), so a table made before the grid (one setting a peer) reads
the same way, with its one setting.
"""

from __future__ import annotations

import pandas as pd

from ..solvers.frontier.defaults import TUNING_DATASETS

OURS = "frontier"  # the default, as the table names it (a variant names its parameters)
PEERS = ("adds", "gunrock")


def is_tuning(graph: str) -> bool:
    """Whether a graph is one of the tuning set's (any weights: ``ny_w1000`` is NY's topology)."""
    return any(graph == d or graph.startswith(f"{d}_") for d in TUNING_DATASETS)


def _ms(value) -> float | None:
    number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
    return None if pd.isna(number) else float(number)


def _setting(variant: str) -> str:
    """A peer's setting in words: its launch parameters, or "its default" (the published one)."""
    return variant.split("@", 1)[1] if "@" in variant else "its default"


def _peer_at_best(rows: pd.DataFrame, peer: str) -> dict | None:
    mine = rows[rows["solver"].astype(str).str.split("@").str[0] == peer]
    if mine.empty:
        return None
    timed = [(ms, str(r["solver"])) for _, r in mine.iterrows()
             if (ms := _ms(r["median (ms)"])) is not None]
    silent = len(mine) - len(timed)  # hung, or gave no time (their rows say why)
    if not timed:
        return {"peer": peer, "setting": None, "ms": None, "tried": len(mine), "silent": silent}
    ms, variant = min(timed)
    return {"peer": peer, "setting": _setting(variant), "ms": ms, "tried": len(mine),
            "silent": silent}


def peers_at_best(table: pd.DataFrame | None) -> dict | None:
    """Per graph of the table, split into ``tuning`` and ``held_out``: frontier's median, each
    peer at its best setting (with how many settings it tried and how many gave no time), the
    setting that won among all peers, and frontier over it. None where the table has no
    frontier row."""
    if table is None or "solver" not in table or "graph" not in table:
        return None
    out: dict = {"tuning": [], "held_out": []}
    for graph in pd.unique(table["graph"]):
        rows = table[table["graph"] == graph]
        ours = rows[rows["solver"].astype(str) == OURS]
        if ours.empty:
            continue
        ours_ms = _ms(ours["median (ms)"].iloc[0])
        peers = [p for peer in PEERS if (p := _peer_at_best(rows, peer)) is not None]
        timed = [p for p in peers if p["ms"] is not None]
        won = min(timed, key=lambda p: p["ms"]) if timed else None
        out["tuning" if is_tuning(str(graph)) else "held_out"].append({
            "graph": str(graph), "frontier_ms": ours_ms, "peers": peers, "won": won,
            "ratio": ours_ms / won["ms"] if won and ours_ms is not None else None})
    return out if out["tuning"] or out["held_out"] else None


def _ms_text(ms: float) -> str:
    """Three significant digits, never in e-notation (1,180, not 1.18e+03)."""
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.3g}"


def peers_table(entries: list[dict]) -> pd.DataFrame:
    """The page's table of one set of graphs: a column per peer's best setting, then the setting
    that won and frontier's ratio to it."""
    rows = []
    for e in entries:
        row = {"graph": e["graph"],
               "frontier (ms)": _ms_text(e["frontier_ms"]) if e["frontier_ms"] is not None
               else "not timed"}
        for p in e["peers"]:
            if p["ms"] is None:
                text = (f"no time from any of its {p['tried']} settings" if p["tried"] > 1
                        else "no time from its one setting")
            else:
                text = f"{_ms_text(p['ms'])} ms at {p['setting']} (" + (
                    f"best of {p['tried']}" if p["tried"] > 1 else "its only setting run")
                text += f"; {p['silent']} gave no time)" if p["silent"] else ")"
            row[f"{p['peer']} at its best"] = text
        won = e["won"]
        row["setting that won"] = f"{won['peer']}, {won['setting']}" if won else "no peer timed"
        row["frontier / that setting"] = f"{e['ratio']:.3f}" if e["ratio"] is not None else ""
        rows.append(row)
    columns = ["graph", "frontier (ms)", *[f"{p} at its best" for p in PEERS],
               "setting that won", "frontier / that setting"]
    return pd.DataFrame(rows, columns=columns, dtype=object).fillna("not run")


def section_view(table: pd.DataFrame | None, run: str) -> dict | None:
    """What the section shows above its table: the tuning graphs' and the held-out graphs'
    tables (each None where the run has no graph of that set)."""
    from .present import html_table

    split = peers_at_best(table)
    if split is None:
        return None
    suffix = "ref" if run != "this machine" else "here"
    return {name: (html_table(peers_table(split[name]), f"frontier-{name}-{suffix}")
                   if split[name] else None) for name in ("tuning", "held_out")}
