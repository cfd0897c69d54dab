"""Datasets: the registry (config/datasets.yaml), verified downloads, stand-ins and origins."""

from .build import (MODES, build_graph, convert_terrain, fetch, list_datasets, origin_path,
                    standin_graph, state, write_origin)
from .download import DownloadError, download, reachable
from .registry import Dataset, get_dataset, load_registry

__all__ = ["MODES", "build_graph", "convert_terrain", "fetch", "list_datasets", "origin_path",
           "standin_graph", "state", "write_origin", "DownloadError", "download", "reachable",
           "Dataset", "get_dataset", "load_registry"]
