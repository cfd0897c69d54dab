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

from ..bounded import read_csv
from ..errors import InputError

# The ledger's verdicts, in the order the report shows them (best news first, untestable last).
VERDICTS = ("reproduced", "direction only", "not reproduced", "inconclusive", "not testable here")
COLUMNS = ("document", "where", "claim", "kind", "published", "ours", "ours_low", "ours_high",
           "unit", "n", "data", "verdict", "reason", "target")
THIS_MACHINE, REFERENCE = "this machine", "reference run"
# The reference ledger is 112 KB: a file 100 times that is no ledger (`--changed-from` a
# 1 GB file answers at once)
LEDGER_MAX_BYTES = 16 << 20


def empty_ledger() -> pd.DataFrame:
    return pd.DataFrame(columns=list(COLUMNS))


def read_ledger(path: Path) -> pd.DataFrame:
    """A ledger CSV, checked: the columns the report needs and only the five verdicts."""
    df = read_csv(path, max_bytes=LEDGER_MAX_BYTES, dtype=str, keep_default_na=False)
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


# The merged ledger's column naming the run a row was taken from (the ledger's own ``run`` column
# keeps the days and commits of the runs behind it).
FROM_RUN = "from_run"


def data_rank(data: str) -> int:
    """How much a row's data says about the document's graphs: 2 real data only, 1 some real
    data or real topology with synthetic weights, 0 stand-ins or synthetic graphs only (or
    nothing measured)."""
    parts = [p.split(":", 1)[1].strip().lower() if ":" in p else p.strip().lower()
             for p in str(data or "").split(";") if p.strip()]
    real = [p.startswith("real:") or p == "real" or p.startswith("real ") and
            not p.startswith("real topology") for p in parts]
    if parts and all(real):
        return 2
    return 1 if any(p.startswith("real") for p in parts) else 0


def _key(row) -> str:
    return str(row.get("claim_id") or "") or f"{row.get('target')}\x1f{row.get('claim')}"


def precedence(row, *, gpu_claim: bool, gpu_here: bool, reference: bool) -> tuple:
    """Which of two rows for one claim the merged ledger keeps: the larger key. Written once:
    a verdict over "not testable here"; then real data over real topology over a stand-in; then,
    for a claim that times a GPU on a machine without one, the reference GPU run; then this
    machine's (the newer run). So a small local stand-in never overrides a reference verdict on
    the document's real graph (t1.ny), and an untested reference row never hides a local one.
    Where neither tested it, a run that built its target (and says why it could not) beats one
    that did not build it."""
    testable = row.get("verdict") != "not testable here"
    # claims.collect's row for a claim whose target a run did not build says nothing of it
    built = not str(row.get("reason", "")).startswith("its target ")
    gpu_ref = reference and gpu_claim and not gpu_here
    return (testable, built, data_rank(row.get("data", "")), gpu_ref, not reference)


def merge_ledgers(local: pd.DataFrame, reference: pd.DataFrame | None, *,
                  gpu_targets: set[str] = frozenset(), gpu_here: bool = False) -> pd.DataFrame:
    """The one ledger: for every claim the row of the run that :func:`precedence` prefers, in
    the order the claims first appear (this machine's, then claims only the reference has), each
    row naming the run it came from (``from_run``)."""
    local = local.assign(**{FROM_RUN: THIS_MACHINE})
    if reference is None or reference.empty:
        return local.reset_index(drop=True)
    reference = reference.assign(**{FROM_RUN: REFERENCE})
    chosen: dict[str, tuple] = {}
    order: list[str] = []
    for is_ref, frame in ((False, local), (True, reference)):
        for row in frame.to_dict("records"):
            k = _key(row)
            rank = precedence(row, gpu_claim=row.get("target") in gpu_targets, gpu_here=gpu_here,
                              reference=is_ref)
            if k not in chosen:
                order.append(k)
                chosen[k] = (rank, row)
            elif rank > chosen[k][0]:
                chosen[k] = (rank, row)
    columns = list(dict.fromkeys([*local.columns, *reference.columns]))
    return pd.DataFrame([chosen[k][1] for k in order], columns=columns).fillna("")


def gpu_target_names() -> set[str]:
    """The targets that time a GPU solver (their claims need a CUDA device)."""
    from ..experiments import all_targets
    from ..solvers import load_all, resolve

    load_all()
    return {t.name for t in all_targets() if t.ready
            and any(resolve(r)[0].device == "gpu" for r in t.solvers)}


def the_ledger(results: Path, reference: Path | None, *, claims: Path | None = None,
               reference_claims: Path | None = None, gpu_here: bool | None = None
               ) -> tuple[pd.DataFrame, str]:
    """The one merged ledger and what it was made from. ``claims``: a ledger CSV; one that
    already names each row's run (``from_run``: the workflow's merged ``reports/claims.csv``)
    is the ledger as it is; otherwise this machine's rows (that CSV, or ``results``' target
    claims files) are merged with the reference run's (``reference_claims``, or
    ``reference/claims.csv``)."""
    if claims is not None and claims.is_file():
        head = read_csv(claims, dtype=str, keep_default_na=False, nrows=0)
        if FROM_RUN in head.columns:
            return read_ledger(claims), str(claims)
    local, source = load_ledger(claims, results)
    ref_path = reference_claims or (reference / "claims.csv" if reference is not None else None)
    if ref_path is None or not ref_path.is_file():
        return merge_ledgers(local, None), source
    if gpu_here is None:
        from .. import gpu

        gpu_here = gpu.cuda_available()
    merged = merge_ledgers(local, read_ledger(ref_path), gpu_targets=gpu_target_names(),
                           gpu_here=gpu_here)
    return merged, f"{source} merged with {ref_path}"


def verdict_counts(ledger: pd.DataFrame, documents: list[str]) -> list[dict]:
    """Per document (in the given order, then any other the ledger holds, such as the study's
    own additions) the number of claims with each verdict, and a total of them all."""
    rows = []
    others = sorted(set(ledger["document"]) - set(documents)) if len(ledger) else []
    for doc in [*documents, *others]:
        mine = ledger[ledger["document"] == doc]
        rows.append({"document": doc, **{v: int((mine["verdict"] == v).sum()) for v in VERDICTS},
                     "total": len(mine)})
    rows.append({"document": "all", **{v: sum(r[v] for r in rows) for v in VERDICTS},
                 "total": sum(r["total"] for r in rows)})
    return rows


def verdict_changes(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """The claims whose verdict differs between two ledgers (a run that replaces another), in
    ``after``'s order, then those only ``before`` has: document, claim, each side's verdict and
    value (empty where a side lacks the claim). A claim is matched by its id, else by its target
    and words, as :func:`merge_ledgers` matches them."""
    def by_key(frame):
        return {_key(r): r for r in frame.to_dict("records")}

    old, new = by_key(before), by_key(after)
    rows = []
    for k in [*new, *(k for k in old if k not in new)]:
        o, n = old.get(k, {}), new.get(k, {})
        if o.get("verdict") == n.get("verdict"):
            continue
        row = n or o
        rows.append({"document": row.get("document", ""),
                     "claim": str(row.get("claim_id") or "") or str(row.get("claim", "")),
                     "before": o.get("verdict", ""), "after": n.get("verdict", ""),
                     "ours_before": str(o.get("ours", "")), "ours_after": str(n.get("ours", ""))})
    return pd.DataFrame(rows, columns=["document", "claim", "before", "after", "ours_before",
                                       "ours_after"])
