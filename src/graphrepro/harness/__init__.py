"""The measurement harness: seeded sources, warm-up, repeated trials, device timers, tidy tables."""

from .measure import RunSpec, measure, measure_interleaved
from .provenance import provenance
from .sources import draw_sources

__all__ = ["RunSpec", "measure", "measure_interleaved", "provenance", "draw_sources"]
