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
