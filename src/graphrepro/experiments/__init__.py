"""The study's targets: one per published table or figure, each a named snakemake target.

A target names the document and item it reproduces, the solvers whose runs it needs, a
function that puts the published values (``graphrepro/published/<document>.csv``) beside ours,
and an evidence function that turns its runs into the numbers behind each of its claims
(``graphrepro/published/claims/<document>.csv``), judged by the one rule in graphrepro.claims.
Targets whose code does not exist yet are listed as planned, with the issue that builds them.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Callable

import pandas as pd


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
    prints: bool = False  # a benchmark: `compare` also prints its table to standard output

    @property
    def ready(self) -> bool:
        return self.compare is not None


_TARGETS: dict[str, Target] = {}


def target(t: Target) -> Target:
    if t.name in _TARGETS:
        raise ValueError(f"target {t.name} defined twice")
    _TARGETS[t.name] = t
    return t


def all_targets() -> list[Target]:
    # Registration order is the report's order within a document: safari2017's own tables first,
    # then the CPU baselines filed under it; the planned ones last.
    from . import safari2017, baselines, senthilkumar, singla, an2017  # noqa: F401, I001
    from . import gerritsen2012_mst, gerritsen2012_sssp  # noqa: F401
    from . import frontier  # noqa: F401  (today's best, beside the documents: issue 21)
    from . import planned  # noqa: F401

    return list(_TARGETS.values())


def get_target(name: str) -> Target:
    for t in all_targets():
        if t.name == name:
            return t
    from ..errors import InputError

    raise InputError(f"unknown target {name!r}; `python -m graphrepro targets` lists them")


def published(document: str) -> pd.DataFrame:
    """The document's published values, transcribed once with table/figure and place."""
    path = resources.files("graphrepro.published") / f"{document}.csv"
    if not path.is_file():
        return pd.DataFrame(columns=["item", "where", "row", "column", "value", "unit", "note"])
    with path.open() as f:
        return pd.read_csv(f, dtype=str, keep_default_na=False)
