"""The claims ledger as the report reads it: one row per published claim, with its verdict.

The ledger itself (``reports/claims.csv``, ``reports/reference/claims.csv``) is written by the
claims rule; this module only reads it, picks the best available run for each target and counts
verdicts. Where a run has no ledger CSV (a results folder whose claims rule has not run), its
ledger is gathered from the per-target rows the compare steps wrote (``targets/*.claims.csv``),
which is exactly what the claims rule writes.
"""

from __future__ import annotations

import re
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


# What a row's setting is made of, read from its own cells (``n``, ``data``, ``sources``,
# ``device``): the numbers a claim's verdict depends on, each larger-is-closer-to-the-document.
_SETTING_NUMBERS = {
    "blocks": re.compile(r"(\d+) (?:centre )?blocks\b"),
    "block side": re.compile(r"blocks of (\d+)\^2"),
    "grid side": re.compile(r"(?:crops? |\.\.|window |on the )(\d+)\^2"),
    "graphs": re.compile(r"(\d+) graphs\b"),
    "sources": re.compile(r"(\d+) sources?\b"),
    "batches": re.compile(r"(\d+) batch"),
}


def setting(row) -> dict:
    """The setting a row was measured in, as far as its cells say: the size of its graphs
    (``scale``: 1 for real data or a paper-size stand-in), the graphs or terrains it names
    (``on``), the counts of blocks, block and grid sides, graphs, sources and batches, and
    whether a GPU timed it (``gpu``, where the ledger names the device)."""
    data, n = str(row.get("data") or ""), str(row.get("n") or "")
    out: dict = {}
    parts = [p.strip() for p in data.split("; ") if p.strip()]
    scales = []
    for p in parts:
        m = re.search(r"\bscale ([0-9.eE-]+)", p)
        scales.append(float(m.group(1)) if m else 1.0)
    names = {m.group(1) for p in parts
             if (m := re.match(r"(?:terrain )?([\w.-]+): (?:real|STAND-IN|\d|centre|synthetic)", p))}
    if scales and names:
        out["scale"] = min(scales)
        out["on"] = frozenset(names)
    text = f"{n}; {data}"
    for key, pattern in _SETTING_NUMBERS.items():
        found = [int(x) for x in pattern.findall(text)]
        if found:
            out[key] = max(found)
    sources = [int(x) for x in re.findall(r"\d+", str(row.get("sources") or ""))]
    if sources:
        out["sources"] = min(sources)
    device = str(row.get("device") or "").strip().lower()
    if device:
        out["gpu"] = device not in ("cpu", "none", "none (cpu)", "no gpu")
    return out


def meets(row, other) -> bool:
    """Whether ``row`` was measured in at least ``other``'s setting: the same graphs or more,
    nothing smaller (scale, blocks, sides, graphs, sources, batches), a GPU where ``other`` had
    one. What only one row says is not compared."""
    mine, theirs = setting(row), setting(other)
    for key, value in theirs.items():
        if key not in mine:
            continue
        if key == "on":
            if not mine["on"] >= value:
                return False
        elif mine[key] < value:
            return False
    return True


def precedence(here, ref, *, gpu_claim: bool, gpu_here: bool) -> str:
    """Which of this machine's row and the reference run's row for one claim the merged ledger
    keeps ("here" or "ref"). Written once: a verdict over "not testable here"; a run that built
    the claim's target over one that did not; then the setting the claim depends on (a run
    whose graphs, sizes, blocks, sources or device fall short of the other's gives way to it,
    so a small local run never overrides the reference verdict: 16 blocks of 32^2 on Jacksboro
    against 10,000 of 256^2 on the Neuse-size grid); then real data over real topology over a
    stand-in; then, for a claim that times a GPU on a machine without one, the reference GPU
    run; then this machine's (the newer run)."""
    def key(row):
        testable = row.get("verdict") != "not testable here"
        # claims.collect's row for a claim whose target a run did not build says nothing of it
        built = not str(row.get("reason", "")).startswith("its target ")
        return testable, built

    if key(here) != key(ref):
        return "here" if key(here) > key(ref) else "ref"
    if not meets(here, ref):
        return "ref"
    if not meets(ref, here):
        return "here"
    if data_rank(here.get("data", "")) != data_rank(ref.get("data", "")):
        return "here" if data_rank(here.get("data", "")) > data_rank(ref.get("data", "")) else "ref"
    return "ref" if gpu_claim and not gpu_here else "here"


# The other run's row for a claim, where both runs judged it: shown beside the one the ledger
# keeps, labelled, never counted.
OTHER = ("from_run", "verdict", "ours", "ours_low", "ours_high", "unit", "n", "data", "data_kind",
         "reason")


def merge_ledgers(local: pd.DataFrame, reference: pd.DataFrame | None, *,
                  gpu_targets: set[str] = frozenset(), gpu_here: bool = False) -> pd.DataFrame:
    """The one ledger: for every claim the row of the run that :func:`precedence` prefers, in
    the order the claims first appear (this machine's, then claims only the reference has), each
    row naming the run it came from (``from_run``) and, where the other run judged the claim
    too, that run's verdict, value and setting (``other_*``)."""
    local = local.assign(**{FROM_RUN: THIS_MACHINE})
    if reference is None or reference.empty:
        return local.reset_index(drop=True)
    reference = reference.assign(**{FROM_RUN: REFERENCE})
    here = {_key(r): r for r in local.to_dict("records")}
    ref = {_key(r): r for r in reference.to_dict("records")}
    rows = []
    for k in dict.fromkeys([*here, *ref]):
        if k not in here or k not in ref:
            rows.append(here.get(k) or ref[k])
            continue
        h, r = here[k], ref[k]
        gpu_claim = h.get("target") in gpu_targets
        kept, other = (h, r) if precedence(h, r, gpu_claim=gpu_claim, gpu_here=gpu_here) == \
            "here" else (r, h)
        if other.get("verdict") != "not testable here":
            kept = {**kept, **{f"other_{c}": other.get(c, "") for c in OTHER}}
        rows.append(kept)
    columns = list(dict.fromkeys([*local.columns, *reference.columns]))
    columns += [f"other_{c}" for c in OTHER if any(f"other_{c}" in r for r in rows)]
    return pd.DataFrame(rows, columns=columns, dtype=object).fillna("")


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
