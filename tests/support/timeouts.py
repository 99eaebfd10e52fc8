"""``within(seconds)``: a test that would hang fails instead (SIGALRM; main thread, Unix).

Used by the regression tests of compiles and loops that once never finished, so a regression
fails the test run instead of blocking CI.
"""
from __future__ import annotations

import signal
from contextlib import contextmanager


class TookTooLong(AssertionError):
    """The guarded block ran past its time."""


@contextmanager
def within(seconds: float):
    def expire(signum, frame):
        raise TookTooLong(f"did not finish within {seconds} s")
    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
