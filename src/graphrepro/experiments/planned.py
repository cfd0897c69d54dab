"""Published tables and figures whose reproduction is planned, with the issue that builds each."""

from . import Target, target

for name, document, item, description, issue in [
    ("gerritsen2012_mst", "gerritsen2012", "Tables 3.1-3.8", "I/O-efficient MST with GPU Boruvka on terrain", 10),
]:
    target(Target(name, document, item, description, planned=issue))
