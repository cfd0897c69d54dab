"""Per-source distributions where a claim averages sources (issue 35): a claim such as "LBR is
faster than Harish et al." reads one number per graph, a median over 100 sources; the section
shows the 100 behind it as a histogram (inline SVG: the page stays one file, no figure to
regenerate), with the median, the quartiles, the range and how many sources point each way."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd

from ..bounded import read_csv

# target -> (numerator variant, denominator variant, what the ratio is); a ratio of times, so
# above 1 means the denominator's method is faster on that source
RATIOS = {
    "safari2017_fig3": ("harish", "lbr",
                        "LBR's speedup over Harish et al. (Harish's time / LBR's)"),
    "safari2017_table2": ("harish", "lbr",
                          "LBR's speedup over Harish et al. (Harish's time / LBR's)"),
}
MIN_SOURCES = 20  # fewer: the section's table says it all


def _per_source(path: Path) -> pd.Series | None:
    if not path.is_file():
        return None
    df = read_csv(path, usecols=lambda c: c in ("source", "status", "solve_ms"))
    df = df[df["status"] == "ok"] if "status" in df else df
    return df.groupby("source")["solve_ms"].median() if len(df) else None


def ratios(root: Path, target: str) -> list[dict]:
    """One entry per graph with at least MIN_SOURCES sources: the per-source ratios."""
    if target not in RATIOS:
        return []
    top, bottom, what = RATIOS[target]
    out = []
    for folder in sorted((root / "runs").glob("*")):
        a, b = _per_source(folder / f"{top}.csv"), _per_source(folder / f"{bottom}.csv")
        if a is None or b is None:
            continue
        r = (a / b).dropna()
        r = r[np.isfinite(r)]
        if len(r) < MIN_SOURCES:
            continue
        from .tables import launch_path_of

        paths = {launch_path_of(folder / f"{v}.csv") for v in (top, bottom)}
        out.append({"graph": folder.name, "what": what, "values": r.to_numpy(dtype=float),
                    "superseded": paths != {"graphrepro.launch"}})
    return out


def describe(entry: dict) -> str:
    v = entry["values"]
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    above = int((v > 1).sum())
    return (f"{entry['graph']}, {len(v)} sources: median {med:.3g}, quartiles {q1:.3g}-{q3:.3g}, "
            f"range {v.min():.3g}-{v.max():.3g}; above 1 on {above} of {len(v)}"
            + ("; timed on the superseded launch path" if entry.get("superseded") else ""))


def svg(entry: dict, width: int = 520, height: int = 110, bins: int = 24) -> str:
    """A histogram of the per-source values, a line at 1 (no difference) and at the median."""
    v = entry["values"]
    lo, hi = float(min(v.min(), 1.0)), float(max(v.max(), 1.0))
    if hi == lo:
        hi = lo + 1e-9
    counts, edges = np.histogram(v, bins=bins, range=(lo, hi))
    pad, base = 6, height - 18
    scale = (width - 2 * pad) / (hi - lo)
    top = max(int(counts.max()), 1)
    bars = "".join(
        f'<rect x="{pad + (e - lo) * scale:.1f}" y="{base - c / top * (base - 8):.1f}" '
        f'width="{max((edges[1] - edges[0]) * scale - 1, 1):.1f}" height="{c / top * (base - 8):.1f}"'
        f' fill="#0969da" opacity=".75"><title>{int(c)} sources in {e:.3g}-{e2:.3g}</title></rect>'
        for c, e, e2 in zip(counts, edges[:-1], edges[1:]) if c)
    x1 = pad + (1.0 - lo) * scale
    xm = pad + (float(np.median(v)) - lo) * scale
    label = html.escape(f"{entry['graph']}: {entry['what']}")
    return (f'<svg class="dist" role="img" aria-label="{label}" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" style="max-width:100%;height:auto">{bars}'
            f'<line x1="{x1:.1f}" x2="{x1:.1f}" y1="4" y2="{base}" stroke="#cf222e" '
            f'stroke-dasharray="3 2"/><line x1="{xm:.1f}" x2="{xm:.1f}" y1="4" y2="{base}" '
            f'stroke="#1d232a"/><line x1="{pad}" x2="{width - pad}" y1="{base}" y2="{base}" '
            f'stroke="#8c959f"/><text x="{pad}" y="{height - 4}" font-size="10">{lo:.3g}</text>'
            f'<text x="{width - pad}" y="{height - 4}" font-size="10" text-anchor="end">{hi:.3g}'
            f'</text><text x="{x1 + 3:.1f}" y="12" font-size="10" fill="#cf222e">1</text></svg>')


def section_distributions(root: Path, target: str) -> list[dict]:
    return [{"text": describe(e), "what": e["what"], "svg": svg(e)} for e in ratios(root, target)]
