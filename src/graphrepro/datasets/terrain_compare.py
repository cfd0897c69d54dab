"""Per-block timings of gerritsen2012's chapters 3 and 5 on a real terrain beside its stand-in
(``python -m graphrepro terrain-compare``): does the diamond-square stand-in change them?

Inputs are the benchmark tables the chapters' own steps write (``mst-blocks``: one row per block
and trial; ``sssp-experiment table5_1``: one row per block size and implementation), each made
once on the real grid and once on the stand-in of the same size. Out comes one row per measure:
the median per-block time on each, and the stand-in's over the real one's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..bounded import read_csv

MST_PARTS = ("total_ms", "mst_ms", "dead_ends_ms", "contraction_ms")


def _origin(zgrid: str | None) -> str:
    from .origin import describe_origin, read_origin

    if not zgrid:
        return ""
    path = Path(zgrid + ".origin.json")
    return describe_origin(read_origin(path), brief=True) if path.is_file() else ""


def _mst(df: pd.DataFrame) -> dict:
    out = {}
    ok = df[df.get("status", pd.Series(dtype=str)).astype(str) == "ok"] if "status" in df else df
    for variant, part in ok.groupby("variant"):
        side = int(part["block_side"].iloc[0])
        for col in MST_PARTS:
            if col in part:
                out[("chapter 3", f"{variant}, {side}^2 blocks", col)] = float(
                    np.median(pd.to_numeric(part[col], errors="coerce").dropna()))
    for _, row in df[~df.index.isin(ok.index)].iterrows():
        out[("chapter 3", str(row.get("variant")), "status")] = str(row.get("status"))
    return out


def _sssp(df: pd.DataFrame) -> dict:
    out = {}
    for _, row in df.iterrows():
        c = pd.to_numeric(pd.Series([row.get("gpu_block")]), errors="coerce").iloc[0]
        label = f"{row.get('impl')}" + (f" c={int(c)}" if pd.notna(c) else "")
        key = ("chapter 5 (Table 5.1)", f"{label}, {row.get('block')}^2 I/O-blocks")
        value = pd.to_numeric(pd.Series([row.get("step_ms")]), errors="coerce").iloc[0]
        blocks = pd.to_numeric(pd.Series([row.get("blocks")]), errors="coerce").iloc[0]
        if row.get("status") == "ok" and pd.notna(value) and pd.notna(blocks) and blocks > 0:
            out[(*key, "ms per block")] = float(value) / float(blocks)
        else:
            out[(*key, "status")] = str(row.get("status"))
    return out


def compare(real: dict, standin: dict) -> pd.DataFrame:
    """``real`` / ``standin``: {'mst': [csv...], 'sssp': [csv...], 'zgrid': path} of each."""
    measured = {}
    for which, spec in (("real", real), ("stand-in", standin)):
        values = {}
        for path in spec.get("mst", []):
            values.update(_mst(read_csv(path)))
        for path in spec.get("sssp", []):
            values.update(_sssp(read_csv(path, dtype={"status": str})))
        measured[which] = values
    rows = []
    keys = list(dict.fromkeys([*measured["real"], *measured["stand-in"]]))
    for chapter, what, measure in keys:
        r, s = measured["real"].get((chapter, what, measure)), measured["stand-in"].get(
            (chapter, what, measure))
        row = {"chapter": chapter, "measure": what, "quantity": measure, "real": r,
               "stand-in": s, "stand-in / real": ""}
        if isinstance(r, float) and isinstance(s, float) and r > 0:
            row["stand-in / real"] = round(s / r, 3)
        rows.append(row)
    table = pd.DataFrame(rows, columns=["chapter", "measure", "quantity", "real", "stand-in",
                                        "stand-in / real"])
    table.attrs["real"] = _origin(real.get("zgrid"))
    table.attrs["stand-in"] = _origin(standin.get("zgrid"))
    return table
