"""The claims ledger: every published claim, joined with its evidence, judged by the one rule.

Claims are data (``graphrepro/published/claims/<document>.csv``, one row per claim, with where
in the document). A target's ``evidence`` function turns its run tables into an
:class:`~graphrepro.claims.rule.Evidence` per claim id; :func:`judge_target` judges them, and
the compare step writes the rows beside the target's table (``targets/<name>.claims.csv``).
:func:`collect` gathers those files into the ledger of a results directory, with a row for every
claim whose target was not built there.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from ..bounded import read_csv
from ..errors import InputError
from .rule import KINDS, VERDICTS, Evidence, judge

CLAIM_COLUMNS = ["claim_id", "target", "where", "claim", "kind", "published", "low", "high",
                 "null", "unit", "subject", "untestable", "note"]
LEDGER_COLUMNS = ["document", "where", "claim", "kind", "published", "ours", "ours_low",
                  "ours_high", "unit", "n", "data", "verdict", "reason", "target", "claim_id",
                  "interval", "band", "run", "launch_path", "sources", "trials", "device",
                  "data_kind", "departure", "tables", "band_basis", "sampled"]


def load_claims(document: str | None = None) -> pd.DataFrame:
    """Every transcribed claim (of one document, or of all), in file order, checked."""
    from ..documents import PLUGIN_CLAIMS, all_documents, claims_file
    from ..solvers import load_plugins

    load_plugins()
    frames = []
    # the documents, then those plugins brought (their own claims files), then the study's own
    # additions (a goal of its own design, such as the hybrid the senthilkumar authors never
    # finished), tallied apart from the documents' claims
    every = all_documents()
    for doc in every if document is None else [d for d in every if d.short == document]:
        path = claims_file(doc.short)
        if not path.is_file():
            continue
        with path.open() as f:
            df = read_csv(f, dtype=str, keep_default_na=False)
        _check(df, str(path) if doc.short in PLUGIN_CLAIMS else f"published/claims/{doc.short}.csv")
        frames.append(df.assign(document=doc.short))
    if not frames:
        return pd.DataFrame(columns=CLAIM_COLUMNS + ["document"])
    return pd.concat(frames, ignore_index=True)


def _check(df: pd.DataFrame, name: str) -> None:
    missing = [c for c in CLAIM_COLUMNS if c not in df.columns]
    if missing:
        raise InputError(f"{name}: missing columns {missing}")
    for i, row in df.iterrows():
        line = i + 2  # the header is line 1
        if row["kind"] not in KINDS:
            raise InputError(f"{name}, line {line}: kind {row['kind']!r} is not one of {KINDS}")
        if not row["claim_id"] or not row["target"] or not row["where"]:
            raise InputError(f"{name}, line {line}: claim_id, target and where are required")
    dup = df["claim_id"][df["claim_id"].duplicated()]
    if len(dup):
        raise InputError(f"{name}: claim ids used twice: {sorted(set(dup))}")


def judge_target(target, runs: pd.DataFrame, stats: dict, design=None, **extra) -> pd.DataFrame:
    """The ledger rows of one target: its claims, its evidence function's numbers, the rule.
    ``design`` (a ``sequential.Design``): each claim judged on the first sources, in their
    seeded order, at which its sequential interval decides it (or all of them: the cap), and
    the ``sampled`` column says which and why."""
    claims = load_claims()  # by target: a target may answer a claim the study added itself
    claims = claims[claims["target"] == target.name]
    if claims.empty:
        return pd.DataFrame(columns=LEDGER_COLUMNS)
    if target.evidence is None:
        raise InputError(f"target {target.name} has claims but no evidence function")
    if isinstance(runs, pd.DataFrame) and "sampled" in runs:  # sampled by its run jobs
        return _judge_batched(target, claims, runs, stats, extra)
    if design is not None:
        return _judge_sequential(target, claims, runs, stats, extra, design)
    return _judge_claims(target, claims, runs, stats, extra)


def _judge_batched(target, claims, runs, stats, extra) -> pd.DataFrame:
    """Every claim on the sources its run jobs timed, where those jobs sampled in batches
    (claims/batches.py): ``sampled`` says why the tables it read stopped, from their records
    (each distinct reason once, in the order it read them); "not sampled: ..." where it read no
    sampled run table."""
    from .origin import read_rows

    evidence = _evidence(target, claims, runs, stats, extra)
    rows = _judge_claims(target, claims, runs, stats, extra, evidence=evidence)
    why = []
    for cid in rows["claim_id"]:
        read = read_rows(evidence[cid], runs, extra.get("benchmarks"))
        reasons = [r for _, t in read if "sampled" in t for r in t["sampled"].dropna().unique()]
        why.append("; ".join(dict.fromkeys(reasons)) or "not sampled: reads no sampled run table")
    return rows.assign(sampled=why)


def _judge_sequential(target, claims, runs, stats, extra, design) -> pd.DataFrame:
    """Every claim's rows on the sources its sequential design stopped at (sequential.py)."""
    from . import sequential

    available = sequential.sources_in(runs)
    if not available:  # nothing sampled by source: the rows as they are
        return _judge_claims(target, claims, runs, stats, extra)
    looks = design.looks(available)
    by_look = {}

    def evidence_at(n):
        if n not in by_look:
            by_look[n] = _evidence(target, claims, sequential.prefix(runs, n), stats, extra)
        return by_look[n]

    from .origin import read_rows

    stops, whole = {}, evidence_at(looks[-1])  # every source: the last look
    for _, claim in claims.iterrows():
        cid = claim["claim_id"]
        tables = read_rows(whole[cid], runs, extra.get("benchmarks"))
        if not any(name.startswith("runs/") for name, _ in tables):  # no run table read
            stops[cid] = sequential.Stop(looks[-1], "not sampled: reads no run table")
            continue
        stops[cid] = sequential.stop_at(design, available, lambda n, level: sequential.decided(
            claim, evidence_at(n)[cid], level, design.drift, _seed(cid)))
    frames = []
    for n in looks:
        ids = [c for c, s in stops.items() if s.n == n]
        if ids:
            rows = _judge_claims(target, claims, sequential.prefix(runs, n), stats, extra, ids)
            frames.append(rows.assign(sampled=[stops[c].reason for c in rows["claim_id"]]))
    order = {c: i for i, c in enumerate(claims["claim_id"])}
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values("claim_id", key=lambda c: c.map(order)).reset_index(drop=True)


def _evidence(target, claims, runs, stats, extra) -> dict:
    """{claim id: evidence} as the rule judges it: one for each claim, the launch-path rule
    applied and each marked with the jobs its sides were timed in."""
    from .anchors import add_measured_drift
    from .origin import mark_jobs

    evidence = target.evidence(claims, runs, stats, **extra)
    unknown = set(evidence) - set(claims["claim_id"])
    missing = [c for c in claims["claim_id"] if c not in evidence]
    if unknown or missing:  # every claim judged, and only claims that exist
        raise InputError(f"target {target.name}: evidence for unknown claims {sorted(unknown)}, "
                         f"none for {missing}")
    evidence = _launch_path_rule(target, claims, runs, stats, extra, evidence)
    for e in evidence.values():
        mark_jobs(e, runs, extra.get("benchmarks"))
        add_measured_drift(e, runs, extra.get("benchmarks"))
    return evidence


def _judge_claims(target, claims, runs, stats, extra, only=None, evidence=None) -> pd.DataFrame:
    """The ledger rows of a target's claims (of those in ``only``), on these runs."""
    from .origin import where_from

    if evidence is None:
        evidence = _evidence(target, claims, runs, stats, extra)
    if only is not None:
        claims = claims[claims["claim_id"].isin(only)]
    gpu = run_gpu(runs, extra.get("benchmarks"))
    return pd.DataFrame([{**_row(claim, e := evidence[claim["claim_id"]], gpu),
                          **where_from(e, runs, extra.get("benchmarks"), stats)}
                         for _, claim in claims.iterrows()], columns=LEDGER_COLUMNS)


def run_gpu(runs: pd.DataFrame, benchmarks: dict | None) -> str:
    """The GPU the target's tables were timed on ("NVIDIA H200"), for reasons that name it; "this
    run's GPU" where none was (a CPU-only run)."""
    names = set()
    for frame in [runs, *(benchmarks or {}).values()]:
        if isinstance(frame, pd.DataFrame) and "device_name" in frame:
            names |= {str(d) for d in frame["device_name"].dropna()
                      if str(d).lower() not in ("", "nan", "cpu")}
    return " and ".join(sorted(names)) or "this run's GPU"


# Fixed, so a ledger rebuilds bit for bit; tests shake with other seeds.
SHAKE_SEED = 20260101


def _seed(claim_id: str) -> int:
    return zlib.crc32(claim_id.encode())


def _launch_path_rule(target, claims, runs, stats, extra, evidence: dict) -> dict:
    """Every claim whose numbers move with a superseded host-loop time, struck (see
    claims/superseded.py): the one place the launch-path rule is applied, for every document."""
    from . import superseded as sup

    if not sup.any_superseded(runs, extra.get("benchmarks")):
        return evidence
    shaken, shaken_extra = sup.shake_inputs(runs, extra, seed=SHAKE_SEED)
    again = target.evidence(claims, shaken, stats, **shaken_extra)
    seeds = {cid: _seed(cid) for cid in evidence}
    hit = sup.moved(evidence, again, seeds)
    return {cid: sup.struck(e, seeds[cid]) if cid in hit else e for cid, e in evidence.items()}


def _row(claim, evidence: Evidence, gpu: str = "this run's GPU") -> dict:
    if not isinstance(evidence, Evidence):
        raise TypeError(f"claim {claim['claim_id']}: evidence must be an Evidence, "
                        f"not {type(evidence).__name__}")
    # a fixed reason names the card as "{gpu}": the one the run used, never a card written in
    claim = claim.copy()
    claim["untestable"] = str(claim.get("untestable") or "").replace("{gpu}", gpu)
    j = judge(claim, evidence, seed=_seed(claim["claim_id"]))
    if "widened by the drift measured between jobs" in j.interval:
        from .anchors import drift_words

        measured = drift_words(evidence)
        if measured:  # the reason says which drift went in, and how large
            j.reason += f"; interval widened by the drift the anchors measured: {measured}"
    return {"document": claim["document"], "where": claim["where"], "claim": claim["claim"],
            "kind": claim["kind"], "published": claim["published"], "ours": _round(j.ours),
            "ours_low": _round(j.low), "ours_high": _round(j.high), "unit": claim["unit"],
            "n": evidence.n, "data": evidence.data, "verdict": j.verdict, "reason": j.reason,
            "target": claim["target"], "claim_id": claim["claim_id"], "interval": j.interval,
            **band_of(claim)}


def band_of(claim) -> dict:
    """The band the rule judges ``claim`` against and which rule set it (claims/bands.py), on
    every row the rule judges whenever its evidence allows (a comparison refused as timed apart
    too): derived, never copied from a note. Empty where no band is ever used: a claim fixed as
    not testable (hardware, an algorithm not built) or a published value with no number to band
    ("see Table 5.5": its number names a table)."""
    from .bands import explained_band

    if str(claim.get("untestable") or "").strip() or \
            str(claim.get("published") or "").strip().lower().startswith("see "):
        return {"band": "", "band_basis": ""}
    try:
        band, basis = explained_band(claim)
    except (ValueError, AttributeError):
        return {"band": "", "band_basis": ""}
    return {"band": str(band), "band_basis": basis}


def _round(v):
    if v is None or not np.isfinite(v):
        return None
    return float(f"{v:.4g}")


def fill_verdicts(table: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """A target table's ``verdict`` column, taken from the ledger by the row's ``claim_id``
    (rows that stand for no claim get none; a row standing for several, "a; b", gets their
    verdicts in that order, "; "-separated). No target writes a verdict of its own."""
    if "claim_id" not in table.columns:
        return table
    by_id = dict(zip(rows["claim_id"], rows["verdict"]))
    ids = [split_ids(c) for c in table["claim_id"].fillna("").astype(str)]
    unknown = sorted({c for cs in ids for c in cs if c not in by_id})
    if unknown:
        raise InputError(f"table rows name claims the ledger does not have: {unknown}")
    table = table.drop(columns=[c for c in ("verdict",) if c in table.columns])
    table.insert(list(table.columns).index("claim_id") + 1, "verdict",
                 ["; ".join(by_id[c] for c in cs) for cs in ids])
    return table


def split_ids(cell: str) -> list[str]:
    """The claim ids of one table cell ("a; b")."""
    return [c.strip() for c in str(cell).split(";") if c.strip()]


def claims_path(table_path: Path) -> Path:
    """Where a target's ledger rows go: beside its table."""
    return table_path.with_name(table_path.stem + ".claims.csv")


def collect(results: Path) -> pd.DataFrame:
    """The ledger of a results directory: every target's rows, in document and file order, and
    a ``not testable here`` row for each claim whose target was not built there."""
    claims = load_claims()
    built = {}
    for p in sorted((results / "targets").glob("*.claims.csv")):
        df = read_csv(p, dtype=str, keep_default_na=False).reindex(
            columns=LEDGER_COLUMNS, fill_value="")
        for _, row in df.iterrows():
            built[row["claim_id"]] = row.to_dict()
    rows = []
    for _, claim in claims.iterrows():
        row = built.get(claim["claim_id"])
        if row is not None:  # the band as the rule now derives it, whenever the row was written
            row.update(band_of(claim))
        if row is None:
            row = {c: "" for c in LEDGER_COLUMNS}
            row.update({k: claim[k] for k in ("document", "where", "claim", "kind", "published",
                                              "unit", "target", "claim_id")},
                       verdict="not testable here",
                       reason=f"its target {claim['target']} was not built in {results}")
        rows.append(row)
    ledger = pd.DataFrame(rows, columns=LEDGER_COLUMNS)
    bad = set(ledger["verdict"]) - set(VERDICTS)
    if bad:
        raise InputError(f"verdicts outside the rule's five: {sorted(bad)}")
    return ledger


def counts(ledger: pd.DataFrame) -> pd.DataFrame:
    """Claims per verdict per document (the report's first table)."""
    table = pd.crosstab(ledger["document"], ledger["verdict"]).reindex(columns=list(VERDICTS),
                                                                        fill_value=0)
    table["claims"] = table.sum(axis=1)
    return table.reset_index()


def summary(rows: pd.DataFrame) -> str:
    """A target's summary, made from its ledger rows only: how many claims got each verdict,
    then each claim that was not reproduced or could not be tested, with the rule's reason."""
    if rows.empty:
        return ""
    tally = rows["verdict"].value_counts()
    parts = [f"{tally[v]} {v}" for v in VERDICTS if v in tally]
    text = f"{len(rows)} claim{'s' * (len(rows) != 1)}: " + ", ".join(parts) + "."
    for _, row in rows.iterrows():
        if row["verdict"] != "reproduced":
            text += f" {row['claim'].rstrip('.')}: {row['verdict']} ({row['reason']})."
    return text
