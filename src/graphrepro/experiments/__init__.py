"""The study's targets: one per published table or figure, each a named snakemake target.

A target names the document and item it reproduces, the solvers whose runs it needs, a
function that puts the published values (``graphrepro/published/<document>.csv``) beside ours,
and an evidence function that turns its runs into the numbers behind each of its claims
(``graphrepro/published/claims/<document>.csv``), judged by the one rule in graphrepro.claims.
Targets whose code does not exist yet are listed as planned, with the issue that builds them.
"""

from __future__ import annotations

from .registry import _TARGETS, Target, add_plugin_targets, published, target

__all__ = ["Target", "target", "published", "all_targets", "get_target"]


def all_targets() -> list[Target]:
    # Registration order is the report's order within a document: safari2017's own tables first,
    # then the CPU baselines filed under it; the planned ones last.
    from . import safari2017, baselines, senthilkumar, singla, an2017  # noqa: F401, I001
    from . import gerritsen2012_mst, gerritsen2012_sssp  # noqa: F401
    from . import frontier  # noqa: F401  (today's best, beside the documents: issue 21)
    from . import planned  # noqa: F401
    from ..solvers import load_plugins

    load_plugins()  # the plugins' targets come last
    add_plugin_targets()
    return list(_TARGETS.values())


def get_target(name: str) -> Target:
    for t in all_targets():
        if t.name == name:
            return t
    from ..errors import InputError

    raise InputError(unknown_target(name))


def unknown_target(name: str, known=None) -> str:
    """One line for a target that is not one: the closest names (a typo's fix), and where the
    list is. ``known``: the names to match against (default: every target)."""
    import difflib

    names = list(known) if known is not None else [t.name for t in all_targets()]
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    hint = f"; the closest: {', '.join(close)}" if close else ""
    return f"unknown target {name!r}{hint}; `python -m graphrepro targets` lists them"
