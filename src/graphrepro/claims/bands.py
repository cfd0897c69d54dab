"""The band a claim is judged against, written once, evenly, for every document.

- A timing ratio ("3.36x", "2x slower", a speedup in % of (A - B) / A) gets one relative
  tolerance, RATIO_TOLERANCE, whatever digits it was printed with, unless the claim row gives its
  own ``low``/``high`` (where the document states its precision: two printed times whose ratio
  it quotes, a range it gives).
- A hedge word sets the band its number stands for (HEDGES, each with its source sentence in
  tests/test_claims.py): "about", "around", "nearly" either side; "almost" just under;
  "significantly" and "considerably" beyond the tolerance; "dramatically", "huge" and "far" a
  factor of two or more.
- Any other printed number stands for half a unit of its last printed digit either side.
- One-sided words are one-sided: an ordering ("faster", "reduced") is met only strictly past its
  null, so an exact 1 is no reduction.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# A timing ratio printed with no spread is one machine's mean of a few runs. The documents' own
# repeated runs are not given, and ours of one comparison on one machine move by several percent
# (passes of one run: up to 3.4% on ny_w10), so a ratio within 10% of the printed one cannot be
# told from it by the document's own method. 10% is also what the hedge "about" promises, so a
# bare "2x" and "about 2x" are judged alike, and "3.36x" is no narrower than "1.5x" or "2x".
RATIO_TOLERANCE = 0.10
# "dramatically", "huge", "far": a difference of a factor of two or more
LARGE_FACTOR = 2.0


@dataclass(frozen=True)
class Band:
    low: float = -math.inf
    high: float = math.inf
    values: tuple = ()  # best parameter: the parameter values the claim names
    open_low: bool = False  # a one-sided word: the low end itself is not inside

    def __str__(self) -> str:
        if self.values:
            return " or ".join(_fmt(v) for v in self.values)
        if self.low == -math.inf:
            return f"<= {_fmt(self.high)}"
        if self.high == math.inf:
            return f"{'>' if self.open_low else '>='} {_fmt(self.low)}"
        return _fmt(self.low) if self.low == self.high else f"{_fmt(self.low)}-{_fmt(self.high)}"

    def above_low(self, value: float) -> bool:
        return value > self.low if self.open_low else value >= self.low


_NUMBER = re.compile(r"[-+]?(\d[\d,]*)(\.(\d+))?")

# The hedge words and the band each stands for (word -> kind of band). Magnitudes read the hedge
# off their published value ("about 440", "almost 50%"), orderings off the claim's sentence
# ("a huge gap", "dramatically reduced"), where the word qualifies the ordering itself.
HEDGE = RATIO_TOLERANCE  # "about 440": 10% either side
HEDGES = {
    "about": "either side", "around": "either side", "nearly": "either side",
    "roughly": "either side", "approximately": "either side", "~": "either side",
    "almost": "just under",
    "significantly": "beyond the tolerance", "significant": "beyond the tolerance",
    "considerably": "beyond the tolerance", "considerable": "beyond the tolerance",
    "dramatically": "a large factor", "huge": "a large factor", "far": "a large factor",
}
# "far" not inside "near-far"; "~" has no word boundary
_WORDS = re.compile(r"(?<![\w-])(" + "|".join(w for w in HEDGES if w != "~") + r")(?![\w-])|~",
                    re.I)


def hedge_of(text: str, kinds=None) -> str | None:
    """The first hedge word in ``text`` (of the given band kinds), lower case, or None."""
    for m in _WORDS.finditer(str(text or "")):
        word = m.group(0).lower()
        if kinds is None or HEDGES[word] in kinds:
            return word
    return None


def printed_band(text: str) -> Band:
    """The band a printed number stands for when the document gives no band of its own: half a
    unit of its last printed digit either side, every printed digit significant ("3.36" ->
    3.355-3.365; "10" -> 9.5-10.5, not 5-15: a round number is no vaguer than "11"), or, for a
    hedged number, its hedge's band ("about 440": HEDGE either side; "almost 50%": 45-50)."""
    m = _NUMBER.search(str(text))
    if not m:
        raise ValueError(f"no number in the published value {text!r}")
    decimals = m.group(3)
    value = float(m.group(0).replace(",", ""))
    word = hedge_of(text, ("either side", "just under"))
    if word and HEDGES[word] == "just under":
        return Band(*sorted((value * (1 - HEDGE), value)))
    if word:
        return Band(*sorted((value * (1 - HEDGE), value * (1 + HEDGE))))
    half = 0.5 * 10.0 ** -len(decimals) if decimals else 0.5
    return Band(value - half, value + half)


def ratio_band(value: float, gain: bool = False) -> Band:
    """RATIO_TOLERANCE around a timing ratio (``gain``: a speedup in %, 100 (1 - ratio))."""
    if not gain:
        return Band(value / (1 + RATIO_TOLERANCE), value * (1 + RATIO_TOLERANCE))
    r = 1 - value / 100
    return Band(*sorted((100 * (1 - r * (1 + RATIO_TOLERANCE)),
                         100 * (1 - r / (1 + RATIO_TOLERANCE)))))


def is_timing_ratio(claim) -> bool:
    """A magnitude that is a ratio of times: unit "x", or a speedup in % of a difference of times
    over one of them (null 0; a share of a time, null 50 or none, is not)."""
    unit = str(claim.get("unit") or "").strip()
    null = _num(claim.get("null"))
    return claim["kind"] == "magnitude" and (unit == "x" or (unit.startswith("%") and null == 0))


def claim_band(claim) -> Band:
    """The band of one claim record: its ``low``/``high`` (an empty side is open), its
    ``published`` parameter value(s) for a best parameter, a timing ratio's tolerance, a hedge's
    band, else the printed precision; an ordering's band is open at its null."""
    return explained_band(claim)[0]


def band_basis(claim) -> str:
    """Which of :func:`claim_band`'s rules set the claim's band, in words (the ledger's
    ``band_basis``): derived, so no note in a claims file has to say it, or can say it wrong."""
    return explained_band(claim)[1]


def explained_band(claim) -> tuple[Band, str]:
    """(:func:`claim_band`, :func:`band_basis`): one walk through the rules, so the band and
    the words for it cannot part."""
    low, high = _num(claim.get("low")), _num(claim.get("high"))
    if claim["kind"] == "best parameter":
        values = claim.get("low") if low is not None else claim["published"]
        parts = [p for p in re.split(r"[;,]| or ", str(values)) if p.strip()]
        names = [_num(_NUMBER.search(p).group(0)) if _NUMBER.search(p) else p.strip() for p in parts]
        return Band(values=tuple(names)), "the parameter value(s) the document names"
    if low is not None or high is not None:
        band = Band(-math.inf if low is None else low, math.inf if high is None else high)
        basis = "the claim row's own low/high: a range or precision the document states"
    elif is_timing_ratio(claim) and not hedge_of(claim["published"], ("just under",)):
        value = float(_NUMBER.search(str(claim["published"])).group(0).replace(",", ""))
        band = ratio_band(value, gain=str(claim.get("unit") or "").startswith("%"))
        basis = (f"a timing ratio: {RATIO_TOLERANCE:.0%} either side"
                 + (" of the ratio behind the speedup" if str(claim.get("unit") or "")
                    .startswith("%") else ""))
    else:
        band = printed_band(claim["published"])
        word = hedge_of(claim["published"], ("either side", "just under"))
        basis = (f"the hedge \"{word}\": " + ("just under" if HEDGES[word] == "just under" else
                                              f"{HEDGE:.0%} either side")) if word else \
            "the printed precision: half a unit of the last printed digit"
    if _UPPER.search(str(claim["published"])):  # a bound: anything at or under it meets it
        band = Band(-math.inf, band.high)
        basis += "; a bound from above (O() or \"at most\")"
    null = _num(claim.get("null"))
    if claim["kind"] == "ordering" and null is not None and band.low == null:
        word = hedge_of(claim.get("claim", ""), ("beyond the tolerance", "a large factor"))
        floor = {"beyond the tolerance": 1 + RATIO_TOLERANCE, "a large factor": LARGE_FACTOR}
        if word and null == 1:
            return (Band(floor[HEDGES[word]], band.high),
                    f"the hedge \"{word}\": at least {_fmt(floor[HEDGES[word]])}")
        return Band(band.low, band.high, open_low=True), "an ordering: strictly past its null"
    return band, basis


# O() and "at most" claims bound from above only: growing more slowly is no counterexample.
_UPPER = re.compile(r"^\s*O\(|\bat most\b", re.I)


def _num(value) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    if text == "":
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if not math.isfinite(v):
        return str(v)
    if float(v).is_integer() and abs(v) < 1e7:
        return f"{int(v):d}"
    return f"{v:.4g}"
