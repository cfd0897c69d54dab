"""Published tables and figures whose reproduction is planned, with the issue that builds each."""

from . import Target, target

for name, document, item, description, issue in [
    ("gerritsen2012_sssp", "gerritsen2012", "Tables 5.1-5.7", "I/O-efficient SSSP on terrain, both GPU algorithms", 11),
]:
    target(Target(name, document, item, description, planned=issue))
