"""Terrain data for gerritsen2012: ASCII elevation grids, the z-order conversion of its section
1.5.1, a diamond-square stand-in for the Neuse grid, and grid graphs built from elevations."""

from .asciigrid import AsciiGrid, write_grass_ascii
from .fractal import NEUSE_40FT, diamond_square, write_standin
from .grid import grid_graph
from .morton import decode, encode, padded_side
from .zgrid import convert_array, convert_file, open_zgrid, to_rows

__all__ = ["AsciiGrid", "write_grass_ascii", "NEUSE_40FT", "diamond_square", "write_standin",
           "grid_graph", "decode", "encode", "padded_side", "convert_array", "convert_file",
           "open_zgrid", "to_rows"]
