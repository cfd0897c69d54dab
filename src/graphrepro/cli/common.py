"""What the command families share: --param pairs, graph files, whole-or-nothing writes, and
the arguments every graph or dataset command takes."""

from __future__ import annotations

import csv
import json
import sys

from ..errors import InputError

FORMATS = ("table", "csv", "json")


def format_arg(sp) -> None:
    sp.add_argument("--format", choices=FORMATS, default="table",
                    help="table (aligned, with a header; the default), csv or json")


def print_rows(rows: list[dict], columns: list[str], fmt: str = "table") -> None:
    """A listing on standard output: an aligned table under a header, CSV, or a JSON list."""
    if fmt == "json":
        print(json.dumps([{c: r[c] for c in columns} for r in rows], indent=1))
    elif fmt == "csv":
        out = csv.DictWriter(sys.stdout, columns, extrasaction="ignore", lineterminator="\n")
        out.writeheader()
        out.writerows(rows)
    else:
        widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in columns}
        print("  ".join(c.ljust(widths[c]) for c in columns).rstrip())
        for r in rows:
            print("  ".join(str(r[c]).ljust(widths[c]) for c in columns).rstrip())


def anchor_arg(sp) -> None:
    """--anchor-repeats: the fixed anchors a timing job times before and after its work."""
    sp.add_argument("--anchor-repeats", type=int, default=5, metavar="N",
                    help="time the fixed CPU, GPU and transfer anchors N times each before and "
                         "after the job's work, for the drift between jobs (0: none; config "
                         "measure.anchor_repeats)")


def _params(pairs: list[str] | None) -> dict:
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--param wants KEY=VALUE, got {pair!r}")
        if key in out:
            raise InputError(f"--param {key} given twice")
        out[key] = value
    return out


def load_graph(path, fmt=None, name=None):
    """A graph file in any supported format (graph.load.load_graph, kept here for callers)."""
    from ..graph.load import load_graph as load

    return load(path, fmt, name)


def _mirrors(args):
    """The offline mirrors a data command uses: None (none at all) or the folders given."""
    return None if getattr(args, "no_mirrors", False) else list(getattr(args, "mirror", []) or [])


def _merged_config(paths) -> dict:
    """Config files merged key by key, later ones winning, as snakemake merges --configfile."""
    from ..configs import merge

    return merge(paths)


def graph_args(sp, name=True):
    sp.add_argument("graph", help="a .gr, .txt (SNAP) or .mtx file (gzip allowed), a .npz "
                    "cache, or a DEM grid (GRASS/ESRI ASCII by content, gzip allowed; .npy; "
                    ".zgrid): the 8-neighbour grid of gerritsen2012 1.5.1, ids row-major over "
                    "the padded power-of-two square")
    sp.add_argument("--format", choices=["dimacs", "snap", "mtx", "npz", "dem"],
                    help="override the format the extension or content implies")
    if name:
        sp.add_argument("--name", help="the graph's name in tables (default: the file's stem)")


def data_args(sp):
    sp.add_argument("--data", default="resources/datasets",
                    help="where downloads and stand-in files live (default: %(default)s)")
    sp.add_argument("--mirror", action="append", default=[], metavar="DIR",
                    help="an offline mirror: a folder searched by file name before any URL "
                         "(repeatable; also $GRAPHREPRO_OFFLINE_MIRRORS, os.pathsep-separated)")
    sp.add_argument("--no-mirrors", action="store_true",
                    help="use no offline mirror, not even the environment's (a stand-in by name)")
    sp.add_argument("--registry", default=None,
                    help="the dataset registry (default: config/datasets.yaml)")


def fetched_arg(sp):
    sp.add_argument("--fetched", metavar="RECORD",
                    help="what `fetch-record` found (its JSON): read that file, or build the "
                         "stand-in it names, and look for nothing (no network)")


def _fetched(args, key):
    if not args.fetched:
        return None
    from ..datasets.fetched import read_record

    return read_record(args.fetched, key, args.mode)
