"""Any graph file the commands take, by extension or content: DIMACS, PACE 2016, SNAP,
MatrixMarket (gzip/xz allowed), our CSR cache or a dense descriptor (.npz), or an elevation grid
(GRASS/ESRI ASCII, GeoTIFF, .npy, .zgrid) as gerritsen2012 section 1.5.1's grid graph.

It lives here, not in the command line, so that packages (mst, experiments) read files without
importing ``graphrepro.cli``.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError


def format_of(path, fmt=None) -> str:
    """The format ``load_graph`` reads ``path`` as: ``fmt`` if given, else what the extension or
    content says ('dem', 'npz', 'dimacs', 'snap', 'mtx', ...)."""
    from ..terrain.dem import is_dem
    from .formats import detect_format

    path = Path(path)
    if fmt:
        return fmt.lower()
    if is_dem(path):
        return "dem"
    return "npz" if path.suffix == ".npz" else detect_format(path)


def load_graph(path, fmt=None, name=None):
    """A graph file in any supported format, or our CSR cache (.npz)."""
    from ..terrain.dem import dem_graph
    from .csr import CSRGraph
    from .formats import read_graph

    path = Path(path)
    fmt = format_of(path, fmt)
    if fmt == "dem":
        return dem_graph(path, name=name)  # gerritsen2012 1.5.1 grid, weights |val(i) - val(j)|
    if fmt == "npz":
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        from .dense import DenseGraph, is_dense_file

        graph = DenseGraph.load(path) if is_dense_file(path) else CSRGraph.load(path)
        if name:
            graph.name = name
        return graph
    return read_graph(path, fmt, name=name)
