"""One style for every target figure, applied around each target's own drawing function.

Before: seaborn's colour-blind-safe palette and a white grid. After: legends moved outside the
data, markers on every line, a log axis kept only where the data span demands it (and the reason
written into the caption), and a figure with nothing drawn marked so the report leaves it out.
The caption travels inside the PNG (a text chunk), so the report and ``snakemake --report`` read
the same words.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

NO_FIGURE = "graphrepro: no figure"  # the PNG text the report looks for (report/build.py)
LOG_SPAN = 30.0  # a log axis only when the data span more than this factor
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def apply_theme() -> None:
    import seaborn as sns

    sns.set_theme(style="whitegrid", palette="colorblind", context="notebook", font_scale=0.85,
                  rc={"figure.dpi": 110, "legend.frameon": False})


def _has_data(ax) -> bool:
    return bool(ax.lines or ax.collections or ax.patches or ax.images or ax.containers)


def _span(values) -> float | None:
    v = np.asarray([x for x in values if np.isfinite(x) and x > 0], dtype=float)
    return float(v.max() / v.min()) if len(v) > 1 else None


def _data_values(ax, axis: str) -> list[float]:
    out: list[float] = []
    for line in ax.lines:
        data = line.get_ydata() if axis == "y" else line.get_xdata()
        out += [float(x) for x in np.asarray(data, dtype=float).ravel()]
    for patch in ax.patches:  # bars: their heights (or widths)
        try:
            out.append(float(patch.get_height() if axis == "y" else patch.get_width()))
        except AttributeError:
            pass
    for coll in ax.collections:
        offsets = np.asarray(coll.get_offsets(), dtype=float)
        if offsets.ndim == 2 and offsets.shape[1] == 2:
            out += offsets[:, 1 if axis == "y" else 0].tolist()
    return out


def _axis_scale(ax, axis: str, notes: list[str]) -> None:
    scale = ax.get_yscale() if axis == "y" else ax.get_xscale()
    if scale != "log":
        return
    values = _data_values(ax, axis)
    span = _span(values)
    label = (ax.get_ylabel() if axis == "y" else ax.get_xlabel()) or axis
    if span is not None and span < LOG_SPAN:
        (ax.set_yscale if axis == "y" else ax.set_xscale)("linear")
    elif span is not None:
        notes.append(f"log {axis} axis ({label}): the values span a factor of "
                     f"{span:,.0f} ({math.log10(span):.1f} decades)")


def _from_zero(ax) -> None:
    """A linear y axis of non-negative values starts at 0, so a 1.5% difference looks like one."""
    if ax.get_yscale() != "linear":
        return
    values = [v for v in _data_values(ax, "y") if np.isfinite(v)]
    if values and min(values) >= 0 and ax.get_ylim()[0] > 0:
        ax.set_ylim(bottom=0)


def _markers(ax) -> None:
    cycle = itertools.cycle(MARKERS)
    for line in ax.lines:
        # a labelled series (error bars, caps and seaborn's own lines are "_..." labelled)
        if (line.get_marker() in (None, "None", "", " ") and 2 < len(line.get_xdata()) <= 60
                and not line.get_label().startswith("_")):
            line.set_marker(next(cycle))
            line.set_markersize(4)


def _legend_outside(ax, below: bool) -> None:
    """Right of the axes; below them where panels stand side by side (the right is the next
    panel's)."""
    leg = ax.get_legend()
    if leg is None:
        return
    handles, labels = leg.legend_handles, [t.get_text() for t in leg.get_texts()]
    title = leg.get_title().get_text()
    where = (dict(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=min(3, len(labels)))
             if below else dict(loc="upper left", bbox_to_anchor=(1.01, 1.0)))
    ax.legend(handles=handles, labels=labels, title=title or None, fontsize=7, title_fontsize=7,
              borderaxespad=0, **where)


def finish(fig) -> tuple[bool, list[str]]:
    """Restyle a drawn figure; return whether it shows any data, and caption notes."""
    notes: list[str] = []
    drawn = False
    panels = [ax for ax in fig.axes if ax.axison]
    side_by_side = len({round(ax.get_position().y0, 2) for ax in panels}) < len(panels)
    legends = [ax.get_legend() for ax in panels if ax.get_legend() is not None]
    if len(panels) > 1 and len(legends) > 1 and len(
            {tuple(t.get_text() for t in leg.get_texts()) for leg in legends}) == 1:
        # the same legend in every panel: once, right of the figure
        fig.legend(handles=legends[0].legend_handles,
                   labels=[t.get_text() for t in legends[0].get_texts()],
                   title=legends[0].get_title().get_text() or None, loc="center left",
                   bbox_to_anchor=(1.0, 0.5), fontsize=7, frameon=False)
        for leg in legends:
            leg.remove()
    for ax in fig.axes:
        if not ax.axison or not _has_data(ax):
            continue
        drawn = True
        _markers(ax)
        _axis_scale(ax, "y", notes)
        _axis_scale(ax, "x", notes)
        _from_zero(ax)
        _legend_outside(ax, below=side_by_side)
    return drawn, notes


def caption(target, notes: list[str]) -> str:
    """What the figure shows: the target's own description, and why any axis is logarithmic."""
    doc = (target.figure.__doc__ or "") if target.figure else ""
    what = " ".join(doc.strip().split("\n\n")[0].split())  # its docstring's first paragraph
    text = f"{target.document} {target.item}: {(what or target.description).rstrip('.')}."
    return text + (" " + "; ".join(notes) + "." if notes else "")
