"""Compile frontier's kernel for sm_90 here, without a GPU (not a test): PTX through NVVM, then
ptxas, printing registers, spills and the static shared memory a block takes.

    CUDA_HOME=/usr/local/cuda-13.0 python benchmarks/frontier_ptx.py [--ptxas PATH]

Why: the CUDA simulator accepts code the compiler does not (issue 34 round 2 lost an H100 call to
a shared array sized by an expression), and the static shared memory of a block must stay under
48 KiB. Numba asks the driver (absent here) for the device's compute capability and nvrtc (absent)
for the architectures it supports; both are answered with sm_90 below, which is what an H100 is.
ptxas runs with -c: the grid sync's runtime (cudadevrt) is linked on the GPU machine, not here.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
os.environ.setdefault("NUMBA_FORCE_CUDA_CC", "9.0")

import numba.cuda.cuda_paths as cuda_paths  # noqa: E402
import numba.cuda.cudadrv.nvrtc as nvrtc  # noqa: E402
import numba.cuda.dispatcher as dispatcher  # noqa: E402
from numba import cuda, types  # noqa: E402

SHARED_LIMIT = 48 * 1024  # static shared memory a block may declare


class _H100:
    compute_capability = (9, 0)


dispatcher.get_current_device = lambda: _H100()  # device functions ask the current device
cuda_paths._get_nvrtc_path = lambda: None
nvrtc.get_supported_ccs = lambda: ((9, 0),)

from graphrepro.solvers.frontier import kernel as module  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ptxas", default=os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                                   "bin", "ptxas"))
    args = p.parse_args(argv)
    i64, i32 = types.int64, types.int32

    def a(t):
        return types.Array(t, 1, "C")

    # source, delta, chase, reach, hub, rounds, warp, warp_push, spread, lookahead, chunk,
    # stage_cap; then indptr, indices, weights (int32, as upload_graph sends them), d, inq,
    # queues, head, tail, inflight, words, pool_v, pool_d, pool_lo, totals
    signature = (i64,) * 12 + (a(i64), a(i32), a(i32), a(i64), a(i32), a(i32), a(i64), a(i64),
                               a(i64), a(i64), a(i32), a(i64), a(i64), a(i64))
    failed = False
    for count in (False, True):
        kernel = module.compile_kernel(count)
        ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=(9, 0))
        shared = sum(int(n) for n in re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", ptx))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            r = subprocess.run([args.ptxas, "-arch=sm_90", "-c", "-v", path, "-o",
                                os.path.join(tmp, "k.cubin")], capture_output=True, text=True)
        usage = [line.strip() for line in r.stderr.splitlines()
                 if "registers" in line or "spill" in line or "error" in line.lower()]
        print(f"count={count}: ptxas rc={r.returncode}; static shared {shared:,} bytes "
              f"(limit {SHARED_LIMIT:,}); " + "; ".join(usage))
        failed |= r.returncode != 0 or shared > SHARED_LIMIT
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
