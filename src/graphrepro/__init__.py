"""graphrepro: a workflow-managed reproducibility study of GPU graph algorithms."""

__version__ = "0.1.0"
