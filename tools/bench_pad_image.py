"""``pad_image`` (the direct convolutions' padded images, ``codegen/direct_conv.py``) against
numpy's copy of the same samples, with the source in the caches and from memory.

    python tools/bench_pad_image.py [--shape N,C,H,W] [--pad P] [--calls K] [--dtype float32]

Per sample of the batch (RESBLOCK's (32, 32, 32, 32) by default), as the direct kernels call it:
its planes zero-padded by ``P`` on every side into one padded image (its block's slot), and
numpy's ``copyto`` of the sample into the same slot (the bytes without the padding). "From
memory": 40 MB of other arrays are written before each call, so the batch is no longer in the
caches. Medians of ``K`` calls each, alternating in one process (both see the same load), of
the thread's CPU time; each call includes ~0.4-0.9 us a sample of Python and ctypes overhead
that the native step does not have. docs/decisions.md (pad25) quotes it.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from graphcell_ir.backend import loops, nnkernels
from graphcell_ir.backend.codegen import direct_conv as D


def timed(fn, before) -> float:
    """One call of ``fn`` after ``before()``: the thread's CPU time in ms."""
    before()
    t = time.thread_time_ns()
    fn()
    return (time.thread_time_ns() - t) / 1e6


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="32,32,32,32")
    ap.add_argument("--pad", type=int, default=1)
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    a = ap.parse_args(argv)
    n, c, h, w = map(int, a.shape.split(","))
    hp, wp = h + 2 * a.pad, w + 2 * a.pad
    kernels = nnkernels._direct_kernels(loops.namespace(True), a.dtype)
    if kernels is None:
        raise SystemExit("no native code in this process: nothing to time")
    pad = kernels[1]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, h, w)).astype(a.dtype)
    image = np.zeros(D.image_size(c, hp, wp), a.dtype)
    flat = image[:c * h * w]
    other = np.zeros(10 << 20, np.float32)   # 40 MB: more than the L3

    def pads():
        for s in range(n):
            pad(x[s], image, a.pad, a.pad, hp, wp)

    def copies():
        for s in range(n):
            np.copyto(flat, x[s].reshape(-1))

    def evict():
        other[:] += 1.0
    pads(), copies()   # compiled, pages touched
    mb = (x.nbytes + n * image.nbytes) / 1e6
    print(f"{n} samples of {(c, h, w)} padded by {a.pad}, {a.dtype}: {mb:.1f} MB read and "
          f"written; medians of {a.calls} calls, ms")
    for where, before in (("in the caches", lambda: None), ("from memory", evict)):
        times = {"pad_image": [], "numpy copyto": []}
        for _ in range(a.calls):
            times["pad_image"].append(timed(pads, before))
            times["numpy copyto"].append(timed(copies, before))
        row = "  ".join(f"{k} {statistics.median(v):.3f}" for k, v in times.items())
        print(f"  {where:14s} {row}")


if __name__ == "__main__":
    main()
