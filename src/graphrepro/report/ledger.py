"""The claims ledger as the report reads it: one row per published claim, with its verdict.

The ledger itself (``reports/claims.csv``, ``reports/reference/claims.csv``) is written by the
claims rule; this module only reads it, picks the best available run for each target and counts
verdicts. Until that ledger exists, :func:`interim_ledger_from_tables` derives rows of the same
shape from the target tables' own verdict columns (delete it, and its one caller in
:func:`load_ledger`, once every run has a ledger CSV).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..harness.measure import NOT_RUN_NO_GPU

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
    """The run's ledger and where it came from: the ledger CSV if there is one, else the interim
    rows derived from the target tables under ``tables`` (a results directory)."""
    if claims is not None and claims.is_file():
        return read_ledger(claims), str(claims)
    return interim_ledger_from_tables(tables), "interim: the target tables' verdict columns"


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


# --- interim source: delete once the claims ledger CSV is written for every run --------------

# The target tables' verdict words, mapped onto the ledger's five. Rows whose verdict is only a
# measurement, context or a stand-in label carry no claim and are left out.
_INTERIM = [
    (re.compile(r"^not run\b"), "not testable here"),
    (re.compile(r"^not implemented"), "not testable here"),
    (re.compile(r"^within run-to-run variation"), "inconclusive"),
    (re.compile(r"^holds\b"), "reproduced"),
    (re.compile(r"^differs\b"), "not reproduced"),
    (re.compile(r":\s*no\b"), "not reproduced"),
    (re.compile(r":\s*holds\b"), "reproduced"),
]
_LABELS = ("claim", "method", "criterion", "what", "version", "row", "column", "solver", "graph",
           "kind", "Delta", "vertices per thread t")


def _interim_verdict(text: str) -> str | None:
    for pattern, verdict in _INTERIM:
        if pattern.search(text.strip()):
            return verdict
    return None


def _first(row: pd.Series, names) -> str:
    for n in names:
        if n in row.index and str(row[n]).strip():
            return str(row[n])
    return ""


def interim_ledger_from_tables(results: Path) -> pd.DataFrame:
    """INTERIM SOURCE: ledger-shaped rows from ``results/targets/*.csv`` verdict columns."""
    from ..experiments import all_targets

    rows = []
    for t in all_targets():
        path = results / "targets" / f"{t.name}.csv"
        if not t.ready or not path.is_file():
            continue
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
        if "verdict" not in df.columns:
            continue
        for _, r in df.iterrows():
            verdict = _interim_verdict(r["verdict"])
            if verdict is None:
                continue
            labels = [str(r[c]) for c in _LABELS if c in r.index and str(r[c]).strip()][:3]
            published = _first(r, ["published", *[c for c in r.index if "thesis" in c],
                                   *[c for c in r.index if c.startswith("published")]])
            ours = _first(r, ["ours", *[c for c in r.index if "(ours" in c]])
            if NOT_RUN_NO_GPU in r["verdict"] or NOT_RUN_NO_GPU in ours:
                reason = "not run: no CUDA device on this machine"
            else:
                reason = r["verdict"]
            rows.append({"document": t.document, "where": _first(r, ["where"]) or t.item,
                         "claim": " / ".join(labels) or t.item, "kind": "", "published": published,
                         "ours": ours, "ours_low": "", "ours_high": "", "unit": "", "n": "",
                         "data": _first(r, ["data"]), "verdict": verdict, "reason": reason,
                         "target": t.name})
    return pd.DataFrame(rows, columns=list(COLUMNS)) if rows else empty_ledger()
