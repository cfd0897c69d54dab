"""safari2017's figures that read only run tables: Table 2's counters one panel each with the
paper's values drawn, and the faint bars of graphs timed on the superseded launch path (kept
apart from experiments/safari2017.py, which holds the targets' tables)."""

from __future__ import annotations

import pandas as pd

from .measured import run_status

PERSISTENT = "lbr_persistent"


def figure_table2(runs: pd.DataFrame, ax, published: pd.DataFrame | None = None) -> None:
    """What Table 2 argues with, one panel per counter: kernel launches and host round trips per
    host iteration (Table 2's own columns, its published values drawn as dashed lines), and
    iterations and atomic operations per solve; medians over sources, per graph and method."""
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        _no_data(ax, run_status(runs, "harish") or "no solver ran")
        return
    ok = ok[ok["variant"].isin(["harish", "lbr", PERSISTENT])]
    if ok.empty or "iterations" not in ok:
        _no_data(ax, "no GPU method of Table 2 ran")
        return
    ok = ok.assign(iterations=ok["iterations"].clip(lower=1))
    # as _measured counts them: the one-off initialisation launch aside, except the persistent
    # variant's one launch a round
    first = (ok["variant"] != PERSISTENT).astype(int)
    if "kernel_launches" in ok:
        ok = ok.assign(launches_per_iteration=(ok["kernel_launches"] - first) / ok["iterations"])
    if "host_round_trips" in ok:
        ok = ok.assign(trips_per_iteration=ok["host_round_trips"] / ok["iterations"])
    panels = [("launches_per_iteration", "kernel launches per host iteration",
               "kernel_launches_per_iteration"),
              ("trips_per_iteration", "host round trips per host iteration",
               "host_round_trips_per_iteration"),
              ("iterations", "iterations per solve", None),
              ("atomics", "atomic operations per solve", None)]
    panels = [p for p in panels if p[0] in ok]
    fig = ax.figure
    ax.remove()
    fig.set_size_inches(10, 6.5)
    axes = fig.subplots(2, 2).ravel()
    graphs = list(pd.unique(ok["graph"]))
    variants = [v for v in ("harish", "lbr", PERSISTENT) if v in set(ok["variant"])]
    names = {"harish": "Harish et al.", "lbr": "LBR", PERSISTENT: "persistent LBR (ours)"}
    pub_rows = {"harish": "Harish et al. [12 13]", "lbr": "Proposed Algorithm"}
    width = 0.8 / max(len(variants), 1)
    for panel, (column, title, criterion) in zip(axes, panels):
        med = ok.groupby(["graph", "variant"])[column].median()
        for i, v in enumerate(variants):
            heights = [med.get((g, v), float("nan")) for g in graphs]
            panel.bar([k + (i - (len(variants) - 1) / 2) * width for k in range(len(graphs))],
                      heights, width, color=f"C{i}", label=names[v])
            pub = _published_value(published, pub_rows.get(v), criterion)
            if pub is not None:
                panel.axhline(pub[0], color=f"C{i}", linestyle="--", linewidth=1.2)
                # one label at each end of the axes, so two values on one line stay apart
                panel.annotate(f"published {names[v]}: {pub[1]}", (0.01 if i == 0 else 0.99,
                                                                   pub[0]),
                               xycoords=("axes fraction", "data"), fontsize=7, color=f"C{i}",
                               xytext=(0, 3), textcoords="offset points",
                               ha="left" if i == 0 else "right")
        panel.set_xticks(range(len(graphs)), graphs, fontsize=7)
        panel.set_title(title, fontsize=9)
        if column in ("iterations", "atomics"):
            panel.set_yscale("log")
    for panel in axes[len(panels):]:
        panel.set_axis_off()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(labels),
               fontsize=8, frameon=False)
    fig.suptitle("safari2017 Table 2, per graph (medians over sources)", fontsize=10)
    fig.tight_layout()


def _published_value(published: pd.DataFrame | None, row: str | None, criterion: str | None):
    """(value, as printed) of a Table 2 cell with a number ("2", ">= 1": the bound's 1)."""
    if published is None or row is None or criterion is None or published.empty:
        return None
    cell = published[(published["item"] == "Table 2") & (published["row"] == row)
                     & (published["column"] == criterion)]
    if cell.empty:
        return None
    import re

    printed = str(cell["value"].iloc[0])
    m = re.search(r"\d+(\.\d+)?", printed)
    return (float(m.group(0)), printed) if m else None


def _no_data(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    ax.figure.set_size_inches(5, 0.6)  # a line of text, not a blank page


def _grey_superseded(ax, runs: pd.DataFrame, order: list) -> None:
    """Graphs timed only on numba's own launches (the superseded path: several times a native
    round) drawn faint and marked under their name, as the report greys their table rows: their
    speedups decide no claim until rerun."""
    from ..claims.runs import OLD_LAUNCH_PATH

    if "launch_path" not in runs:
        return
    gpu = runs[runs["device"] == "gpu"] if "device" in runs else runs
    old = {g for g, paths in gpu.groupby("graph")["launch_path"]
           if set(paths.astype(str)) == {OLD_LAUNCH_PATH}}
    if not old:
        return
    for bar in ax.patches:
        x = bar.get_x() + bar.get_width() / 2
        i = int(round(x))
        if 0 <= i < len(order) and order[i] in old and abs(x - i) < 0.5:
            bar.set_alpha(0.3)
    ax.set_xticks(range(len(order)),
                  [f"{g}\n(old path)" if g in old else g for g in order], fontsize=8)
