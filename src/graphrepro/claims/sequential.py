"""When to stop adding sources to a claim: a group-sequential design over the seeded sources.

Sources are taken in their fixed seeded draw order (``harness.sources.draw_sources``, the order
reference run 3 used, so a prefix of a run is what a shorter run would have timed) and looked at
in batches: ``first`` sources, then ``batch`` more at each look, up to ``cap`` (the sources the
config gives the graph: 100 on the road graphs, the document's own N where it states one).

Looking at an interval after every batch and stopping the first time it looks decided would
spend the error once a look: five looks at 95% miss the truth far more often than 5% of the
time. So the interval judged at look k is a repeated confidence interval at the level an
alpha-spending function gives that look (Lan and DeMets, O'Brien-Fleming type: almost nothing
spent early, most of alpha kept for the cap); by the union bound, the chance that any look's
interval misses the truth is at most the spent total, 1 - LEVEL. A claim stops at the first look
where that interval, further widened by the measured run-to-run drift, clears the band's edges
under the rule's own classification (``rule._against``): the verdict is then the rule's, on the
sources taken so far, and no narrower 95% interval inside it can say otherwise. Sampling never
changes the rule, only how many sources it sees.

The rule's intervals are bootstraps at ``LEVEL``; a look's wider level is reached by scaling the
interval's two arms about ``ours`` by the ratio of normal quantiles (the bootstrap of a mean is
close to normal at these sample sizes; tests/test_sequential.py checks the coverage that results
by simulation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.stats import norm

from .rule import (LEVEL, Estimate, Evidence, Untestable, _against, _drifted, _num,
                   _timed_apart, _unvalidated, claim_band)

ALPHA = 1 - LEVEL


@dataclass(frozen=True)
class Design:
    """Looks at ``first``, ``first + batch``, ... sources, up to ``cap`` (or all there are);
    ``drift``: the measured run-to-run drift (relative, 0.02 for 2%) an interval must clear the
    band's edge by."""

    first: int = 10
    batch: int = 10
    cap: int | None = None  # None: every source the graph has (the config's sources for it)
    drift: float = 0.0

    def looks(self, available: int | None = None) -> list[int]:
        """The source counts looked at, the last one the cap (or every source there is)."""
        caps = [c for c in (self.cap, available) if c is not None]
        if not caps:
            raise ValueError("a design with no cap looks only at the sources there are")
        cap = min(caps)
        counts = list(range(min(self.first, cap), cap, max(1, self.batch)))
        return [*counts, cap] if not counts or counts[-1] != cap else counts

    def levels(self, available: int | None = None) -> list[float]:
        """Each look's coverage: 1 - the alpha spent on it (O'Brien-Fleming-type spending over
        the information fraction n / cap); their misses add up to at most ALPHA."""
        looks = self.looks(available)
        z = norm.ppf(1 - ALPHA / 2)
        spent = [2 - 2 * norm.cdf(z / math.sqrt(n / looks[-1])) for n in looks]
        per_look = np.diff([0.0, *spent])
        return [1 - max(a, 1e-12) for a in per_look]


def widen(ours, low, high, level: float):
    """A LEVEL interval's arms scaled about ``ours`` to ``level`` (arrays or floats)."""
    ratio = norm.ppf((1 + level) / 2) / norm.ppf((1 + LEVEL) / 2)
    return ours - (ours - low) * ratio, ours + (high - ours) * ratio


def _at_level(est: Estimate, level: float, claim, drift: float) -> Estimate:
    parts = {label: _at_level(e, level, claim, drift)
             for label, e in (est.parts_estimates or {}).items()}
    low, high = widen(est.ours, est.low, est.high, level)
    out = replace(est, low=low, high=high, parts_estimates=parts or None)
    return _drifted(out, Evidence(job_drift=drift), claim, None) if drift > 0 and not parts else out


def _one_armed(est: Estimate) -> bool:
    """An interval with one arm of no length about ``ours``: the bootstrap of an extreme over
    sources (a minimum's resamples never fall below it), which only moves one way as sources
    are added and is no normal-like interval to stop on."""
    return (est.low == est.ours) != (est.high == est.ours) and not est.exact


def decided(claim, evidence: Evidence, level: float, drift: float = 0.0,
            seed: int = 0) -> bool | None:
    """Whether the claim's interval at ``level``, widened by ``drift``, clears the band's edges:
    True decided, False not yet, None never by more sources (not testable, sides timed apart
    with no drift, unvalidated values, a best parameter, judged on its resamples' share, and an
    extreme over sources): those are judged on every source."""
    if isinstance(evidence, Untestable) or str(claim.get("untestable") or "").strip():
        return None
    if claim["kind"] == "best parameter":
        return None
    if _unvalidated(evidence) or (claim["kind"] != "existence-limit"
                                  and _timed_apart(evidence, evidence.job_drift)):
        return None  # the rule refuses it, or holds it inconclusive, at any n
    est = evidence.estimate(np.random.default_rng(seed))
    est = _drifted(est, evidence, claim, evidence.job_drift)
    if not all(map(math.isfinite, (est.low, est.high))):
        return None
    if any(_one_armed(e) for e in (est, *(est.parts_estimates or {}).values())):
        return None
    est = _at_level(est, level, claim, drift)
    band, null = claim_band(claim), _num(claim.get("null"))
    verdicts = [_against(claim["kind"], band, null, e)[0]
                for e in (est.parts_estimates or {"": est}).values()]
    if est.parts_estimates and not est.readings and "not reproduced" in verdicts:
        return True  # one part outside the band breaks a claim over parts, whatever the rest
    if any(e.exact for e in (est, *(est.parts_estimates or {}).values())):
        # a count's range only widens with sources: a counterexample is final, a fit is not
        return "not reproduced" in verdicts
    return "inconclusive" not in verdicts


@dataclass
class Stop:
    n: int
    reason: str  # "decided at 20 sources", "cap (100 sources)", "not sampled: ..."


def stop_at(design: Design, available: int, is_decided) -> Stop:
    """The first look whose interval decides (``is_decided(n, level)``: True, False or None),
    else the cap."""
    looks = Looks(design, available, lambda n, level, _tables: is_decided(n, level))
    for n in looks.counts:
        if looks(n, None) or looks.undecidable:
            break
    return looks.stop if looks.stop else Stop(looks.counts[-1], looks.cap_reason())


class Looks:
    """Sources taken in batches until the claims decide: called after each source (``n`` taken,
    ``tables()`` what they gave), it asks ``decide(n, level, tables)`` at each look (True, False
    or None, as ``decided``) and says whether to stop; ``stop`` then says where and why. Once a
    look says None (more sources cannot decide), the run goes on to the cap without asking."""

    def __init__(self, design: Design, available: int, decide):
        self.counts = design.looks(available)
        self.level = dict(zip(self.counts, design.levels(available)))
        self.decide, self.taken, self.undecidable = decide, [], False
        self.stop: Stop | None = None

    def cap_reason(self) -> str:
        cap = self.counts[-1]
        # the count in both, for plan.expected_n
        return f"cap ({cap} sources)" + (": more sources cannot decide it" if self.undecidable else "")

    def __call__(self, n: int, tables) -> bool:
        if n not in self.level:
            return False
        self.taken.append(n)
        if not self.undecidable:
            verdict = self.decide(n, self.level[n], tables)
            self.undecidable = verdict is None
            if verdict:
                self.stop = Stop(n, f"decided at {n} sources")
                return True
        if n == self.counts[-1]:
            self.stop = Stop(n, self.cap_reason())
            return True
        return False


def prefix(runs, n: int):
    """The rows of the first ``n`` sources of each graph, in their seeded draw order (the order
    the run tables list them: shards are merged in order)."""
    if runs is None or len(runs) == 0 or "source" not in runs or "graph" not in runs:
        return runs
    keep = np.zeros(len(runs), dtype=bool)
    for _, rows in runs.groupby("graph", sort=False).indices.items():
        sources = runs["source"].to_numpy()[rows]
        first = list(dict.fromkeys(s for s in sources if s == s))[:n]  # s == s: not NaN
        keep[rows] = np.isin(sources, first) | (sources != sources)
    return runs[keep]


def sources_in(runs) -> int:
    """The most sources any graph of the runs has (0 with no sources column)."""
    if runs is None or len(runs) == 0 or "source" not in runs or "graph" not in runs:
        return 0
    return int(runs.dropna(subset=["source"]).groupby("graph")["source"].nunique().max())
