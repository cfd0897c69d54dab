"""What the tests that read the committed reference run need to know of it, from its own record:
the config files it was made with, and whether it is one whole run (`retabulate --complete`
wrote its record) or the earlier reference pieced together from several runs."""

from __future__ import annotations

import json
from pathlib import Path

from graphrepro.wholerun import reference_configfiles

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reports" / "reference"


def record() -> dict:
    path = REFERENCE / "provenance.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def is_whole_run() -> bool:
    return bool(record().get("run_name"))


def configfiles() -> list[Path]:
    return reference_configfiles(REFERENCE, ROOT)


# Claims whose committed ledger row predates this tree and is left out of the tests that hold the
# ledger to the claims files and the rule, until the coordinator retabulates the reference (then
# this is emptied; empty since the retabulation of 2026-11-28): rows added since (the space statements of Tables 3.6 and 5.5) and rows whose
# reading changed (Table 5.7's phase-2 claims now name the cap that bound: RLIMIT_DATA in run 3).
AWAITING_RETABULATION = frozenset()
NEW_SINCE_TABULATION = frozenset()


def tabulated(ids) -> list[str]:
    """``ids`` (in order) without the claims added since the reference ledger was tabulated; a
    ledger that already has one of them was retabulated, and the sets above are out of date."""
    return [i for i in ids if i not in NEW_SINCE_TABULATION]
