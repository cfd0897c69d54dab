"""What the tests that read the committed reference run need to know of it, from its own record:
the config files it was made with, and whether it is one whole run (`retabulate --complete`
wrote its record) or the earlier reference pieced together from several runs."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reports" / "reference"
# the earlier reference's record names no config files: runs 1 and 2 were made with these
PIECED_CONFIGS = ("config/config.yaml", "config/h100.yaml")


def record() -> dict:
    path = REFERENCE / "provenance.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def is_whole_run() -> bool:
    return bool(record().get("run_name"))


def configfiles() -> list[Path]:
    return [ROOT / f for f in record().get("configfiles") or PIECED_CONFIGS]
