"""Timing helpers shared by the workloads: a warm-up call, then the median (and min) of repeats.

The machine is shared (2 cores, other jobs): a row reports the median and the minimum of
``repeats`` calls so a reader can see the noise.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

REPEATS = 20


@dataclass(frozen=True)
class Timing:
    median: float
    min: float


def measure(f, repeats: int = REPEATS) -> Timing:
    """Time ``f()`` ``repeats`` times after one warm-up call (which compiles)."""
    f()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return Timing(float(np.median(ts)), float(np.min(ts)))
