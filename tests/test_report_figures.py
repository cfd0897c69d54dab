"""Figures a reader can read (issue 35): Table 2's counters one panel each with the published
values drawn, singla's published points labelled beside them (the legend right of the axes),
an2017 Fig. 1's x axis in vertices. Drawn from the committed reference run's tables."""

from pathlib import Path

import matplotlib
import pytest

from graphrepro.experiments import get_target, published
from graphrepro.report.tables import load_runs

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RUNS = Path(__file__).resolve().parents[1] / "reports" / "reference" / "runs"


def draw(name, runs, **extra):
    fig, ax = plt.subplots()
    get_target(name).figure(runs, ax, **extra)
    return fig


@pytest.fixture(autouse=True)
def close():
    yield
    plt.close("all")


def test_table2_draws_one_panel_per_counter_with_the_published_values():
    runs = load_runs(sorted(RUNS.glob("*/harish.csv")) + sorted(RUNS.glob("*/lbr.csv")))
    fig = draw("safari2017_table2", runs, published=published("safari2017"))
    titles = [ax.get_title() for ax in fig.axes if ax.axison]
    assert titles == ["kernel launches per host iteration", "host round trips per host iteration",
                      "iterations per solve", "atomic operations per solve"]
    launches = fig.axes[0]
    dashed = sorted(round(line.get_ydata()[0], 3) for line in launches.lines
                    if line.get_linestyle() == "--")
    assert dashed == [1.0, 2.0]  # LBR's 1 and Harish's 2 launches per host iteration
    assert any("published" in t.get_text() for t in launches.texts)
    assert fig.legends and all(ax.get_legend() is None for ax in fig.axes)


def test_an2017_fig1_plots_time_against_vertices():
    runs = load_runs(sorted(RUNS.glob("dense_*/an_bf_dense*.csv")))
    fig = draw("an2017_fig1", runs)
    left = fig.axes[0]
    assert "vertices" in left.get_xlabel()
    xs = sorted({float(x) for line in left.lines for x in line.get_xdata()})
    assert xs and xs[0] >= 256 and all(x == int(x) for x in xs)


def test_table2_with_no_gpu_method_says_so():
    runs = load_runs(sorted(RUNS.glob("ny/dijkstra.csv")))
    fig = draw("safari2017_table2", runs, published=published("safari2017"))
    assert any("no GPU method" in t.get_text() for ax in fig.axes for t in ax.texts)


def test_the_documents_own_numbers_are_drawn_where_they_give_them():
    """Finding 9 of issue 53: an2017 Fig. 1 marks the document's fastest setting (it gives no
    times); senthilkumar's time panel draws the results table's published times."""
    runs = load_runs(sorted(RUNS.glob("dense_*/an_bf_dense*.csv")))
    right = draw("an2017_fig1", runs, published=published("an2017")).axes[1]
    assert [line.get_xdata()[0] for line in right.lines if line.get_linestyle() == ":"] == [4.0]
    from graphrepro.experiments.senthilkumar import TABLE_RUNS

    runs = load_runs([p for v in TABLE_RUNS for p in sorted(RUNS.glob(f"*/{v}.csv"))
                      if p.parent.name in ("msdoor", "amazon0312", "web_google")])
    left = draw("senthilkumar_table", runs, published=published("senthilkumar")).axes[0]
    [paper] = [c for c in left.collections if c.get_label().startswith("paper")]
    assert sorted(float(y) for _, y in paper.get_offsets()) == sorted(
        [1033.0, 768.0, 12.0, 24.0, 23.0, 32.541])
