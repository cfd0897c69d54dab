"""The claims ledger as the report reads it: one row per published claim, with its verdict.

The ledger itself (``reports/claims.csv``, ``reports/reference/claims.csv``) is written by the
claims rule; this module only reads it, picks the best available run for each target and counts
verdicts. Where a run has no ledger CSV (a results folder whose claims rule has not run), its
ledger is gathered from the per-target rows the compare steps wrote (``targets/*.claims.csv``),
which is exactly what the claims rule writes.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import InputError

# The ledger's verdicts, in the order the report shows them (best news first, untestable last).
VERDICTS = ("reproduced", "direction only", "not reproduced", "inconclusive", "not testable here")
COLUMNS = ("document", "where", "claim", "kind", "published", "ours", "ours_low", "ours_high",
           "unit", "n", "data", "verdict", "reason", "target")
THIS_MACHINE, REFERENCE = "this machine", "reference run"


def empty_ledger() -> pd.DataFrame:
    return pd.DataFrame(columns=list(COLUMNS))


def read_ledger(path: Path) -> pd.DataFrame:
    """A ledger CSV, checked: the columns the report needs and only the five verdicts."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise InputError(f"{path}: claims ledger lacks column(s) {', '.join(missing)}")
    bad = df.index[~df["verdict"].isin(VERDICTS)]
    if len(bad):
        i = bad[0]
        raise InputError(f"{path}, line {i + 2}: verdict {df.at[i, 'verdict']!r} is not one of "
                         f"{', '.join(VERDICTS)}")
    return df


def load_ledger(claims: Path | None, tables: Path) -> tuple[pd.DataFrame, str]:
    """The run's ledger and where it came from: the ledger CSV if there is one, else the rows
    gathered from ``tables/targets/*.claims.csv`` (a results directory)."""
    from ..claims import collect

    if claims is not None and claims.is_file():
        return read_ledger(claims), str(claims)
    return collect(tables), f"{tables}/targets/*.claims.csv"


def best_ledger(local: pd.DataFrame, reference: pd.DataFrame | None,
                use_reference: set[str]) -> pd.DataFrame:
    """Each target's rows from its best run: this machine's, except for the targets in
    ``use_reference`` (GPU targets this machine could not run) and those only the reference run
    measured. A ``run`` column says which."""
    local = local.assign(run=THIS_MACHINE)
    if reference is None or reference.empty:
        return local.reset_index(drop=True)
    reference = reference.assign(run=REFERENCE)
    ours = set(local["target"])
    take_ref = reference["target"].isin(use_reference | (set(reference["target"]) - ours))
    # a target shown from the reference run counts only its rows there (none, if it has none)
    keep_local = ~local["target"].isin(use_reference | set(reference.loc[take_ref, "target"]))
    return pd.concat([local[keep_local], reference[take_ref]], ignore_index=True)


def verdict_counts(ledger: pd.DataFrame, documents: list[str]) -> list[dict]:
    """Per document (in the given order) the number of claims with each verdict, and a total."""
    rows = []
    for doc in documents:
        mine = ledger[ledger["document"] == doc]
        rows.append({"document": doc, **{v: int((mine["verdict"] == v).sum()) for v in VERDICTS},
                     "total": len(mine)})
    rows.append({"document": "all", **{v: sum(r[v] for r in rows) for v in VERDICTS},
                 "total": sum(r["total"] for r in rows)})
    return rows
