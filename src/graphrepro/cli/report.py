"""What a results directory says: the claims ledger, the HTML report, and the provenance record
that goes with every measurement."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from .. import atomic
from ..errors import InputError
from .common import _merged_config


def cmd_claims(args) -> int:
    """The one ledger (this machine's runs merged with the reference run's), filtered, printed
    as a table, CSV or JSON, and written with --output."""
    from ..claims import VERDICTS
    from ..report.ledger import read_ledger, the_ledger

    if args.verdict and args.verdict not in VERDICTS:
        raise InputError(f"--verdict {args.verdict!r}: one of {', '.join(VERDICTS)}")
    reference = Path(args.reference) if args.reference else None
    ledger_path = Path(args.ledger)
    if args.results is None and ledger_path.is_file():
        ledger, source = read_ledger(ledger_path), str(ledger_path)  # the workflow's merged one
    else:
        ledger, source = the_ledger(Path(args.results or "results"), reference)
    if args.document:
        if args.document not in set(ledger["document"]):
            raise InputError(f"--document {args.document!r}: no claims; documents with claims: "
                             f"{', '.join(dict.fromkeys(ledger['document']))}")
    ledger = _filtered(ledger, args)
    if args.output:
        atomic.write_csv(ledger, args.output)
    if args.changed_from:  # the older ledger filtered alike, so its counts compare
        return _print_changes(_filtered(read_ledger(Path(args.changed_from)), args), ledger, args)
    if args.format == "csv":
        sys.stdout.write(atomic.csv_text(ledger))
    elif args.format == "json":
        print(json.dumps(ledger.to_dict("records"), indent=1))
    else:
        width = args.width or terminal_width()
        print(claims_table(ledger, width))
        print(textwrap.fill(f"({len(ledger)} claims from {source}; --width 140 adds the claims' "
                            "words; --format csv or json gives every column)", width,
                            break_on_hyphens=False), file=sys.stderr)
    return 0


def _filtered(ledger, args):
    """The ledger's rows of ``--document`` and ``--verdict``, where given."""
    if args.document:
        ledger = ledger[ledger["document"] == args.document]
    if args.verdict:
        ledger = ledger[ledger["verdict"] == args.verdict]
    return ledger


def _print_changes(before, after, args) -> int:
    """What a run changed against an older ledger (``claims --changed-from``): the verdicts per
    document on each side, then every claim whose verdict moved."""
    import pandas as pd

    from ..report.ledger import VERDICTS, verdict_changes, verdict_counts

    documents = list(dict.fromkeys([*after["document"], *before["document"]]))
    counts = [{"side": side, **row} for side, ledger in (("before", before), ("after", after))
              for row in verdict_counts(ledger, documents)]
    counts = pd.DataFrame(counts).sort_values("document", key=lambda d: d.map(
        {d: i for i, d in enumerate([*documents, "all"])}), kind="stable")
    changes = verdict_changes(before, after)
    if args.format == "csv":
        sys.stdout.write(atomic.csv_text(changes))
    elif args.format == "json":
        print(json.dumps({"counts": counts.to_dict("records"),
                          "changed": changes.to_dict("records")}, indent=1))
    else:
        print(counts[["document", "side", *VERDICTS, "total"]].to_string(index=False))
        print()
        print(changes.to_string(index=False) if len(changes) else "no verdict changed")
        print(f"({len(changes)} claims changed verdict from {args.changed_from})", file=sys.stderr)
    return 0


def terminal_width() -> int:
    """The width to print in: ``COLUMNS`` where set, else the terminal's, else 100."""
    import shutil

    return max(20, shutil.get_terminal_size((100, 24)).columns)


def claims_table(ledger, width: int = 100) -> str:
    """The ledger as a plain table no wider than ``width``: id, verdict, ours, published, run,
    and, where at least 20 characters are left, the claim's words; a cell too long for its
    column is cut with an ellipsis (--format csv or json gives every cell whole)."""
    from ..report.page import ours_text, run_text, with_unit

    if not len(ledger):
        return "no claims"
    rows = [[str(r.get("claim_id") or ""), str(r["verdict"]), ours_text(r),
             with_unit(r.get("published", ""), r.get("unit", "")), run_text(r)[0],
             str(r["claim"])] for r in ledger.to_dict("records")]
    head = ["claim", "verdict", "ours", "published", "run", "what"]
    caps = [17, 17, 22, 16, 15]  # the claim's words take what is left

    def cut(text: str, n: int) -> str:
        return text if len(text) <= n else text[: max(n - 1, 0)] + "\u2026"

    widths = [min(cap, max(len(h), *(len(r[i]) for r in rows))) for i, (h, cap)
              in enumerate(zip(head, caps))]
    rest = width - sum(widths) - 2 * len(widths)
    if rest >= 20:
        widths.append(rest)
    else:  # no room for the words: the five columns share the width, the widest giving first
        while sum(widths) + 2 * (len(widths) - 1) > width and max(widths) > 4:
            widths[widths.index(max(widths))] -= 1
    lines = ["  ".join(cut(c, w).ljust(w) for c, w in zip(r, widths)).rstrip()
             for r in [head, *rows]]
    return "\n".join(lines)


def add_claims(sub) -> None:
    sp = sub.add_parser("claims", help="the claims ledger: every published claim, ours with its "
                                       "interval, the verdict of the one rule, the run it is from")
    sp.add_argument("--ledger", default="reports/claims.csv",
                    help="the merged ledger the workflow wrote (read when --results is not given)")
    sp.add_argument("--results", default=None,
                    help="merge this results directory's targets/*.claims.csv with the reference "
                         "run's ledger instead of reading --ledger")
    sp.add_argument("--reference", default="reports/reference",
                    help="the committed reference run whose claims.csv is merged in")
    sp.add_argument("--document", help="only this document's claims (short name)")
    sp.add_argument("--verdict", help="only claims with this verdict (e.g. 'not reproduced')")
    sp.add_argument("--format", choices=("table", "csv", "json"), default="table",
                    help="table (default: fits --width columns), csv or json (every column)")
    sp.add_argument("--width", type=int, default=None,
                    help="the table's width in characters, footer included (default: COLUMNS, "
                         "else the terminal's width, else 100)")
    sp.add_argument("--output", help="write the ledger as CSV here (besides printing it)")
    sp.add_argument("--changed-from", metavar="LEDGER",
                    help="an older ledger CSV (a run this one replaces): print the verdicts per "
                         "document on each side and every claim whose verdict changed, instead "
                         "of the ledger (csv: the changes; json: both)")
    sp.set_defaults(func=cmd_claims)


def cmd_report(args) -> int:
    from ..report.build import build_report

    from ..wholerun import reference_configfiles

    ref_files = (args.reference_config if args.reference_config is not None
                 else [str(p) for p in reference_configfiles(Path(args.reference))])
    ref_config = (_merged_config(ref_files)
                  if ref_files and all(Path(p).is_file() for p in ref_files) else None)
    build_report(Path(args.results), Path(args.output), reference=Path(args.reference),
                 config_path=Path(args.config) if args.config else None,
                 claims=Path(args.claims) if args.claims else None,
                 reference_claims=Path(args.reference_claims) if args.reference_claims else None,
                 reference_config=ref_config)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def add_report(sub) -> None:
    sp = sub.add_parser("report", help="write the HTML report from the target tables (the "
                                       "workflow's last step; by hand: the reference run's own "
                                       "page in seconds, no retabulate)")
    sp.add_argument("--results", default="results",
                    help="the results directory whose targets/*.csv, figures and run records "
                         "the page shows (default: results); the reference folder itself gives "
                         "the reference run's own page")
    sp.add_argument("--reference", default="reports/reference",
                    help="the committed reference run: its tables stand in where this machine "
                         "ran none, and its ledger is merged with this run's")
    sp.add_argument("--config", help="the config the results came from (shown in the report)")
    sp.add_argument("--output", default="reports/index.html",
                    help="the page to write (default: reports/index.html); index.summary.json "
                         "is written beside it")
    sp.add_argument("--claims", help="this run's claims ledger: the workflow's merged one "
                                     "(reports/claims.csv, used as it is) or a run's own "
                                     "(merged here with the reference's); default: the results' "
                                     "targets/*.claims.csv")
    sp.add_argument("--reference-claims", default="reports/reference/claims.csv",
                    help="the reference run's claims ledger CSV, used where it exists")
    sp.add_argument("--reference-config", nargs="*", default=None,
                    help="the config files the reference run used, merged in order (to credit "
                         "each reference table with its own runs' provenance); default: those "
                         "its provenance.json names")
    sp.set_defaults(func=cmd_report)


def cmd_provenance(args) -> int:
    from ..harness import provenance

    print(json.dumps(provenance(), indent=1))
    return 0


def add_provenance(sub) -> None:
    sp = sub.add_parser("provenance", help="print this machine's provenance record")
    sp.set_defaults(func=cmd_provenance)


def cmd_lock_from_run(args) -> int:
    from ..harness.runlock import downloaded_hashes, lock_from_run

    text = lock_from_run(args.provenance, locks=args.lock,
                         download=None if args.no_download else downloaded_hashes)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        atomic.write_text(Path(args.output), text)
        pinned = sum(1 for line in text.splitlines() if line[:1].isalnum())
        print(f"{args.output}: {pinned} pins from {args.provenance}", file=sys.stderr)
    return 0


def add_lock_from_run(sub) -> None:
    sp = sub.add_parser("lock-from-run",
                        help="a pip requirements file pinning every package a run's provenance "
                             "records, hashed where the project's locks or pip can say")
    sp.add_argument("provenance", help="a run's provenance.json, or one run table's "
                                       ".provenance.json")
    sp.add_argument("-o", "--output", required=True,
                    help="the requirements file to write (- for standard output)")
    sp.add_argument("--lock", action="append", default=None, metavar="FILE",
                    help="a pip-compile --generate-hashes lock to take hashes from (repeat for "
                         "several; default: requirements.lock and requirements-gpu.lock here)")
    sp.add_argument("--no-download", action="store_true",
                    help="take hashes from the locks only; leave other pins unhashed (no pip "
                         "download)")
    sp.set_defaults(func=cmd_lock_from_run)
