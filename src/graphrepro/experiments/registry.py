"""The target registry: what a target is, and the one table every experiment module registers
into. Experiment modules import from here (not from the package), so the package can import them
all without a cycle."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Callable

import pandas as pd

from ..bounded import read_csv
from ..solvers import plugins


@dataclass(frozen=True)
class Target:
    name: str
    document: str
    item: str
    description: str
    solvers: tuple[str, ...] = ()
    # (runs, stats, published) -> table; a row standing for a claim names it in ``claim_id``,
    # and its ``verdict`` is filled in from the ledger (no target judges its own claims)
    compare: Callable[..., pd.DataFrame] | None = None
    figure: Callable | None = None  # (runs, ax) -> None
    # (table as written, all strings) -> a sentence or two for the report; targets with claims
    # leave it out: their summary is generated from their ledger rows (claims.ledger.summary)
    summary: Callable[[pd.DataFrame], str] | None = None
    # (claims, runs, stats, **benchmarks) -> {claim_id: claims.Evidence}, one per claim of the
    # target in its document's claims file (graphrepro.claims.ledger.judge_target)
    evidence: Callable[..., dict] | None = None
    planned: int | None = None  # issue number while not built
    # Benchmark tables (results/benchmarks/<name>.csv) read besides the runs; compare and figure
    # then get ``benchmarks={name: DataFrame}`` (an2017's transfers, timed outside any solver run).
    benchmarks: tuple[str, ...] = ()
    # Benchmark tables read where the results have them, never waited for (another target's
    # table that measures what this one's claims must allow for: the drift between jobs)
    also_reads: tuple[str, ...] = ()
    prints: bool = False  # a benchmark: `compare` also prints its table to standard output
    # Which run ids a config's `runs:` may name: those of the solvers above (any parameters: a
    # sweep widened), those named here, or any at all where the table shows every run it is given.
    # Anything else would be run, verified and left out of the table without a word: the config
    # check refuses it (configcheck.semantic_errors).
    also_shows: tuple[str, ...] = ()
    shows_every_run: bool = False

    @property
    def ready(self) -> bool:
        return self.compare is not None

    def cannot_show(self, run_id: str) -> bool:
        """Whether this target's table has no place for ``run_id``'s solver."""
        from ..solvers import parse_run_id

        if self.shows_every_run:
            return False
        known = {parse_run_id(r)[0] for r in self.solvers} | set(self.also_shows)
        return parse_run_id(run_id)[0] not in known


_TARGETS: dict[str, Target] = {}
# A plugin's targets wait here until the built-in ones are all registered (``add_plugin_targets``):
# a plugin loaded first must not take a built-in target's name, nor come first in the report.
_PLUGIN_TARGETS: dict[str, Target] = plugins.watch({})


def target(t: Target) -> Target:
    waiting = _PLUGIN_TARGETS if plugins.loading() else _TARGETS
    if t.name in waiting:
        raise ValueError(f"target {t.name} defined twice")
    waiting[t.name] = t
    return t


def add_plugin_targets() -> None:
    """Register the plugins' targets after the built-in ones; one whose name is taken is left
    out with one line (its plugin's solvers stay)."""
    for name in list(_PLUGIN_TARGETS):
        t = _PLUGIN_TARGETS.pop(name)
        if name in _TARGETS:
            plugins.report(f"graphrepro: a plugin's target {name} left out: a target of that "
                           "name is already registered")
        else:
            _TARGETS[name] = t


def published(document: str) -> pd.DataFrame:
    """The document's published values, transcribed once with table/figure and place."""
    path = resources.files("graphrepro.published") / f"{document}.csv"
    if not path.is_file():
        return pd.DataFrame(columns=["item", "where", "row", "column", "value", "unit", "note"])
    with path.open() as f:
        return read_csv(f, dtype=str, keep_default_na=False)
