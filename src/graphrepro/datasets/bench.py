"""Benchmark (not a test): parse + cache time per million arcs for each input format.

    python -m graphrepro.datasets.bench [--arcs 5000000] [--dir DIR]

A road-like graph of about ``--arcs`` arcs is written in every format the datasets come in
(DIMACS .gr / .gr.gz, SNAP .txt / .txt.gz, MatrixMarket .mtx and SuiteSparse-style .tar.gz), then
each file is parsed into CSR, saved as the .npz cache and loaded back. Also the elevation path: a
GRASS ASCII grid of about as many samples, converted to z-order. Prints seconds per million arcs
(or samples) for each step; the issue's target is a cache load well under a second per million.
"""

from __future__ import annotations

import argparse
import gzip
import io
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..graph.csr import CSRGraph
from ..graph.formats import read_graph, write_dimacs
from ..graph.generate import road_like


def _write_edges(path: Path, header: str, cols: dict) -> None:
    text = header + pd.DataFrame(cols).to_csv(sep="\t", header=False, index=False,
                                               lineterminator="\n")
    data = text.encode()
    if path.name.endswith(".tar.gz"):
        member = path.name[: -len(".tar.gz")]
        with tarfile.open(path, "w:gz", compresslevel=6) as tar:
            info = tarfile.TarInfo(f"{member}/{member}.mtx")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    elif path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(data, compresslevel=6))
    else:
        path.write_bytes(data)


def write_all(graph: CSRGraph, folder: Path) -> dict[str, Path]:
    src = graph.arc_sources().astype(np.int64)
    dst = graph.indices.astype(np.int64)
    files = {}
    for name in ("g.gr", "g.gr.gz"):
        write_dimacs(graph, folder / name)
        files[name] = folder / name
    snap = {"u": src, "v": dst}
    for name in ("g.txt", "g.txt.gz"):
        _write_edges(folder / name, "# road-like benchmark graph\n# FromNodeId\tToNodeId\n", snap)
        files[name] = folder / name
    n, m = graph.num_vertices, graph.num_arcs
    mtx = {"i": src + 1, "j": dst + 1, "w": graph.weights}
    banner = f"%%MatrixMarket matrix coordinate integer general\n{n} {n} {m}\n"
    for name in ("g.mtx", "g.tar.gz"):
        _write_edges(folder / name, banner, mtx)
        files[name] = folder / name
    return files


def run(arcs: int, folder: Path) -> pd.DataFrame:
    graph = road_like(max(16, int(arcs / 2.43)), arcs, seed=1)
    files = write_all(graph, folder)
    rows = []
    for name, path in files.items():
        t0 = time.perf_counter()
        g = read_graph(path, snap_vertices="max_id")
        t1 = time.perf_counter()
        g.save(folder / "cache.npz")
        t2 = time.perf_counter()
        back = CSRGraph.load(folder / "cache.npz")
        t3 = time.perf_counter()
        assert back.num_arcs == graph.num_arcs
        per = 1e6 / graph.num_arcs
        rows.append({"format": name, "MB": path.stat().st_size / 1e6,
                     "parse s/M arcs": (t1 - t0) * per, "save s/M arcs": (t2 - t1) * per,
                     "load s/M arcs": (t3 - t2) * per})
    rows.append(_terrain(int(arcs), folder))
    return pd.DataFrame(rows)


def _terrain(samples: int, folder: Path) -> dict:
    from ..terrain import convert_file, open_zgrid, write_standin

    rows = max(2, int(np.sqrt(samples / 1.4)))
    cols = max(2, samples // rows)
    path = folder / "dem.asc"
    write_standin(path, rows=rows, cols=cols, seed=1)
    t0 = time.perf_counter()
    convert_file(path, folder / "dem.zgrid")
    t1 = time.perf_counter()
    z, _ = open_zgrid(folder / "dem.zgrid")
    int(z[::4096].sum())
    t2 = time.perf_counter()
    per = 1e6 / (rows * cols)
    return {"format": "dem.asc (GRASS)", "MB": path.stat().st_size / 1e6,
            "parse s/M arcs": (t1 - t0) * per, "save s/M arcs": float("nan"),
            "load s/M arcs": (t2 - t1) * per}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m graphrepro.datasets.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arcs", type=int, default=5_000_000)
    p.add_argument("--dir", help="scratch folder (default: a temporary one)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        run(1000, Path(tmp))  # compile and load every kernel outside the timings
        table = run(args.arcs, Path(tmp))
    with pd.option_context("display.float_format", "{:.3f}".format, "display.width", 120):
        print(f"parse + cache, {args.arcs:,} arcs (terrain row: per million samples, parse = "
              f"ASCII to z-order, load = memory map and touch)")
        print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
