"""Numba kernels that are parallel for big inputs and serial for small ones.

Loading a ``parallel=True`` kernel from numba's cache starts the threading layer, about 0.4 s per
process; for the small stand-ins of the default config that is most of the job. So each kernel is
compiled twice from the same source (the serial copy under its own name, so the two never share
a cache entry) and the call picks by the size of the work.
"""

from __future__ import annotations

import types

import numba

PARALLEL_MIN = 1 << 18  # items of work below which one thread is as fast as starting many


class sized:
    def __init__(self, fn):
        serial = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_serial",
                                    fn.__defaults__, fn.__closure__)
        serial.__qualname__ = fn.__qualname__ + "_serial"
        self.parallel = numba.njit(parallel=True, cache=True)(fn)
        self.serial = numba.njit(cache=True)(serial)
        self.__doc__, self.__name__ = fn.__doc__, fn.__name__

    def __call__(self, size: int, *args):
        return (self.parallel if size >= PARALLEL_MIN else self.serial)(*args)
