"""The step between a run job's source batches: are the claims that read its tables decided yet?

A comparison group (one run, or a target's ``interleave:`` runs on one graph) is timed in one
job, in batches of its seeded sources (``sequential.Looks``); after each batch this judges every
claim of the targets that read the group's tables on the sources so far, with the sequential
rule (``sequential.decided``), exactly as the ledger's sequential judging would on that prefix.
The group stops once every claim that read its tables is decided. A claim that also needs tables
this job does not time is judged on part of its data: the rule holds a claim over a set of graphs
inconclusive on part of it, a comparison with a side missing has no evidence, so such a claim
does not stop the group early; it runs to the cap, as without sampling.
"""

from __future__ import annotations

import sys

import pandas as pd

from . import ledger, sequential
from .origin import read_rows


def as_runs(tables, names, launch_path: str, run: str) -> pd.DataFrame:
    """The group's tables so far as the compare step reads run tables (report/tables.load_runs):
    ``names`` are their ``runs/<graph>/<file>.csv``, and one job timed them all."""
    frames = []
    for table, name in zip(tables, names):
        df = table.copy()
        if "variant" not in df:
            df.insert(df.columns.get_loc("solver") + 1, "variant", df["solver"])
        frames.append(df.assign(launch_path=launch_path, run=run, run_table=name,
                                job="this job"))
    return pd.concat(frames, ignore_index=True)


class GroupDecider:
    """``decide(n, level, tables)`` for ``sequential.Looks``: True where every claim of
    ``targets`` that read one of ``names`` is decided at ``level``, False where one is not yet,
    None where one never will be on more sources (or a target's evidence fails on this part of
    its tables). ``read_by`` collects the claims that read the tables."""

    def __init__(self, targets, names, stats: dict, drift: float, launch_path: str = "",
                 run: str = "", log=None):
        self.targets, self.names, self.stats, self.drift = targets, list(names), stats, drift
        self.launch_path, self.run = launch_path, run
        every = ledger.load_claims()
        self.claims = {t.name: every[every["target"] == t.name] for t in targets}
        self.log = log or (lambda m: print(m, file=sys.stderr))
        self.read_by: set[str] = set()

    def __call__(self, n: int, level: float, tables) -> bool | None:
        runs = as_runs(tables(), self.names, self.launch_path, self.run)
        verdicts = []
        for target in self.targets:
            claims = self.claims[target.name]
            extra = {"benchmarks": {}} if getattr(target, "benchmarks", ()) else {}
            try:
                evidence = ledger._evidence(target, claims, runs, self.stats, extra)
            except Exception as e:  # noqa: BLE001  its code, on part of its tables: any failure
                self.log(f"sampling: {target.name}'s claims cannot be judged on this job's "
                         f"tables alone ({type(e).__name__}: {e}): every source to the cap")
                return None
            for _, claim in claims.iterrows():
                cid = claim["claim_id"]
                if str(claim.get("untestable") or "").strip():
                    continue  # fixed as not testable (hardware, data): no source decides it
                if not read_rows(evidence[cid], runs):
                    continue  # reads none of this job's tables
                self.read_by.add(cid)
                verdicts.append(sequential.decided(claim, evidence[cid], level, self.drift,
                                                   ledger._seed(cid)))
        self.log(f"sampling: {n} sources, {len(verdicts)} claims read these tables, "
                 f"{sum(v is True for v in verdicts)} decided at level {level:.6f}")
        if any(v is None for v in verdicts):
            return None
        return all(verdicts)
