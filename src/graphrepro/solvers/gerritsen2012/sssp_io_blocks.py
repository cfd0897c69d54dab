"""gerritsen2012 chapter 5 / section 5.6: what the three phases of the I/O-efficient SSSP share.

- ``RecordFile``: fixed-size records, one per I/O-block slot, every transfer counted in an
  ``IOCounter`` (the thesis's per-block files, packed into one file per kind).
- ``Gprime``: a G' directory as phase 1 writes it and phases 2 and 3 read it (the records of
  section 5.6.1, Figure 5.1), with ``block_layout`` / ``slot_table`` for where a boundary vertex
  and a block's records sit, and ``read_distances`` for phase 3's answer.
- ``block_dijkstra``: Dijkstra inside one m x m block (phase 1 per boundary vertex, phase 2's
  source block, phase 3 seeded with the boundary distances).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from ... import atomic
from ...bounded import load_json
from ...errors import InputError
from ...terrain import morton
from ...terrain.blockio import IOCounter
from ..base import INF
from ..heap import heap_push
from ..reference import settle_next
from .types import boundary_cells

GPRIME_FORMAT = "graphrepro gprime 1"
MISSING = -1  # a right/bottom record entry whose neighbour lies outside the grid


# --- fixed-size, counted records ------------------------------------------------------------

class RecordFile:
    """One record of a fixed shape per I/O-block slot, all in one file (record i at i * size).

    ``write`` / ``read`` are counted transfers; kernels that walk records themselves (phase 2)
    get ``array`` (the memmap) and report how many records they touched with ``count_reads``."""

    def __init__(self, path, shape, dtype, slots: int, counter: IOCounter, *, create=False):
        self.path = Path(path)
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.slots = int(slots)
        self.counter = counter
        self.record_bytes = int(np.prod(self.shape)) * self.dtype.itemsize
        if create:
            with atomic.open_file(self.path, "wb") as f:  # never through a planted link
                f.truncate(self.slots * self.record_bytes)
        elif not self.path.is_file() or self.path.stat().st_size != self.slots * self.record_bytes:
            raise InputError(f"{self.path}: missing or not {self.slots} records of "
                             f"{self.record_bytes} bytes (rerun phase 1)")
        self.array = np.memmap(self.path, dtype=self.dtype, mode="r+" if create else "r",
                               shape=(self.slots,) + self.shape)

    def write(self, slot: int, values) -> None:
        t0 = time.perf_counter()
        self.array[slot] = values
        self.counter.write_seconds += time.perf_counter() - t0
        self.counter.block_writes += 1
        self.counter.bytes_written += self.record_bytes

    def read(self, slot: int) -> np.ndarray:
        t0 = time.perf_counter()
        out = np.array(self.array[slot])
        self.counter.read_seconds += time.perf_counter() - t0
        self.counter.block_reads += 1
        self.counter.bytes_read += self.record_bytes
        return out

    def count_reads(self, records: int) -> None:
        self.counter.block_reads += int(records)
        self.counter.bytes_read += int(records) * self.record_bytes

    def flush(self) -> None:
        self.array.flush()


# --- Dijkstra inside one block ----------------------------------------------------------------

@numba.njit(cache=True, nogil=True, inline="always")
def _neighbour_inside(y, x, dy, dx, side):
    """Whether (y + dy, x + dx), dy and dx in -1..1, is one of the 8 neighbours of (y, x) inside
    a side x side square (a block, or the whole padded grid)."""
    return not (dy == 0 and dx == 0) and 0 <= y + dy < side and 0 <= x + dx < side


@numba.njit(cache=True, nogil=True)
def _block_dijkstra(vals, m, seeds, seed_dist, dist, done, heap_key, heap_vertex):
    """Multi-source Dijkstra on the m x m block ``vals`` (flat, row-major), 8 neighbours, weight
    |difference|; ``dist``/``done`` are overwritten. Binary heap with lazy deletion. Returns the
    number of arcs relaxed."""
    n = m * m
    for v in range(n):
        dist[v] = INF
        done[v] = False
    size = 0
    for s in range(len(seeds)):
        v = seeds[s]
        d = seed_dist[s]
        if d < dist[v]:
            dist[v] = d
            size = heap_push(heap_key, heap_vertex, size, d, v)
    relaxed = 0
    while True:
        key, u, size = settle_next(heap_key, heap_vertex, size, dist, done)
        if u < 0:
            break
        r = u // m
        c = u - r * m
        a = vals[u]
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                if not _neighbour_inside(r, c, dr, dc, m):
                    continue
                v = (r + dr) * m + c + dc
                if done[v]:
                    continue
                relaxed += 1
                b = vals[v]
                nd = key + (a - b if a > b else b - a)
                if nd < dist[v]:
                    dist[v] = nd
                    size = heap_push(heap_key, heap_vertex, size, nd, v)
    return relaxed


def _heap_capacity(m: int, seeds: int) -> int:
    return 8 * m * m + seeds + 1  # every push is a decrease along one of <= 8 in-arcs, or a seed


def block_dijkstra(values2d: np.ndarray, seeds, seed_dist) -> np.ndarray:
    """Distances inside one m x m block from several seeds with start distances (phase 3's
    seeded run; a single seed at 0 is the source block's initialisation)."""
    m = values2d.shape[0]
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)
    seed_dist = np.ascontiguousarray(seed_dist, dtype=np.int64)
    dist = np.empty(m * m, dtype=np.int64)
    done = np.empty(m * m, dtype=np.bool_)
    cap = _heap_capacity(m, len(seeds))
    _block_dijkstra(np.ascontiguousarray(values2d, dtype=np.int64).ravel(), m, seeds, seed_dist,
                    dist, done, np.empty(cap, np.int64), np.empty(cap, np.int64))
    return dist


# --- G' on disk: where each block's records and boundary vertices sit ------------------------

def block_layout(m: int) -> tuple[np.ndarray, np.ndarray]:
    """(boundary cells, boundary position of each block cell or -1)."""
    bcells = boundary_cells(m)
    bpos = np.full(m * m, -1, dtype=np.int64)
    bpos[bcells] = np.arange(len(bcells))
    return bcells, bpos


def slot_table(per: int) -> np.ndarray:
    """Record slot of block (bx, by) = its z-order index: records follow the grid file's order."""
    by, bx = np.divmod(np.arange(per * per, dtype=np.int64), per)
    return morton.encode(bx, by).reshape(per, per)


def _distance_dtype(max_value: int, m: int):
    """int32 records where no in-block distance can reach 2^31 (halves G' on disk), else int64."""
    return np.int32 if max_value * (m * m) < 2 ** 31 - 1 else np.int64


@dataclass
class Gprime:
    """A G' directory made by phase 1 (gprime.json says what it holds)."""
    directory: Path
    meta: dict
    counter: IOCounter = field(default_factory=IOCounter)

    @classmethod
    def open(cls, directory, counter: IOCounter | None = None) -> "Gprime":
        directory = Path(directory)
        path = directory / "gprime.json"
        if not path.is_file():
            raise InputError(f"{directory}: no G' there (run phase 1 first)")
        meta = load_json(path)
        if meta.get("partial"):
            raise InputError(f"{directory}: phase 1 ran on some blocks only (a timing run); "
                             "phases 2 and 3 need the whole G'")
        return cls(directory, meta, counter or IOCounter())

    @property
    def m(self) -> int:
        return int(self.meta["m"])

    @property
    def per(self) -> int:
        return int(self.meta["per"])

    def records(self, kind: str, create=False) -> RecordFile:
        m, k, slots = self.m, 4 * self.m - 4, self.per ** 2
        shape, dtype = {"bnd": ((k, k), self.meta["dtype"]), "right": ((m, 3), np.int32),
                        "bottom": ((m, 3), np.int32), "border": ((k,), np.int64),
                        "bdist": ((k,), np.int64), "dist": ((m * m,), np.int64)}[kind]
        return RecordFile(self.directory / f"{kind}.rec", shape, dtype, slots, self.counter,
                          create=create)


def read_distances(directory) -> np.ndarray:
    """Phase 3's answer as one row-major (side x side) int64 array (for checking; not counted)."""
    g = Gprime.open(directory)
    m, per = g.m, g.per
    dist = g.records("dist").array
    slot = slot_table(per)
    out = np.empty((per * m, per * m), dtype=np.int64)
    for by in range(per):
        for bx in range(per):
            out[by * m:(by + 1) * m, bx * m:(bx + 1) * m] = dist[slot[by, bx]].reshape(m, m)
    return out
