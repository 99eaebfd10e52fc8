"""Timing helpers shared by the workloads: a warm-up call, then the median (and min) of repeats.

The machine is shared (2 cores, other jobs): a row reports the median and the minimum of
``repeats`` calls so a reader can see the noise.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

REPEATS = 20
SETTLE_SECONDS = 0.3
"""The pause between a row's warm-up call and its timed calls (``--quick``: none): what the
previous rows left running in this process settles first. numpy's threaded OpenBLAS calls
(the numpy rows) leave OpenBLAS's threads spinning for ~0.1-0.2 s on the other core: W1's
graphcell forward, timed right after numpy's, took 2.7-2.8 ms in one process in three and
1.4 ms in the others, and 1.4 ms in every process 0.4 s later."""


@dataclass(frozen=True)
class Timing:
    median: float
    min: float


def measure(f, repeats: int = REPEATS) -> Timing:
    """Time ``f()`` ``repeats`` times after one warm-up call (which compiles) and a pause of
    :data:`SETTLE_SECONDS`."""
    f()
    time.sleep(SETTLE_SECONDS)
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return Timing(float(np.median(ts)), float(np.min(ts)))
