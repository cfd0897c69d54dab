"""Table 3.8 on the whole grid is past mst-io's own Kruskal check (an edge list of billions of
edges): its runs are checked against the grid's minimum spanning tree weight, made apart
without an edge list (``mst_grid_reference``). That weight must be Kruskal's on every grid, ties,
zero padding and odd shapes among them, and a run that weighs otherwise stops the table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from graphrepro import mst
from graphrepro.cli import main
from graphrepro.errors import InputError, VerificationError
from graphrepro.solvers.gerritsen2012.mst_grid_reference import grid_mst_weight
from graphrepro.terrain import convert_array, dem, open_zgrid, to_rows


def kruskal_weight(grid) -> int:
    u, v, w = dem.grid_edges(grid)
    return mst.reference_weight(mst.from_arrays(grid.size, u, v, w))


@pytest.mark.parametrize("seed", range(40))
def test_the_reference_weight_is_kruskals(seed):
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(1, 24, size=2)
    top = int(rng.choice([0, 1, 4, 900, 65535]))
    dtype = rng.choice([np.uint16, np.uint32, np.int64])
    grid = rng.integers(0, top + 1, size=(rows, cols)).astype(dtype)
    if seed % 3 == 0:
        grid[rows // 2:, :] = 0  # a zero plateau, as the padding of a .zgrid
    weight, edges = grid_mst_weight(grid)
    assert weight == kruskal_weight(grid)
    assert edges == rows * cols - 1  # the 8-neighbour grid is connected


def test_the_reference_refuses_what_it_cannot_weigh():
    with pytest.raises(ValueError, match="integer"):
        grid_mst_weight(np.ones((3, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        grid_mst_weight(-np.ones((3, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="overflow"):
        grid_mst_weight(np.full((3, 3), 2**62, dtype=np.int64))
    assert grid_mst_weight(np.zeros((0, 4), dtype=np.uint16)) == (0, 0)


def test_mst_grid_reference_weighs_the_padded_grid(tmp_path):
    values = np.random.default_rng(7).integers(0, 900, (29, 31))
    values[2:6, 3:12] = 5  # ties
    z = tmp_path / "g.zgrid"
    convert_array(values, z, source={})
    out = tmp_path / "ref.csv"
    assert main(["mst-grid-reference", str(z), "--output", str(out)]) == 0
    row = pd.read_csv(out).iloc[0]
    zz, meta = open_zgrid(z)
    padded = to_rows(zz, meta, padded=True)
    assert row["side"] == 32 and row["vertices"] == 1024 and row["edges"] == 1023
    assert row["weight"] == kruskal_weight(padded.astype(np.int64))
    assert out.with_suffix(".provenance.json").is_file()


def _phases(weight, side=32768):
    return pd.DataFrame([{"status": "ok", "phase1_ms": 600_000.0, "phase2_ms": 90_000.0,
                          "phase3_ms": 200_000.0, "edges_digest": "ab", "weight": weight,
                          "side": side, "verified": "spanning tree checked; weight not checked"}])


def _table(cpu, gpu, reference):
    from graphrepro.experiments import get_target, published
    from graphrepro.experiments.gerritsen2012_mst_measured import FULL_REFERENCE, PHASES_FULL

    benchmarks = {PHASES_FULL[0]: cpu, PHASES_FULL[1]: gpu}
    if reference is not None:
        benchmarks[FULL_REFERENCE] = reference
    t = get_target("gerritsen2012_table3_8_full")
    return t.compare(pd.DataFrame(), {}, published("gerritsen2012"),
                     benchmarks=benchmarks).set_index("what")


def test_table3_8_full_checks_each_run_against_the_grids_reference():
    ref = pd.DataFrame([{"grid": "g", "side": 32768, "vertices": 32768**2, "weight": 5,
                         "edges": 32768**2 - 1}])
    table = _table(_phases(5), _phases(5), ref)
    assert table.loc["Phase 1", "note"].endswith(
        "weight = the whole grid's reference (5), spanning tree checked")
    # the GPU run alone (the CPU one still to come): its check is in the total's note
    gpu_only = _table(None, _phases(5), ref)
    assert "the GPU run: weight = the whole grid's reference (5)" in gpu_only.loc["Total", "note"]
    # no reference (an older run): the runs' own check, as before
    assert "weight not checked" in _table(_phases(5), _phases(5), None).loc["Phase 1", "note"]
    with pytest.raises(VerificationError, match="GPU run's tree .* weighs 6"):
        _table(_phases(5), _phases(6), ref)
    with pytest.raises(InputError, match="not the same grid"):
        _table(_phases(5, side=16384), None, ref)
    with pytest.raises(InputError, match="one row with the grid's side and weight"):
        _table(_phases(5), _phases(5), ref.drop(columns="weight"))
