"""Published claims, the evidence for each, and the one rule that judges them (issue 18)."""

from .ledger import (LEDGER_COLUMNS, claims_path, collect, counts, fill_verdicts, judge_target,
                     load_claims, split_ids, summary)
from .rule import (KINDS, VERDICTS, Across, Band, Bootstrap, Estimate, Evidence, Exact, Fit,
                   Readings, Spread, Sweep, Untestable, Validated, judge, printed_band)

__all__ = ["KINDS", "LEDGER_COLUMNS", "VERDICTS", "Across", "Band", "Bootstrap", "Estimate",
           "Evidence", "Exact", "Fit", "Readings", "Spread", "Sweep", "Untestable", "Validated",
           "claims_path", "collect",
           "counts", "fill_verdicts", "judge", "judge_target", "load_claims", "printed_band",
           "split_ids", "summary"]
