"""What a results directory says: the claims ledger, the HTML report, and the provenance record
that goes with every measurement."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import atomic
from ..errors import InputError
from .common import _merged_config


def cmd_claims(args) -> int:
    """The ledger of a results directory, filtered, printed, and written with --output."""
    import pandas as pd

    from ..claims import VERDICTS, collect

    if args.verdict and args.verdict not in VERDICTS:
        raise InputError(f"--verdict {args.verdict!r}: one of {', '.join(VERDICTS)}")
    ledger = collect(Path(args.results))
    if args.document:
        if args.document not in set(ledger["document"]):
            raise InputError(f"--document {args.document!r}: no claims; documents with claims: "
                             f"{', '.join(pd.unique(ledger['document']))}")
        ledger = ledger[ledger["document"] == args.document]
    if args.verdict:
        ledger = ledger[ledger["verdict"] == args.verdict]
    if args.output:
        atomic.write_csv(ledger, args.output)
    shown = ledger[["document", "where", "claim", "published", "ours", "ours_low", "ours_high",
                    "unit", "verdict", "reason"]]
    with pd.option_context("display.width", 250, "display.max_columns", None,
                           "display.max_colwidth", 60, "display.max_rows", None):
        print(shown.to_string(index=False) if len(shown) else "no claims")
    return 0


def add_claims(sub) -> None:
    sp = sub.add_parser("claims", help="the claims ledger: every published claim, ours with its "
                                       "interval, and the verdict of the one rule")
    sp.add_argument("--results", default="results",
                    help="a results directory whose targets/*.claims.csv the compare steps wrote")
    sp.add_argument("--document", help="only this document's claims (short name)")
    sp.add_argument("--verdict", help="only claims with this verdict (e.g. 'not reproduced')")
    sp.add_argument("--output", help="write the ledger as CSV here (besides printing it)")
    sp.set_defaults(func=cmd_claims)


def cmd_report(args) -> int:
    from ..report.build import build_report

    ref_config = (_merged_config(args.reference_config)
                  if args.reference_config and all(Path(p).is_file() for p in args.reference_config)
                  else None)
    build_report(Path(args.results), Path(args.output), reference=Path(args.reference),
                 config_path=Path(args.config) if args.config else None,
                 claims=Path(args.claims) if args.claims else None,
                 reference_claims=Path(args.reference_claims) if args.reference_claims else None,
                 reference_config=ref_config)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def add_report(sub) -> None:
    sp = sub.add_parser("report", help="write the HTML report from the target tables")
    sp.add_argument("--results", default="results")
    sp.add_argument("--reference", default="reports/reference")
    sp.add_argument("--config", help="the config the results came from (shown in the report)")
    sp.add_argument("--output", default="reports/index.html")
    sp.add_argument("--claims", help="this run's claims ledger (written by `claims --output`)")
    sp.add_argument("--reference-claims", default="reports/reference/claims.csv",
                    help="the reference run's claims ledger CSV, used where it exists")
    sp.add_argument("--reference-config", nargs="*",
                    default=["config/config.yaml", "config/h100.yaml"],
                    help="the config files the reference run used, merged in order (to credit "
                         "each reference table with its own runs' provenance)")
    sp.set_defaults(func=cmd_report)


def cmd_provenance(args) -> int:
    from ..harness import provenance

    print(json.dumps(provenance(), indent=1))
    return 0


def add_provenance(sub) -> None:
    sp = sub.add_parser("provenance", help="print this machine's provenance record")
    sp.set_defaults(func=cmd_provenance)
