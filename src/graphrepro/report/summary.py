"""The few lines `snakemake` ends with: where the report is, its claims by verdict, how long."""

from __future__ import annotations

import json
import time
from pathlib import Path

from .. import atomic
from ..bounded import load_json
from .ledger import VERDICTS


def summary_path(report: Path) -> Path:
    return report.with_name(report.stem + ".summary.json")


def write_summary(report: Path, ledger, source: str, reference_targets) -> None:
    from .ledger import FROM_RUN, REFERENCE

    counts = {v: int((ledger["verdict"] == v).sum()) for v in VERDICTS}
    from_ref = int((ledger[FROM_RUN] == REFERENCE).sum()) if FROM_RUN in ledger else 0
    record = {"report": str(report), "claims": counts, "source": source,
              "from_reference": sorted(reference_targets), "claims_from_reference": from_ref}
    atomic.write_text(summary_path(report), json.dumps(record, indent=1) + "\n")


def terminal_summary(report: str, started: float) -> str:
    """The closing lines; says so when this run did not rebuild the report."""
    took = time.time() - started
    minutes, seconds = divmod(int(round(took)), 60)
    path = summary_path(Path(report))
    lines = [f"graphrepro: done in {minutes} min {seconds:02d} s."]
    if not path.is_file() or path.stat().st_mtime < started:
        lines.append(f"The report ({report}) was not rebuilt by this run; "
                     "`snakemake --cores all` rebuilds it.")
        return "\n".join(lines)
    record = load_json(path)
    total = sum(record["claims"].values())
    lines.append(f"Report: {Path(report).resolve().as_uri()}")
    lines.append(f"{total} claims: " + ", ".join(f"{n} {v}" for v, n in record["claims"].items()))
    if record.get("claims_from_reference"):
        lines.append(f"({record['claims_from_reference']} of the {total} from the committed "
                     "reference run, where it has the better evidence: real data, or a GPU this "
                     "machine lacks)")
    elif record["from_reference"]:
        lines.append(f"({len(record['from_reference'])} GPU targets counted from the committed "
                     "reference run: this machine has no GPU)")
    return "\n".join(lines)
