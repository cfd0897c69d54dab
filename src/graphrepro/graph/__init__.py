"""Graph storage (CSR), file formats, generators and the statistics of safari2017 Table 1."""

from .csr import CSRGraph, degree_stats
from .formats import read_graph, write_dimacs

__all__ = ["CSRGraph", "degree_stats", "read_graph", "write_dimacs"]
