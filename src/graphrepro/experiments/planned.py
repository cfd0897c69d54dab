"""Published tables and figures whose reproduction is planned, with the issue that builds each.

Every document's tables are built now; a new document's targets start here, listed by
(name, document, item, description, issue), so `graphrepro targets` shows what is coming."""

from .registry import Target, target

PLANNED: list[tuple[str, str, str, str, int]] = []

for name, document, item, description, issue in PLANNED:
    target(Target(name, document, item, description, planned=issue))
