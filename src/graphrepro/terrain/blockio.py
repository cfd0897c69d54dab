"""Explicit, counted block I/O for gerritsen2012's I/O-efficient algorithms (chapters 2 and 4).

The thesis's algorithms are analysed in block transfers: O(scan(N)) for the MST (Table 3.6),
O(N / sqrt(M)) for the SSSP (Table 5.5). So every transfer goes through this module and is
counted, and the bound is measured, not asserted.

- ``ZBlocks`` reads aligned b x b blocks of a converted z-order grid (``.zgrid``, section 1.5.1).
  An aligned block is one contiguous range of the file (that is why the thesis stores z-order),
  so a block read is one slice of the memmap: one counted read of b*b samples.
- ``BlockStore`` is a directory of side files (reduced graphs, dead ends, boundary distances):
  each write and read of one named record is one counted transfer of its bytes.
- ``IOCounter`` holds the counts and the seconds spent in them; both classes share one.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .. import atomic
from ..errors import InputError
from . import morton
from .zgrid import open_zgrid


def bytes_under(directory) -> int:
    """The bytes the files under ``directory`` hold (0 where there is none): the space a run's side
    files take on disk, which the thesis's space bounds count with main memory (section 1.9)."""
    root = Path(directory)
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.is_dir() else 0


@dataclass
class IOCounter:
    block_reads: int = 0
    block_writes: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    read_seconds: float = 0.0
    write_seconds: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)

    def add(self, other: "IOCounter") -> None:
        for key, value in asdict(other).items():
            setattr(self, key, getattr(self, key) + value)


@lru_cache(maxsize=16)
def local_zorder(b: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of each position of a b x b block stored in z-order; b a power of two."""
    x, y = morton.decode(np.arange(b * b, dtype=np.int64))
    x.setflags(write=False)
    y.setflags(write=False)
    return y, x


def _power_of_two(b: int) -> bool:
    return b >= 1 and (b & (b - 1)) == 0


class ZBlocks:
    """Aligned square blocks of a ``.zgrid`` file, read one contiguous slice at a time."""

    def __init__(self, path, counter: IOCounter | None = None):
        self.path = Path(path)
        self.z, self.meta = open_zgrid(self.path)
        self.side = int(self.meta["side"])
        self.rows = int(self.meta["rows"])
        self.cols = int(self.meta["cols"])
        self.counter = counter if counter is not None else IOCounter()

    def blocks_per_side(self, b: int) -> int:
        self._check_side(b)
        return self.side // b

    def _check_side(self, b: int) -> None:
        if not _power_of_two(b) or b > self.side:
            raise InputError(f"{self.path}: block side {b} must be a power of two <= the grid's "
                             f"padded side {self.side}")

    def read_zorder(self, b: int, bx: int, by: int) -> np.ndarray:
        """The block at block column bx, block row by, as stored: b*b samples in local z-order."""
        self._check_side(b)
        per = self.side // b
        if not (0 <= bx < per and 0 <= by < per):
            raise InputError(f"{self.path}: block ({bx}, {by}) outside the {per} x {per} blocks of side {b}")
        start = int(morton.encode1(bx, by)) * b * b
        t0 = time.perf_counter()
        data = np.array(self.z[start:start + b * b])  # the one transfer: a contiguous slice
        self.counter.read_seconds += time.perf_counter() - t0
        self.counter.block_reads += 1
        self.counter.bytes_read += data.nbytes
        return data

    def read(self, b: int, bx: int, by: int) -> np.ndarray:
        """The block as a b x b row-major array (rows are grid rows y = by*b .. by*b+b-1)."""
        data = self.read_zorder(b, bx, by)
        out = np.empty((b, b), dtype=data.dtype)
        r, c = local_zorder(b)
        out[r, c] = data
        return out

    def block_origin(self, b: int, bx: int, by: int) -> tuple[int, int]:
        """(row, col) of the block's top-left sample in the padded grid."""
        return by * b, bx * b

    def zorder_blocks(self, b: int):
        """(bx, by) of every block of side b, in z-order: the order the file holds them."""
        per = self.blocks_per_side(b)
        for k in range(per * per):
            x, y = morton.decode1(k)
            yield int(x), int(y)


class BlockStore:
    """Named records of numpy arrays in a directory; each write or read is one counted transfer.

    Records are written to a temporary name and renamed, so a crash never leaves half a record.
    """

    def __init__(self, directory, counter: IOCounter | None = None):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.counter = counter if counter is not None else IOCounter()

    def _path(self, key: str) -> Path:
        if not key or "/" in key or key.startswith("."):
            raise ValueError(f"bad record name {key!r}")
        return self.directory / f"{key}.npz"

    def write(self, key: str, **arrays) -> None:
        path = self._path(key)
        tmp = path.with_name(path.name + ".part")
        t0 = time.perf_counter()
        with atomic.open_file(tmp, "wb") as fh:  # a link planted at the .part: refused
            np.savez(fh, **arrays)
        os.replace(tmp, path)
        self.counter.write_seconds += time.perf_counter() - t0
        self.counter.block_writes += 1
        self.counter.bytes_written += path.stat().st_size

    def read(self, key: str) -> dict:
        path = self._path(key)
        if not path.is_file():
            raise InputError(f"{path}: no such block record")
        t0 = time.perf_counter()
        with np.load(path) as data:
            arrays = {name: data[name] for name in data.files}
        self.counter.read_seconds += time.perf_counter() - t0
        self.counter.block_reads += 1
        self.counter.bytes_read += path.stat().st_size
        return arrays

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)
