"""The one verdict rule: an interval from the runs, judged against the band the document gives.

Every claim of every document is judged here and nowhere else. A target's evidence function
(``experiments/<document>.py``) only picks numbers out of its run tables and wraps them in one
of the evidence types below; this module turns them into ``ours`` with an interval, and the
interval, set against the claim's published band, into one of five verdicts:

- ``reproduced``: the whole interval sits inside the band (not just past one end of it);
- ``direction only``: the interval lies outside the band but on the band's side of the claim's
  null (a ratio of 1, a difference of 0): the ordering or sign holds, the magnitude does not;
- ``not reproduced``: the interval lies outside the band, on the other side of the null or with
  no null to keep;
- ``inconclusive``: the interval straddles an edge of the band: the difference is inside our own
  source-to-source or run-to-run variation; or it rests on a value extrapolated from a partial
  run that no finished run validates (:class:`Validated` with no error); or it speaks of a
  whole set ("every graph", "the seven graphs") and holds on the part of it judged here (the
  reason says "on 2 of 7 graphs only");
- ``not testable here``: the claim needs hardware, data or an algorithm this study does not have,
  or the run that would test it did not happen here (the reason says which).

Kinds: ``magnitude`` (a value or ratio), ``ordering`` (A faster than B: a ratio against 1),
``best parameter`` (the argmin of a sweep), ``trend`` (a fitted growth exponent or slope) and
``existence-limit`` (a bound every measurement must meet, or a thing that must happen).
Magnitudes and trends can be ``direction only``; orderings and limits either hold or they do not.
A claim open to several readings the document does not choose between (:class:`Readings`) is
judged under each and shows every reading's number; its verdict is the one all readings support,
else ``inconclusive`` (no favourable reading is picked). Where the document names its own
setting, the evidence gives that reading alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .bands import Band, _fmt, _num, claim_band, printed_band  # noqa: F401 (re-exported)

VERDICTS = ("reproduced", "direction only", "not reproduced", "inconclusive", "not testable here")
KINDS = ("magnitude", "ordering", "best parameter", "trend", "existence-limit")
RESAMPLES = 2000  # bootstrap resamples; the seed is fixed so a ledger rebuilds bit for bit
LEVEL = 0.95  # the intervals' coverage
SURE = 0.95  # a best parameter is reproduced when it is the argmin in this share of resamples


# The band a claim is judged against is claims/bands.py's: written once there, evenly.


# --- evidence: what a target hands to the rule ------------------------------------------------

@dataclass
class Estimate:
    ours: float
    low: float
    high: float
    interval: str  # how the interval was made, in words
    replicates: np.ndarray | None = None  # best parameter: the argmin of every resample
    parts_estimates: dict | None = None  # Across: each part's own estimate, by label
    exact: bool = False  # counted: a value outside the band is a counterexample, not noise
    # one measured value and nothing to weigh its distance from the band against (one unit, one
    # run, an unvalidated extrapolation, a fit through one point per x); many units that agree
    # exactly are an interval of zero width, not this
    single: bool = False
    readings: bool = False  # Readings: the parts are readings of the claim, not graphs it spans


@dataclass
class Evidence:
    """Numbers behind one claim. ``n`` says what stands behind ``ours`` (sources x trials, or
    blocks), ``data`` what the graphs were (real, real topology, stand-in: which), ``detail``
    one clause of numbers the reason sentence quotes (e.g. "Harish 145 ms, LBR 12.4 ms")."""

    n: str = ""
    data: str = ""
    detail: str = ""
    # the tables the numbers came from: (graph, run id) for a run table, a name for a benchmark
    # table; the ledger's run, sources, trials, device and data_kind are computed from these
    reads: tuple = ()
    # the jobs (one per run record: its start and card) each side of a comparison was timed in;
    # sides timed in different jobs decide nothing unless ``job_drift`` says how far a job's
    # timings were measured to move against another's (relative, e.g. 0.26 for 1.26x)
    jobs: tuple = ()
    job_drift: float | None = None
    drift_basis: str = ""  # what measured job_drift, for the interval's words
    # job_drift came from the jobs' anchors (claims/anchors.py), a drift between jobs that the
    # passes inside one job (Bootstrap.drift) do not show: it widens such an interval too
    drift_from_anchors: bool = False

    def estimate(self, rng: np.random.Generator) -> Estimate:  # pragma: no cover (abstract)
        raise NotImplementedError


@dataclass
class Untestable(Evidence):
    """The claim cannot be tested by this run: ``reason`` says why (hardware, data, algorithm,
    or the run that would test it did not happen here). ``ours`` may still carry a value we
    measured, shown beside the published one but not judged."""

    reason: str = ""
    ours: float | None = None


@dataclass
class Bootstrap(Evidence):
    """A statistic of paired observations, its interval a percentile bootstrap over the units
    (the rows of each group; groups, e.g. graphs, are resampled each within itself).

    ``groups``: arrays of shape (units, columns); ``statistic``: list of arrays -> float.
    """

    groups: Sequence[np.ndarray] = ()
    statistic: Callable[[list], float] | None = None
    units: str = "sources"
    # Run-to-run drift (as Sweep.drift): where each column of a group is a run timed apart from
    # the others, not interleaved with them, each resample scales each column by exp(+-d), d
    # drawn from these observed drifts between passes, so the interval holds what a pass's
    # drift could do to the comparison
    drift: Sequence[float] = ()

    def estimate(self, rng):
        groups = [np.asarray(g, dtype=float).reshape(len(g), -1) for g in self.groups]
        ours = float(self.statistic(groups))
        if all(len(g) < 2 for g in groups):
            return Estimate(ours, ours, ours, f"one {self.units[:-1]}: no interval", single=True)
        drift = np.abs(np.asarray(self.drift, dtype=float))
        reps = np.empty(RESAMPLES)
        for i in range(RESAMPLES):
            sample = [g[rng.integers(0, len(g), len(g))] for g in groups]
            if len(drift):
                sample = [g * np.exp(rng.choice(drift, g.shape[1])
                                     * rng.choice((-1.0, 1.0), g.shape[1])) for g in sample]
            reps[i] = self.statistic(sample)
        lo, hi = np.nanquantile(reps, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
        text = f"{LEVEL:.0%} bootstrap over {self.units}"
        if len(drift):
            text += f", with the drift seen between passes (up to {np.expm1(drift.max()):.1%})"
        return Estimate(ours, float(min(lo, ours)), float(max(hi, ours)), text)


@dataclass
class Spread(Evidence):
    """Repeated runs with no units to resample (one source, a few trials; or benchmark cells):
    ``ours`` is their mean, the interval their measured spread, min to max."""

    values: Sequence[float] = ()
    what: str = "repeated runs"

    def estimate(self, rng):
        v = np.asarray(self.values, dtype=float)
        v = v[np.isfinite(v)]
        return Estimate(float(v.mean()), float(v.min()), float(v.max()),
                        f"measured spread (min-max) of {len(v)} {self.what}", single=len(v) < 2)


@dataclass
class Exact(Evidence):
    """A counted quantity (launches, round trips, statements, vertices): no sampling error. Its
    interval is the range of the counts over the runs, ``ours`` their median; a range that
    crosses the band's edge is not reproduced (a counterexample), never inconclusive."""

    values: Sequence[float] = ()
    what: str = "runs"

    def estimate(self, rng):
        v = np.asarray(self.values, dtype=float)
        v = v[np.isfinite(v)]
        text = "counted" if v.min() == v.max() else f"counted; range over {len(v)} {self.what}"
        return Estimate(float(np.median(v)), float(v.min()), float(v.max()), text, exact=True)


@dataclass
class Validated(Evidence):
    """One value that rests on no repeated runs of its own: extrapolated from a run stopped part
    way, or a single run compared across runs. ``error``: its relative error as measured
    elsewhere (the extrapolation's error on cells that finished, or the run-to-run variation of
    a run that was repeated), ``basis`` says on what; the interval is value / (1 + error) to
    value x (1 + error). ``error=None``: nothing validates it, and the claim it stands in is
    ``inconclusive`` (``basis`` says why) whatever its value."""

    value: float = math.nan
    error: float | None = None
    basis: str = ""

    def estimate(self, rng):
        v = float(self.value)
        if self.error is None:
            return Estimate(v, v, v, f"unvalidated: {self.basis}", single=True)
        lo, hi = sorted((v / (1 + self.error), v * (1 + self.error)))
        return Estimate(v, lo, hi, f"value +- {self.error:.0%} ({self.basis})" if self.error
                        else self.basis)


@dataclass
class Across(Evidence):
    """One claim made of several (a range over graphs, "on every graph"): ``ours`` is the median
    of the parts, the interval runs from the lowest part's low end to the highest part's high
    end. Each part is judged against the band on its own, and the claim takes the worst of
    their verdicts: reproduced only where every part's interval is inside the band."""

    parts: Sequence[Evidence] = ()
    labels: Sequence[str] = ()
    what: str = "graphs"
    # the claim's whole set ("every graph", "the seven graphs"): how many parts it speaks of.
    # Judged on fewer, it is at best shown on part of its scope, never reproduced (issue 30)
    whole: int | None = None

    def estimate(self, rng):
        ests = [p.estimate(rng) for p in self.parts]
        kinds = sorted({e.interval for e in ests})
        return Estimate(float(np.median([e.ours for e in ests])), min(e.low for e in ests),
                        max(e.high for e in ests),
                        f"lowest to highest of {len(ests)} {self.what}, each " + "; ".join(kinds),
                        parts_estimates=dict(zip(self.labels or range(len(ests)), ests)))


@dataclass
class Readings(Evidence):
    """One claim the document leaves open to several readings (which weights its runs used, when
    it does not say): each reading is judged on its own and shown; the claim's verdict is the
    one every reading supports, else inconclusive. ``ours`` is the first reading's."""

    parts: Sequence[Evidence] = ()
    labels: Sequence[str] = ()

    def estimate(self, rng):
        ests = [p.estimate(rng) for p in self.parts]
        return Estimate(float(ests[0].ours), min(e.low for e in ests), max(e.high for e in ests),
                        "; ".join(f"{label}: {e.interval}" for label, e in zip(self.labels, ests)),
                        parts_estimates=dict(zip(self.labels, ests)), readings=True)


@dataclass
class Sweep(Evidence):
    """A parameter sweep for a best-parameter claim. ``groups``: per graph, an array (units x
    parameters) of times, paired within a unit; the best parameter minimises the mean over
    graphs of each graph's mean time relative to its own average (so no graph dominates)."""

    params: Sequence = ()
    groups: Sequence[np.ndarray] = ()
    units: str = "sources"
    # Run-to-run drift the units cannot show. Where the parameters were not timed interleaved
    # (each in a pass of its own, at its own time), a whole pass can run slow or fast, as the
    # passes over the same sources of one parameter show (trial 0 against trial 1 of k = 1 on
    # ny_w10: 3.4% apart, against a 1.5% gap between k = 3 and 4). ``drift``: those observed
    # relative drifts between passes (|log| of one pass's mean over another's); each resample
    # scales each parameter's times by exp(+-d), d drawn from them, independently per parameter.
    drift: Sequence[float] = ()

    def _argmin(self, groups) -> int:
        score = np.zeros(len(self.params))
        for g in groups:
            means = g.mean(axis=0)
            score += means / means.mean()
        return int(np.argmin(score))

    def estimate(self, rng):
        groups = [np.asarray(g, dtype=float) for g in self.groups]
        best = self._argmin(groups)
        drift = np.abs(np.asarray(self.drift, dtype=float))
        reps = np.empty(RESAMPLES, dtype=int)
        for r in range(RESAMPLES):
            sample = [g[rng.integers(0, len(g), len(g))] for g in groups]
            if len(drift):  # each (graph, parameter) was a pass of its own: its own drift
                sample = [g * np.exp(rng.choice(drift, g.shape[1])
                                     * rng.choice((-1.0, 1.0), g.shape[1])) for g in sample]
            reps[r] = self._argmin(sample)
        values = np.array([_as_float(self.params[i]) for i in reps])
        lo, hi = np.quantile(values, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
        text = f"{LEVEL:.0%} bootstrap over {self.units} of the argmin"
        if len(drift):
            text += (f", each parameter's pass drifting as passes were seen to (up to "
                     f"{np.expm1(drift.max()):.1%}: its runs were not interleaved)")
        return Estimate(_as_float(self.params[best]), float(lo), float(hi), text,
                        replicates=np.array([self.params[i] for i in reps], dtype=object))


def _as_float(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


@dataclass
class Fit(Evidence):
    """A growth exponent: the slope of log(y) on log(x) by least squares (``log_x=False``: of
    log(y) on x), its interval a bootstrap resampling the repeated observations at each x."""

    xs: Sequence[float] = ()
    ys: Sequence[Sequence[float]] = ()  # per x, its repeated observations
    log_x: bool = True
    units: str = "sources"
    counted: bool = False  # ys are counts (bytes moved, blocks read): the slope has no noise

    def _slope(self, ys) -> float:
        x = np.log(self.xs) if self.log_x else np.asarray(self.xs, dtype=float)
        y = np.log([np.mean(v) for v in ys])
        return float(np.polyfit(x, y, 1)[0])

    def estimate(self, rng):
        ys = [np.asarray(v, dtype=float) for v in self.ys]
        ours = self._slope(ys)
        if self.counted:
            return Estimate(ours, ours, ours, "least-squares fit of counts", exact=True)
        if all(len(v) < 2 for v in ys):
            return Estimate(ours, ours, ours, "least-squares fit, one observation per point",
                            single=True)
        reps = [self._slope([v[rng.integers(0, len(v), len(v))] for v in ys])
                for _ in range(RESAMPLES)]
        lo, hi = np.quantile(reps, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
        return Estimate(ours, float(min(lo, ours)), float(max(hi, ours)),
                        f"least-squares slope, {LEVEL:.0%} bootstrap over {self.units} at each point")


# --- the verdict ------------------------------------------------------------------------------

@dataclass
class Judgement:
    verdict: str
    reason: str
    ours: float | None = None
    low: float | None = None
    high: float | None = None
    interval: str = ""
    band: str = ""
    extra: dict = field(default_factory=dict)


def judge(claim, evidence: Evidence, seed: int = 0, job_drift: float | None = None) -> Judgement:
    """One claim record (a mapping with kind, published, low, high, null, untestable) and its
    evidence -> the verdict, with a one-sentence reason in numbers. ``job_drift``: the measured
    relative drift between the jobs its sides were timed in, where the evidence does not carry
    its own; a comparison timed across jobs with neither is refused (not testable here), and
    with it every interval is widened by that drift, so a single value is decided when its
    distance from the band exceeds the drift and stays inconclusive only when the drift covers it."""
    kind = claim["kind"]
    if kind not in KINDS:
        raise ValueError(f"claim {claim.get('claim_id')}: unknown kind {kind!r}; one of {KINDS}")
    fixed = str(claim.get("untestable") or "").strip()
    if fixed or isinstance(evidence, Untestable):
        why = fixed or evidence.reason
        ours = getattr(evidence, "ours", None)
        if ours is None and not isinstance(evidence, Untestable):
            ours = evidence.estimate(np.random.default_rng(seed)).ours
        return Judgement("not testable here", why + (f" (ours {_fmt(ours)}, not judged)"
                                                     if ours is not None else ""), ours=ours)
    apart = [] if kind == "existence-limit" else _timed_apart(evidence, job_drift)
    if apart:
        ours = evidence.estimate(np.random.default_rng(seed)).ours
        return Judgement("not testable here", "sides timed apart: " + "; ".join(apart)
                         + " were timed in different jobs, and no drift between those jobs was "
                           f"measured to widen the interval by (ours {_fmt(ours)}, not judged)",
                         ours=ours)
    band = claim_band(claim)
    unvalidated = _unvalidated(evidence)
    if unvalidated:  # an extrapolation nothing checked decides nothing, whatever its value
        bases: dict = {}
        for label, u in unvalidated:
            bases.setdefault(u.basis, []).append(f"{label} {_fmt(u.value)}".strip())
        est = evidence.estimate(np.random.default_rng(seed))
        return Judgement("inconclusive", "rests on values nothing validates: " + "; ".join(
            f"{', '.join(values)} ({basis})" for basis, values in bases.items())
            + (f"; {evidence.detail}" if evidence.detail else ""), est.ours, est.low, est.high,
            est.interval, str(band))
    est = evidence.estimate(np.random.default_rng(seed))
    if kind != "best parameter":
        est = _drifted(est, evidence, claim, job_drift)
    if not all(map(math.isfinite, (est.low, est.high))) and kind != "best parameter":
        return Judgement("not testable here", f"no finite measurement ({evidence.detail})".rstrip(" ()"),
                         band=str(band))
    said = f"ours {_fmt(est.ours)} ({_fmt(est.low)}-{_fmt(est.high)})"
    if est.low == est.high:
        said = f"ours {_fmt(est.ours)}"
    detail = f"; {evidence.detail}" if evidence.detail else ""
    null = _num(claim.get("null"))
    j = Judgement("", "", est.ours, est.low, est.high, est.interval, str(band))
    if kind == "best parameter":
        named = {_key(v) for v in band.values}
        share = float(np.mean([_key(r) in named for r in est.replicates]))
        best = _fmt(est.ours) if math.isfinite(est.ours) else str(est.replicates[0])
        if share >= SURE:
            j.verdict = "reproduced"
        elif share <= 1 - SURE:
            j.verdict = "not reproduced"
        else:
            j.verdict = "inconclusive"
        j.reason = (f"best {best}; the published {band} is the best in {share:.0%} of "
                    f"{RESAMPLES} resamples{detail}")
        return j
    if est.parts_estimates and est.readings:
        verdicts = {label: _against(kind, band, null, e)[0]
                    for label, e in est.parts_estimates.items()}
        agreed = set(verdicts.values())
        j.verdict = agreed.pop() if len(agreed) == 1 else "inconclusive"
        j.reason = (f"the document does not say which reading; against the published {band}: "
                    + ", ".join(f"{lb} {_fmt(x.ours)} ({_fmt(x.low)}-{_fmt(x.high)}) "
                                f"{_part_word(verdicts[lb], x)}"
                                for lb, x in est.parts_estimates.items())
                    + ("; every reading agrees" if len(set(verdicts.values())) == 1 else
                       "; the readings disagree, so the claim is not decided") + detail)
        return j
    if est.parts_estimates:
        verdicts = {label: _against(kind, band, null, e)[0]
                    for label, e in est.parts_estimates.items()}
        j.verdict = next(v for v in _PRECEDENCE if v in verdicts.values())
        scope = ""
        whole = getattr(evidence, "whole", None)
        if whole and whole > len(verdicts):
            scope = f"on {len(verdicts)} of {whole} {getattr(evidence, 'what', 'parts')} only: "
            if j.verdict == "reproduced":  # the rest could break it: shown on part, no more
                j.verdict = "inconclusive"
        j.reason = (scope + f"against the published {band}: "
                    + ", ".join(f"{label} {_fmt(e.ours)} ({_fmt(e.low)}-{_fmt(e.high)}) "
                                f"{_part_word(verdicts[label], e)}"
                                for label, e in est.parts_estimates.items()) + detail)
        return j
    j.verdict, where = _against(kind, band, null, est)
    j.reason = f"{said} {where.format(band=band)}" + detail
    return j


def _timed_apart(evidence: Evidence, job_drift: float | None, label: str = "") -> list:
    """Labels of the comparisons behind a claim whose sides were timed in different jobs with no
    measured drift between them (its own, a containing claim's, or the one judge was given)."""
    drift = evidence.job_drift if evidence.job_drift is not None else job_drift
    parts = getattr(evidence, "parts", ()) or ()
    if parts:
        labels = list(getattr(evidence, "labels", ()) or []) or [""] * len(parts)
        return [x for lb, p in zip(labels, parts) for x in _timed_apart(p, drift, str(lb))]
    if isinstance(evidence, (Exact, Untestable)) or drift is not None:
        return []
    jobs = [j for j in dict.fromkeys(evidence.jobs) if j]
    if len(jobs) < 2:
        return []
    return [(f"{label}: " if label else "") + " and ".join(str(j) for j in jobs)]


def _drifted(est: Estimate, evidence: Evidence, claim, job_drift: float | None) -> Estimate:
    """The estimate with its interval (and its parts') widened by the drift measured between the
    jobs its sides were timed in, where there is one: as far as that drift could move it."""
    drift = evidence.job_drift if evidence.job_drift is not None else job_drift
    if est.parts_estimates:
        labels = list(est.parts_estimates)
        for label, part in zip(labels, getattr(evidence, "parts", ())):
            est.parts_estimates[label] = _drifted(est.parts_estimates[label], part, claim, drift)
        parts = list(est.parts_estimates.values())
        est.low, est.high = min(e.low for e in parts), max(e.high for e in parts)
        return est
    if drift is None or est.exact or not drift > 0 or isinstance(evidence, Validated):
        return est  # a Validated value's error is already the variation measured between runs
    if isinstance(evidence, (Bootstrap, Sweep)) and len(evidence.drift) and not (
            evidence.drift_from_anchors and evidence.job_drift is not None):
        return est  # its resamples already let each side drift by the drifts measured
    if isinstance(evidence, Fit):
        # a slope of log y, sum w_i log y_i: each point's job ran at its own speed, no two more
        # than 1 + drift apart, so the slope moves by at most log(1 + drift) times the positive
        # weights' sum (half of sum |w|: the weights sum to 0)
        x = np.log(evidence.xs) if evidence.log_x else np.asarray(evidence.xs, dtype=float)
        w = (x - x.mean()) / ((x - x.mean()) ** 2).sum()
        shift = math.log1p(drift) * float(np.abs(w).sum()) / 2
        low, high = est.low - shift, est.high + shift
    elif str(claim.get("unit") or "").startswith("%") and _num(claim.get("null")) == 0:
        # a speedup in %, 100 (1 - ratio): the ratio of times is what drifts
        low = 100 * (1 - (1 - est.low / 100) * (1 + drift))
        high = 100 * (1 - (1 - est.high / 100) / (1 + drift))
    else:
        low, high = est.low / (1 + drift), est.high * (1 + drift)
    basis = f": {evidence.drift_basis}" if evidence.drift_basis else ""
    return Estimate(est.ours, min(low, high), max(low, high),
                    f"{est.interval}, widened by the drift measured between jobs ({drift:.0%}"
                    f"{basis})",
                    est.replicates, est.parts_estimates, est.exact, False, est.readings)


def _unvalidated(evidence: Evidence) -> list:
    """(label, part) of the Validated values with no error behind a claim (itself, or the
    parts of an Across)."""
    if isinstance(evidence, Across):
        labels = list(evidence.labels) or [""] * len(evidence.parts)
        pairs = list(zip(labels, evidence.parts))
    else:
        pairs = [("", evidence)]
    return [(label, p) for label, p in pairs if isinstance(p, Validated) and p.error is None]


# An Across claim takes its parts' worst verdict: one part outside the band breaks it.
_PRECEDENCE = ("not reproduced", "direction only", "inconclusive", "reproduced")
_WORD = {"reproduced": "inside", "direction only": "outside, on the band's side of the null",
         "not reproduced": "outside", "inconclusive": "straddling"}


def _part_word(verdict: str, est: Estimate) -> str:
    if verdict == "inconclusive" and est.single:
        return "one value, no interval"
    return _WORD[verdict]


def _against(kind: str, band: Band, null: float | None, est: Estimate) -> tuple[str, str]:
    """(verdict, where the interval lies: a phrase with a {band} slot)."""
    if kind in ("magnitude", "trend") and est.single and not est.exact:
        # one value: nothing to weigh its distance from the band against
        return "inconclusive", f"is one value with no interval ({est.interval}), against the published {{band}}"
    if band.above_low(est.low) and est.high <= band.high:
        return "reproduced", "lies inside the published {band}"
    above, below = est.low > band.high, not band.above_low(est.high)
    if above or below:
        side = "above" if above else "below"
        # an ordering whose word asks for more than the null ("significantly", "dramatically")
        # holds in direction where the interval is past the null but short of the word's band
        hedged = kind == "ordering" and null is not None and band.low > null
        same_side = null is not None and (kind in ("magnitude", "trend") or hedged) and (
            (band.low >= null and est.low > null) or (band.high <= null and est.high < null))
        if same_side:
            return "direction only", f"is {side} the published {{band}}, on its side of {_fmt(null)}"
        return "not reproduced", f"is {side} the published {{band}}"
    edge = band.low if est.low < band.low <= est.high else band.high
    if est.exact:  # counts have no noise: a run past the edge breaks the claim
        return "not reproduced", f"crosses the published {{band}} at {_fmt(edge)} (counted)"
    return "inconclusive", f"straddles the published {{band}} at {_fmt(edge)}"


def _key(v):
    f = _as_float(v)
    return f if math.isfinite(f) else str(v)
