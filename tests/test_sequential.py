"""The sequential stopping rule (claims/sequential.py): its error is controlled, and a claim's n and
why sampling stopped reach the ledger."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from graphrepro.claims import ledger, sequential
from graphrepro.claims.rule import LEVEL, Bootstrap, Estimate, Evidence

DESIGN = sequential.Design(first=10, batch=10, cap=100)
BAND = (0.5, 1.0)  # a closed band; the truth sits on its upper edge, the hardest place to stop


def _looks_intervals(trials: int, seed: int):
    """(looks, means, 95% half-widths) of ``trials`` simulated runs of 100 sources whose true
    mean is the band's edge."""
    rng = np.random.default_rng(seed)
    x = rng.normal(BAND[1], 0.3, size=(trials, DESIGN.cap))
    looks = DESIGN.looks()
    means = np.stack([x[:, :n].mean(axis=1) for n in looks], axis=1)
    sds = np.stack([x[:, :n].std(axis=1, ddof=1) for n in looks], axis=1)
    return looks, means, norm.ppf((1 + LEVEL) / 2) * sds / np.sqrt(looks)


def _stopped_wrongly(levels, means, half) -> np.ndarray:
    """Per trial: whether it stopped at a look whose interval missed the truth (the edge): any
    decision there is one, as a decided interval lies off the edge."""
    low, high = sequential.widen(means, means - half, means + half, np.array(levels))
    decides = (high <= BAND[1]) & (low >= BAND[0]) | (low > BAND[1]) | (high < BAND[0])
    return decides.any(axis=1)


def test_stopping_rule_keeps_its_error_below_alpha_by_simulation():
    looks, means, half = _looks_intervals(4000, seed=1)
    alpha = 1 - LEVEL
    wrong = _stopped_wrongly(DESIGN.levels(), means, half).mean()
    assert wrong <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / 4000)
    # the simulation bites: a 95% interval at every look stops wrongly far more often
    naive = _stopped_wrongly([LEVEL] * len(looks), means, half).mean()
    assert naive > 2 * alpha


def test_levels_spend_alpha_once_in_all():
    levels = DESIGN.levels()
    assert DESIGN.looks() == list(range(10, 101, 10))
    assert sum(1 - v for v in levels) == pytest.approx(1 - LEVEL)
    assert levels[0] > levels[-1]  # almost nothing spent early
    assert sequential.Design(first=10, batch=10, cap=5).looks() == [5]
    assert sequential.Design(first=10, batch=10, cap=5).levels() == pytest.approx([LEVEL])


class _Normal(Evidence):
    """A mean with a normal-theory interval (the simulation's, with the rule's classification)."""

    def __init__(self, mean, half):
        super().__init__()
        self.mean, self.half = mean, half

    def estimate(self, rng):
        return Estimate(self.mean, self.mean - self.half, self.mean + self.half, "normal")


def test_decided_agrees_with_the_band_geometry():
    looks, means, half = _looks_intervals(40, seed=2)
    claim = {"claim_id": "c", "kind": "magnitude", "published": "0.75", "low": "0.5",
             "high": "1.0", "null": "", "unit": "x", "untestable": ""}
    levels = DESIGN.levels()
    for t in range(len(means)):
        for k, level in enumerate(levels):
            low, high = sequential.widen(means[t, k], means[t, k] - half[t, k],
                                         means[t, k] + half[t, k], level)
            geometric = (low >= BAND[0] and high <= BAND[1]) or low > BAND[1] or high < BAND[0]
            assert sequential.decided(claim, _Normal(means[t, k], half[t, k]), level) == geometric


def _runs(ratios: dict) -> pd.DataFrame:
    """Run rows of two solvers on graph g over 100 sources: b's time is a's times the ratio."""
    rng = np.random.default_rng(3)
    rows = []
    for source in rng.permutation(1000)[:100]:  # draw order, not sorted
        a = rng.uniform(5, 10)
        for solver, ms in (("a", a), *((s, a * r + rng.normal(0, sd)) for s, (r, sd)
                                        in ratios.items())):
            rows.append({"graph": "g", "solver": solver, "variant": solver, "source": source,
                         "trial": 0, "status": "ok", "solve_ms": ms})
    return pd.DataFrame(rows)


def test_a_claims_n_and_stopping_reason_reach_the_ledger(monkeypatch):
    claims = pd.DataFrame([
        {"claim_id": "clear", "target": "t", "where": "Fig. 1", "claim": "b is half a",
         "kind": "magnitude", "published": "0.5", "low": "0.4", "high": "0.6", "null": "1",
         "unit": "x", "subject": "", "untestable": "", "note": "", "document": "d"},
        {"claim_id": "edge", "target": "t", "where": "Fig. 2", "claim": "c is 0.8 of a",
         "kind": "magnitude", "published": "0.8", "low": "0.7", "high": "0.8", "null": "1",
         "unit": "x", "subject": "", "untestable": "", "note": "", "document": "d"},
        {"claim_id": "bench", "target": "t", "where": "Table 3", "claim": "a benchmark's",
         "kind": "magnitude", "published": "0.5", "low": "0.4", "high": "0.6", "null": "1",
         "unit": "x", "subject": "", "untestable": "", "note": "", "document": "d"}])
    monkeypatch.setattr(ledger, "load_claims", lambda document=None: claims)
    runs = _runs({"b": (0.5, 0.01), "c": (0.8, 0.4)})

    def evidence(claims, runs, stats):
        def ratio(solver):
            wide = runs.pivot_table(index="source", columns="solver", values="solve_ms", sort=False)
            return Bootstrap(groups=[wide[[solver, "a"]].to_numpy()], n=f"{len(wide)} sources",
                             statistic=lambda g: float(np.mean(g[0][:, 0] / g[0][:, 1])),
                             reads=(("g", solver), ("g", "a")))
        return {"clear": ratio("b"), "edge": ratio("c"),
                "bench": Bootstrap(groups=[np.array([[0.5], [0.52]])], n="2 blocks",
                                   statistic=lambda g: float(g[0].mean()), reads=("a_table",))}

    target = SimpleNamespace(name="t", evidence=evidence)
    rows = ledger.judge_target(target, runs, {}, design=DESIGN).set_index("claim_id")
    assert rows.loc["clear", "sampled"] == "decided at 10 sources"
    assert rows.loc["clear", "n"] == "10 sources"
    assert rows.loc["clear", "verdict"] == "reproduced"
    assert rows.loc["edge", "sampled"] == "cap (100 sources)"
    assert rows.loc["edge", "n"] == "100 sources"
    assert rows.loc["bench", "sampled"] == "not sampled: reads no run table"
    assert list(rows.columns) == [c for c in ledger.LEDGER_COLUMNS if c != "claim_id"]


def test_prefix_keeps_the_first_sources_in_draw_order():
    runs = pd.DataFrame({"graph": ["g"] * 6 + ["h"] * 2, "source": [7, 3, 7, 3, 9, 9, 1, 2]})
    assert sequential.prefix(runs, 2)["source"].tolist() == [7, 3, 7, 3, 1, 2]
    assert sequential.prefix(runs, 1)["source"].tolist() == [7, 7, 1]
    assert sequential.sources_in(runs) == 3


def test_the_configs_sampling_is_schema_checked_and_sets_the_eyes_sources():
    from graphrepro import configs
    from graphrepro.cli.experiments import _design
    from graphrepro.configcheck import schema_errors
    from graphrepro.errors import InputError

    base = configs.load([])
    assert not schema_errors({**base, "sampling": {"first": 20, "batch": 20, "eye_sources": 3}})
    assert schema_errors({**base, "sampling": {"first": 0}})
    assert schema_errors({**base, "sampling": {"firsts": 5}})
    config = {"measure": {"sources": 8}, "sampling": {"eye_sources": 3},
              "graphs": {"g": {}, "h": {}},
              "targets": {"safari2017_table2": {"graphs": ["g"]},
                          "frontier_sssp": {"graphs": ["h"]}}}
    assert configs.sources_of(config, "g") == 8  # safari2017_table2 decides claims
    assert configs.sources_of(config, "h") == 3  # frontier has goals, no claims: for the eye
    assert configs.sampling_design(config) == sequential.Design()
    assert sequential.Design(first=3, batch=4).looks(12) == [3, 7, 11, 12]
    assert _design("first=5,batch=5,cap=50,drift=0.02") == sequential.Design(5, 5, 50, 0.02)
    with pytest.raises(InputError, match="--sampling"):
        _design("first=5,step=2")


def test_extremes_and_counts_are_not_stopped_on_early():
    from graphrepro.claims.rule import Exact

    claim = {"claim_id": "c", "kind": "magnitude", "published": "5", "low": "4", "high": "6",
             "null": "", "unit": "x", "untestable": ""}
    rng = np.random.default_rng(4)
    minimum = Bootstrap(groups=[rng.uniform(4.5, 5.5, 30)], statistic=lambda g: float(g[0].min()))
    assert sequential.decided(claim, minimum, 0.99) is None  # a minimum only falls with n
    assert sequential.decided(claim, Exact(values=[5, 5, 5]), 0.99) is False  # may yet break
    assert sequential.decided(claim, Exact(values=[5, 9]), 0.99) is True  # broken for good
