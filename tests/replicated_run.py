"""A reference run made twice (replicates A and B, one commit, a drift table), as reference run 4
will be (issue 55), built in a temp folder from the committed run 3: its tables linked, its
record, ledger and drift table its own."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reports" / "reference"
COMMIT = "4a4a4a4b5b5b5c6c6c6d7d7d7e8e8e8f9f9f9a0a"
OWN = ("provenance.json", "claims.csv", "drift.csv")

# Replicate values: t1.ny's A and B agree; t2.lbr.trips's disagree (A reproduced, B not).
REPLICATES = {
    "t1.ny": {"ours_a": "2.0", "ours_a_low": "2.0", "ours_a_high": "2.0", "verdict_a": "",
              "ours_b": "2.0", "ours_b_low": "2.0", "ours_b_high": "2.0", "verdict_b": ""},
    "t2.lbr.trips": {"ours_a": "0.29", "ours_a_low": "0.20", "ours_a_high": "0.40",
                     "verdict_a": "reproduced", "ours_b": "0.61", "ours_b_low": "0.55",
                     "ours_b_high": "0.70", "verdict_b": "not reproduced"},
}
# No transfer measure: the page must say that kind was not measured.
DRIFT = pd.DataFrame({
    "kind": ["CPU", "CPU", "GPU"],
    "measure": ["dijkstra on ny (anchor)", "gerritsen2012 phase-1 block (anchor)",
                "harish on ny (anchor)"],
    "a": ["812.0", "4.10", "31.2"], "b": ["830.5", "4.02", "30.9"], "unit": ["ms", "ms", "ms"],
    "n": ["100", "64", "100"], "drift": ["0.0225", "0.0197", "0.0097"]})


def replicated_reference(folder: Path) -> Path:
    """``folder`` as the reference run made twice from one commit."""
    folder.mkdir(parents=True, exist_ok=True)
    for entry in REFERENCE.iterdir():
        if entry.name not in OWN:
            (folder / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    record = json.loads((REFERENCE / "provenance.json").read_text())
    record.update(run_name="run 4 (fixture)", commit=COMMIT[:7],
                  commits=[{"commit": COMMIT[:7], "first": "2026-12-01T10:00:00+00:00",
                            "last": "2026-12-01T18:00:00+00:00", "jobs": record["jobs"]}])
    (folder / "provenance.json").write_text(json.dumps(record))
    ledger = pd.read_csv(REFERENCE / "claims.csv", dtype=str, keep_default_na=False)
    for column in next(iter(REPLICATES.values())):
        ledger[column] = ledger["claim_id"].map(lambda c, k=column: REPLICATES.get(c, {}).get(k, ""))
    ledger.to_csv(folder / "claims.csv", index=False)
    DRIFT.to_csv(folder / "drift.csv", index=False)
    return folder
